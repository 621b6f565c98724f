"""Tests of tools/bench/jitter: its onset finder, matching and phrase-wise jitter on made-up
recordings whose answer is known, and one short take through the brain's WAV output.

Run from the repository root: python3 -m pytest -q tools/bench
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import struct
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))

_loader = importlib.machinery.SourceFileLoader("jitter_tool", os.path.join(HERE, "jitter"))
_spec = importlib.util.spec_from_loader("jitter_tool", _loader)
jitter = importlib.util.module_from_spec(_spec)
_loader.exec_module(jitter)

RATE = jitter.RATE


def recording(onset_seconds, seconds, velocity=0.3):
    """Stereo silence with a 12-sample click at each onset."""
    samples = np.zeros((int(seconds * RATE), 2))
    for t in onset_seconds:
        start = int(round(t * RATE))
        samples[start:start + 12] = velocity * np.sin(np.pi * (np.arange(12) + 0.5) / 12)[:, None]
    return samples


def test_onsets_are_found_to_the_sample_and_close_clicks_stay_apart():
    times = [0.5, 0.5021, 1.0, 1.25]  # two 2.1 ms apart: both found
    found = jitter.onsets(recording(times, 2))
    assert len(found) == 4
    assert np.allclose(found, np.round(np.array(times) * RATE) / RATE, atol=0.5 / RATE)


def test_a_steady_latency_matches_every_hit_with_no_jitter_or_drift():
    refs = np.arange(0.2, 9.0, 0.13)
    heard = jitter.onsets(recording(refs + 0.0213, 10))
    times, deviations, extra = jitter.match(refs, heard)
    assert len(times) == len(refs) and extra == 0
    figures = jitter.jitter(times, deviations)
    assert figures["p99"] < 0.03 and figures["max"] < 0.03  # ms: within a sample
    assert abs(figures["ppm"]) < 5


def test_an_uneven_hit_a_drift_and_a_step_inside_a_phrase_are_seen():
    refs = np.arange(0.2, 9.0, 0.1)
    late = refs + 0.020
    late[40] += 0.003                        # one hit 3 ms late
    heard = jitter.onsets(recording(late, 10))
    times, deviations, _ = jitter.match(refs, heard)
    figures = jitter.jitter(times, deviations)
    assert figures["max"] == pytest.approx(3.0, abs=0.05)
    assert figures["p50"] < 0.03
    # 500 ppm of drift: 4.4 ms over the take.
    drifting = refs + 0.020 + (refs - refs[0]) * 500e-6
    times, deviations, _ = jitter.match(refs, jitter.onsets(recording(drifting, 10)))
    figures = jitter.jitter(times, deviations)
    assert figures["ppm"] == pytest.approx(500, abs=10)
    # A 5 ms step with no pause around it is jitter; the same step across a 1.5 s pause is not.
    stepped = refs + 0.020 + np.where(refs > 4.5, 0.005, 0)
    figures = jitter.jitter(*jitter.match(refs, jitter.onsets(recording(stepped, 10)))[:2])
    assert figures["max"] == pytest.approx(5.0, abs=0.05) and figures["phrases"] == 1
    paused = refs[(refs < 4.0) | (refs > 5.5)]
    stepped = paused + 0.020 + np.where(paused > 4.5, 0.005, 0)
    figures = jitter.jitter(*jitter.match(paused, jitter.onsets(recording(stepped, 10)))[:2])
    assert figures["max"] < 0.03 and figures["phrases"] == 2 and figures["steps"] == 1


def test_references_closer_than_a_click_sound_as_one_and_missing_hits_are_counted():
    refs = np.array([1.0, 1.0008, 1.7, 2.3, 3.0, 3.9])  # a unison 0.8 ms apart: one onset
    heard = jitter.onsets(recording([1.01, 1.71, 2.31, 3.91, 4.2], 5))  # 3.0 never sounds; 4.2 is extra
    times, deviations, extra = jitter.match(refs, heard)
    assert list(times) == [1.0, 1.7, 2.3, 3.9] and extra == 1


def test_hits_are_found_by_the_frame_the_brain_chose_so_close_ones_cannot_swap():
    # Two hits 6 ms apart, the first played 7 ms early (its latency had not yet risen): matched
    # by time, it would take the second one's onset; by frame, each finds its own.
    strikes = np.array([100.0, 100.006, 100.5, 101.0, 101.0004])
    offsets = np.array([0.040, 0.047, 0.047, 0.047, 0.047])
    frames = np.round((strikes + offsets - 99.0) * RATE).astype(int)  # the brain's frame clock
    heard = jitter.onsets(recording(frames / RATE + 0.25, 3), frames=True)  # the recording began 0.25 s earlier
    times, deviations, merged, unheard, extra, moves = jitter.match_frames(strikes, frames, heard)
    assert list(times) == [100.0, 100.006, 100.5, 101.0] and merged == 1 and unheard == 0 and extra == 0
    assert np.allclose(deviations - deviations[1], [-0.007, 0, 0, 0], atol=1.5 / RATE)
    assert moves == 0


def test_an_underrun_that_moves_the_output_is_followed():
    # The device lost 12 ms at 3 s: every hit after sounds 12 ms later in the recording.
    strikes = 1.0 + np.cumsum(np.random.default_rng(5).uniform(0.15, 0.35, 20))  # as played, not a grid
    frames = np.round((strikes + 0.02) * RATE).astype(int)
    lost = np.where(strikes > 3.0, 0.012, 0)
    heard = jitter.onsets(recording(frames / RATE + lost, 7), frames=True)
    times, deviations, merged, unheard, extra, moves = jitter.match_frames(strikes, frames, heard)
    assert len(times) == len(strikes) and unheard == 0 and extra == 0 and moves == 1


def test_wav_files_of_both_sample_formats_are_read(tmp_path):
    kit = jitter.write_click_kit(str(tmp_path / "kit"), ["snare"])
    click = jitter.read_wav(os.path.join(os.path.dirname(kit), "click.wav"))
    assert click.shape[1] == 1 and 0.85 < click.max() < 0.95
    data = recording([0.1], 0.2).astype("<f4")
    path = tmp_path / "f.wav"
    with open(path, "wb") as f:
        body = data.tobytes()
        f.write(b"RIFF" + struct.pack("<I", 36 + len(body)) + b"WAVE")
        f.write(b"fmt " + struct.pack("<IHHIIHH", 16, 3, 2, RATE, RATE * 8, 8, 32))
        f.write(b"data" + struct.pack("<I", 0xFFFFFFFF) + body)  # never finished: read to the end
    assert np.allclose(jitter.read_wav(str(path)), data)


def test_a_sinks_rate_is_measured_from_when_its_data_arrives():
    recorder = jitter.MonitorRecorder.__new__(jitter.MonitorRecorder)
    rng = np.random.default_rng(3)
    fast = 1 + 650e-6
    marks, received = [], 0
    for k in range(6000):  # 60 s of 10 ms reads, each late by up to 4 ms
        now = k * 0.010
        received = int(now * RATE * fast)
        marks.append((now + rng.uniform(0, 0.004), received))
    recorder.marks = marks
    assert recorder.rate_error() * 1e6 == pytest.approx(650, abs=15)


def test_a_short_take_through_the_wav_output_hears_every_hit(tmp_path):
    build = os.path.join(REPO, ".build", "debug")
    if not all(os.access(os.path.join(build, tool), os.X_OK) for tool in ("drumbrain", "drumpad")):
        pytest.fail("no drumbrain or drumpad built: run `swift build` first (scripts/test does)")
    done = subprocess.run([sys.executable, os.path.join(HERE, "jitter"), "--classes", "dualsense", "--outputs", "wav",
                           "--seconds", "12", "--build", build, "--work", str(tmp_path)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    row = [line for line in done.stdout.splitlines() if line.startswith("| 250 Hz DualSense | WAV")]
    assert row, done.stdout
    cells = [c.strip() for c in row[0].strip("|").split("|")]
    heard, played = (int(v) for v in cells[2].split()[0:3:2])
    # Every hit the brain played is heard, and nothing else (functional; the jitter figures
    # themselves are timing, recorded by the benchmark, not judged here).
    assert played > 10 and heard == played and "(+" not in cells[2], row
    # The take kept its own state folder and clock trace, and left the user's alone.
    assert os.path.exists(tmp_path / "dualsense-wav.clock.csv")
