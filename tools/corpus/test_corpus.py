"""Tests of the labelled corpus generator (tools/corpus): python3 -m pytest tools/corpus"""

import csv
import filecmp
import io
import math
import os
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
import corpus  # noqa: E402

FIXTURES = os.path.join(ROOT, "Tests", "Fixtures", "corpus")
# How the committed fixtures were made (docs/detection.md says the same).
FIXTURE_RUNS = [
    (["dualsense", "joycon", "phone"], 6.0),
    (["adxl345"], 2.5),
]
FIXTURE_SEED = 1


def read_log(text):
    lines = [line for line in text.splitlines() if line and not line.startswith("#")]
    rows = list(csv.DictReader(io.StringIO("\n".join(lines))))
    return {key: np.asarray([float(r[key]) for r in rows]) for key in rows[0]} if rows else {}


def comments(text):
    out = {}
    for line in text.splitlines():
        if line.startswith("# ") and ":" in line:
            key, _, value = line[2:].partition(":")
            out[key.strip()] = value.strip()
    return out


# ---------------------------------------------------------------------------------------------


def test_same_seed_same_bytes_other_seed_other_bytes(tmp_path):
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    args = dict(profiles=["joycon", "phone"], scenarios=["groove", "idle"], seconds=2.0)
    corpus.generate(str(a), seed=5, **args)
    corpus.generate(str(b), seed=5, **args)
    corpus.generate(str(c), seed=6, **args)
    names = sorted(os.listdir(a))
    assert names == sorted(os.listdir(b)) and len(names) == 8
    for name in names:
        assert filecmp.cmp(a / name, b / name, shallow=False), name
    assert not filecmp.cmp(a / "joycon-groove.csv", c / "joycon-groove.csv", shallow=False)


def test_cli_writes_every_pair_with_metadata(tmp_path):
    out = tmp_path / "out"
    subprocess.run([sys.executable, os.path.join(HERE, "generate"), "--out", str(out),
                    "--profiles", "dualsense,adxl345", "--scenarios", "roll", "carried",
                    "--seconds", "2", "--seed", "3", "--quiet"], check=True)
    assert sorted(os.listdir(out)) == sorted(
        f"{p}-{s}{ext}" for p in ("dualsense", "adxl345") for s in ("roll", "carried")
        for ext in (".csv", ".labels.csv"))
    text = (out / "adxl345-roll.csv").read_text()
    assert text.startswith("# drumpad sensor log v1\n")
    meta = comments(text)
    assert meta["device"] == "adxl345" and meta["rate_hz"] == "1600"
    assert meta["profile"] == "adxl345" and meta["scenario"] == "roll" and meta["seed"] == "3"
    labels = (out / "adxl345-roll.labels.csv").read_text().splitlines()
    assert labels[0] == "t,amplitude" and len(labels) > 10
    bad = subprocess.run([sys.executable, os.path.join(HERE, "generate"), "--out", str(out),
                          "--profiles", "nosuch"], capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown profile" in bad.stderr


def test_labels_are_the_strikes_rendered():
    scene = corpus.make_scene("sparse", 12.0, 2)
    assert scene.strikes_t.size >= 8
    x, y, z = corpus.render_physics(scene, 2)
    fs = corpus.INTERNAL_RATE
    for t0, a in zip(scene.strikes_t, scene.strikes_a):
        k = int(round(t0 * fs))
        before = np.mean(z[k - int(0.004 * fs):k])
        dip = np.min(z[k:k + int(0.004 * fs)]) - before
        # The shock: a dip of the labelled amplitude, at the labelled time.
        assert abs(dip + a) < 0.05 * a + 0.05, (t0, a, dip)
    # Nothing strike-like away from the labels: outside 0.2 s after each strike, z stays near 1 g.
    quiet = np.ones(z.size, dtype=bool)
    for t0 in scene.strikes_t:
        k = int(round(t0 * fs))
        quiet[k:k + int(0.2 * fs)] = False
    assert np.max(np.abs(z[quiet] - 1.0)) < 0.1
    # And the labels file says exactly that, on the log's time base.
    r = corpus.render("adxl345", "sparse", 12.0, 2, physics=(x, y, z))
    rows = corpus.format_labels(r).splitlines()
    assert rows[0] == "t,amplitude"
    t = np.asarray([float(row.split(",")[0]) for row in rows[1:]])
    amp = np.asarray([float(row.split(",")[1]) for row in rows[1:]])
    assert np.allclose(t, scene.strikes_t, atol=1e-6) and np.allclose(amp, scene.strikes_a, atol=1e-4)
    # The sensor sees each strike right after its label (within 10 ms at 1.6 kHz).
    for t0, a in zip(t, amp):
        near = (r.t >= t0) & (r.t < t0 + 0.010)
        assert np.min(r.xyz[near, 2]) < 1.0 - 0.3 * min(a, 16.0), (t0, a)


def test_crosstalk_is_rendered_but_never_labelled():
    scene = corpus.make_scene("crosstalk", 12.0, 4)
    assert scene.crosstalk_t.size > scene.strikes_t.size > 3
    for t in scene.crosstalk_t:
        assert np.min(np.abs(scene.strikes_t - t)) > 0.06
    x, y, z = corpus.render_physics(scene, 4)
    fs = corpus.INTERNAL_RATE
    moved = 0
    for t, a in zip(scene.crosstalk_t, scene.crosstalk_a):
        k = int(round(t * fs))
        window = z[k:k + int(0.03 * fs)] - np.mean(z[k - int(0.01 * fs):k])
        peak = np.max(np.abs(window))
        assert peak < 0.13 * a + 0.05        # weaker than the neighbour's strike
        moved += peak > 0.1
    assert moved >= scene.crosstalk_t.size // 2   # and really there
    r = corpus.render("dualsense", "crosstalk", 12.0, 4, physics=(x, y, z))
    assert np.array_equal(r.labels_t, scene.strikes_t)


def test_the_neighbour_pad_is_struck_where_the_crosstalk_comes_from(tmp_path):
    corpus.generate(str(tmp_path), ["dualsense"], ["crosstalk"], 6.0, 4)
    scene = corpus.make_scene("crosstalk", 6.0, 4)
    other = corpus.neighbour_scene(scene)
    # Its strikes are the crosstalk sources; ours leak into it in turn.
    assert np.array_equal(other.strikes_t, scene.crosstalk_t)
    assert np.array_equal(other.crosstalk_t, scene.strikes_t)
    labels = np.loadtxt(tmp_path / "dualsense-crosstalk.neighbour.labels.csv", delimiter=",", skiprows=1)
    assert np.allclose(labels[:, 0], scene.crosstalk_t, atol=1e-6)
    ours = np.loadtxt(tmp_path / "dualsense-crosstalk.csv", delimiter=",", comments="#", skiprows=11)
    theirs = np.loadtxt(tmp_path / "dualsense-crosstalk.neighbour.csv", delimiter=",", comments="#", skiprows=11)
    assert ours.shape == theirs.shape and not np.array_equal(ours[:, 3], theirs[:, 3])
    # The neighbour's own strikes are far stronger on its own sensor than their crosstalk on ours.
    fs = 250.0
    for t in scene.crosstalk_t[:5]:
        k = int(round(t * fs))
        theirs_peak = np.ptp(theirs[k:k + 8, 3])
        ours_peak = np.ptp(ours[k:k + 8, 3])
        assert theirs_peak > 2 * ours_peak


@pytest.mark.parametrize("name", list(corpus.PROFILES))
def test_clipping_and_quantisation(name):
    p = corpus.PROFILES[name]
    scene = corpus.Scene(name="loud", seconds=3.0,
                         strikes_t=np.asarray([0.5, 1.0, 1.5, 2.0]),
                         strikes_a=np.asarray([40.0, 60.0, 80.0, 0.5]))
    r = corpus.render(name, "loud", 3.0, 9, scene=scene)
    assert r.raw.dtype == np.int64
    assert r.raw.min() >= p.raw_min and r.raw.max() <= p.raw_max
    # Clipped at full scale: where the analog signal is far beyond it, the raw value sits on
    # the rail.
    over = r.analog * p.units_per_g
    margin = 6 * p.noise_g * p.units_per_g
    assert np.any((over < p.raw_min - margin) | (over > p.raw_max + margin)), \
        "the test's strikes should exceed the range"
    assert np.all(r.raw[over < p.raw_min - margin] == p.raw_min)
    assert np.all(r.raw[over > p.raw_max + margin] == p.raw_max)
    assert abs(p.raw_min) / p.units_per_g == pytest.approx(p.full_scale_g, rel=1e-3)
    if p.gravity_removed:
        # Gravity gone: the stream sits near 0 g at rest, not 1 g.
        assert abs(np.median(r.xyz[:40, 2])) < 0.05
    else:
        # Quantised: every value written is a whole number of units.
        text = corpus.format_log(r, 9)
        log = read_log(text)
        for axis in "xyz":
            units = log[axis] * p.units_per_g
            assert np.max(np.abs(units - np.rint(units))) < 1e-3
        rails = (p.raw_min / p.units_per_g, p.raw_max / p.units_per_g)
        assert np.min(log["z"]) == pytest.approx(rails[0], abs=1e-6) or \
            np.max(log["z"]) == pytest.approx(rails[1], abs=1e-6)


def test_joycon_reports_come_in_bursts_of_three():
    r = corpus.render("joycon", "groove", 3.0, 1)
    text = corpus.format_log(r, 1)
    assert "t,x,y,z,t_event" in text
    log = read_log(text)
    t_us = np.rint(log["t"] * 1e6).astype(np.int64)
    assert np.all(np.diff(t_us) == 5000)          # MSC_TIMESTAMP: 15 ms / 3 per sample
    te = log["t_event"]
    n = (te.size // 3) * 3
    bursts = te[:n].reshape(-1, 3)
    assert np.all(bursts[:, 0] == bursts[:, 1]) and np.all(bursts[:, 1] == bursts[:, 2])
    gaps = np.diff(bursts[:, 0])
    assert np.all(gaps > 0.015 - 0.006) and np.all(gaps < 0.015 + 0.006)
    assert abs(np.mean(gaps) - 0.015) < 0.001
    last = log["t"][:n].reshape(-1, 3)[:, 2]
    assert np.all(bursts[:, 0] >= last)           # delivered after its last sample
    for other in ("dualsense", "phone", "adxl345"):
        assert "t_event" not in corpus.format_log(corpus.render(other, "idle", 1.5, 1), 1)


@pytest.mark.parametrize("name", list(corpus.PROFILES))
def test_fuzz_filter_only_on_evdev_profiles(name):
    p = corpus.PROFILES[name]
    r = corpus.render(name, "idle", 4.0, 3)
    if not p.evdev:
        assert p.fuzz == 0
        assert np.array_equal(r.seen, r.raw)
        return
    assert p.fuzz in (16, 10)
    assert not np.array_equal(r.seen, r.raw)
    # The kernel's rule, checked on the output: a change of less than fuzz/2 from the last value
    # the reader saw is swallowed; one of 2*fuzz or more passes unchanged.
    half = p.fuzz // 2
    for axis in range(3):
        old, new, out = r.seen[:-1, axis], r.raw[1:, axis], r.seen[1:, axis]
        small = (new > old - half) & (new < old + half)
        assert np.any(small)
        assert np.array_equal(out[small], old[small])
        large = (new <= old - 2 * p.fuzz) | (new >= old + 2 * p.fuzz)
        assert np.array_equal(out[large], new[large])
    # The first frame is filtered against the initial value 0.
    assert np.array_equal(r.seen[0], r.raw[0])


@pytest.mark.parametrize("scenario", ["idle", "carried"])
def test_idle_and_carried_have_no_labels(scenario, tmp_path):
    corpus.generate(str(tmp_path), list(corpus.PROFILES), [scenario], 3.0, 7)
    for name in corpus.PROFILES:
        assert (tmp_path / f"{name}-{scenario}.labels.csv").read_text() == "t,amplitude\n"
    scene = corpus.make_scene(scenario, 3.0, 7)
    assert scene.strikes_t.size == 0 and scene.crosstalk_t.size == 0
    # ...and the pad does move: carried tilts gravity well away from z.
    r = corpus.render("adxl345", scenario, 3.0, 7)
    spread = np.ptp(r.xyz[:, 2])
    assert spread > (0.2 if scenario == "carried" else 0.02)


def test_scenarios_have_what_they_promise():
    groove = corpus.make_scene("groove", 20.0, 1)
    a = groove.strikes_a
    assert np.any(a < 1.0) and np.any(a > 4.0)           # ghost notes and accents
    roll = corpus.make_scene("roll", 20.0, 1)
    gaps = np.diff(roll.strikes_t)
    inside = gaps[gaps < 0.2]
    assert inside.size > 20
    assert 1 / 0.105 <= 1 / np.median(inside) <= 1 / 0.058   # 10-16 strokes/s (with jitter)
    sparse = corpus.make_scene("sparse", 40.0, 1)
    assert sparse.strikes_a.max() / sparse.strikes_a.min() > 10


def test_fixtures_are_committed_and_regenerate_identically(tmp_path):
    if not os.path.isdir(FIXTURES):
        pytest.skip("no Tests/Fixtures/corpus")
    expected = sorted(f"{p}-{s}{pad}{ext}" for p in corpus.PROFILES for s in corpus.SCENARIOS
                      for pad in (("", ".neighbour") if s == "crosstalk" else ("",))
                      for ext in (".csv", ".labels.csv"))
    present = sorted(n for n in os.listdir(FIXTURES) if n.endswith(".csv"))
    assert present == expected
    total = sum(os.path.getsize(os.path.join(FIXTURES, n)) for n in present)
    assert total < 2_500_000
    for profiles, seconds in FIXTURE_RUNS:
        corpus.generate(str(tmp_path), profiles, list(corpus.SCENARIOS), seconds, FIXTURE_SEED)
    for name in expected:
        assert filecmp.cmp(tmp_path / name, os.path.join(FIXTURES, name), shallow=False), name


def test_the_long_fixture_regenerates_identically(tmp_path):
    # Tests/Fixtures/corpus-long: 30 s of the phone's rolls, seed 19 (CorpusFixtureTests).
    long = os.path.join(ROOT, "Tests", "Fixtures", "corpus-long")
    if not os.path.isdir(long):
        pytest.skip("no Tests/Fixtures/corpus-long")
    assert sorted(os.listdir(long)) == ["phone-roll.csv", "phone-roll.labels.csv"]
    corpus.generate(str(tmp_path), ["phone"], ["roll"], 30.0, 19)
    for name in ("phone-roll.csv", "phone-roll.labels.csv"):
        assert filecmp.cmp(tmp_path / name, os.path.join(long, name), shallow=False), name


def test_score_prints_a_table(tmp_path):
    drumpad = os.path.join(ROOT, ".build", "debug", "drumpad")
    if not os.access(drumpad, os.X_OK):
        pytest.skip("drumpad is not built")
    corpus.generate(str(tmp_path), ["dualsense", "phone"], ["sparse", "idle"], 3.0, 1)
    out = subprocess.run([sys.executable, os.path.join(HERE, "score"), str(tmp_path),
                          "--drumpad", drumpad], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "| profile | sparse | idle |" in lines
    row = next(line for line in lines if line.startswith("| dualsense |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert len(cells[1].split(" / ")) == 3
    assert cells[2].endswith("false hits") or cells[2].endswith("false hit")


def test_score_cancels_crosstalk_with_the_neighbour_log(tmp_path):
    drumpad = os.path.join(ROOT, ".build", "debug", "drumpad")
    if not os.access(drumpad, os.X_OK):
        pytest.skip("drumpad is not built")
    # The DualSense: at 1.6 kHz the detector's bump test alone already rejects most crosstalk.
    corpus.generate(str(tmp_path), ["dualsense"], ["crosstalk"], 4.0, 1)
    script = os.path.join(HERE, "score")

    def precision(*more):
        out = subprocess.run([sys.executable, script, str(tmp_path), "--drumpad", drumpad, *more,
                              "--", "--detector", "adaptive"], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr
        row = next(line for line in out.stdout.splitlines() if line.startswith("| dualsense |"))
        assert "crosstalk.neighbour" not in out.stdout
        return float(row.strip("|").split("|")[1].split("/")[0]), out.stdout

    alone, _ = precision("--no-neighbours")
    together, text = precision()
    assert "replayed with --neighbour" in text
    assert alone < 0.7 and together > 0.95


def test_spearman_ranks_ties_and_correlates():
    score = _load_script("score")
    assert list(score.ranks([10, 20, 20, 5])) == [2, 3.5, 3.5, 1]
    assert score.spearman([1, 2, 3, 4], [10, 20, 30, 40]) == 1.0
    assert score.spearman([1, 2, 3, 4], [40, 30, 20, 10]) == -1.0
    assert score.spearman([1, 2], [1, 2]) is None
    # Matching: the nearest hit within 10 ms per label; the far one is not matched.
    hits = "index,t,strength,velocity\n1,1.002,0,0.2\n2,2.001,0,0.5\n3,3.000,0,0.9\n4,5.0,0,0.1\n"
    assert score.velocity_correlation(hits, [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0), (4.0, 4.0)], 250) == 1.0
    # Where drumpad writes `struck` (the strike's time by the detector), that is what is matched,
    # not the row's `t`: here every `t` is 50 ms off and no hit would match.
    hits = "index,t,strength,velocity,struck\n1,1.050,0,0.2,1.002\n2,2.050,0,0.5,2.001\n3,3.050,0,0.9,3.000\n"
    assert score.velocity_correlation(hits, [(1.0, 1.0), (2.0, 2.0), (3.0, 3.0)], 250) == 1.0


def _load_script(name):
    import importlib.machinery, importlib.util
    loader = importlib.machinery.SourceFileLoader(name, os.path.join(HERE, name))
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def test_bounds_measures_jumps_and_departures():
    bounds = _load_script("bounds")
    t = np.arange(10) * 0.01  # 100 Hz
    z = np.array([0.0, 0.0, 0.1, 0.5, -0.2, 0.0, 0.0, 0.0, 0.3, 0.3])
    assert list(bounds.jumps(z)) == pytest.approx([0, 0, 0.1, 0.4, 0.7, 0.2, 0, 0, 0.3, 0])
    # From an onset at 20 ms, 30 ms on: samples 2, 3, 4 -> the largest jump is 0.7.
    assert list(bounds.largest_after(t, z, [0.02])) == pytest.approx([0.7])
    # Second differences: |0.5 - 0.2 + 0| = 0.3 at sample 3, |-0.2 - 1.0 + 0.1| = 1.1 at 4, ...
    assert list(bounds.second_differences(z)) == pytest.approx([0, 0, 0.1, 0.3, 1.1, 0.9, 0.2, 0, 0.3, 0.3])
    assert list(bounds.largest_after(t, z, [0.02], feature=bounds.second_differences)) == pytest.approx([1.1])
    # Departure from the level before the onset (sample 1, 0.0) within 25 ms: |0.5|.
    assert list(bounds.peak_departure(t, z, [0.015])) == pytest.approx([0.5])
    # From the level 0.0 before 75 ms: samples 8 and 9 depart by 0.3.
    assert list(bounds.peak_departure(t, z, [0.075])) == pytest.approx([0.3])
    assert bounds.f1_ceiling(10, 0) == 1.0
    assert bounds.f1_ceiling(10, 5) == pytest.approx(2 * 0.5 / 1.5)
    assert bounds.spearman([1, 2, 3], [3, 2, 1]) == -1.0


def test_bounds_prints_both_tables_and_finds_the_phone_hides_strikes():
    out = subprocess.run([sys.executable, os.path.join(HERE, "bounds"), "--profiles", "adxl345,phone",
                          "--seeds", "14", "--seconds", "10"], capture_output=True, text=True, check=True)
    assert "bounds: [10/10] phone crosstalk, seed 14" in out.stderr
    detection, velocity = out.stdout.split("Velocity ceiling")
    rows = {line.split("|")[1].strip(): line for line in detection.splitlines() if line.startswith("| ")}
    # Detection: the ADXL345 hides no strike under a carried pad's jumps; the phone's sparse
    # strikes of seed 14 include some that a carried phone's walking out-jumps.
    assert rows["adxl345"].count("→ F1 ≤ 1.000") == 8  # jumps and second differences, 4 scenarios
    sparse = rows["phone"].split("|")[5]
    hidden, strikes = map(int, sparse.split("→")[0].strip().split("/"))
    assert 0 < hidden < strikes
    # Velocity: three rhos per cell (band / sampled / logged), the band's near 1 on the ADXL345.
    adxl = [line for line in velocity.splitlines() if line.startswith("| adxl345 |")][0]
    groove = [float(v) for v in adxl.split("|")[2].split("/")]
    assert len(groove) == 3 and groove[0] >= 0.95
    bad = subprocess.run([sys.executable, os.path.join(HERE, "bounds"), "--profiles", "iphone"],
                         capture_output=True, text=True)
    assert bad.returncode != 0 and "unknown profile 'iphone'" in bad.stderr


def test_table_prints_both_readme_tables(tmp_path):
    drumpad = os.path.join(ROOT, ".build", "debug", "drumpad")
    if not os.access(drumpad, os.X_OK):
        pytest.skip("drumpad is not built")
    script = os.path.join(HERE, "table")
    work = tmp_path / "work"
    args = [sys.executable, script, "--seeds", "1", "2", "--seconds", "4", "--profiles", "dualsense",
            "--scenarios", "sparse,crosstalk,idle", "--work", str(work), "--drumpad", drumpad]
    out = subprocess.run(args, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert "table: seed 1: generating 3 logs of 4 s" in out.stderr
    f1, rho = out.stdout.strip().split("\n\n")
    lines = f1.splitlines()
    assert lines[0] == ("| profile | detector | sparse | crosstalk, with the neighbour, 30 ms buffer | "
                        "crosstalk, pad alone | idle |")
    default, adaptive = lines[2], lines[3]
    assert default.startswith("| DualSense 250 Hz | default |") and adaptive.startswith("|  | adaptive |")
    cells = [c.strip() for c in adaptive.strip("|").split("|")]
    # Two seeds per cell; the adaptive detector finds the DualSense's sparse strikes, cancels the
    # crosstalk with its neighbour and not without it, and keeps the idle pad silent.
    sparse, together, alone, idle = (cells[2].split(" · "), cells[3].split(" · "), cells[4].split(" · "),
                                     cells[5].split(" · "))
    assert all(float(v) == 1.0 for v in sparse + together) and all(float(v) < 0.8 for v in alone)
    assert idle == ["0", "0"]
    assert rho.splitlines()[0] == "| profile | sparse | crosstalk |"
    # A second run reuses the logs and prints the same tables.
    again = subprocess.run(args, capture_output=True, text=True)
    assert "reusing the logs" in again.stderr and again.stdout == out.stdout
    missing = subprocess.run([sys.executable, script, "--drumpad", str(tmp_path / "nothing")],
                             capture_output=True, text=True)
    assert missing.returncode != 0 and "no drumpad at" in missing.stderr
