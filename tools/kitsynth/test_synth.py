"""Tests of the kit synthesiser and of the kit it made (Samples/kit).

    python3 -m pytest tools/kitsynth        (about 10 s)
"""

import ctypes
import ctypes.util
import json
import os
import re
import subprocess
import sys
import wave

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import spectra  # noqa: E402
import synth  # noqa: E402

SYNTH = os.path.join(HERE, "synth.py")
KIT_DIR = synth.default_out()
FILES = [d + ".wav" for d in synth.DRUMS] + ["kit.json"]
SECONDS = {"kick": 0.6, "snare": 0.5, "hihat": 0.25, "racktom": 0.8, "floortom": 0.8,
           "crash": 2.5, "ride": 2.0}


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """Two runs of the command itself into two fresh folders."""
    outs = []
    for name in ("a", "b"):
        out = tmp_path_factory.mktemp(name)
        subprocess.run([sys.executable, SYNTH, "--out", str(out)], check=True,
                       stdout=subprocess.DEVNULL)
        outs.append(str(out))
    return outs


@pytest.fixture(scope="module")
def sounds(runs):
    return spectra.load_kit(runs[0])


def read_bytes(path):
    with open(path, "rb") as f:
        return f.read()


def test_same_bytes_every_run(runs):
    a, b = runs
    assert sorted(os.listdir(a)) == sorted(FILES)
    for name in FILES:
        assert read_bytes(os.path.join(a, name)) == read_bytes(os.path.join(b, name)), name


def test_bundled_kit_is_what_the_tool_makes(runs):
    """Samples/kit is the tool's output: kit.json byte for byte; each WAV sample within 2 LSB
    (byte-identical on the machine that made them; the slack allows another numpy's last-bit
    floating-point differences)."""
    for name in FILES:
        assert os.path.exists(os.path.join(KIT_DIR, name)), "%s: run %s" % (name, SYNTH)
    kit_json = read_bytes(os.path.join(KIT_DIR, "kit.json"))
    assert kit_json == read_bytes(os.path.join(runs[0], "kit.json"))
    for d in synth.DRUMS:
        new, _, _, _ = spectra.read_wav(os.path.join(runs[0], d + ".wav"))
        old, _, _, _ = spectra.read_wav(os.path.join(KIT_DIR, d + ".wav"))
        assert len(new) == len(old), d
        assert np.max(np.abs(new - old)) <= 2.0 / 8388607, "%s differs: regenerate Samples/kit" % d


def test_format_and_lengths(runs):
    total = 0
    for d in synth.DRUMS:
        path = os.path.join(runs[0], d + ".wav")
        with wave.open(path, "rb") as w:
            assert (w.getnchannels(), w.getframerate(), w.getsampwidth()) == (1, 48000, 3), d
            assert w.getnframes() == round(SECONDS[d] * 48000), d
        total += os.path.getsize(path)
    assert total < 4_000_000


def test_sixteen_bit_option(tmp_path):
    synth.main(["--out", str(tmp_path), "--bits", "16", "--only", "hihat"])
    x, rate, ch, bits = spectra.read_wav(str(tmp_path / "hihat.wav"))
    assert (rate, ch, bits) == (48000, 1, 16)
    assert abs(20 * np.log10(np.max(np.abs(x))) - synth.PEAK_DBFS) < 0.01


def test_peak_minus_1_dbfs_and_clickless_ends(sounds):
    for d, x in sounds.items():
        assert abs(20 * np.log10(np.max(np.abs(x))) - synth.PEAK_DBFS) < 0.01, d
        assert x[0] == 0.0 and x[-1] == 0.0, d
        # The raised-cosine fades: no step at either end.
        assert np.max(np.abs(x[:8])) < 0.05, d
        tail = x[-480:]  # last 10 ms
        assert 20 * np.log10(np.sqrt(np.mean(tail * tail)) + 1e-12) < -50, d
        assert abs(np.mean(x)) < 0.005, d  # no DC offset to thump when mixed


def test_decays_suit_each_drum(sounds):
    t40 = {d: spectra.decay_time(x, -40.0) for d, x in sounds.items()}
    assert t40["hihat"] < 0.2  # closed
    assert 0.3 < t40["kick"] and 0.25 < t40["snare"] < t40["racktom"]
    assert t40["crash"] > 1.8 and t40["ride"] > 1.5


def test_spectra_are_ordered_as_real_drums(sounds):
    for measure in (spectra.centroid, spectra.magnitude_centroid):
        c = {d: measure(x) for d, x in sounds.items()}
        assert c["kick"] < c["floortom"] < c["racktom"] < c["snare"], (measure.__name__, c)
        assert c["snare"] < min(c["hihat"], c["crash"], c["ride"]), (measure.__name__, c)
    band = {d: spectra.dominant_band(x) for d, x in sounds.items()}
    assert band["kick"] <= 63 and band["floortom"] == 125 and band["racktom"] == 250
    assert band["snare"] <= 250  # the head's body carries the most energy; the wires the rest
    assert min(band["hihat"], band["crash"], band["ride"]) >= 4000
    assert spectra.energy_below(sounds["kick"], 150) > 0.9
    assert spectra.energy_below(sounds["floortom"], 150) > 0.8
    for d in ("hihat", "crash"):
        assert spectra.energy_above(sounds[d], 3000) > 0.8, d
    assert spectra.energy_above(sounds["ride"], 3000) > 0.5
    assert 0.2 < spectra.energy_above(sounds["snare"], 3000) < 0.7


def flatness(x, lo, hi):
    """Spectral flatness (geometric / arithmetic mean of power) between lo and hi Hz: near 1
    for noise, near 0 for a few lines."""
    f, m = spectra.spectrum(x, synth.RATE)
    p = (m * m)[(f >= lo) & (f < hi)] + 1e-30
    return float(np.exp(np.mean(np.log(p))) / np.mean(p))


def test_crash_washier_ride_pingier(sounds):
    crash, ride = flatness(sounds["crash"], 3000, 12000), flatness(sounds["ride"], 3000, 12000)
    assert crash > 0.3 and ride < 0.15 and crash > 3 * ride, (crash, ride)


def test_spectrogram_picture(tmp_path, sounds):
    pytest.importorskip("matplotlib")
    out = tmp_path / "kit.png"
    spectra.plot(sounds, str(out))
    assert read_bytes(str(out))[:8] == b"\x89PNG\r\n\x1a\n"


def test_kit_json_is_valid():
    path = os.path.join(KIT_DIR, "kit.json")
    with open(path, encoding="utf-8") as f:
        kit = json.load(f)
    assert kit["name"] == "Default"
    names = [d["name"] for d in kit["drums"]]
    assert sorted(names) == sorted(synth.DRUMS) and len(set(names)) == len(names)
    az = {}
    for d in kit["drums"]:
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", d["name"])
        assert os.path.isfile(os.path.join(KIT_DIR, d["sample"])), d
        assert isinstance(d["azimuth"], (int, float)) and -90 <= d["azimuth"] <= 90, d
        assert isinstance(d["gain"], (int, float)) and 0 < d["gain"] <= 1.0, d
        az[d["name"]] = d["azimuth"]
    # As a right-handed drummer sees the kit: hi-hat and crash left, ride and floor tom right.
    assert az["kick"] == 0
    assert az["hihat"] < az["snare"] < 0 < az["racktom"] < az["floortom"]
    assert az["crash"] < 0 < az["ride"]


def test_libsndfile_reads_the_kit():
    """The brain loads samples with libsndfile: it must read these WAVs as written."""
    name = ctypes.util.find_library("sndfile")
    if not name:
        pytest.skip("libsndfile is not installed")
    lib = ctypes.CDLL(name)

    class Info(ctypes.Structure):
        _fields_ = [("frames", ctypes.c_int64), ("samplerate", ctypes.c_int),
                    ("channels", ctypes.c_int), ("format", ctypes.c_int),
                    ("sections", ctypes.c_int), ("seekable", ctypes.c_int)]

    lib.sf_open.restype = ctypes.c_void_p
    lib.sf_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(Info)]
    lib.sf_readf_double.restype = ctypes.c_int64
    lib.sf_readf_double.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                                    ctypes.c_int64]
    lib.sf_close.argtypes = [ctypes.c_void_p]
    for d in synth.DRUMS:
        path = os.path.join(KIT_DIR, d + ".wav")
        info = Info()
        sf = lib.sf_open(path.encode(), 0x10, ctypes.byref(info))  # SFM_READ
        assert sf, "libsndfile cannot open %s" % path
        try:
            assert (info.samplerate, info.channels) == (48000, 1), d
            assert info.format == 0x010000 | 0x0003, hex(info.format)  # WAV, PCM_24
            buf = (ctypes.c_double * info.frames)()
            assert lib.sf_readf_double(sf, buf, info.frames) == info.frames
        finally:
            lib.sf_close(sf)
        ours, _, _, _ = spectra.read_wav(path)
        # libsndfile scales 24-bit by 1/2^23, we by 1/(2^23 - 1).
        assert np.allclose(np.frombuffer(buf, np.float64), ours * (8388607 / 8388608), atol=1e-9), d
