#!/usr/bin/env python3
"""Measure and look at the kit: spectral centroid, dominant octave band, decay, and spectrograms.

    python3 tools/kitsynth/spectra.py [KITDIR]                    # table of measurements
    python3 tools/kitsynth/spectra.py [KITDIR] --png spectra.png  # also spectrograms (matplotlib)

KITDIR defaults to Samples/kit. The measurements need only numpy (the tests use them);
the picture needs matplotlib.
"""

import argparse
import os
import sys
import wave

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import synth  # noqa: E402

# Octave bands (centre frequencies, Hz); band k spans centre/sqrt2 .. centre*sqrt2.
OCTAVES = (31.5, 63, 125, 250, 500, 1000, 2000, 4000, 8000, 16000)


def read_wav(path):
    """(samples as float64 in [-1, 1], rate, channels, bits) of a 16- or 24-bit PCM WAV."""
    with wave.open(path, "rb") as w:
        ch, width, rate, n = w.getnchannels(), w.getsampwidth(), w.getframerate(), w.getnframes()
        raw = w.readframes(n)
    if width == 2:
        x = np.frombuffer(raw, "<i2").astype(np.float64) / 32767.0
    elif width == 3:
        b = np.frombuffer(raw, np.uint8).reshape(-1, 3).astype(np.int32)
        v = b[:, 0] | (b[:, 1] << 8) | (b[:, 2] << 16)
        v = np.where(v >= 1 << 23, v - (1 << 24), v)
        x = v.astype(np.float64) / 8388607.0
    else:
        raise ValueError("%s: %d-byte samples are not handled" % (path, width))
    return x, rate, ch, width * 8


def spectrum(x, rate):
    mag = np.abs(np.fft.rfft(x))
    return np.fft.rfftfreq(len(x), 1.0 / rate), mag


def centroid(x, rate=synth.RATE):
    """Energy-weighted spectral centroid (Hz) of the whole sample: sum(f |X|^2) / sum(|X|^2),
    the frequency the sample's energy balances on."""
    f, m = spectrum(x, rate)
    return float(np.sum(f * m * m) / np.sum(m * m))


def magnitude_centroid(x, rate=synth.RATE):
    """The textbook spectral centroid: sum(f |X|) / sum(|X|). Weighting by magnitude rather than
    energy lets the many quiet high bins pull it up (a kick's lands near 1 kHz)."""
    f, m = spectrum(x, rate)
    return float(np.sum(f * m) / np.sum(m))


def k_weight(f):
    """The magnitude of ITU-R BS.1770's K-weighting, approximately: a 2nd-order high-pass at
    38 Hz (Q 0.5) and a +4 dB shelf above about 1.7 kHz."""
    f = np.asarray(f, dtype=np.float64)
    f0, q = 38.0, 0.5
    hp = f * f / np.sqrt((f * f - f0 * f0) ** 2 + (f * f0 / q) ** 2 + 1e-30)
    g2, r2 = 10 ** (4.0 / 10), (f / 1681.0) ** 2
    return hp * np.sqrt((1 + g2 * r2) / (1 + r2))


def loudness_db(x, rate=synth.RATE, window=0.1):
    """A crude loudness: the K-weighted RMS (dBFS) of the loudest `window` seconds."""
    f, _ = spectrum(x, rate)
    y = np.fft.irfft(np.fft.rfft(x) * k_weight(f), len(x))
    n = int(window * rate)
    c = np.concatenate([[0.0], np.cumsum(y * y)])
    ms = (c[n:] - c[:-n]) / n if len(y) > n else np.array([np.mean(y * y)])
    return float(10 * np.log10(np.max(ms)))


def band_energies(x, rate=synth.RATE):
    """Energy in each octave band of OCTAVES (fractions of the total)."""
    f, m = spectrum(x, rate)
    p = m * m
    e = np.array([np.sum(p[(f >= c / np.sqrt(2)) & (f < c * np.sqrt(2))]) for c in OCTAVES])
    return e / np.sum(p)


def dominant_band(x, rate=synth.RATE):
    """Centre frequency (Hz) of the octave band holding the most energy."""
    return OCTAVES[int(np.argmax(band_energies(x, rate)))]


def energy_above(x, hz, rate=synth.RATE):
    """Fraction of the energy above `hz`."""
    f, m = spectrum(x, rate)
    p = m * m
    return float(np.sum(p[f >= hz]) / np.sum(p))


def energy_below(x, hz, rate=synth.RATE):
    return 1.0 - energy_above(x, hz, rate)


def decay_time(x, db=-40.0, rate=synth.RATE, window=0.01):
    """Seconds until the 10 ms RMS envelope falls for good below `db` relative to its maximum."""
    n = int(window * rate)
    frames = len(x) // n
    rms = np.sqrt(np.mean(x[: frames * n].reshape(frames, n) ** 2, axis=1))
    level = 20 * np.log10(np.maximum(rms, 1e-12) / np.max(rms))
    above = np.nonzero(level > db)[0]
    return float((above[-1] + 1) * n / rate) if len(above) else 0.0


def measure(x, rate=synth.RATE):
    peak = float(np.max(np.abs(x)))
    return {
        "seconds": len(x) / rate,
        "peak_dbfs": 20 * np.log10(peak),
        "centroid_hz": centroid(x, rate),
        "magnitude_centroid_hz": magnitude_centroid(x, rate),
        "loudness_db": loudness_db(x, rate),
        "dominant_band_hz": dominant_band(x, rate),
        "below_150": energy_below(x, 150.0, rate),
        "above_3k": energy_above(x, 3000.0, rate),
        "t_minus40_s": decay_time(x, -40.0, rate),
        "dc": float(np.mean(x)),
        "first": float(x[0]),
        "last": float(x[-1]),
    }


def load_kit(folder):
    return {d: read_wav(os.path.join(folder, d + ".wav"))[0] for d in synth.DRUMS}


def table(sounds):
    """The measurements, one drum a line. "loud dB" is loudness_db (K-weighted, loudest 100 ms);
    "+gain" is that with the drum's kit.json gain applied, i.e. how the drums sit in the mix."""
    head = "%-9s %6s %8s %10s %10s %9s %8s %8s %9s %8s %6s %9s" % (
        "drum", "sec", "peak dB", "centroid", "|X|-centr", "dominant", "<150Hz", ">3kHz",
        "-40dB at", "loud dB", "+gain", "DC")
    rows = [head]
    for d, x in sounds.items():
        m = measure(x)
        fmt = "%-9s %6.3f %8.2f %7.0f Hz %7.0f Hz %6g Hz %7.1f%% %7.1f%% %7.3f s %8.1f %6.1f %9.1e"
        rows.append(fmt % (
            d, m["seconds"], m["peak_dbfs"], m["centroid_hz"], m["magnitude_centroid_hz"],
            m["dominant_band_hz"], 100 * m["below_150"], 100 * m["above_3k"], m["t_minus40_s"],
            m["loudness_db"], m["loudness_db"] + 20 * np.log10(synth.KIT[d]["gain"]), m["dc"]))
    return "\n".join(rows)


def stft_db(x, rate, n_fft=2048, hop=128):
    win = np.hanning(n_fft)
    pad = np.concatenate([np.zeros(n_fft // 2), x, np.zeros(n_fft)])
    frames = 1 + (len(pad) - n_fft) // hop
    idx = np.arange(n_fft)[None, :] + hop * np.arange(frames)[:, None]
    s = np.abs(np.fft.rfft(pad[idx] * win, axis=1)) ** 2
    db = 10 * np.log10(np.maximum(s, 1e-20))
    return np.arange(frames) * hop / rate, np.fft.rfftfreq(n_fft, 1.0 / rate), db.T


def plot(sounds, out, rate=synth.RATE):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(sounds)
    fig, axes = plt.subplots(len(names), 2, figsize=(13, 2.1 * len(names)),
                             gridspec_kw={"width_ratios": [3, 1.2]}, layout="constrained")
    for row, d in zip(axes, names):
        x = sounds[d]
        t, f, db = stft_db(x, rate)
        db -= np.max(db)  # each row relative to its own loudest cell
        ax = row[0]
        mesh = ax.pcolormesh(t, f[1:], db[1:], shading="auto", cmap="magma", vmin=-80, vmax=0)
        ax.set_yscale("log")
        ax.set_ylim(20, rate / 2)
        ax.set_xlim(0, len(x) / rate)
        ax.set_ylabel("%s\nHz" % d)
        for y in (150, 3000):
            ax.axhline(y, color="white", lw=0.5, ls=":")
        ax = row[1]
        fs, m = spectrum(x, rate)
        # Smooth the long-term spectrum over 1/6-octave-ish bins for legibility.
        edges = 20 * 2 ** (np.arange(0, 61) / 6.0)
        p = m * m
        sm = [np.mean(p[(fs >= a) & (fs < b)]) if np.any((fs >= a) & (fs < b)) else 1e-20
              for a, b in zip(edges[:-1], edges[1:])]
        centres = np.sqrt(edges[:-1] * edges[1:])
        sdb = 10 * np.log10(np.maximum(sm, 1e-20))
        ax.semilogx(centres, sdb - np.max(sdb), color="tab:blue")
        c = centroid(x, rate)
        ax.axvline(c, color="tab:red", lw=1)
        ax.text(c, -5, " centroid\n %.0f Hz" % c, color="tab:red", fontsize=7, va="top")
        ax.set_xlim(20, rate / 2)
        ax.set_ylim(-80, 3)
        ax.grid(True, which="both", lw=0.3)
    axes[-1][0].set_xlabel("seconds (spectrogram, dB; dotted lines at 150 Hz and 3 kHz)")
    axes[-1][1].set_xlabel("Hz (long-term spectrum, dB)")
    fig.colorbar(mesh, ax=[r[0] for r in axes], fraction=0.015, pad=0.01,
                 label="dB re. each drum's loudest cell")
    if out.lower().endswith(".png"):
        # A 128-colour palette PNG: a third of the size, no visible difference.
        import io
        from PIL import Image
        buf = io.BytesIO()
        fig.savefig(buf, dpi=70, format="png")
        Image.open(buf).convert("RGB").quantize(colors=128).save(out, optimize=True)
    else:
        fig.savefig(out, dpi=70)
    plt.close(fig)


def main(argv=None):
    p = argparse.ArgumentParser(description="Measure the kit and draw its spectrograms.")
    p.add_argument("kit", nargs="?", default=synth.default_out(), help="kit folder")
    p.add_argument("--png", help="write spectrograms to this PNG")
    a = p.parse_args(argv)
    sounds = load_kit(a.kit)
    print(table(sounds))
    if a.png:
        plot(sounds, a.png)
        print("spectra: wrote %s" % a.png)
    return 0


if __name__ == "__main__":
    sys.exit(main())
