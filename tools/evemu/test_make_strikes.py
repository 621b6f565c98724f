"""Tests of the kernel evdev test's model, fixtures and checker (no VM: scripts/kernel-evdev runs that).

    python3 -m pytest tools/evemu        (about 2 s)
"""

import os
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "bench"))
import check_record  # noqa: E402
import evdev_model as m  # noqa: E402
import make_strikes  # noqa: E402
from reference_detector import detect  # noqa: E402


# ---------------------------------------------------------------------------------------------
# The fuzz filter, against cases worked by hand from drivers/input/input.c (fuzz 16: the bands
# are |d| < 8 hold, < 16 blend 3:1, < 32 halve, else pass; C division truncates toward zero).

@pytest.mark.parametrize("old, new, filtered", [
    (100, 100, 100),
    (100, 107, 100),     # |d| 7 < 8: the old value stays
    (100, 93, 100),
    (100, 108, 102),     # |d| 8: (300 + 108) / 4 = 102
    (100, 92, 98),       # (300 + 92) / 4 = 98
    (100, 115, 103),     # 415 / 4 = 103.75 -> 103
    (100, 116, 108),     # |d| 16: (100 + 116) / 2 = 108
    (100, 131, 115),     # 231 / 2 = 115.5 -> 115
    (100, 132, 132),     # |d| 32: passes
    (100, 68, 68),
    (-100, -115, -103),  # -415 / 4 = -103.75 -> -103 in C (Python's // would give -104)
    (-100, -131, -115),  # -231 / 2 = -115.5 -> -115 in C (// gives -116)
    (0, -9, -2),         # -9 / 4 = -2.25 -> -2
    (0, -16, -8),        # a first value near 0 is halved toward it
    (8192, 8199, 8192),
])
def test_defuzz_matches_hand_computed_cases(old, new, filtered):
    assert m.defuzz(new, old, 16) == filtered


def test_defuzz_without_fuzz_passes_everything():
    assert m.defuzz(101, 100, 0) == 101


def frame(time_us, x, y, z, stamp):
    return [m.Event(time_us, m.EV_ABS, m.ABS_X, x), m.Event(time_us, m.EV_ABS, m.ABS_Y, y),
            m.Event(time_us, m.EV_ABS, m.ABS_Z, z), m.Event(time_us, m.EV_MSC, m.MSC_TIMESTAMP, stamp),
            m.Event(time_us, m.EV_SYN, m.SYN_REPORT, 0)]


def test_input_core_drops_axes_whose_filtered_value_does_not_change():
    sent = frame(1, 100, 200, 8192, 10) + frame(2, 104, 240, 8192, 20)
    got = m.input_core(sent, fuzz=16)
    # Frame 2: x 104 is held at 100 and z is unchanged, so only y (240) goes out.
    assert [(e.type, e.code, e.value) for e in got[5:]] == [
        (m.EV_ABS, m.ABS_Y, 240), (m.EV_MSC, m.MSC_TIMESTAMP, 20), (m.EV_SYN, m.SYN_REPORT, 0)]


def test_input_core_drops_a_sync_with_nothing_in_its_frame():
    sent = [m.Event(1, m.EV_ABS, m.ABS_X, 3), m.Event(1, m.EV_SYN, m.SYN_REPORT, 0)]
    assert m.input_core(sent, fuzz=16) == []


def test_frames_keep_axes_not_sent_and_read_the_timestamp_as_u32():
    events = frame(1, 5, 6, 7, -2) + [m.Event(2, m.EV_ABS, m.ABS_Z, 9),
                                     m.Event(2, m.EV_MSC, m.MSC_TIMESTAMP, 3),
                                     m.Event(2, m.EV_SYN, m.SYN_REPORT, 0)]
    assert m.frames(events) == [m.Frame(m.U32 - 2, 5, 6, 7), m.Frame(3, 5, 6, 9)]


@pytest.mark.parametrize("events, message", [
    ([m.Event(1, m.EV_ABS, m.ABS_X, 1), m.Event(1, m.EV_SYN, m.SYN_REPORT, 0)], "no MSC_TIMESTAMP"),
    ([m.Event(1, m.EV_SYN, m.SYN_DROPPED, 0)], "SYN_DROPPED"),
])
def test_frames_refuse_streams_that_are_not_whole(events, message):
    with pytest.raises(ValueError, match=message):
        m.frames(events)


def test_unwrap_goes_through_the_u32_wrap():
    assert m.unwrap_us([m.U32 - 10, m.U32 - 2, 5, 4005]) == [0, 8, 15, 4015]


def test_event_lines_round_trip_with_the_kernels_signed_values():
    ev = m.Event(2_500_001, m.EV_MSC, m.MSC_TIMESTAMP, m.U32 - 1234)
    assert m.format_event(ev) == "E: 2.500001 0004 0005 -1234"
    parsed = list(m.parse_events(m.format_event(ev) + "\t# EV_MSC / MSC_TIMESTAMP -1234\n"))
    assert parsed == [m.Event(2_500_001, m.EV_MSC, m.MSC_TIMESTAMP, -1234)]
    assert m.frames(parsed + [m.Event(2_500_001, m.EV_SYN, m.SYN_REPORT, 0)])[0].timestamp == m.U32 - 1234


def test_evemu_records_zero_padded_values_are_decimal():
    # evemu-record prints values with %04d: "0043" is 43, not octal.
    assert next(m.parse_events("E: 0.000001 0003 0001 0043\n")).value == 43
    assert next(m.parse_events("E: 0.000001 0003 0001 -016\n")).value == -16


# ---------------------------------------------------------------------------------------------
# The fixtures

@pytest.fixture(scope="module")
def made():
    files, strikes = make_strikes.make()
    return files, strikes


def test_fixtures_are_what_the_generator_writes(made):
    files, _ = made
    for name, text in files.items():
        with open(os.path.join(make_strikes.FIXTURES, name), encoding="utf-8") as f:
            assert f.read() == text, f"{name} is stale: run python3 tools/evemu/make_strikes.py"


@pytest.fixture(scope="module")
def played(made):
    files, _ = made
    events = list(m.parse_events(files["strikes.evemu"]))
    return events, m.input_core(events, make_strikes.FUZZ)


def test_every_frame_sends_all_axes_then_the_timestamp_4_ms_apart(played):
    events, _ = played
    assert len(events) == 5 * make_strikes.FRAMES
    for k in range(make_strikes.FRAMES):
        group = events[5 * k:5 * k + 5]
        assert [(e.type, e.code) for e in group] == [
            (m.EV_ABS, m.ABS_X), (m.EV_ABS, m.ABS_Y), (m.EV_ABS, m.ABS_Z),
            (m.EV_MSC, m.MSC_TIMESTAMP), (m.EV_SYN, m.SYN_REPORT)]
        assert {e.time_us for e in group} == {1 + 4000 * k}


def test_the_timestamp_wraps_once_near_the_middle(played):
    events, _ = played
    stamps = [e.value % m.U32 for e in events if e.type == m.EV_MSC]
    wraps = [k for k in range(1, len(stamps)) if stamps[k] < stamps[k - 1]]
    assert wraps == [626]
    assert stamps[0] > m.U32 - 3_000_000
    steps = np.diff(m.unwrap_us(stamps))
    assert steps.min() >= 4000 - 6 and steps.max() <= 4000 + 6 and len(set(steps.tolist())) > 5


def test_the_fuzz_filter_matters_in_every_band(played):
    events, delivered = played
    sent = m.frames(events)
    seen = m.frames(delivered)
    bands = {"hold": 0, "blend": 0, "halve": 0, "pass": 0}
    for k in range(1, len(sent)):
        for axis in ("x", "y", "z"):
            d = abs(getattr(sent[k], axis) - getattr(seen[k - 1], axis))
            bands["hold" if d < 8 else "blend" if d < 16 else "halve" if d < 32 else "pass"] += 1
    assert min(bands.values()) >= 100, bands
    changed = sum(s != f for s, f in zip(sent, seen))
    assert changed > 300  # frames whose delivered values differ from the sent ones


def test_the_expected_log_is_the_played_stream_in_g_from_time_zero(made, played):
    files, _ = made
    _, delivered = played
    path = os.path.join(make_strikes.FIXTURES, "strikes.expected.csv")
    rows, metadata, problems = check_record.rows_of_log(path)
    assert problems == []
    assert ("device", make_strikes.DEVICE_NAME) in metadata
    assert len(rows) == make_strikes.FRAMES and rows[0, 0] == 0.0
    assert abs(rows[-1, 0] - 4.996) < 20e-6
    raw = np.array([(f.x, f.y, f.z) for f in m.frames(delivered)])
    assert np.abs(rows[:, 1:] - raw / 8192).max() < 1e-7


def test_the_expected_log_fires_exactly_the_source_strikes(made):
    _, strikes = made
    rows, _, _ = check_record.rows_of_log(os.path.join(make_strikes.FIXTURES, "strikes.expected.csv"))
    assert [index for index, _ in detect(rows[:, 3])] == strikes
    assert len(strikes) == 13


# ---------------------------------------------------------------------------------------------
# The checker

@pytest.fixture(scope="module")
def expected():
    return check_record.rows_of_log(os.path.join(make_strikes.FIXTURES, "strikes.expected.csv"))[0]


def evemu_record_text(delivered):
    """What evemu-record prints for these events: a header, then %04d values and comments."""
    lines = ["# EVEMU 1.3", "N: Drum Pad Test Motion Sensors", "################################"]
    for e in delivered:
        value = e.value - m.U32 if e.value >= 1 << 31 else e.value
        lines.append(f"E: {e.time_us // 1_000_000}.{e.time_us % 1_000_000:06d} {e.type:04x} {e.code:04x} "
                     f"{value:04d}\t# comment")
    return "\n".join(lines) + "\n"


def test_checker_accepts_a_recording_of_the_model(tmp_path, played, expected):
    _, delivered = played
    path = tmp_path / "rec.evemu"
    path.write_text(evemu_record_text(delivered))
    assert check_record.check_evemu_record(str(path), expected) == []


def test_checker_names_lost_frames(tmp_path, played, expected):
    _, delivered = played
    path = tmp_path / "rec.evemu"
    syncs = [k for k, e in enumerate(delivered) if e.type == m.EV_SYN]
    path.write_text(evemu_record_text(delivered[syncs[39] + 1:]))  # the first 40 frames never arrived
    problems = check_record.check_evemu_record(str(path), expected)
    assert "1210 rows, expected 1250" in problems[0]
    assert "the first 40 frames are missing" in problems[0]


def test_checker_names_each_differing_value(expected):
    actual = expected.copy()
    actual[7, 2] += 2 / 8192
    actual[9, 0] += 3e-6
    problems = check_record.compare_rows(actual, expected, "rec.csv")
    assert problems[0].startswith("rec.csv: 2 of 1250 rows differ")
    assert "row 7" in problems[1] and "y " in problems[1] and "off by 0.000244" in problems[1]
    assert "row 9" in problems[2] and "t " in problems[2]


def write_run(folder, rec_csv, devices_stdout, node="/dev/input/event1"):
    files = {"node": node + "\n", "devices.stdout": devices_stdout, "devices.rc": "0\n",
             "record.rc": "0\n", "rec.csv": rec_csv}
    for name, text in files.items():
        (folder / name).write_text(text)


def test_checker_accepts_a_good_run_and_names_what_a_bad_one_lacks(tmp_path, made, expected):
    files, _ = made
    listing = "/dev/input/event0\tAT Translated Set 2 keyboard\n/dev/input/event1\tDrum Pad Test Motion Sensors\n"
    write_run(tmp_path, files["strikes.expected.csv"], listing)
    assert check_record.check_run(str(tmp_path), expected) == []

    rec = files["strikes.expected.csv"].replace("# device: Drum Pad Test Motion Sensors\n", "")
    write_run(tmp_path, rec, "/dev/input/event0\tAT Translated Set 2 keyboard\n")
    problems = check_record.check_run(str(tmp_path), expected)
    assert len(problems) == 2
    assert "printed no line with both /dev/input/event1" in problems[0]
    assert "no `# device:` comment" in problems[1]
