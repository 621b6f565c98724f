"""Tests of the benchmark tools: the log generator, the reference detector, the pandas peer.

Run from the repository root: python3 -m pytest -q tools/bench
"""

from __future__ import annotations

import csv
import io
import os
import re
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

import gen_log  # noqa: E402
from reference_detector import detect, detect_naive  # noqa: E402

ROW = re.compile(rb"^-?\d+\.\d{6},-?\d+\.\d{4},-?\d+\.\d{4},-?\d+\.\d{4}(,[01])?$")


def read_log(path):
    """Parses a log strictly per docs/architecture.md, Sensor log CSV; returns (comments, header, rows as text fields)."""
    comments, header, rows = [], None, []
    with open(path, "rb") as f:
        data = f.read()
    assert data.endswith(b"\n")
    for line in data.split(b"\n")[:-1]:
        if not line.strip():
            continue
        if line.startswith(b"#"):
            comments.append(line.decode("utf-8"))
        elif header is None:
            header = line.decode("utf-8").split(",")
        else:
            assert ROW.match(line), line
            rows.append(line.decode("ascii").split(","))
    return comments, header, rows


def generate(tmp_path, *args, name="log.csv"):
    out = tmp_path / name
    assert gen_log.main(["--out", str(out), "--quiet", *args]) == 0
    return out


# --- gen_log.py -----------------------------------------------------------------------------

def test_gen_log_format(tmp_path):
    labels = tmp_path / "labels.csv"
    out = generate(tmp_path, "--rows", "3000", "--seed", "5", "--hit-column",
                   "--device", "test pad", "--labels", str(labels))
    with open(out, "rb") as f:
        first_lines = f.read().split(b"\n")[:5]
    assert first_lines == [b"# drumpad sensor log v1", b"# device: test pad", b"# rate_hz: 250",
                           b"# generator: tools/bench/gen_log.py seed=5", b"t,x,y,z,hit"]
    comments, header, rows = read_log(out)
    assert header == ["t", "x", "y", "z", "hit"]
    assert all(re.match(r"^# [a-z_]+: \S", c) for c in comments[1:])
    assert len(rows) == 3000
    t = np.array([float(r[0]) for r in rows])
    assert np.all(np.diff(t) >= 0)
    assert rows[1][0] == "0.004000" and rows[2999][0] == "11.996000"
    assert [r[0] for r in rows] == [f"{i / 250:.6f}" for i in range(3000)]
    for r in rows:
        for field in r[1:4]:
            assert re.fullmatch(r"-?\d+\.\d{4}", field) and field != "-0.0000"
    z = np.array([float(r[3]) for r in rows])
    assert abs(np.median(z) - 1.0) < 0.05
    hit_rows = [i for i, r in enumerate(rows) if r[4] == "1"]
    assert 10 <= len(hit_rows) <= 60  # 12 s at a strike every ~0.5 s
    with open(labels, newline="") as f:
        label_rows = list(csv.reader(f))
    assert label_rows[0] == ["t"]
    assert [r[0] for r in label_rows[1:]] == [rows[i][0] for i in hit_rows]
    # The default detector fires exactly on the labelled samples.
    assert [i for i, _ in detect(z)] == hit_rows


def test_gen_log_without_hit_column_and_seconds(tmp_path):
    out = generate(tmp_path, "--seconds", "2", "--rate", "100")
    comments, header, rows = read_log(out)
    assert header == ["t", "x", "y", "z"]
    assert "# rate_hz: 100" in comments
    assert len(rows) == 200 and rows[-1][0] == "1.990000"


def test_gen_log_is_deterministic(tmp_path):
    a = generate(tmp_path, "--rows", "2000", "--seed", "9", name="a.csv")
    b = generate(tmp_path, "--rows", "2000", "--seed", "9", name="b.csv")
    c = generate(tmp_path, "--rows", "2000", "--seed", "10", name="c.csv")
    assert a.read_bytes() == b.read_bytes()
    assert a.read_bytes() != c.read_bytes()


@pytest.mark.parametrize("rate", [50.0, 250.0, 1000.0, 333.3])
def test_gen_log_one_hit_per_strike_at_any_rate(rate):
    x, y, z, strikes = gen_log.synthesize(int(60 * rate), rate, seed=2)
    problems, hits, worst = gen_log.check(z, strikes)
    assert problems == []
    assert hits == strikes.size > 0 and worst <= 0.55


def test_gen_log_check_flag(tmp_path):
    out = tmp_path / "checked.csv"
    result = subprocess.run([sys.executable, os.path.join(HERE, "gen_log.py"), "--out", str(out),
                             "--rows", "5000", "--check"], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "gen_log --check: ok" in result.stderr


def test_fixed_formatting_matches_drumpad_rounding():
    values = np.array([0.0, -0.0, -0.00004, 0.00005, -0.00005, 1.5, -12.34567, 0.99995])
    matrix = gen_log.format_fixed(values, 4, 2)
    text = [bytes(row[row != 0]).decode() for row in matrix]
    # Half away from zero on |value| * 10^4, and no sign on a value that rounds to zero.
    assert text == ["0.0000", "0.0000", "0.0000", "0.0001", "-0.0001", "1.5000", "-12.3457",
                    "1.0000"]


# --- reference_detector.py ------------------------------------------------------------------

def steps(length, jumps):
    """A z signal that is flat except for the given {index: jump} steps."""
    z = np.zeros(length)
    for index, jump in jumps.items():
        z[index:] += jump
    return z


@pytest.mark.parametrize("implementation", [detect, detect_naive])
def test_refractory_boundary(implementation):
    # A hit at 5 blocks 6..15; 16 = 5 + R + 1 can fire.
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 15: 1.0}))] == [5]
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 16: 1.0}))] == [5, 16]
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 15: 1.0, 16: -1.0}))] == [5, 16]
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 6: 1.0}), refractory=0)] == [5, 6]
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 9: 1.0}), refractory=3)] == [5, 9]
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 8: 1.0}), refractory=3)] == [5]


@pytest.mark.parametrize("implementation", [detect, detect_naive])
def test_previous_value_updates_during_refractory(implementation):
    # The blocked jump at 12 still moves the previous value, so nothing fires after it.
    assert [i for i, _ in implementation(steps(40, {5: 1.0, 12: 1.0}))] == [5]


@pytest.mark.parametrize("implementation", [detect, detect_naive])
def test_threshold_is_strict(implementation):
    # 0.5 and 0.25 are exact in binary: d = 0.25 is not above a 0.25 threshold.
    assert implementation(steps(20, {3: 0.5}), threshold=0.25) == []
    assert implementation(steps(20, {3: -0.5}), threshold=0.25) == []
    assert implementation(steps(20, {3: 1.0}), threshold=1.0) == []
    assert implementation(steps(20, {3: 0.5}), threshold=0.2499) == [(3, 0.25)]
    hits = implementation(steps(20, {3: 0.7}))
    assert len(hits) == 1 and hits[0][0] == 3 and hits[0][1] == pytest.approx(0.49)


@pytest.mark.parametrize("implementation", [detect, detect_naive])
def test_sample_zero_only_primes(implementation):
    assert implementation(np.full(30, 5.0)) == []          # no delta from an implied 0
    assert implementation([5.0]) == [] and implementation([]) == []
    assert [i for i, _ in implementation([5.0, 0.0, 0.0])] == [1]
    # After a gap the next sample primes too; the refractory count goes on across it.
    z = steps(40, {8: 1.0, 20: 1.0})
    assert [i for i, _ in implementation(z, prime_at=[8])] == [20]
    assert [i for i, _ in implementation(steps(40, {3: 1.0, 10: 1.0, 14: 1.0}),
                                         prime_at=[10])] == [3, 14]


def test_vectorised_matches_naive_on_random_signals():
    rng = np.random.default_rng(1)
    for trial in range(200):
        n = int(rng.integers(0, 300))
        z = np.round(rng.normal(0, rng.uniform(0.1, 1.0), n), 4)
        threshold = float(rng.choice([0.0, 0.1, 0.4, 1.0]))
        refractory = int(rng.integers(0, 15))
        gaps = sorted(set(rng.integers(0, max(n, 1), int(rng.integers(0, 4))).tolist()))
        assert detect(z, threshold, refractory, prime_at=gaps) == \
            detect_naive(z, threshold, refractory, prime_at=gaps), trial


# --- pandas_replay.py -----------------------------------------------------------------------

def run_pandas_replay(path, *args):
    pytest.importorskip("pandas")
    result = subprocess.run([sys.executable, os.path.join(HERE, "pandas_replay.py"), str(path),
                             *args], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "pandas_replay:" in result.stderr
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["index", "t", "strength"]
    return rows[1:]


def reference_hits(path, threshold=0.4, refractory=10):
    """The reference detector over a log read line by line (with `# gap` support)."""
    t_text, z, gaps, header = [], [], [], None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            if line.startswith("#"):
                if header and line[1:].strip() == "gap" and z:
                    gaps.append(len(z))
                continue
            if header is None:
                header = line.split(",")
                continue
            fields = line.split(",")
            t_text.append(fields[header.index("t")])
            z.append(float(fields[header.index("z")]))
    hits = detect(z, threshold, refractory, prime_at=gaps)
    return [[str(i), f"{float(t_text[i]):.6f}", repr(s)] for i, s in hits]


def test_pandas_replay_equals_reference(tmp_path):
    out = generate(tmp_path, "--rows", "20000", "--seed", "3", "--hit-column")
    expected = reference_hits(out)
    assert len(expected) > 50
    assert run_pandas_replay(out) == expected
    # Other settings: more, noisier hits (the ringing and the wobble fire too).
    assert run_pandas_replay(out, "--threshold", "0.01", "--refractory", "3") == \
        reference_hits(out, 0.01, 3)


def test_pandas_replay_handles_gaps_and_column_order(tmp_path):
    log = tmp_path / "gaps.csv"
    log.write_text("# drumpad sensor log v1\n# rate_hz: 100\nz,t\n"
                   "0.0,0.000000\n2.0,0.010000\n# gap\n0.0,0.020000\n0.0,0.030000\n"
                   "\n1.5,0.040000\n# gap\n-3.0,0.050000\n0.0,0.060000\n", encoding="utf-8")
    hits = run_pandas_replay(log, "--refractory", "0")
    assert hits == reference_hits(log, 0.4, 0)
    assert [h[:2] for h in hits] == [["1", "0.010000"], ["4", "0.040000"], ["6", "0.060000"]]


def test_pandas_replay_matches_drumpad(tmp_path):
    # scripts/test builds the debug products before the Python tests run; a release build
    # (tools/bench/run) works as well.
    candidates = [os.path.join(REPO, ".build", kind, "drumpad") for kind in ("debug", "release")]
    built = [c for c in candidates if os.access(c, os.X_OK)]
    if not built:
        pytest.fail("no drumpad built: run `swift build` first (scripts/test does)")
    drumpad = built[0]
    out = generate(tmp_path, "--rows", "20000", "--seed", "4", "--hit-column")
    result = subprocess.run([drumpad, "replay", "--detector", "card", str(out)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    theirs = [r[:2] for r in csv.reader(io.StringIO(result.stdout))][1:]
    assert theirs == [h[:2] for h in run_pandas_replay(out)]


def test_groove_places_strikes_on_the_beat_grid(tmp_path):
    out = generate(tmp_path, "--seconds", "8", "--seed", "2", "--groove", "snare", "--hit-column",
                   "--labels", str(tmp_path / "labels.csv"))
    times = [float(row["t"]) for row in csv.DictReader(open(tmp_path / "labels.csv"))]
    # Snare on beats 2 and 4 of a 100 BPM bar from 1 s: 1.6, 2.8, 4.0, 5.2, 6.4, 7.6 s.
    expected = [1.0 + 0.6 + 1.2 * k for k in range(6)]
    assert len(times) == len(expected)
    assert all(abs(t - e) < 0.02 for t, e in zip(times, expected))
    # And the default detector finds each exactly once.
    assert [float(h[1]) for h in reference_hits(out)] == pytest.approx(times, abs=1e-6)


def test_kit_load_measures_each_kit_in_a_fresh_process():
    brain = os.path.join(REPO, ".build", "debug", "drumbrain")
    if not os.access(brain, os.X_OK):
        pytest.skip("drumbrain is not built")
    script = os.path.join(HERE, "kit-load")
    out = subprocess.run([sys.executable, script, "--runs", "1", "--brain", brain, os.path.join(REPO, "Samples", "kit")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    rows = [line for line in out.stdout.splitlines() if line.startswith("| ") and not line.startswith("| kit | drums")]
    cells = [c.strip() for c in rows[-1].strip("|").split("|")]
    # The bundled kit: 7 drums, nothing left out, a load time and a resident size that are numbers.
    assert cells[0] == "kit" and cells[1] == "7" and cells[2] == "0", rows
    assert float(cells[4].split()[0]) > 0 and float(cells[5].split()[0]) > 5, rows
