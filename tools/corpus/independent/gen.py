#!/usr/bin/env python3
"""Independent drum-stand accelerometer corpus generator.

Physics (own model, see stand.json for the numbers a seed chose):
  * strike on pad i: force = half-sine of contact time tau = tau0_pad*(S/5g)^-0.2 (tau0 1.2-3 ms);
    the pad's sensor feels a direct shock (-F, pad face pushed down) plus the impulse
    response of its modes: a plate/shell mode (120-450 Hz, 3-15 ms decay) and a mount/arm
    mode (18-70 Hz, 30-150 ms decay), plus lateral (x,y) rocking.
  * crosstalk i->j: after a lag of 0.1-1.5 ms, pad j feels the force through the stand:
    a low-passed thump (80-250 Hz), a stand mode (8-25 Hz), pad j's own mount mode and
    a little of pad i's plate mode; sign fixed per pair.
  * cymbal bump: a smooth raised-cosine push (15-60 ms) plus stand sway (4-14 Hz, decay
    0.12-0.4 s) plus a small sharp part (5-25 % of the bump, low-passed 150-300 Hz).
  * sensor: 2nd-order Butterworth anti-alias/averaging filter (class cutoff), point sampled
    at its own crystal rate (+-0.2 % drift), white noise + slow wander, gravity on a tilted
    axis, clip at +-16 g, quantised to the class LSB, timestamps jittered, rare drops.
  * strength S of a strike = peak |z deviation| of the sensor's filtered (pre-sampling)
    signal due to that strike alone (--strength-ref physical: of the physical acceleration).
    Crosstalk peak = c_ij * S (c_ij 3-10 %), bump peak = 0.15-1.0 g, same reference.
"""
import argparse, json, math, os, sys
import numpy as np
from scipy import signal

PADS = ["snare", "racktom", "floortom", "ride"]  # ride = idle
PLAYED = PADS[:3]

CLASSES = {
    # rate, filter cutoff range (Hz), z noise rms range (g), lsb (g), jitter rms (ms),
    # samples per packet (jitter shared), drop prob per packet, decimals, internal fs
    "phone": dict(rate=100, fc=(28, 45), noise=(0.010, 0.018), lsb=0.0024 / 9.80665,
                  jitter=(0.5, 1.2), packet=1, drop=0.0005, dec=5, fs=8000,
                  device="Android phone accelerometer (simulated)"),
    "joycon": dict(rate=200, fc=(55, 85), noise=(0.005, 0.009), lsb=1 / 2048,
                   jitter=(0.6, 1.5), packet=3, drop=0.001, dec=5, fs=8000,
                   device="Nintendo Switch Left Joy-Con IMU (simulated)"),
    "dualsense": dict(rate=250, fc=(70, 110), noise=(0.004, 0.008), lsb=1 / 2048,
                      jitter=(0.2, 0.5), packet=1, drop=0.0005, dec=5, fs=8000,
                      device="DualSense Wireless Controller Motion Sensors (simulated)"),
    "adxl": dict(rate=1600, fc=(700, 800), noise=(0.006, 0.010), lsb=0.0039,
                 jitter=(0.0, 0.03), packet=1, drop=0.0, dec=4, fs=16000,
                 device="ADXL345 SPI (simulated)"),
}
RANGE_G = 16.0
LEN_S = 0.9  # snippet length


def lu(rng, a, b):
    return float(math.exp(rng.uniform(math.log(a), math.log(b))))


def half_sine(tau, fs):
    n = max(2, int(round(tau * fs)))
    t = (np.arange(n) + 0.5) / fs
    return np.sin(np.pi * t / tau)


def mode_ir(f, T, fs, L):
    t = np.arange(L) / fs
    return np.exp(-t / T) * np.sin(2 * np.pi * f * t)


def mode_resp(F, f, T, fs, L):
    """Response of a mode to force F, normalised so a short pulse gives peak ~1."""
    r = np.convolve(F, mode_ir(f, T, fs, L))[:L]
    return r / F.sum()


def lp(x, fc, fs, order=1):
    b, a = signal.butter(order, min(fc / (fs / 2), 0.99))
    return signal.lfilter(b, a, x)


# ---------------------------------------------------------------- stand / sensor params
def make_stand(rng, cls):
    pads = {}
    for p in PADS:
        pads[p] = dict(
            plate_f=lu(rng, 120, 450), plate_T=rng.uniform(0.003, 0.015), plate_a=rng.uniform(0.3, 0.8),
            mount_f=lu(rng, 18, 70), mount_T=rng.uniform(0.03, 0.15), mount_a=rng.uniform(0.08, 0.3),
            third_f=lu(rng, 60, 160), third_T=rng.uniform(0.01, 0.04), third_a=rng.uniform(0.0, 0.3),
            contact_ms=rng.uniform(1.2, 3.0),  # stick contact time of a 5 g strike (Hertz: ~ v^-1/5)
            lat=[rng.uniform(0.1, 0.35), rng.uniform(0.1, 0.35)],
            tilt_deg=rng.uniform(0, 12), tilt_az=rng.uniform(0, 360),
            bump_sign=float(rng.choice([-1, 1])), bump_base=rng.uniform(0.35, 1.0),
        )
    stand = dict(stand_f=rng.uniform(8, 25), stand_T=rng.uniform(0.08, 0.3))
    coup = {}
    for i in PADS:
        for j in PADS:
            if i == j:
                continue
            coup[f"{i}->{j}"] = dict(
                c=rng.uniform(0.03, 0.10), lag_ms=rng.uniform(0.1, 1.5), sign=float(rng.choice([-1, 1])),
                thump_fc=rng.uniform(80, 250), thump_a=rng.uniform(0.5, 1.0),
                stand_a=rng.uniform(0.2, 0.7), mount_a=rng.uniform(0.2, 0.6), plate_a=rng.uniform(0.0, 0.25),
                lat=[rng.uniform(0.3, 1.0), rng.uniform(0.3, 1.0)],
            )
    cym = dict(push_ms=rng.uniform(15, 60), sway_f=rng.uniform(4, 14), sway_T=rng.uniform(0.12, 0.4),
               sway_a=rng.uniform(0.4, 0.9), sharp_a=rng.uniform(0.05, 0.25), sharp_fc=rng.uniform(150, 300),
               lag_ms=rng.uniform(1, 5))
    return dict(pads=pads, stand=stand, couplings=coup, cymbal=cym)


def gentle(stand, variant):
    """--variant gentle: better-damped mounts and shorter stick contact (sensitivity check)."""
    if variant != "gentle":
        return
    for pp in stand["pads"].values():
        pp["mount_a"] *= 0.5
        pp["mount_T"] = min(pp["mount_T"], 0.08)
        pp["third_a"] *= 0.5
        pp["contact_ms"] = 1.0 + (pp["contact_ms"] - 1.2) * (1.2 / 1.8)
    stand["stand"]["stand_T"] = min(stand["stand"]["stand_T"], 0.15)


def make_sensor(rng, cls):
    c = CLASSES[cls]
    sens = {}
    for p in PADS + ["pad"]:
        sens[p] = dict(fc=rng.uniform(*c["fc"]), noise=rng.uniform(*c["noise"]),
                       jitter_ms=rng.uniform(*c["jitter"]), drift=rng.uniform(-0.002, 0.002),
                       phase=rng.uniform(0, 1), wander=rng.uniform(0.001, 0.003))
    return sens


# ---------------------------------------------------------------- music
def make_music(rng, seconds):
    bpm = float(rng.uniform(80, 160))
    beat = 60.0 / bpm
    bar = 4 * beat
    t0 = 1.5
    notes = []  # (t, pad, strength, kind)
    crashes = []
    nbars = int((seconds - t0 - 1.5) / bar)
    b = 0
    sec_len_choices = [4, 8]

    def add(t, pad, s, kind):
        s = float(np.clip(s, 1.2 if kind == "ghost" else 1.3, 14.0))
        notes.append([t + rng.normal(0, 0.004), pad, s, kind])

    while b < nbars:
        L = int(rng.choice(sec_len_choices))
        L = min(L, nbars - b)
        dyn = rng.choice(["soft", "medium", "loud"], p=[0.25, 0.45, 0.30])
        dm = {"soft": rng.uniform(0.3, 0.5), "medium": rng.uniform(0.6, 0.9), "loud": rng.uniform(1.0, 1.3)}[dyn]
        style = rng.choice(["backbeat", "tomgroove", "sparse"], p=[0.55, 0.25, 0.20])
        ghost_p = rng.uniform(0.2, 0.5)
        tom_quarter = rng.random() < 0.35
        for k in range(L):
            tb = t0 + (b + k) * bar
            last = k == L - 1 or (k == 3 and L == 8 and rng.random() < 0.5)
            nsteps = 16 if not last else 8  # last bar: groove for half, fill for the rest
            for s16 in range(nsteps):
                t = tb + s16 * beat / 4
                if s16 in (4, 12):
                    add(t, "snare", lu(rng, 5, 11) * dm, "backbeat")
                elif style != "sparse" and s16 % 2 == 1 and rng.random() < ghost_p:
                    add(t, "snare", lu(rng, 1.2, 2.5), "ghost")
                elif style == "sparse" and s16 % 4 == 2 and rng.random() < 0.3:
                    add(t, "snare", lu(rng, 1.2, 2.0), "ghost")
                if style == "tomgroove" and s16 % 2 == 0 and s16 not in (4, 12):
                    add(t, "floortom" if s16 % 4 == 0 or rng.random() < 0.4 else "racktom",
                        lu(rng, 2.5, 7) * dm, "groove")
                    if rng.random() < 0.15:
                        add(t + rng.uniform(0, 0.005), "racktom", lu(rng, 1.5, 6) * dm, "unison")
                elif tom_quarter and s16 % 4 == 0 and s16 not in (4, 12):
                    add(t, "floortom", lu(rng, 2, 6) * dm, "groove")
                if s16 in (4, 12) and rng.random() < 0.06:  # unison backbeat with a tom
                    p2 = rng.choice(["racktom", "floortom"])
                    add(t + rng.uniform(-0.005, 0.005), p2, lu(rng, 1.5, 12) * dm, "unison")
                if rng.random() < 0.015 and s16 % 4 == 2:  # cross-pad flam in the groove
                    g, m = rng.choice(PLAYED, 2, replace=False)
                    add(t - rng.uniform(0.015, 0.040), g, lu(rng, 1.3, 4), "flam-grace")
                    add(t, m, lu(rng, 4, 12) * dm, "flam-main")
            if last:
                # fill over the second half of the bar
                fd = rng.uniform(0.7, 1.2) * max(dm, 0.6)
                sub = 3 if (bpm <= 120 and rng.random() < 0.35) else 4
                if bpm > 145 and rng.random() < 0.5:
                    sub = 2
                steps = 2 * sub
                seq = []
                order = rng.choice(["down", "up", "random", "pairs"])
                for q in range(steps):
                    if order == "down":
                        pad = PLAYED[min(2, q * 3 // steps)]
                    elif order == "up":
                        pad = PLAYED[2 - min(2, q * 3 // steps)]
                    elif order == "pairs":
                        pad = PLAYED[(q // 2) % 3]
                    else:
                        pad = PLAYED[rng.integers(3)]
                    seq.append(pad)
                for q, pad in enumerate(seq):
                    t = tb + 2 * beat + q * beat / sub
                    s = lu(rng, 2.5, 9) * fd * (0.7 + 0.6 * q / steps)
                    r = rng.random()
                    if r < 0.08:  # flam across pads
                        other = rng.choice([p for p in PLAYED if p != pad])
                        add(t - rng.uniform(0.015, 0.040), other, lu(rng, 1.3, 4), "flam-grace")
                        add(t, pad, s, "flam-main")
                    elif r < 0.16:  # unison
                        other = rng.choice([p for p in PLAYED if p != pad])
                        add(t, pad, s, "unison")
                        add(t + rng.uniform(-0.005, 0.005), other, lu(rng, 1.5, 12) * fd, "unison")
                    elif r < 0.22 and bpm <= 115:  # double stroke (32nd)
                        add(t, pad, s, "fill")
                        add(t + beat / (2 * sub), pad, s * rng.uniform(0.6, 1.0), "fill")
                    else:
                        add(t, pad, s, "fill")
                # next downbeat: crash + unison accent
                tn = tb + bar
                if b + k + 1 < nbars or True:
                    p1, p2 = rng.choice(PLAYED, 2, replace=False)
                    if tn < seconds - 1.0:
                        add(tn, p1, lu(rng, 6, 14), "unison")
                        add(tn + rng.uniform(-0.005, 0.005), p2, lu(rng, 2, 14), "unison")
                        crashes.append(tn + rng.normal(0, 0.004))
            elif k % 2 == 0 and rng.random() < 0.3 and k > 0:
                crashes.append(tb + rng.normal(0, 0.004))
        b += L
    notes.sort(key=lambda n: n[0])
    # same pad: at least 60 ms apart (a stick cannot do better here), and keep only notes inside
    last = {}
    kept = []
    for n in notes:
        if n[0] > seconds - 1.0:
            continue
        if n[1] in last and n[0] - last[n[1]] < 0.060:
            continue
        last[n[1]] = n[0]
        kept.append(n)
    return dict(bpm=bpm), kept, sorted(crashes)


# ---------------------------------------------------------------- waveforms
def strike_phys(pp, tau, fs, L, rng):
    F = half_sine(tau, fs)
    z = np.zeros(L)
    z[:len(F)] -= F
    var = lambda: float(np.exp(rng.normal(0, 0.2)))
    z -= pp["plate_a"] * var() * mode_resp(F, pp["plate_f"], pp["plate_T"], fs, L)
    z -= pp["mount_a"] * var() * mode_resp(F, pp["mount_f"], pp["mount_T"], fs, L)
    z -= pp["third_a"] * var() * mode_resp(F, pp["third_f"], pp["third_T"], fs, L)
    lat = []
    for a in pp["lat"]:
        m = (rng.normal(0, 0.5) * np.r_[F, np.zeros(L - len(F))]
             + rng.normal(0, 0.7) * mode_resp(F, pp["plate_f"] * 1.13, pp["plate_T"], fs, L)
             + rng.normal(0, 0.7) * mode_resp(F, pp["mount_f"] * 0.9, pp["mount_T"], fs, L))
        lat.append(a * m)
    return F, np.stack([lat[0], lat[1], z])


def xtalk_phys(F, ci, ppi, ppj, stand, fs, L, rng):
    lag = int(round(ci["lag_ms"] * 1e-3 * fs))
    Fp = np.r_[F, np.zeros(L - len(F))]
    th = lp(Fp, ci["thump_fc"], fs, 2)
    th /= max(np.abs(th).max(), 1e-12)
    z = (ci["thump_a"] * th
         + ci["stand_a"] * mode_resp(F, stand["stand_f"], stand["stand_T"], fs, L)
         + ci["mount_a"] * mode_resp(F, ppj["mount_f"], ppj["mount_T"], fs, L)
         + ci["plate_a"] * mode_resp(F, ppi["plate_f"], ppi["plate_T"], fs, L))
    z *= -ci["sign"]
    x = ci["lat"][0] * (rng.normal(0, 0.5) * th + mode_resp(F, stand["stand_f"] * 1.07, stand["stand_T"], fs, L))
    y = ci["lat"][1] * (rng.normal(0, 0.5) * th - mode_resp(F, stand["stand_f"] * 0.93, stand["stand_T"], fs, L))
    out = np.zeros((3, L))
    out[:, lag:] = np.stack([x, y, z])[:, :L - lag]
    return out


def bump_phys(cym, sign, fs, L, rng):
    t = np.arange(L) / fs
    w = cym["push_ms"] * 1e-3 * rng.uniform(0.8, 1.25)
    push = np.where(t < w, 0.5 - 0.5 * np.cos(2 * np.pi * t / w), 0.0)
    sway = cym["sway_a"] * rng.uniform(0.8, 1.2) * np.exp(-t / cym["sway_T"]) * np.sin(2 * np.pi * cym["sway_f"] * t)
    sp = np.zeros(L)
    F = half_sine(0.0015, fs)
    sp[:len(F)] = F
    sp = lp(sp, cym["sharp_fc"], fs, 2)
    sp /= np.abs(sp).max()
    z = sign * (push + sway) + cym["sharp_a"] * rng.uniform(0.5, 1.5) * rng.choice([-1, 1]) * sp
    x = rng.uniform(0.5, 1.5) * (push * rng.choice([-1, 1]) + sway * 1.3)
    y = rng.uniform(0.5, 1.5) * (push * rng.choice([-1, 1]) - sway * 0.8)
    lag = int(cym["lag_ms"] * 1e-3 * fs)
    out = np.zeros((3, L))
    out[:, lag:] = np.stack([x, y, z])[:, :L - lag]
    return out


class Sensor:
    def __init__(self, cls, sp, seconds):
        self.c = CLASSES[cls]
        self.sp = sp
        self.fs = self.c["fs"]
        self.b, self.a = signal.butter(2, min(sp["fc"] / (self.fs / 2), 0.95))

    def filt(self, x):
        return signal.lfilter(self.b, self.a, x, axis=-1)


def place(buf, snip, t, fs):
    i = int(round(t * fs))
    L = snip.shape[1]
    n = min(L, buf.shape[1] - i)
    if n > 0:
        buf[:, i:i + n] += snip[:, :n]


def sample_and_write(path, buf, sens, sp, pp, seconds, rng, cls):
    c = CLASSES[cls]
    fs = c["fs"]
    rate = c["rate"] * (1 + sp["drift"])
    n = int((seconds - 0.01) * rate)
    tk = (sp["phase"] + np.arange(n)) / rate
    tgrid = np.arange(buf.shape[1]) / fs
    vals = np.stack([np.interp(tk, tgrid, buf[a]) for a in range(3)])
    # noise: white + slow wander
    nz = sp["noise"]
    vals[0] += rng.normal(0, nz * 0.8, n)
    vals[1] += rng.normal(0, nz * 0.8, n)
    vals[2] += rng.normal(0, nz, n)
    for a in range(3):
        w = np.cumsum(rng.normal(0, 1, n))
        w = signal.filtfilt(*signal.butter(1, min(0.5 / (rate / 2), 0.5)), w)
        w -= w.mean()
        w *= sp["wander"] / max(w.std(), 1e-12)
        vals[a] += w
    th, az = math.radians(pp["tilt_deg"]), math.radians(pp["tilt_az"])
    g = np.array([math.sin(th) * math.cos(az), math.sin(th) * math.sin(az), math.cos(th)])
    vals += g[:, None]
    vals = np.clip(vals, -RANGE_G, RANGE_G)
    vals = np.round(vals / c["lsb"]) * c["lsb"]
    # timestamps: jitter (shared per packet), rare dropped packets
    P = c["packet"]
    npk = (n + P - 1) // P
    jit = rng.normal(0, sp["jitter_ms"] * 1e-3, npk)
    tr = tk + np.repeat(jit, P)[:n]
    tr = np.maximum(tr, 0.0)
    tr = np.maximum.accumulate(tr)
    keep_pk = rng.random(npk) >= c["drop"]
    keep = np.repeat(keep_pk, P)[:n]
    tr, vals = tr[keep], vals[:, keep]
    dec = c["dec"]
    with open(path, "w") as f:
        f.write("# drumpad sensor log v1\n")
        f.write(f"# device: {c['device']}\n")
        f.write(f"# rate_hz: {c['rate']}\n")
        f.write("t,x,y,z\n")
        fmt = f"{{:.6f}},{{:.{dec}f}},{{:.{dec}f}},{{:.{dec}f}}\n"
        f.writelines(fmt.format(a, b, cc, d) for a, b, cc, d in zip(tr, vals[0], vals[1], vals[2]))
    return int(keep.sum()), int(n - keep.sum())


def write_truth(path, rows):
    with open(path, "w") as f:
        f.write("t,strength\n")
        for t, s in rows:
            f.write(f"{t:.6f},{s:.4f}\n")


def tau_for(S, pp, rng):
    tau = pp["contact_ms"] * 1e-3 * (S / 5.0) ** -0.2 * float(np.exp(rng.normal(0, 0.1)))
    return float(np.clip(tau, 0.0007, 0.0045))


def peak_ref(sensor, snip_phys, ref):
    if ref == "physical":
        return np.abs(snip_phys[2]).max(), sensor.filt(snip_phys)
    f = sensor.filt(snip_phys)
    return np.abs(f[2]).max(), f


# ---------------------------------------------------------------- scenarios
def gen_kit(args, out):
    rng_stand = np.random.default_rng([args.seed, 1])
    rng_music = np.random.default_rng([args.seed, 2])
    cid = list(CLASSES).index(args.cls)
    rng_sens = np.random.default_rng([args.seed, 3, cid])
    rng_w = np.random.default_rng([args.seed, 4, cid])
    stand = make_stand(rng_stand, args.cls)
    gentle(stand, args.variant)
    sens = make_sensor(rng_sens, args.cls)
    music, notes, crashes = make_music(rng_music, args.seconds)
    fs = CLASSES[args.cls]["fs"]
    L = int(LEN_S * fs)
    N = int((args.seconds + 1) * fs)
    sensors = {p: Sensor(args.cls, sens[p], args.seconds) for p in PADS}
    bufs = {p: np.zeros((3, N)) for p in PADS}
    truth = {p: [] for p in PADS}
    diag = {p: dict(strike=[], xtalk=[], bump=[]) for p in PADS}
    for t, pad, S, kind in notes:
        pp = stand["pads"][pad]
        tau = tau_for(S, pp, rng_w)
        F, ph = strike_phys(pp, tau, fs, L, rng_w)
        pk, f = peak_ref(sensors[pad], ph, args.strength_ref)
        place(bufs[pad], f * (S / pk), t, fs)
        truth[pad].append((t, S))
        diag[pad]["strike"].append((t, S))
        for j in PADS:
            if j == pad:
                continue
            ci = stand["couplings"][f"{pad}->{j}"]
            xp = xtalk_phys(F, ci, pp, stand["pads"][j], stand["stand"], fs, L, rng_w)
            pkx, fx = peak_ref(sensors[j], xp, args.strength_ref)
            a = ci["c"] * S * float(np.exp(rng_w.normal(0, 0.07)))
            place(bufs[j], fx * (a / pkx), t, fs)
            diag[j]["xtalk"].append((t, a))
    cym_rows = []
    for t in crashes:
        fac = rng_w.uniform(0.5, 1.0)
        row = [t]
        for j in PADS:
            pp = stand["pads"][j]
            b = float(np.clip(pp["bump_base"] * fac, 0.15, 1.0))
            bp = bump_phys(stand["cymbal"], pp["bump_sign"], fs, L, rng_w)
            pkb, fb = peak_ref(sensors[j], bp, args.strength_ref)
            place(bufs[j], fb * (b / pkb), t, fs)
            diag[j]["bump"].append((t, b))
            row.append(b)
        cym_rows.append(row)
    info = {}
    for p in PADS:
        nk, nd = sample_and_write(os.path.join(out, f"{p}.csv"), bufs[p], sensors[p], sens[p],
                                  stand["pads"][p], args.seconds, rng_w, args.cls)
        write_truth(os.path.join(out, f"{p}.truth.csv"), truth[p])
        info[p] = dict(samples=nk, dropped=nd, strikes=len(truth[p]))
    with open(os.path.join(out, "notes.csv"), "w") as f:
        f.write("t,pad,strength,kind\n")
        for t, pad, S, kind in notes:
            f.write(f"{t:.6f},{pad},{S:.4f},{kind}\n")
    with open(os.path.join(out, "cymbal.csv"), "w") as f:
        f.write("t," + ",".join(f"bump_{p}" for p in PADS) + "\n")
        for r in cym_rows:
            f.write(f"{r[0]:.6f}," + ",".join(f"{b:.4f}" for b in r[1:]) + "\n")
    meta = dict(scenario="kit", seed=args.seed, cls=args.cls, rate_hz=CLASSES[args.cls]["rate"],
                seconds=args.seconds, strength_ref=args.strength_ref, variant=args.variant, idle="ride", music=music,
                crashes=len(crashes), stand=stand, sensors={p: sens[p] for p in PADS}, files=info,
                sensor_class={k: v for k, v in CLASSES[args.cls].items() if k != "device"})
    with open(os.path.join(out, "stand.json"), "w") as f:
        json.dump(meta, f, indent=1)


def gen_bumps(args, out):
    rng_stand = np.random.default_rng([args.seed, 11])
    cid = list(CLASSES).index(args.cls)
    rng_sens = np.random.default_rng([args.seed, 13, cid])
    rng_w = np.random.default_rng([args.seed, 14, cid])
    stand = make_stand(rng_stand, args.cls)
    sens = make_sensor(rng_sens, args.cls)
    pp = stand["pads"]["snare"]
    sp = sens["pad"]
    fs = CLASSES[args.cls]["fs"]
    L = int(1.2 * fs)
    N = int((args.seconds + 1) * fs)
    sensor = Sensor(args.cls, sp, args.seconds)
    buf = np.zeros((3, N))
    t = 1.0
    times = []
    while t < args.seconds - 1.0:
        times.append(t)
        t += rng_w.uniform(0.3, 1.5)
    rows = []
    for t in times:
        b = rng_w.uniform(0.15, 1.0)
        bp = bump_phys(stand["cymbal"], pp["bump_sign"], fs, L, rng_w)
        pkb, fb = peak_ref(sensor, bp, args.strength_ref)
        snip = fb * (b / pkb)
        # keep the felt peak (this bump plus what earlier ones still sway) within 1.0 g
        i = int(round(t * fs))
        w = buf[2, i:i + L] + snip[2]
        tot = np.abs(w).max()
        if tot > 1.0:
            snip = snip * (1.0 / tot) * 0.98
            b = b * (1.0 / tot) * 0.98
        place(buf, snip, t, fs)
        rows.append((t, b))
    nk, nd = sample_and_write(os.path.join(out, "pad.csv"), buf, sensor, sp, pp, args.seconds, rng_w, args.cls)
    write_truth(os.path.join(out, "pad.truth.csv"), [])
    with open(os.path.join(out, "bumps.csv"), "w") as f:
        f.write("t,peak_g\n")
        for t, b in rows:
            f.write(f"{t:.6f},{b:.4f}\n")
    meta = dict(scenario="bumps-alone", seed=args.seed, cls=args.cls, rate_hz=CLASSES[args.cls]["rate"],
                seconds=args.seconds, strength_ref=args.strength_ref, bumps=len(rows),
                cymbal=stand["cymbal"], pad=pp, sensor=sp, samples=nk, dropped=nd,
                sensor_class={k: v for k, v in CLASSES[args.cls].items() if k != "device"})
    with open(os.path.join(out, "stand.json"), "w") as f:
        json.dump(meta, f, indent=1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--seed", type=int, required=True)
    ap.add_argument("--class", dest="cls", choices=list(CLASSES), required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--scenario", choices=["kit", "bumps-alone"], default="kit")
    ap.add_argument("--variant", choices=["default", "gentle"], default="default")
    ap.add_argument("--strength-ref", choices=["sensor", "physical"], default="sensor")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    (gen_kit if args.scenario == "kit" else gen_bumps)(args, args.out)


if __name__ == "__main__":
    main()
