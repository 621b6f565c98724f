#!/usr/bin/env python3
"""Synthesise the bundled drum kit (Samples/kit) from nothing but numbers.

    python3 tools/kitsynth/synth.py                 # writes Samples/kit/*.wav and kit.json
    python3 tools/kitsynth/synth.py --out DIR       # somewhere else
    python3 tools/kitsynth/synth.py --bits 16       # 16-bit PCM instead of 24-bit

Every drum is made by a textbook recipe (see README.md beside this file): a sine with a fast pitch
drop for the kick, body tones plus band-passed noise for the snare, the TR-808 "metal" (six
square waves at inharmonic frequencies) high-passed for the hi-hat, gliding membrane modes for the
toms, inharmonic partial clusters plus noise for the cymbals.

Deterministic: the noise and every random choice come from a counter-based SplitMix64 generator
written here (not numpy's generators, whose streams may change between numpy versions), so the
same machine writes the same bytes on every run. Needs Python 3 and numpy; WAVs are written with
the standard library's `wave` module.
"""

import argparse
import json
import os
import sys
import wave

import numpy as np

RATE = 48000
PEAK_DBFS = -1.0
DRUMS = ("kick", "snare", "hihat", "racktom", "floortom", "crash", "ride")

# kit.json: azimuth as a right-handed drummer sees the kit (-90 left .. +90 right), gain to balance
# the peak-normalised samples (see Samples/kit/README.md for the reasoning).
KIT = {
    "kick": {"azimuth": 0, "gain": 1.0},
    "snare": {"azimuth": -15, "gain": 1.0},
    "hihat": {"azimuth": -45, "gain": 0.8},
    "racktom": {"azimuth": 15, "gain": 0.8},
    "floortom": {"azimuth": 45, "gain": 0.85},
    "crash": {"azimuth": -35, "gain": 0.6},
    "ride": {"azimuth": 40, "gain": 0.55},
}

# The six TR-808 cymbal/hi-hat square-wave oscillators (Hz), inharmonic to one another.
TR808_METAL = (205.3, 304.4, 369.6, 522.7, 540.0, 800.0)


# ---------------------------------------------------------------------------------------------
# Deterministic randomness


def _splitmix64(seed, n):
    """n pseudo-random uint64 values: SplitMix64 evaluated at counters 1..n from `seed`."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = np.uint64(seed & 0xFFFFFFFFFFFFFFFF) + np.arange(1, n + 1, dtype=np.uint64) * golden
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return z


def uniform(seed, n, lo=0.0, hi=1.0):
    """n floats uniform in [lo, hi), a pure function of (seed, n)."""
    u = (_splitmix64(seed, n) >> np.uint64(11)).astype(np.float64) * (1.0 / 9007199254740992.0)
    return lo + (hi - lo) * u


def white(seed, n):
    """White noise, uniform in [-1, 1)."""
    return uniform(seed, n, -1.0, 1.0)


# ---------------------------------------------------------------------------------------------
# Building blocks


def times(seconds):
    return np.arange(int(round(seconds * RATE))) / RATE


def highpass_gain(f, fc, order):
    """Magnitude of a Butterworth high-pass of the given order at frequencies f."""
    f = np.asarray(f, dtype=np.float64)
    with np.errstate(divide="ignore"):
        g = 1.0 / np.sqrt(1.0 + (fc / np.maximum(f, 1e-9)) ** (2 * order))
    return g


def lowpass_gain(f, fc, order):
    """Magnitude of a Butterworth low-pass of the given order at frequencies f."""
    f = np.asarray(f, dtype=np.float64)
    return 1.0 / np.sqrt(1.0 + (f / fc) ** (2 * order))


def bandpass_gain(f, lo, hi, order=2):
    return highpass_gain(f, lo, order) * lowpass_gain(f, hi, order)


def filtered_noise(seed, n, gain_fn):
    """Stationary noise shaped by a zero-phase magnitude response gain_fn(freqs), RMS 1.

    Filtered before any envelope is applied, so the (circular, zero-phase) FFT filter cannot
    smear an onset backwards in time.
    """
    spectrum = np.fft.rfft(white(seed, n))
    spectrum *= gain_fn(np.fft.rfftfreq(n, 1.0 / RATE))
    x = np.fft.irfft(spectrum, n)
    return x / np.sqrt(np.mean(x * x))


def partials(t, freqs, amps, phases, decays=None):
    """Sum of sines: amps[k] * sin(2 pi freqs[k] t + phases[k]) * exp(-t / decays[k])."""
    out = np.zeros_like(t)
    for k, (f, a, p) in enumerate(zip(freqs, amps, phases)):
        if a == 0.0 or f >= RATE / 2:
            continue
        s = a * np.sin(2.0 * np.pi * f * t + p)
        if decays is not None:
            s *= np.exp(-t / decays[k])
        out += s
    return out


def square_bank(t, freqs, seed, gain_fn, top=20000.0):
    """Band-limited square waves at `freqs` (odd harmonics 4/(pi k) below `top`), each harmonic
    weighted by the filter magnitude gain_fn(frequency): the filter is applied exactly, per
    partial, with no aliasing. Oscillator phases are random (the 808's oscillators run free)."""
    phases = uniform(seed, len(freqs), 0.0, 2.0 * np.pi)
    out = np.zeros_like(t)
    for f0, ph in zip(freqs, phases):
        k = np.arange(1, int(top / f0) + 1, 2)
        amps = 4.0 / (np.pi * k) * gain_fn(k * f0)
        for kk, a in zip(k, amps):
            if a > 1e-4:
                out += a * np.sin(2.0 * np.pi * kk * f0 * t + kk * ph)
    return out


def glide_phase(t, f_end, f_start, tau):
    """Phase (radians) of a sine whose frequency falls exponentially from f_start to f_end
    with time constant tau: f(t) = f_end + (f_start - f_end) exp(-t / tau)."""
    return 2.0 * np.pi * (f_end * t + (f_start - f_end) * tau * (1.0 - np.exp(-t / tau)))


def attack(t, seconds):
    """A raised-cosine rise over `seconds`, then 1."""
    a = np.ones_like(t)
    m = t < seconds
    a[m] = 0.5 - 0.5 * np.cos(np.pi * t[m] / seconds)
    return a


def finish(x, fade_in=0.0005, fade_out=0.05):
    """Peak-normalise to PEAK_DBFS and fade both ends (raised cosine) so neither clicks."""
    n_in = max(1, int(round(fade_in * RATE)))
    n_out = max(1, int(round(fade_out * RATE)))
    x = x.copy()
    x[:n_in] *= 0.5 - 0.5 * np.cos(np.pi * np.arange(n_in) / n_in)
    x[-n_out:] *= 0.5 + 0.5 * np.cos(np.pi * (np.arange(n_out) + 1) / n_out)
    peak = np.max(np.abs(x))
    return x * (10.0 ** (PEAK_DBFS / 20.0) / peak)


# ---------------------------------------------------------------------------------------------
# The drums


def kick():
    t = times(0.6)
    # Body: a sine falling fast from 150 Hz to 50 Hz, a long-ish exponential decay.
    body = np.sin(glide_phase(t, 50.0, 150.0, 0.035)) * np.exp(-t / 0.13) * attack(t, 0.001)
    # A little soft saturation for punch (adds the 3rd harmonic while the pitch drops).
    body = np.tanh(1.8 * body) / np.tanh(1.8)
    # Beater click: a few milliseconds of band-passed noise.
    click = filtered_noise(101, len(t), lambda f: bandpass_gain(f, 1200.0, 5000.0, 2))
    click *= 0.18 * np.exp(-t / 0.0025)
    return finish(body + click, fade_out=0.08)


def snare():
    t = times(0.5)
    # Drum-head body: two modes, 180 Hz and 330 Hz, dropping a little in pitch as they decay.
    head = np.sin(glide_phase(t, 180.0, 205.0, 0.02)) * np.exp(-t / 0.07)
    head += 0.6 * np.sin(glide_phase(t, 330.0, 360.0, 0.02)) * np.exp(-t / 0.045)
    head *= attack(t, 0.0008)
    # Snare wires: band-passed noise with its own, longer envelope.
    wires = filtered_noise(201, len(t), lambda f: bandpass_gain(f, 1500.0, 9000.0, 2))
    wires *= 0.7 * np.exp(-t / 0.09) * attack(t, 0.0015)
    # Stick crack: a short bright burst.
    crack = filtered_noise(202, len(t), lambda f: bandpass_gain(f, 2500.0, 12000.0, 2))
    crack *= 0.35 * np.exp(-t / 0.004)
    return finish(head + wires + crack, fade_out=0.06)


def hihat():
    t = times(0.25)
    # The TR-808 metal: six square waves at inharmonic frequencies, high-passed at ~7 kHz.
    hp = lambda f: highpass_gain(f, 7000.0, 4) * lowpass_gain(f, 17000.0, 2)
    metal = square_bank(t, TR808_METAL, 301, hp)
    metal /= np.sqrt(np.mean(metal * metal))
    sizzle = filtered_noise(302, len(t), hp)
    x = (metal + 0.35 * sizzle) * np.exp(-t / 0.028) * attack(t, 0.0003)
    return finish(x, fade_out=0.04)


def tom(f0, seconds, decay, seed):
    t = times(seconds)
    # Membrane modes (ideal circular membrane: 1, 1.59, 2.14, 2.30 x f0), the fundamental gliding
    # down ~20 % after the hit as the head's tension relaxes; upper modes die faster.
    x = np.sin(glide_phase(t, f0, 1.2 * f0, 0.05)) * np.exp(-t / decay)
    x += (0.35 * np.sin(glide_phase(t, 1.59 * f0, 1.59 * 1.15 * f0, 0.04))
          * np.exp(-t / (0.45 * decay)))
    x += 0.2 * np.sin(glide_phase(t, 2.14 * f0, 2.14 * 1.1 * f0, 0.03)) * np.exp(-t / (0.3 * decay))
    x += 0.12 * np.sin(2.0 * np.pi * 2.30 * f0 * t + 1.0) * np.exp(-t / (0.25 * decay))
    x *= attack(t, 0.001)
    # A little noise: the stick on the head.
    stick = filtered_noise(seed, len(t), lambda f: bandpass_gain(f, 2.0 * f0, 4000.0, 2))
    x += 0.12 * stick * np.exp(-t / 0.012)
    return finish(x, fade_out=0.12)


def racktom():
    return tom(180.0, 0.8, 0.17, 401)


def floortom():
    return tom(100.0, 0.8, 0.2, 501)


def cymbal_cluster(t, seed, count, lo, hi, decay_lo, decay_hi, tilt=0.0):
    """`count` sines at random, inharmonic frequencies (log-uniform in lo..hi), random phases and
    amplitudes (times (f / hi) ** tilt), each with its own exponential decay (higher partials die a
    little sooner)."""
    r = uniform(seed, 4 * count).reshape(4, count)
    freqs = lo * (hi / lo) ** r[0]
    amps = (0.3 + 0.7 * r[1]) * (freqs / hi) ** tilt
    phases = 2.0 * np.pi * r[2]
    decays = (decay_lo + (decay_hi - decay_lo) * r[3]) * (freqs / 1000.0) ** -0.15
    x = partials(t, freqs, amps, phases, decays)
    return x / np.sqrt(np.mean(x[: RATE // 10] ** 2))


def crash():
    t = times(2.5)
    # Wash: broadband high-passed noise, an explosive start and a long tail; this is what makes a
    # crash a crash, so it dominates.
    wash = filtered_noise(601, len(t),
                          lambda f: highpass_gain(f, 3000.0, 2) * lowpass_gain(f, 16000.0, 2))
    wash_env = 0.55 * np.exp(-t / 0.06) + 0.45 * np.exp(-t / 0.55)
    # A dense cluster of inharmonic partials (the plate's modes) under the wash.
    modes = cymbal_cluster(t, 602, 160, 300.0, 12000.0, 0.35, 0.7, tilt=0.6)
    # The 808 metal band-passed high, for a metallic edge.
    metal = square_bank(t, TR808_METAL, 603, lambda f: bandpass_gain(f, 3500.0, 9000.0, 2))
    metal /= np.sqrt(np.mean(metal * metal))
    x = wash * wash_env + 0.35 * modes + 0.25 * metal * np.exp(-t / 0.4)
    x *= attack(t, 0.002)
    return finish(x, fade_out=0.35)


def ride():
    t = times(2.0)
    # Ping: a cluster of bright, slowly decaying partials (2.5-9 kHz): the pitched "ting".
    ping = cymbal_cluster(t, 701, 70, 2500.0, 9000.0, 0.42, 0.75)
    # Bell: a few strong inharmonic partials lower down, ringing longest.
    bell_f = np.array([610.0, 1437.0, 2195.0, 3260.0, 4730.0])
    bell_a = 0.3 * np.array([0.55, 0.7, 0.45, 0.4, 0.25])
    bell_p = uniform(702, len(bell_f), 0.0, 2.0 * np.pi)
    bell = partials(t, bell_f, bell_a, bell_p, np.array([0.75, 0.65, 0.55, 0.5, 0.45]))
    # Wash: a little high-passed noise, much less than the crash.
    wash = filtered_noise(703, len(t),
                          lambda f: highpass_gain(f, 5000.0, 2) * lowpass_gain(f, 16000.0, 2))
    wash_env = 0.45 * np.exp(-t / 0.015) + 0.12 * np.exp(-t / 0.4)
    # Stick tip: a short, bright tick.
    tick = filtered_noise(704, len(t), lambda f: bandpass_gain(f, 3000.0, 12000.0, 2))
    tick *= 0.6 * np.exp(-t / 0.003)
    x = 0.35 * ping + bell + wash * wash_env + tick
    x *= attack(t, 0.0005)
    return finish(x, fade_out=0.4)


SYNTHS = {
    "kick": kick,
    "snare": snare,
    "hihat": hihat,
    "racktom": racktom,
    "floortom": floortom,
    "crash": crash,
    "ride": ride,
}


def render(name):
    """One drum as float64 samples in [-1, 1] at RATE."""
    return SYNTHS[name]()


# ---------------------------------------------------------------------------------------------
# Output


def to_pcm(x, bits):
    """Float samples to little-endian signed PCM bytes (rounded, clipped)."""
    full = 2 ** (bits - 1) - 1
    q = np.clip(np.round(x * full), -full - 1, full).astype("<i4")
    if bits == 16:
        return q.astype("<i2").tobytes()
    if bits == 24:
        return q.view(np.uint8).reshape(-1, 4)[:, :3].tobytes()
    raise ValueError("bits must be 16 or 24")


def write_wav(path, x, bits=24):
    with wave.open(path, "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(bits // 8)
        w.setframerate(RATE)
        w.writeframes(to_pcm(x, bits))


def kit_json():
    """The kit file (docs/architecture.md section 8), one drum a line."""
    lines = [
        '    {"name": %s, "sample": %s, "azimuth": %s, "gain": %s}' % (
            json.dumps(d), json.dumps(d + ".wav"), json.dumps(KIT[d]["azimuth"]),
            json.dumps(KIT[d]["gain"]))
        for d in DRUMS
    ]
    return '{\n  "name": "Default",\n  "drums": [\n' + ",\n".join(lines) + "\n  ]\n}\n"


def write_kit(out, bits=24, drums=DRUMS):
    os.makedirs(out, exist_ok=True)
    for d in drums:
        write_wav(os.path.join(out, d + ".wav"), render(d), bits)
    with open(os.path.join(out, "kit.json"), "w", encoding="utf-8") as f:
        f.write(kit_json())


def default_out():
    here = os.path.dirname(os.path.abspath(__file__))
    return os.path.normpath(os.path.join(here, "..", "..", "Samples", "kit"))


def main(argv=None):
    p = argparse.ArgumentParser(description="Synthesise the bundled drum kit.")
    p.add_argument("--out", default=default_out(), help="output folder (default: Samples/kit)")
    p.add_argument("--bits", type=int, choices=(16, 24), default=24, help="PCM bits (default 24)")
    p.add_argument("--only", action="append", choices=DRUMS,
                   help="write only this drum (repeatable)")
    a = p.parse_args(argv)
    write_kit(a.out, a.bits, tuple(a.only) if a.only else DRUMS)
    print("kitsynth: wrote %s (%d-bit, %d Hz)" % (a.out, a.bits, RATE))
    return 0


if __name__ == "__main__":
    sys.exit(main())
