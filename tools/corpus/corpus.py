"""A labelled corpus of drum-pad sensor logs: a physical model of a struck pad, seen through the
sensors that real Linux pads use.

Physics (rendered at INTERNAL_RATE, 16 kHz, in g, in the sensor's frame):
  * gravity, 1 g, tilted by slow handling motion (a few degrees on a stand; tens of degrees and
    walking bounces when carried);
  * per strike, at its onset time t0 with amplitude A (the true peak of the shock, in g): a
    half-sine contact shock of 1.5-3.5 ms pushing z by -A, then damped ringing of the board (a
    main mode of 250-450 Hz decaying with a time constant of 8-20 ms, an overtone at ~2.4x that
    dies faster) and the thump of the pad rocking on its mount (30-60 Hz, 0.6 A, 15-30 ms);
    a little of it on x and y;
  * strikes on neighbouring pads (crosstalk) arrive through the stand 2-6 ms later, attenuated to
    4-12 % of the neighbour's amplitude, with a smooth onset and the stand's low ringing (60-130
    Hz) plus a little of the board's own ringing. They are not strikes and are never labelled.

Each device profile then applies, in order: the sensor's own low-pass (Butterworth, at the
sensor's internal rate, before decimation: anti-alias / bandwidth setting), sampling at the
sensor's rate (a random phase), the sensor's noise, quantisation to its units with clipping at
its full scale, and, for evdev nodes, the input core's fuzz filter exactly as the kernel applies
it (tools/evemu/evdev_model.py). The phone stream removes gravity like Android's documented
example filter. Log times are the sensor's sample times (µs), which is what MSC_TIMESTAMP gives.

Ground truth: a labels CSV `t,amplitude` per log: each strike's onset time (s, on the log's time
base) and A (g). Everything is deterministic for a seed.
"""

from __future__ import annotations

import math
import os
import sys
import zlib
from dataclasses import dataclass, field

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "evemu"))
import evdev_model  # noqa: E402  (the kernel's fuzz filter: reused, not copied)

INTERNAL_RATE = 16000.0   # Hz: the physical signal
LEAD_S = 0.3              # no strikes in the first LEAD_S (filters settle, detectors prime)
TAIL_S = 0.15             # nor in the last TAIL_S (their ringing is in the log)


# ---------------------------------------------------------------------------------------------
# Device profiles


@dataclass(frozen=True)
class Profile:
    name: str
    device: str               # the `# device:` line (the kernel's device name where there is one)
    rate_hz: float            # nominal sample rate
    full_scale_g: float       # ± range
    units_per_g: int          # resolution of the raw values
    raw_min: int              # clipping of the raw values
    raw_max: int
    fuzz: int                 # evdev fuzz (0: no input core, e.g. IIO or a network stream)
    evdev: bool
    lowpass_hz: float         # the sensor's bandwidth (its own digital low-pass)
    lowpass_order: int        # Butterworth order (even)
    noise_g: float            # rms noise per axis at the output rate
    burst: int = 1            # samples delivered per report (Joy-Con: 3)
    report_latency_s: tuple = (0.0, 0.0)  # delivery latency range of a report
    gravity_removed: bool = False
    notes: str = ""


PROFILES = {
    # hid-playstation: DS_ACC_RES_PER_G 8192, DS_ACC_RANGE 4 g, fuzz 16, MSC_TIMESTAMP.
    "dualsense": Profile(
        name="dualsense", device="DualSense Wireless Controller Motion Sensors", rate_hz=250.0,
        full_scale_g=4.0, units_per_g=8192, raw_min=-32768, raw_max=32767, fuzz=16, evdev=True,
        lowpass_hz=100.0, lowpass_order=2, noise_g=0.004,
        notes="evdev node of hid-playstation; one frame per report"),
    # hid-nintendo: JC_ACCEL_RES_PER_G 4096, ±8 g, JC_ACCEL_FUZZ 10; three IMU samples per
    # report, every 15 ms; MSC_TIMESTAMP advances by imu_avg_delta_ms * 1000 / 3 per sample.
    "joycon": Profile(
        name="joycon", device="Nintendo Switch Left Joy-Con IMU", rate_hz=200.0,
        full_scale_g=8.0, units_per_g=4096, raw_min=-32767, raw_max=32767, fuzz=10, evdev=True,
        lowpass_hz=80.0, lowpass_order=2, noise_g=0.008, burst=3,
        report_latency_s=(0.001, 0.006),
        notes="evdev node of hid-nintendo; reports of 3 samples every 15 ms"),
    # A phone's linear-acceleration style stream: raw ±8 g at 4096 units/g, 100 Hz, gravity
    # removed by the high-pass of Android's documentation (alpha 0.8 at the sensor rate).
    # Bandwidth ~0.45 ODR, as phone IMUs (LSM6DS*, BMI2*) at ~100 Hz have by default.
    "phone": Profile(
        name="phone", device="phone linear acceleration (gravity removed)", rate_hz=100.0,
        full_scale_g=8.0, units_per_g=4096, raw_min=-32768, raw_max=32767, fuzz=0, evdev=False,
        lowpass_hz=45.0, lowpass_order=2, noise_g=0.006, gravity_removed=True,
        notes="network stream; no input core"),
    # ADXL345 through IIO: full resolution ±16 g, 13 bits, 3.9 mg/LSB (256/g), 1600 Hz,
    # bandwidth ODR/2.
    "adxl345": Profile(
        name="adxl345", device="adxl345", rate_hz=1600.0,
        full_scale_g=16.0, units_per_g=256, raw_min=-4096, raw_max=4095, fuzz=0, evdev=False,
        lowpass_hz=800.0, lowpass_order=2, noise_g=0.008,
        notes="IIO buffer (/dev/iio:deviceN); no input core"),
}

ANDROID_ALPHA = 0.8  # gravity = alpha * gravity + (1 - alpha) * raw; linear = raw - gravity


# ---------------------------------------------------------------------------------------------
# Scenarios: strike lists and handling motion


@dataclass
class Scene:
    """The physical events of one scenario (times in seconds, world time)."""

    name: str
    seconds: float
    strikes_t: np.ndarray = field(default_factory=lambda: np.zeros(0))
    strikes_a: np.ndarray = field(default_factory=lambda: np.zeros(0))
    crosstalk_t: np.ndarray = field(default_factory=lambda: np.zeros(0))  # neighbour's strike
    crosstalk_a: np.ndarray = field(default_factory=lambda: np.zeros(0))  # neighbour's amplitude
    handling: str = "stand"   # stand | idle | carried


SCENARIOS = ("groove", "roll", "sparse", "crosstalk", "idle", "carried")


def _in_window(t: np.ndarray, a: np.ndarray, seconds: float):
    keep = (t >= LEAD_S) & (t <= seconds - TAIL_S)
    order = np.argsort(t[keep], kind="stable")
    return t[keep][order], a[keep][order]


def scene_groove(rng, seconds):
    """Backbeat grooves on a 16th grid: accents on 2 and 4, normal 8ths, ghost 16ths."""
    bpm = rng.uniform(90, 130)
    sixteenth = 60.0 / bpm / 4
    times, amps = [], []
    start = LEAD_S + rng.uniform(0, 0.2)
    step = 0
    while start + step * sixteenth < seconds:
        beat_pos = step % 16
        t = start + step * sixteenth + rng.normal(0, 0.004)
        if beat_pos in (4, 12):                    # backbeat accent
            times.append(t); amps.append(rng.uniform(4.0, 8.0))
        elif beat_pos % 2 == 0:                    # 8ths, normal strength
            if rng.random() < 0.8:
                times.append(t); amps.append(rng.uniform(1.5, 3.5))
        elif rng.random() < 0.35:                  # ghost notes
            times.append(t); amps.append(rng.uniform(0.3, 0.9))
        step += 1
    return np.asarray(times), np.asarray(amps)


def scene_roll(rng, seconds):
    """Single-stroke rolls of 10-16 strokes/s, 1-2.5 s each, with a rest between."""
    times, amps = [], []
    t = LEAD_S + rng.uniform(0.05, 0.3)
    while t < seconds:
        rate = rng.uniform(10.0, 16.0)
        n = int(rng.uniform(1.0, 2.5) * rate)
        base = rng.uniform(1.5, 4.0)
        swell = rng.uniform(-0.3, 0.3)          # crescendo or decrescendo over the roll
        hand = rng.uniform(0.85, 1.0)           # the weaker hand's share
        for k in range(n):
            level = base * (1 + swell * (k / max(n - 1, 1) - 0.5)) * (hand if k % 2 else 1.0)
            times.append(t + k / rate + rng.normal(0, 0.003))
            amps.append(level * rng.uniform(0.9, 1.1))
        t += n / rate + rng.uniform(0.5, 1.0)
    return np.asarray(times), np.asarray(amps)


def _spaced_strikes(rng, seconds, gap, amplitude):
    """Strikes from LEAD_S on, gap = (min, max) s apart, amplitude(rng) g each."""
    times, amps = [], []
    t = LEAD_S + rng.uniform(0.0, 0.3)
    while t < seconds:
        times.append(t)
        amps.append(amplitude(rng))
        t += rng.uniform(*gap)
    return np.asarray(times), np.asarray(amps)


def scene_sparse(rng, seconds):
    """Strikes 0.35-1.5 s apart, amplitude log-uniform over 0.3-16 g."""
    return _spaced_strikes(rng, seconds, (0.35, 1.5),
                           lambda r: math.exp(r.uniform(math.log(0.3), math.log(16.0))))


def scene_crosstalk(rng, seconds):
    """Own strikes (1.5-5 g) and a louder neighbour (4-12 g) playing 8ths between them."""
    own, own_a = _spaced_strikes(rng, seconds, (0.4, 1.2), lambda r: r.uniform(1.5, 5.0))
    n_t, n_a = [], []
    eighth = 60.0 / rng.uniform(90, 130) / 2
    t = LEAD_S + rng.uniform(0.0, eighth)
    while t < seconds:
        # Keep the neighbour 80 ms away from our own strikes, so every hit is attributable.
        if own.size == 0 or np.min(np.abs(own - t)) > 0.08:
            n_t.append(t)
            n_a.append(rng.uniform(4.0, 12.0))
        t += eighth + rng.normal(0, 0.004)
    return own, own_a, np.asarray(n_t), np.asarray(n_a)


def make_scene(name: str, seconds: float, seed: int) -> Scene:
    rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
    scene = Scene(name=name, seconds=seconds)
    if name == "groove":
        scene.strikes_t, scene.strikes_a = _in_window(*scene_groove(rng, seconds), seconds)
    elif name == "roll":
        scene.strikes_t, scene.strikes_a = _in_window(*scene_roll(rng, seconds), seconds)
    elif name == "sparse":
        scene.strikes_t, scene.strikes_a = _in_window(*scene_sparse(rng, seconds), seconds)
    elif name == "crosstalk":
        own_t, own_a, n_t, n_a = scene_crosstalk(rng, seconds)
        scene.strikes_t, scene.strikes_a = _in_window(own_t, own_a, seconds)
        scene.crosstalk_t, scene.crosstalk_a = _in_window(n_t, n_a, seconds)
    elif name == "idle":
        scene.handling = "idle"
    elif name == "carried":
        scene.handling = "carried"
    else:
        raise ValueError(f"unknown scenario {name!r} (known: {', '.join(SCENARIOS)})")
    return scene


# ---------------------------------------------------------------------------------------------
# Physics at INTERNAL_RATE


def _smooth_process(rng, n, rate, amplitudes, freq_range):
    t = np.arange(n) / rate
    out = np.zeros(n)
    for amplitude in amplitudes:
        f = rng.uniform(*freq_range)
        out += amplitude * np.sin(2 * math.pi * f * t + rng.uniform(0, 2 * math.pi))
    return out


def _hann_pulse(n):
    return 0.5 - 0.5 * np.cos(2 * math.pi * np.arange(n) / max(n - 1, 1))


def _add(signal, start, shape):
    """signal[start:start+len(shape)] += shape, cut at the ends."""
    if start >= signal.size:
        return
    lo = max(start, 0)
    hi = min(start + shape.size, signal.size)
    signal[lo:hi] += shape[lo - start:hi - start]


def render_physics(scene: Scene, seed: int):
    """(x, y, z) specific force in g at INTERNAL_RATE over scene.seconds + a margin."""
    rng = np.random.default_rng([seed, zlib.crc32(scene.name.encode()), 1])
    fs = INTERNAL_RATE
    n = int(math.ceil((scene.seconds + 0.05) * fs))
    t = np.arange(n) / fs

    # Handling: tilt angles (rad) and linear acceleration (g, world frame ~ sensor frame).
    if scene.handling == "carried":
        pitch = _smooth_process(rng, n, fs, (0.35, 0.2, 0.08), (0.05, 0.6))
        roll = _smooth_process(rng, n, fs, (0.3, 0.15, 0.05), (0.05, 0.6))
        lin = np.zeros((3, n))
        # Walking: a heel strike every 0.45-0.6 s, a 0.1-0.16 s bounce of 0.15-0.45 g.
        step_t = rng.uniform(0.1, 0.4)
        while step_t < scene.seconds:
            width = int(rng.uniform(0.10, 0.16) * fs)
            bounce = _hann_pulse(width) * rng.uniform(0.15, 0.45)
            k = int(step_t * fs)
            _add(lin[2], k, bounce)
            _add(lin[0], k, bounce * rng.uniform(-0.4, 0.4))
            _add(lin[1], k, bounce * rng.uniform(-0.4, 0.4))
            step_t += rng.uniform(0.45, 0.6)
        lin += np.stack([_smooth_process(rng, n, fs, (0.05, 0.03), (0.5, 3.0)) for _ in range(3)])
    else:
        scale = 1.0 if scene.handling == "idle" else 0.4
        pitch = _smooth_process(rng, n, fs, (0.03 * scale, 0.01 * scale), (0.05, 1.0))
        roll = _smooth_process(rng, n, fs, (0.03 * scale, 0.01 * scale), (0.05, 1.0))
        lin = np.stack([_smooth_process(rng, n, fs, (0.004 * scale, 0.002 * scale), (0.2, 2.0))
                        for _ in range(3)])
        if scene.handling == "idle":
            # Picked at, nudged, adjusted: smooth pushes of 0.03-0.25 g over 60-300 ms.
            bump_t = rng.uniform(0.2, 1.0)
            while bump_t < scene.seconds:
                width = int(rng.uniform(0.06, 0.3) * fs)
                shape = _hann_pulse(width) * rng.uniform(0.03, 0.25) * rng.choice((-1, 1))
                k = int(bump_t * fs)
                _add(lin[2], k, shape)
                _add(lin[0], k, shape * rng.uniform(-0.6, 0.6))
                _add(lin[1], k, shape * rng.uniform(-0.6, 0.6))
                bump_t += rng.uniform(0.4, 1.5)

    # Gravity rotated by pitch (about x) then roll (about y), plus the linear part.
    x = np.sin(roll) * np.cos(pitch) + lin[0]
    y = -np.sin(pitch) + lin[1]
    z = np.cos(roll) * np.cos(pitch) + lin[2]

    # The pad's own modes (the same board for the whole log, a little variation per strike).
    f_board = rng.uniform(250, 450)
    f_mount = rng.uniform(30, 60)
    cross = rng.uniform(-0.2, 0.2, 2)

    def strike_shape(amplitude, r):
        contact = r.uniform(1.5, 3.5) * 1e-3 * (1.0 - 0.25 * min(amplitude / 16.0, 1.0))
        nc = max(2, int(round(contact * fs)))
        shock = -amplitude * np.sin(math.pi * np.arange(nc) / nc)
        ring_n = int(0.12 * fs)
        tr = np.arange(ring_n) / fs
        f1 = f_board * r.uniform(0.97, 1.03)
        tau1 = r.uniform(0.008, 0.020)
        f2 = f1 * r.uniform(2.3, 2.5)
        tau2 = r.uniform(0.003, 0.006)
        fm = f_mount * r.uniform(0.95, 1.05)
        taum = r.uniform(0.015, 0.030)
        ring = amplitude * (0.5 * np.exp(-tr / tau1) * np.sin(2 * math.pi * f1 * tr)
                            + 0.2 * np.exp(-tr / tau2) * np.sin(2 * math.pi * f2 * tr)
                            + 0.6 * np.exp(-tr / taum) * np.sin(2 * math.pi * fm * tr))
        return np.concatenate([shock, ring])

    for t0, a in zip(scene.strikes_t, scene.strikes_a):
        shape = strike_shape(a, rng)
        k = int(round(t0 * fs))
        _add(z, k, shape)
        _add(x, k, shape * (cross[0] + rng.uniform(-0.05, 0.05)))
        _add(y, k, shape * (cross[1] + rng.uniform(-0.05, 0.05)))

    f_stand = rng.uniform(60, 130)
    for t0, a in zip(scene.crosstalk_t, scene.crosstalk_a):
        level = a * rng.uniform(0.04, 0.12)
        delay = rng.uniform(0.002, 0.006)
        nr = int(0.15 * fs)
        tr = np.arange(nr) / fs
        rise = np.minimum(tr / rng.uniform(0.002, 0.004), 1.0)
        rise = 0.5 - 0.5 * np.cos(math.pi * rise)
        tau = rng.uniform(0.015, 0.030)
        shape = level * rise * np.exp(-tr / tau) * (
            -np.sin(2 * math.pi * f_stand * tr + 0.5 * math.pi) * 0.85
            + 0.15 * np.sin(2 * math.pi * f_board * tr))
        k = int(round((t0 + delay) * fs))
        _add(z, k, shape)
        _add(x, k, shape * rng.uniform(-0.3, 0.3))
        _add(y, k, shape * rng.uniform(-0.3, 0.3))
    return x, y, z


# ---------------------------------------------------------------------------------------------
# Sensor stages


def butterworth_impulse(cutoff_hz: float, order: int, fs: float, seconds: float = 0.25):
    """Impulse response of a Butterworth low-pass (bilinear transform, cascaded biquads)."""
    assert order % 2 == 0
    n = int(seconds * fs)
    h = np.zeros(n)
    h[0] = 1.0
    k = math.tan(math.pi * cutoff_hz / fs)
    for i in range(order // 2):
        q = 1.0 / (2 * math.sin(math.pi * (2 * i + 1) / (2 * order)))
        norm = 1 / (1 + k / q + k * k)
        b0 = k * k * norm
        b1, b2 = 2 * b0, b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - k / q + k * k) * norm
        out = np.zeros(n)
        x1 = x2 = y1 = y2 = 0.0
        for j in range(n):
            xj = h[j]
            yj = b0 * xj + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
            x2, x1, y2, y1 = x1, xj, y1, yj
            out[j] = yj
        h = out
    return h


def causal_filter(signal: np.ndarray, impulse: np.ndarray) -> np.ndarray:
    """Linear convolution, causal, same length (FFT); the start is primed with signal[0]."""
    pad = impulse.size
    primed = np.concatenate([np.full(pad, signal[0]), signal])
    size = 1 << int(math.ceil(math.log2(primed.size + impulse.size)))
    out = np.fft.irfft(np.fft.rfft(primed, size) * np.fft.rfft(impulse, size), size)
    return out[pad:pad + signal.size]


def sample_times(profile: Profile, seconds: float, rng) -> np.ndarray:
    """World times (s) of the sensor's samples, on a µs grid as MSC_TIMESTAMP would give."""
    period_us = int(round(1e6 / profile.rate_hz))  # the Joy-Con's 200 Hz: 15 ms / 3, as hid-nintendo
    phase_us = int(rng.integers(0, period_us))
    count = int((seconds * 1e6 - phase_us) // period_us) + 1
    return (phase_us + period_us * np.arange(count)) / 1e6


def defuzz_frames(raw: np.ndarray, fuzz: int, times_us: np.ndarray) -> np.ndarray:
    """The values a reader of the evdev node sees: raw (n, 3) through evdev_model.input_core."""
    ev = evdev_model
    events = []
    for k in range(raw.shape[0]):
        tu = int(times_us[k])
        for axis, code in enumerate(ev.AXES):
            events.append(ev.Event(tu, ev.EV_ABS, code, int(raw[k, axis])))
        events.append(ev.Event(tu, ev.EV_MSC, ev.MSC_TIMESTAMP, tu % ev.U32))
        events.append(ev.Event(tu, ev.EV_SYN, ev.SYN_REPORT, 0))
    frames = ev.frames(ev.input_core(events, fuzz))
    return np.asarray([(f.x, f.y, f.z) for f in frames], dtype=np.int64)


@dataclass
class Rendered:
    profile: Profile
    scene: Scene
    t: np.ndarray            # log times (s)
    xyz: np.ndarray          # (n, 3) in g, as written
    raw: np.ndarray          # (n, 3) raw units after clipping (before the fuzz filter)
    seen: np.ndarray         # (n, 3) raw units as the reader sees them (after fuzz, if any)
    analog: np.ndarray       # (n, 3) in g before noise, clipping, quantisation
    band_z: np.ndarray       # z through the sensor's low-pass at INTERNAL_RATE, before sampling
    t_event: np.ndarray | None  # delivery time of each sample's report (bursty profiles)
    labels_t: np.ndarray
    labels_a: np.ndarray


def band_limit(profile: Profile, physics):
    """The physics (x, y, z) through the sensor's own low-pass, still at INTERNAL_RATE."""
    h = butterworth_impulse(profile.lowpass_hz, profile.lowpass_order, INTERNAL_RATE)
    return [causal_filter(axis, h) for axis in physics]


def names(text, known, what, program):
    """The names in `text` (a list of space- or comma-separated arguments), each checked
    against `known`; an unknown one stops `program` with an error naming it and the known ones."""
    chosen = [n for part in text for n in part.split(",") if n]
    for n in chosen:
        if n not in known:
            raise SystemExit(f"{program}: unknown {what} {n!r} (known: {', '.join(known)})")
    return chosen


def render(profile_name: str, scenario: str, seconds: float, seed: int,
           physics=None, scene: Scene | None = None) -> Rendered:
    """One log: `scenario`'s scene (or the given `scene`) through the profile's sensor."""
    profile = PROFILES[profile_name]
    if scene is None:
        scene = make_scene(scenario, seconds, seed)
    if physics is None:
        physics = render_physics(scene, seed)
    rng = np.random.default_rng([seed, zlib.crc32(scenario.encode()),
                                 zlib.crc32(profile_name.encode())])
    filtered = band_limit(profile, physics)
    times = sample_times(profile, seconds, rng)
    grid = np.arange(filtered[0].size) / INTERNAL_RATE
    analog = np.stack([np.interp(times, grid, axis) for axis in filtered], axis=1)
    noisy = analog + rng.normal(0.0, profile.noise_g, analog.shape)
    raw = np.clip(np.rint(noisy * profile.units_per_g), profile.raw_min, profile.raw_max)
    raw = raw.astype(np.int64)
    times_us = np.rint(times * 1e6).astype(np.int64)
    seen = defuzz_frames(raw, profile.fuzz, times_us) if profile.evdev else raw.copy()
    xyz = seen / float(profile.units_per_g)
    if profile.gravity_removed:
        gravity = np.empty_like(xyz)
        g = xyz[0].copy()
        for k in range(xyz.shape[0]):
            g = ANDROID_ALPHA * g + (1 - ANDROID_ALPHA) * xyz[k]
            gravity[k] = g
        xyz = xyz - gravity
    t_event = None
    if profile.burst > 1:
        # A report carries `burst` samples and is delivered after its last one, late by a
        # random radio/USB latency; every frame of a report gets that report's event time.
        reports = np.arange(times.size) // profile.burst
        last = np.minimum((reports + 1) * profile.burst - 1, times.size - 1)
        latency = rng.uniform(*profile.report_latency_s, reports.max() + 1)
        t_event = times[last] + latency[reports]
        t_event = np.maximum.accumulate(t_event)
    return Rendered(profile=profile, scene=scene, t=times, xyz=xyz, raw=raw, seen=seen,
                    analog=analog, band_z=filtered[2], t_event=t_event,
                    labels_t=scene.strikes_t.copy(), labels_a=scene.strikes_a.copy())


# ---------------------------------------------------------------------------------------------
# Rank correlation (score and bounds)


def ranks(values):
    """Ranks from 1, ties sharing their mean rank (as Spearman's rho needs)."""
    values = np.asarray(values, dtype=float)
    order = np.argsort(values, kind="mergesort")
    result = np.empty(len(values))
    i = 0
    while i < len(values):
        j = i
        while j + 1 < len(values) and values[order[j + 1]] == values[order[i]]:
            j += 1
        result[order[i:j + 1]] = (i + j) / 2 + 1
        i = j + 1
    return result


def spearman(a, b):
    """Spearman's rank correlation of two equal-length sequences (None under 3 pairs)."""
    if len(a) < 3:
        return None
    ra, rb = ranks(a), ranks(b)
    if ra.std() == 0 or rb.std() == 0:
        return None
    return float(np.corrcoef(ra, rb)[0, 1])


# ---------------------------------------------------------------------------------------------
# Writing


def format_log(r: Rendered, seed: int) -> str:
    p = r.profile
    rate = int(p.rate_hz) if float(p.rate_hz).is_integer() else p.rate_hz
    lines = [
        "# drumpad sensor log v1",
        f"# device: {p.device}",
        f"# rate_hz: {rate}",
        f"# profile: {p.name}",
        f"# scenario: {r.scene.name}",
        f"# seed: {seed}",
        f"# generator: tools/corpus/generate (labels in the .labels.csv next to this file)",
        f"# units_per_g: {p.units_per_g}",
        f"# full_scale_g: {p.full_scale_g:g}",
        f"# fuzz: {p.fuzz}" if p.evdev else "# fuzz: none (no input core)",
    ]
    if p.gravity_removed:
        lines.append("# gravity: removed (Android example high-pass, alpha 0.8)")
    if r.t_event is not None:
        lines.append(f"# t_event: delivery time of the report (bursts of {p.burst} samples)")
        lines.append("t,x,y,z,t_event")
        rows = [f"{t:.6f},{x:.7f},{y:.7f},{z:.7f},{te:.6f}"
                for t, (x, y, z), te in zip(r.t, r.xyz, r.t_event)]
    else:
        lines.append("t,x,y,z")
        rows = [f"{t:.6f},{x:.7f},{y:.7f},{z:.7f}" for t, (x, y, z) in zip(r.t, r.xyz)]
    return "\n".join(lines + rows) + "\n"


def format_labels(r: Rendered) -> str:
    lines = ["t,amplitude"]
    lines += [f"{t:.6f},{a:.4f}" for t, a in zip(r.labels_t, r.labels_a)]
    return "\n".join(lines) + "\n"


def neighbour_scene(scene: Scene) -> Scene:
    """The louder neighbour of a crosstalk scene, as its own pad: its strikes are the scene's
    crosstalk sources, and the scene's own strikes leak into it as crosstalk in turn."""
    return Scene(name=scene.name + "-neighbour", seconds=scene.seconds,
                 strikes_t=scene.crosstalk_t.copy(), strikes_a=scene.crosstalk_a.copy(),
                 crosstalk_t=scene.strikes_t.copy(), crosstalk_a=scene.strikes_a.copy(),
                 handling=scene.handling)


def _write(base: str, r: Rendered, seed: int):
    with open(base + ".csv", "w", encoding="utf-8") as f:
        f.write(format_log(r, seed))
    with open(base + ".labels.csv", "w", encoding="utf-8") as f:
        f.write(format_labels(r))


def generate(out_dir: str, profiles, scenarios, seconds: float, seed: int, log=None):
    """Writes DIR/PROFILE-SCENARIO.csv and .labels.csv for each pair; returns the paths.
    A crosstalk scenario also gets its neighbour pad, PROFILE-crosstalk.neighbour.csv and
    .neighbour.labels.csv, on the same time base (two sensors read by one board), so that
    cancelling crosstalk across pads can be scored."""
    os.makedirs(out_dir, exist_ok=True)
    written = []
    for scenario in scenarios:
        scene = make_scene(scenario, seconds, seed)
        physics = render_physics(scene, seed)    # the same pad motion for every profile
        pads = [("", scene, physics)]
        if scene.crosstalk_t.size:
            other = neighbour_scene(scene)
            pads.append((".neighbour", other, render_physics(other, seed)))
        for profile in profiles:
            for suffix, pad_scene, pad_physics in pads:
                r = render(profile, pad_scene.name, seconds, seed, physics=pad_physics, scene=pad_scene)
                base = os.path.join(out_dir, f"{profile}-{scenario}{suffix}")
                _write(base, r, seed)
                written.append((base + ".csv", base + ".labels.csv"))
                if log:
                    log(f"{base}.csv: {r.t.size} samples, {r.labels_t.size} strikes, "
                        f"{r.scene.crosstalk_t.size} crosstalk events")
    return written
