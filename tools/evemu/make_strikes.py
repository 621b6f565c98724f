#!/usr/bin/env python3
"""Writes the kernel evdev test's fixtures (Tests/Fixtures/evdev/), deterministically:

- motion-sensor.desc: an evemu description of a pad's motion-sensor node, shaped like a game
  pad's (INPUT_PROP_ACCELEROMETER; ABS_X/Y/Z -32768..32767, fuzz 16, flat 0, resolution 8192
  units per g; MSC_TIMESTAMP). `evemu-device motion-sensor.desc` makes the node.
- strikes.evemu: a recording in evemu-record's format (the same description, then events) to
  play into that node with `evemu-play /dev/input/eventN < strikes.evemu`: 5 s at 250 Hz, each
  sample ABS_X, ABS_Y, ABS_Z, MSC_TIMESTAMP, SYN_REPORT.
- strikes.expected.csv: the sensor log (docs/architecture.md, Sensor log CSV) that a correct `drumpad record` writes
  from that playback: each frame's values after the kernel's fuzz filter (evdev_model.py has
  the model and why), in g (value / 8192), t from MSC_TIMESTAMP unwrapped, 0 at the first frame.

The signal is the first 5 s of Samples/logs/snare-250hz.csv (13 strikes), with four stretches
between strikes replaced by a pad at rest: a constant pose plus a few units of integer noise, so
that consecutive values differ by less than 2 x fuzz and the filter holds, blends or halves them
(in the rest of the log the noise, 0.005 g = 41 units, mostly passes unchanged). MSC_TIMESTAMP
starts 2.501234 s before the u32 counter wraps, so it wraps between frames 625 and 626, and
carries a few µs of jitter, so sample times are not simply 4 ms apart; the evemu event times
(which only pace the playback) are exactly 4 ms apart.

    python3 tools/evemu/make_strikes.py            (rewrites the three files byte for byte)
    python3 tools/evemu/make_strikes.py --out DIR  (writes them elsewhere)
"""

from __future__ import annotations

import argparse
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "tools", "plot"))
import evdev_model as m  # noqa: E402
from drumplot.readers import read_log  # noqa: E402

FIXTURES = os.path.join(REPO, "Tests", "Fixtures", "evdev")
SOURCE_LOG = os.path.join(REPO, "Samples", "logs", "snare-250hz.csv")

DEVICE_NAME = "Drum Pad Test Motion Sensors"
FUZZ = 16
UNITS_PER_G = 8192
RATE_HZ = 250
PERIOD_US = 1_000_000 // RATE_HZ
SECONDS = 5.0
FRAMES = int(SECONDS * RATE_HZ)
#: MSC_TIMESTAMP of frame 0: frame 625 is 1234 µs before the wrap, frame 626 2766 µs after it.
FIRST_TIMESTAMP = m.U32 - 2_501_234
TIMESTAMP_JITTER_US = 3
#: Stretches (seconds, from-to) where the pad rests: none within 0.16 s after a strike (its
#: ringing) or right before one. make() checks this against the source's hit labels.
REST_WINDOWS_S = [(0.0, 0.25), (1.65, 1.95), (2.45, 2.95), (4.15, 4.60)]
REST_NOISE_UNITS = 7.0  # sigma, clipped at 3 sigma: deltas mostly below 2 x fuzz
RINGING_S = 0.16
SEED = 6

DESCRIPTION = f"""\
# EVEMU 1.3
# A drum pad's accelerometer for the kernel evdev test, shaped like a game pad's motion-sensor
# node: INPUT_PROP_ACCELEROMETER; ABS_X/Y/Z in 1/{UNITS_PER_G} g (resolution {UNITS_PER_G} units per g),
# fuzz {FUZZ}; MSC_TIMESTAMP (microseconds, u32, wraps). Written by tools/evemu/make_strikes.py.
# Input device name: "{DEVICE_NAME}"
# Input device ID: bus 0x03 vendor 0x1209 product 0x01 version 0x100
N: {DEVICE_NAME}
I: 0003 1209 0001 0100
P: 40 00 00 00 00 00 00 00
B: 00 0b 00 00 00 00 00 00 00
B: 03 07 00 00 00 00 00 00 00
B: 04 20 00 00 00 00 00 00 00
A: 00 -32768 32767 {FUZZ} 0 {UNITS_PER_G}
A: 01 -32768 32767 {FUZZ} 0 {UNITS_PER_G}
A: 02 -32768 32767 {FUZZ} 0 {UNITS_PER_G}
"""


def source_samples():
    """Raw (x, y, z) units per frame from the source log, and the frames its strikes are on."""
    log = read_log(SOURCE_LOG)
    if log.n < FRAMES or log.x is None or log.y is None or log.labelled is None:
        raise SystemExit(f"{SOURCE_LOG}: expected at least {FRAMES} rows with x, y, z, hit")
    raw = [[round(float(v[k]) * UNITS_PER_G) for v in (log.x, log.y, log.z)] for k in range(FRAMES)]
    strikes = [int(k) for k in log.labelled if k < FRAMES]
    return raw, strikes


def add_rest(raw, strikes, rng: random.Random):
    """Replaces REST_WINDOWS_S by a resting pad (the window's mean pose plus small noise)."""
    limit = 3 * REST_NOISE_UNITS
    for start_s, end_s in REST_WINDOWS_S:
        first, end = round(start_s * RATE_HZ), round(end_s * RATE_HZ)
        near = [k for k in strikes if first - round(RINGING_S * RATE_HZ) <= k < end + 5]
        if near:
            raise SystemExit(f"rest window {start_s}-{end_s} s is too close to strikes at frames {near}")
        pose = [round(sum(raw[k][a] for k in range(first, end)) / (end - first)) for a in range(3)]
        for k in range(first, end):
            raw[k] = [p + round(max(-limit, min(limit, rng.gauss(0.0, REST_NOISE_UNITS)))) for p in pose]


def driver_events(raw, rng: random.Random):
    """What the driver sends: every axis every frame, then MSC_TIMESTAMP and SYN_REPORT."""
    events = []
    for k, (x, y, z) in enumerate(raw):
        time_us = 1 + k * PERIOD_US  # evemu-record starts its clock at 1 µs
        stamp = (FIRST_TIMESTAMP + k * PERIOD_US + rng.randint(-TIMESTAMP_JITTER_US, TIMESTAMP_JITTER_US)) % m.U32
        events += [m.Event(time_us, m.EV_ABS, m.ABS_X, x), m.Event(time_us, m.EV_ABS, m.ABS_Y, y),
                   m.Event(time_us, m.EV_ABS, m.ABS_Z, z),
                   m.Event(time_us, m.EV_MSC, m.MSC_TIMESTAMP, stamp),
                   m.Event(time_us, m.EV_SYN, m.SYN_REPORT, 0)]
    return events


def expected_rows(events):
    """The log a correct reader writes from the node fed with `events`."""
    return m.sensor_rows(m.frames(m.input_core(events, FUZZ)), UNITS_PER_G)


def make():
    """The three fixture files' contents, by file name, and the source's strike frames."""
    rng = random.Random(SEED)
    raw, strikes = source_samples()
    add_rest(raw, strikes, rng)
    events = driver_events(raw, rng)
    recording = (DESCRIPTION + "################################\n"
                 + f"# {FRAMES} frames at {RATE_HZ} Hz from Samples/logs/snare-250hz.csv (0-{SECONDS:g} s), "
                 + "the pad at rest in " + ", ".join(f"{a:g}-{b:g}" for a, b in REST_WINDOWS_S) + " s\n"
                 + "################################\n"
                 + "".join(m.format_event(ev) + "\n" for ev in events))
    expected = m.format_sensor_log(expected_rows(events), [
        ("device", DEVICE_NAME),
        ("rate_hz", str(RATE_HZ)),
        ("source", "Tests/Fixtures/evdev/strikes.evemu played into motion-sensor.desc "
                   "through the kernel's fuzz filter (tools/evemu/make_strikes.py)"),
    ])
    files = {"motion-sensor.desc": DESCRIPTION, "strikes.evemu": recording,
             "strikes.expected.csv": expected}
    return files, strikes


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", default=FIXTURES, help="folder to write into (default: %(default)s)")
    args = parser.parse_args(argv)
    files, strikes = make()
    os.makedirs(args.out, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(args.out, name), "w", encoding="utf-8", newline="\n") as f:
            f.write(text)
    print(f"make_strikes: wrote {', '.join(files)} to {args.out}; "
          f"{FRAMES} frames, strikes at frames {strikes}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
