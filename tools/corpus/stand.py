"""Simulated stand recordings: several pads on one stand (or two), each with its own sensor, on one
shared clock, with the crosstalk between them known exactly (issue 26, item 7).

Every strike on a pad shakes its stand, and every other pad on that stand feels a weak copy of
it: for the ordered pair (source, receiver) a fixed ratio (3-10 %) of the strike's strength,
`lag_ms` (0.1-1.5 ms) later. The brain is meant to learn these couplings from co-occurring hits
and cancel crosstalk in strength space; this module makes recordings whose couplings are known.

Strength is the strike's peak acceleration at its own pad, in g: the depth of the contact shock
(corpus.py's `amplitude`). Each pad's own strikes are rendered by corpus.render_physics (gravity,
a little stand sway, the shock, the board's ringing and the mount's thump); crosstalk and bumps
are added here; then corpus.render puts each pad through its sensor profile (low-pass, sampling
at its own phase, noise, quantisation, clipping, the evdev fuzz filter, the Joy-Con's bursts).

A scenario is one folder: PAD.csv (a sensor log with a `hit` column marking the pad's own true
strikes), PAD.labels.csv (`t,strength`), and stand.json (pads, couplings, events). Everything is
deterministic for a seed.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import zlib
from dataclasses import dataclass, field, replace

import numpy as np

import corpus

SCENARIOS = ("kit4", "mixed-rates", "two-stands", "bumps", "moved", "idle-bumps", "ride-kit")
# `--profile mixed` (and mixed-rates by default): the pads take these in turn, 250/200/100/1600 Hz.
MIXED_ORDER = ("dualsense", "joycon", "phone", "adxl345")
# `mixed-K` starts the turn K profiles later, so the idle ride is at another rate: mixed-1 puts it
# at 250 Hz, mixed-2 at 200 Hz, mixed-3 at 100 Hz (and the played pads on the other three).
MIXED_ROTATIONS = tuple(f"mixed-{k}" for k in range(1, len(MIXED_ORDER)))
PROFILE_CHOICES = tuple(corpus.PROFILES) + ("mixed",) + MIXED_ROTATIONS
DEFAULT_SECONDS = 120.0

BPM_RANGE = (90.0, 130.0)       # the grooves' tempo (16ths)
RATIO_RANGE = (0.03, 0.10)      # crosstalk strength / source strength, per ordered pair
LAG_MS_RANGE = (0.1, 1.5)       # crosstalk arrival after the source's onset
GHOST_RANGE = (1.2, 2.0)        # soft (ghost) notes, g
NORMAL_RANGE = (2.5, 6.0)
ACCENT_RANGE = (6.0, 14.0)
FILL_RANGE = (3.0, 9.0)
RIDE_BEAT_RANGE = (4.0, 8.0)    # a played ride's notes on the beat (the others NORMAL_RANGE)
BUMP_RANGE = (0.15, 1.0)        # what a non-pad instrument on the stand makes a pad feel, g
FLAM_MS = (15.0, 40.0)          # grace note before the main note, on another pad
UNISON_MS = (0.0, 5.0)          # two pads struck together
SAME_PAD_GAP = 0.06             # no two strikes on one pad closer than this (s)
BUMP_CLEAR = 0.06               # bumps are kept this far from the bumped pad's strikes (s)
CROSSTALK_SHOCK_MS = (2.0, 3.5)  # the stand's smoothed copy of a strike's shock: a half-sine this long
CROSSTALK_RING = 0.4            # the stand's ringing after it, at most this share of its depth,
CROSSTALK_RING_TAU_MS = (15.0, 30.0)  # decaying with this time constant
CROSSTALK_ALIGNED = False       # True: crosstalk moves a pad the way its own strikes do (x, y, z)
CROSSTALK_SIGN = 1.0            # -1: crosstalk pushes a pad the other way than a strike on it does
STAMP_JITTER = 0.0             # sd of each written time off the sensor's clock, in periods (--vary jitter)

# Variations: the simulator moved off what the brain was tuned on, one thing at a time
# (docs/crosstalk.md, "Off the tuned simulator"). name -> (what it changes, the module's
# settings it sets, a change to every sensor profile or None).
VARIATIONS = {
    "strong": ("couplings of 8-15 % (not 3-10 %)", {"RATIO_RANGE": (0.08, 0.15)}, None),
    "weak": ("couplings of 1-4 % (not 3-10 %)", {"RATIO_RANGE": (0.01, 0.04)}, None),
    "lag": ("crosstalk 1-3 ms after the strike (not 0.1-1.5 ms)", {"LAG_MS_RANGE": (1.0, 3.0)}, None),
    "soft": ("ghost notes of 1.2-1.5 g, notes of 1.8-4 g and a ride's beats of 3-6 g (not 1.2-2, 2.5-6 and 4-8)",
             {"GHOST_RANGE": (1.2, 1.5), "NORMAL_RANGE": (1.8, 4.0), "RIDE_BEAT_RANGE": (3.0, 6.0)}, None),
    "loud": ("accents of 10-16 g, fills of 5-12 g and a ride's beats of 6-11 g (not 6-14, 3-9 and 4-8)",
             {"ACCENT_RANGE": (10.0, 16.0), "FILL_RANGE": (5.0, 12.0), "RIDE_BEAT_RANGE": (6.0, 11.0)}, None),
    "tight": ("unisons within 2 ms and flams 10-25 ms apart (not 5 and 15-40)",
              {"UNISON_MS": (0.0, 2.0), "FLAM_MS": (10.0, 25.0)}, None),
    "fast": ("grooves and fills at 150-190 BPM (not 90-130): 16ths 79-100 ms apart",
             {"BPM_RANGE": (150.0, 190.0)}, None),
    "slow": ("grooves and fills at 60-85 BPM (not 90-130): 16ths 176-250 ms apart",
             {"BPM_RANGE": (60.0, 85.0)}, None),
    "noisy": ("twice each sensor's noise", {}, lambda p: replace(p, noise_g=2 * p.noise_g)),
    "narrow": ("each sensor's low-pass at 0.7 of its bandwidth", {},
               lambda p: replace(p, lowpass_hz=0.7 * p.lowpass_hz)),
    "long-shake": ("crosstalk's shock a half-sine of 4-8 ms (not 2-3.5): the stand passes a slower push",
                   {"CROSSTALK_SHOCK_MS": (4.0, 8.0)}, None),
    "ringing": ("the stand rings after crosstalk at up to 0.8 of its depth over 30-60 ms (not 0.4 over 15-30)",
                {"CROSSTALK_RING": 0.8, "CROSSTALK_RING_TAU_MS": (30.0, 60.0)}, None),
    "aligned": ("crosstalk moves each pad across x, y and z the way its own strikes do (not its own way)",
                {"CROSSTALK_ALIGNED": True}, None),
    "inverted": ("crosstalk pushes each pad the other way than a strike on it does (not the same way)",
                 {"CROSSTALK_SIGN": -1.0}, None),
    "jitter": ("each sample's time written up to 0.45 of a period off the sensor's clock (normal, sd 0.15 "
               "period), as a host stamps samples it receives; the samples still taken on the sensor's clock",
               {"STAMP_JITTER": 0.15}, None),
}


@contextlib.contextmanager
def varied(name):
    """Within it, the simulator runs with variation `name` (None: as it is), put back after."""
    if name is None:
        yield
        return
    if name not in VARIATIONS:
        raise ValueError(f"unknown variation {name!r} (known: {', '.join(VARIATIONS)})")
    _, settings, profile_change = VARIATIONS[name]
    saved = {key: globals()[key] for key in settings}
    saved_profiles = dict(corpus.PROFILES)
    try:
        globals().update(settings)
        if profile_change:
            for key, prof in saved_profiles.items():
                corpus.PROFILES[key] = profile_change(prof)
        yield
    finally:
        globals().update(saved)
        corpus.PROFILES.clear()
        corpus.PROFILES.update(saved_profiles)


@dataclass
class Pad:
    name: str
    drum: str
    stand: str
    profile: str = "dualsense"
    idle: bool = False


@dataclass
class Coupling:
    source: str
    receiver: str
    ratio: float
    lag_ms: float
    from_s: float = 0.0
    until_s: float | None = None  # None: to the end

    def as_json(self):
        return {"from": self.source, "to": self.receiver, "ratio": round(self.ratio, 4),
                "lag_ms": round(self.lag_ms, 3), "from_s": round(self.from_s, 6),
                "until_s": None if self.until_s is None else round(self.until_s, 6)}


@dataclass
class Event:
    t: float
    pad: str
    strength: float
    kind: str = "strike"        # strike | bump
    role: str = ""              # backbeat, ghost, groove, fill, ride, flam-grace, flam, unison, ...
    group: int | None = None    # flams and unisons: the two strikes share a group number
    source: str | None = None   # bumps: the instrument that made them

    def as_json(self):
        out = {"t": round(self.t, 6), "pad": self.pad, "strength": round(self.strength, 4),
               "kind": self.kind, "role": self.role}
        if self.group is not None:
            out["group"] = self.group
        if self.source is not None:
            out["source"] = self.source
        return out


@dataclass
class StandScene:
    scenario: str
    seed: int
    seconds: float
    pads: list
    stands: dict                 # stand id -> {"pads": [...], "others": [...]}
    couplings: list = field(default_factory=list)
    events: list = field(default_factory=list)
    moved: dict | None = None
    stand_hz: dict = field(default_factory=dict)   # stand id -> its ringing frequency

    def pad(self, name):
        return next(p for p in self.pads if p.name == name)

    def strikes(self, pad):
        ev = sorted((e for e in self.events if e.kind == "strike" and e.pad == pad), key=lambda e: e.t)
        return np.asarray([e.t for e in ev]), np.asarray([e.strength for e in ev])


# ---------------------------------------------------------------------------------------------
# Playing: the drummer's strikes


class Player:
    """Places strikes, refusing any that would come within SAME_PAD_GAP of another on its pad or
    outside the log's window; flams and unisons are placed both or neither."""

    def __init__(self, rng, seconds, blocked=()):
        self.rng = rng
        self.seconds = seconds
        self.events: list[Event] = []
        self.groups = 0
        self.blocked = list(blocked)          # (start, end) spans with no strikes

    def fits(self, pad, t):
        if t < corpus.LEAD_S + 0.1 or t > self.seconds - corpus.TAIL_S - 0.05:
            return False
        if any(a <= t <= b for a, b in self.blocked):
            return False
        return all(abs(e.t - t) >= SAME_PAD_GAP for e in self.events if e.pad == pad and e.kind == "strike")

    def hit(self, pad, t, strength, role):
        if not self.fits(pad, t):
            return False
        self.events.append(Event(t, pad, float(strength), "strike", role))
        return True

    def pair(self, first, t1, s1, second, t2, s2, kind):
        """Two strikes on two pads that belong together (a flam or a unison)."""
        if first == second or not (self.fits(first, t1) and self.fits(second, t2)):
            return False
        self.groups += 1
        roles = ("flam-grace", "flam") if kind == "flam" else ("unison", "unison")
        self.events.append(Event(t1, first, float(s1), "strike", roles[0], self.groups))
        self.events.append(Event(t2, second, float(s2), "strike", roles[1], self.groups))
        return True


def u(rng, lo_hi):
    return float(rng.uniform(*lo_hi))


def play(rng, seconds, snare, toms, ride=None, blocked=(), ghost_rate=0.3):
    """Grooves and fills on a 16th grid at BPM_RANGE (90-130 BPM): `snare` plays the backbeat (accents) and
    ghost notes, `toms` (one or two) play in grooves and carry the fills, `ride` (if any) keeps
    8ths. Every 4th bar ends in a fill and the next downbeat is a unison; some backbeats are
    flams (a grace note on a tom 15-40 ms before) or unisons with a tom. Returns the Player."""
    pl = Player(rng, seconds, blocked)
    bpm = u(rng, BPM_RANGE)
    six = 60.0 / bpm / 4
    start = corpus.LEAD_S + 0.2 + rng.uniform(0, 0.2)
    bar = 0
    jitter = lambda: float(rng.normal(0, 0.003))  # noqa: E731
    low = toms[-1]
    while start + bar * 16 * six < seconds:
        t_bar = start + bar * 16 * six
        fill = bar % 4 == 3
        after_fill = bar % 4 == 0 and bar > 0
        for step in range(16):
            t = t_bar + step * six + jitter()
            if ride is not None and step % 2 == 0:
                pl.hit(ride, t + jitter(), u(rng, RIDE_BEAT_RANGE) if step % 4 == 0 else u(rng, NORMAL_RANGE),
                       "ride")
            if fill and step >= 8:
                # The fill: 16ths down the kit (snare, then the toms), growing louder.
                order = [snare] + list(toms)
                pad = order[min((step - 8) * len(order) // 8, len(order) - 1)]
                level = FILL_RANGE[0] + (FILL_RANGE[1] - FILL_RANGE[0]) * (step - 8) / 7
                if step == 12 and len(toms) >= 1 and rng.random() < 0.6:
                    # A flam inside the fill: grace on the snare, main on a tom.
                    gap = u(rng, FLAM_MS) / 1000
                    if pl.pair(snare, t - gap, u(rng, GHOST_RANGE), toms[0], t, level * rng.uniform(0.9, 1.1),
                               "flam"):
                        continue
                pl.hit(pad, t, level * rng.uniform(0.85, 1.15), "fill")
                continue
            if step == 0 and (after_fill or (bar == 2)):
                # Out of a fill (and once early on): snare and low tom (or the ride) together.
                other = ride if (ride is not None and rng.random() < 0.5) else low
                dt = u(rng, UNISON_MS) / 1000
                if other == ride:
                    # The ride is already on this downbeat; strike the snare with it.
                    mine = [e for e in pl.events if e.pad == ride and abs(e.t - t) < 0.02]
                    if mine:
                        e = mine[-1]
                        pl.groups += 1
                        if pl.fits(snare, e.t + dt):
                            e.role, e.group = "unison", pl.groups
                            pl.events.append(Event(e.t + dt, snare, u(rng, ACCENT_RANGE), "strike", "unison",
                                                   pl.groups))
                        continue
                    other = low
                pl.pair(snare, t, u(rng, ACCENT_RANGE), other, t + dt, u(rng, ACCENT_RANGE), "unison")
                continue
            if step in (4, 12):
                choice = rng.random()
                if choice < 0.22 or (bar == 1 and step == 4):
                    gap = u(rng, FLAM_MS) / 1000
                    grace_pad = toms[int(rng.integers(0, len(toms)))]
                    if pl.pair(grace_pad, t - gap, u(rng, GHOST_RANGE) * rng.uniform(1.0, 1.6), snare, t,
                               u(rng, ACCENT_RANGE), "flam"):
                        continue
                elif choice < 0.36:
                    if pl.pair(snare, t, u(rng, ACCENT_RANGE), toms[0], t + u(rng, UNISON_MS) / 1000,
                               u(rng, NORMAL_RANGE), "unison"):
                        continue
                pl.hit(snare, t, u(rng, ACCENT_RANGE), "backbeat")
            elif step in (0, 8):
                if rng.random() < 0.6:
                    pl.hit(low, t, u(rng, NORMAL_RANGE), "groove")
            elif step == 14 and rng.random() < 0.3:
                pl.hit(toms[0], t, u(rng, NORMAL_RANGE), "groove")
            elif step % 2 == 1 and rng.random() < ghost_rate:
                pl.hit(snare, t, u(rng, GHOST_RANGE), "ghost")
            elif step % 2 == 0 and rng.random() < 0.15:
                # A soft note on a tom between the beats.
                pl.hit(toms[int(rng.integers(0, len(toms)))], t, u(rng, GHOST_RANGE), "ghost")
        bar += 1
    pl.events.sort(key=lambda e: (e.t, e.pad))
    return pl


# ---------------------------------------------------------------------------------------------
# Scenarios


def _profiles(pads, profile):
    if profile == "mixed" or profile in MIXED_ROTATIONS:
        turn = 0 if profile == "mixed" else int(profile.rpartition("-")[2])
        for k, p in enumerate(pads):
            p.profile = MIXED_ORDER[(k + turn) % len(MIXED_ORDER)]
    else:
        for p in pads:
            p.profile = profile


def _couplings(rng, scene, from_s=0.0, until_s=None, only=None, old=None):
    """A coupling for every ordered pair of pads on one stand (none across stands). `only`: just
    the pairs that involve that pad; `old`: couplings these must differ from (by 0.02 at least)."""
    out = []
    for a in scene.pads:
        for b in scene.pads:
            if a.name == b.name or a.stand != b.stand:
                continue
            if only is not None and only not in (a.name, b.name):
                continue
            ratio = u(rng, RATIO_RANGE)
            if old is not None:
                before = next(c for c in old if c.source == a.name and c.receiver == b.name)
                while abs(ratio - before.ratio) < 0.02:
                    ratio = u(rng, RATIO_RANGE)
            out.append(Coupling(a.name, b.name, ratio, u(rng, LAG_MS_RANGE), from_s, until_s))
    return out


def make_scene(scenario, seconds, seed, profile=None):
    """The pads, couplings and events of one scenario. profile: one of corpus.PROFILES or
    "mixed" for every pad; None: "mixed" for mixed-rates, dualsense otherwise."""
    if scenario not in SCENARIOS:
        raise ValueError(f"unknown scenario {scenario!r} (known: {', '.join(SCENARIOS)})")
    if profile is None:
        profile = "mixed" if scenario == "mixed-rates" else "dualsense"
    if profile not in PROFILE_CHOICES:
        raise ValueError(f"unknown profile {profile!r} (known: {', '.join(PROFILE_CHOICES)})")
    rng = np.random.default_rng([seed, zlib.crc32(("stand/" + scenario).encode())])
    kit = [Pad("snare", "snare", "A"), Pad("racktom", "racktom", "A"),
           Pad("floortom", "floortom", "A"), Pad("ride", "ride", "A", idle=True)]
    if scenario in ("kit4", "mixed-rates", "moved", "ride-kit"):
        pads = kit
        stands = {"A": {"pads": [p.name for p in pads], "others": []}}
        if scenario == "ride-kit":  # the ride is played, the floortom never struck
            kit[2].idle, kit[3].idle = True, False
    elif scenario == "two-stands":
        pads = [Pad("snare", "snare", "A"), Pad("racktom", "racktom", "A"),
                Pad("floortom", "floortom", "B"), Pad("ride", "ride", "B")]
        stands = {"A": {"pads": ["snare", "racktom"], "others": []},
                  "B": {"pads": ["floortom", "ride"], "others": []}}
    elif scenario == "idle-bumps":
        pads = [Pad("pad", "snare", "A", idle=True)]
        stands = {"A": {"pads": ["pad"], "others": [{"name": "cymbal", "kind": "crash cymbal"}]}}
    else:  # bumps
        pads = [Pad("snare", "snare", "A"), Pad("racktom", "racktom", "A")]
        stands = {"A": {"pads": ["snare", "racktom"], "others": [{"name": "cymbal", "kind": "crash cymbal"}]}}
    _profiles(pads, profile)
    scene = StandScene(scenario, seed, seconds, pads, stands)
    scene.stand_hz = {s: u(rng, (60.0, 130.0)) for s in stands}
    scene.couplings = _couplings(rng, scene)

    if scenario == "moved":
        half = round(seconds / 2, 3)
        moved = "racktom"
        new = _couplings(rng, scene, from_s=half, only=moved, old=scene.couplings)
        for c in scene.couplings:
            if moved in (c.source, c.receiver):
                c.until_s = half
        scene.couplings += new
        scene.moved = {"pad": moved, "t": half,
                       "what": "the pad is moved between two takes: every coupling to or from it "
                               "changes at t; no strikes within 1 s of it"}
        pl = play(rng, seconds, "snare", ["racktom", "floortom"], blocked=[(half - 1.0, half + 1.0)])
    elif scenario == "two-stands":
        pl = play(rng, seconds, "snare", ["racktom", "floortom"], ride="ride")
    elif scenario == "ride-kit":
        pl = play(rng, seconds, "snare", ["racktom"], ride="ride")
    elif scenario == "bumps":
        pl = play(rng, seconds, "snare", ["racktom"], ghost_rate=0.55)
    elif scenario == "idle-bumps":
        pl = Player(rng, seconds)
    else:
        pl = play(rng, seconds, "snare", ["racktom", "floortom"])
    scene.events = pl.events

    if scenario == "idle-bumps":
        # A pad never struck, on a stand whose cymbal is played 0.3-1.5 s apart: every bump
        # (0.15-1.0 g at the pad) must leave it silent.
        t = corpus.LEAD_S + rng.uniform(0.2, 0.8)
        while t < seconds - corpus.TAIL_S - 0.1:
            scene.events.append(Event(t, "pad", u(rng, BUMP_RANGE), "bump", "cymbal", source="cymbal"))
            t += rng.uniform(0.3, 1.5)
    if scenario == "bumps":
        # The cymbal on the snare's stand, struck 0.4-2 s apart: each strike bumps the snare
        # (0.15-1.0 g) and the rack tom (a third to a half of that). Not strikes, never labelled;
        # kept 60 ms from the bumped pads' own strikes so every hit is attributable.
        t = corpus.LEAD_S + rng.uniform(0.2, 0.8)
        bumps = []
        strikes = {p.name: scene.strikes(p.name)[0] for p in pads}
        while t < seconds - corpus.TAIL_S - 0.1:
            if all(s.size == 0 or np.min(np.abs(s - t)) >= BUMP_CLEAR for s in strikes.values()):
                level = u(rng, BUMP_RANGE)
                bumps.append(Event(t, "snare", level, "bump", "cymbal", source="cymbal"))
                bumps.append(Event(t, "racktom", level * rng.uniform(0.33, 0.5), "bump", "cymbal",
                                   source="cymbal"))
                t += rng.uniform(0.4, 2.0)
            else:
                t += rng.uniform(0.02, 0.08)   # the drummer waits for a gap
        scene.events = sorted(scene.events + bumps, key=lambda e: (e.t, e.pad))
    return scene


def coupling_at(scene, source, receiver, t):
    for c in scene.couplings:
        if c.source == source and c.receiver == receiver and c.from_s <= t and (c.until_s is None or t < c.until_s):
            return c
    return None


# ---------------------------------------------------------------------------------------------
# Physics


def _crosstalk_shape(depth, rng, f_stand, fs):
    """What a pad feels of a strike elsewhere on its stand: the shock, smoothed by the stand (a
    half-sine of CROSSTALK_SHOCK_MS, 2-3.5 ms) of the given depth, then the stand's ringing (at
    most CROSSTALK_RING, 0.4, of it)."""
    nc = max(2, int(round(rng.uniform(CROSSTALK_SHOCK_MS[0] / 1000, CROSSTALK_SHOCK_MS[1] / 1000) * fs)))
    shock = -depth * np.sin(math.pi * np.arange(nc) / nc)
    nr = int(max(0.12, 4 * CROSSTALK_RING_TAU_MS[1] / 1000) * fs)
    tr = np.arange(nr) / fs
    tau = rng.uniform(CROSSTALK_RING_TAU_MS[0] / 1000, CROSSTALK_RING_TAU_MS[1] / 1000)
    ring = depth * CROSSTALK_RING * np.exp(-tr / tau) * np.sin(2 * math.pi * f_stand * tr)
    return np.concatenate([shock, ring])


def _bump_shape(peak, rng, f_stand, fs):
    """A non-pad instrument's strike felt through the stand: a smooth push (Hann, 4-10 ms) of the
    given peak, then the stand's ringing and the instrument's slow sway (both well under it)."""
    nw = int(rng.uniform(0.004, 0.010) * fs)
    push = -peak * corpus._hann_pulse(nw)
    nr = int(0.4 * fs)
    tr = np.arange(nr) / fs
    ring = peak * (0.35 * np.exp(-tr / rng.uniform(0.03, 0.06)) * np.sin(2 * math.pi * f_stand * tr)
                   + 0.08 * np.exp(-tr / 0.15) * np.sin(2 * math.pi * rng.uniform(4, 9) * tr))
    return np.concatenate([push, ring])


def _own_way(x, y, z, strikes_t, fs):
    """(x/z, y/z) of the way a pad's own strikes move it: the least-squares slope of x and y on z
    over each strike's first 2 ms, from the samples just before it (gravity's slow tilt drops out)."""
    dz, dx, dy = [], [], []
    for t in strikes_t:
        k = int(round(t * fs))
        if k < 1 or k + int(0.002 * fs) >= len(z):
            continue
        for j in range(k, k + int(0.002 * fs)):
            dz.append(z[j] - z[k - 1])
            dx.append(x[j] - x[k - 1])
            dy.append(y[j] - y[k - 1])
    dz, dx, dy = np.array(dz), np.array(dx), np.array(dy)
    zz = float(np.dot(dz, dz)) or 1.0
    return np.array([float(np.dot(dx, dz)) / zz, float(np.dot(dy, dz)) / zz])


def pad_physics(scene, pad):
    """(x, y, z) in g at corpus.INTERNAL_RATE for one pad: its own strikes (corpus.render_physics,
    on a stand), the crosstalk of every strike on the other pads of its stand, and its bumps."""
    fs = corpus.INTERNAL_RATE
    name = f"{scene.scenario}-{pad.name}"
    st, sa = scene.strikes(pad.name)
    own = corpus.Scene(name=name, seconds=scene.seconds, strikes_t=st, strikes_a=sa, handling="stand")
    x, y, z = corpus.render_physics(own, scene.seed)
    rng = np.random.default_rng([scene.seed, zlib.crc32(name.encode()), 2])
    f_stand = scene.stand_hz[pad.stand]
    side = rng.uniform(-0.3, 0.3, 2)
    # The way crosstalk moves the pad across x and y (bumps keep the stand's own way, `side`).
    crosstalk_side = _own_way(x, y, z, st, fs) if CROSSTALK_ALIGNED and len(st) else side
    for e in scene.events:
        if e.pad == pad.name:
            if e.kind != "bump":
                continue
            shape = _bump_shape(e.strength, rng, f_stand, fs)
            k = int(round(e.t * fs))
        else:
            if e.kind != "strike":
                continue
            c = coupling_at(scene, e.pad, pad.name, e.t)
            if c is None:
                continue
            shape = CROSSTALK_SIGN * _crosstalk_shape(c.ratio * e.strength, rng, f_stand, fs)
            k = int(round((e.t + c.lag_ms / 1000) * fs))
        way = side if e.kind == "bump" else crosstalk_side
        corpus._add(z, k, shape)
        corpus._add(x, k, shape * (way[0] + rng.uniform(-0.05, 0.05)))
        corpus._add(y, k, shape * (way[1] + rng.uniform(-0.05, 0.05)))
    return x, y, z


def render_pad(scene, pad):
    """corpus.Rendered for one pad: its physics through its profile, sampled at its own phase."""
    st, sa = scene.strikes(pad.name)
    name = f"{scene.scenario}-{pad.name}"
    own = corpus.Scene(name=scene.scenario, seconds=scene.seconds, strikes_t=st, strikes_a=sa)
    return corpus.render(pad.profile, name, scene.seconds, scene.seed, physics=pad_physics(scene, pad),
                         scene=own)


# ---------------------------------------------------------------------------------------------
# Writing


def value_decimals(profile):
    """Decimals written per value: the fewest that keep the rounding under a tenth of a unit (so
    round(value * units_per_g) gives the raw value back exactly); 4 for the phone's stream
    (gravity removed, not whole units; 0.1 mg is far under its noise)."""
    if profile.gravity_removed:
        return 4
    return next(d for d in range(3, 9) if 0.5 * 10 ** -d * profile.units_per_g < 0.1)


def _formatter(decimals):
    zero = "-0." + "0" * decimals

    def num(v):
        text = f"{v:.{decimals}f}"
        return text[1:] if text == zero else text
    return num


def format_log(scene, pad, r):
    p = r.profile
    decimals = value_decimals(p)
    _num = _formatter(decimals)
    rate = int(p.rate_hz) if float(p.rate_hz).is_integer() else p.rate_hz
    lines = [
        "# drumpad sensor log v1",
        f"# device: {p.device}",
        f"# rate_hz: {rate}",
        f"# profile: {p.name}",
        f"# scenario: {scene.scenario}",
        f"# seed: {scene.seed}",
        f"# pad: {pad.name}",
        f"# drum: {pad.drum}",
        f"# stand: {pad.stand}",
        "# generator: tools/corpus/stand (stand.json beside this file; hit = this pad's own strikes)",
        f"# units_per_g: {p.units_per_g}",
        f"# full_scale_g: {p.full_scale_g:g}",
        f"# fuzz: {p.fuzz}" if p.evdev else "# fuzz: none (no input core)",
        f"# values: {decimals} decimals (raw units = round(value * units_per_g), exactly)"
        if not p.gravity_removed else f"# values: {decimals} decimals",
    ]
    if p.gravity_removed:
        lines.append("# gravity: removed (Android example high-pass, alpha 0.8)")
    times = r.t
    if STAMP_JITTER:
        # The written times only: the samples were taken on the sensor's clock. Within 0.45 of a
        # period either way, so the times still rise; never after the report that delivered them.
        rng = np.random.default_rng([scene.seed, zlib.crc32(f"{scene.scenario}/{p.name}/{pad.name}".encode())])
        off = np.clip(rng.normal(0.0, STAMP_JITTER, r.t.size), -0.45, 0.45) / p.rate_hz
        times = r.t + off if r.t_event is None else np.minimum(r.t + off, r.t_event)
    hit = np.zeros(r.t.size, dtype=int)
    if r.labels_t.size:
        k = np.searchsorted(r.t, r.labels_t - 1e-9)   # the first sample at or after the onset
        hit[k[k < r.t.size]] = 1
    if r.t_event is not None:
        lines.append(f"# t_event: delivery time of the report (bursts of {p.burst} samples)")
        lines.append("t,x,y,z,t_event,hit")
        rows = [f"{t:.6f},{_num(x)},{_num(y)},{_num(z)},{te:.6f},{h}"
                for t, (x, y, z), te, h in zip(times, r.xyz, r.t_event, hit)]
    else:
        lines.append("t,x,y,z,hit")
        rows = [f"{t:.6f},{_num(x)},{_num(y)},{_num(z)},{h}" for t, (x, y, z), h in zip(times, r.xyz, hit)]
    return "\n".join(lines + rows) + "\n"


def format_labels(scene, pad):
    st, sa = scene.strikes(pad.name)
    return "\n".join(["t,strength"] + [f"{t:.6f},{a:.4f}" for t, a in zip(st, sa)]) + "\n"


def made_by(scene, profile_arg, vary=None):
    parts = ["tools/corpus/stand", "--scenarios", scene.scenario, "--seed", str(scene.seed),
             "--seconds", f"{scene.seconds:g}"]
    if profile_arg is not None:
        parts += ["--profile", profile_arg]
    if vary is not None:
        parts += ["--vary", vary]
    return " ".join(parts) + " --out DIR"


def describe(scene, profile_arg=None, vary=None):
    """stand.json's content."""
    pads = []
    for p in scene.pads:
        prof = corpus.PROFILES[p.profile]
        pads.append({"name": p.name, "drum": p.drum, "stand": p.stand, "profile": p.profile,
                     "rate_hz": prof.rate_hz, "device": prof.device, "log": f"{p.name}.csv",
                     "labels": f"{p.name}.labels.csv", "idle": p.idle,
                     "strikes": int(scene.strikes(p.name)[0].size)})
    return {
        "format": "drumpad stand corpus v1",
        "scenario": scene.scenario,
        "seed": scene.seed,
        "seconds": scene.seconds,
        "made_by": made_by(scene, profile_arg, vary),
        "strength": "peak acceleration of a strike at its own pad (the contact shock's depth), g",
        "crosstalk": "each strike on a pad reaches every other pad of its stand as a weak copy: "
                     "depth ratio x strength, lag_ms after the strike's onset (couplings, per "
                     "ordered pair from -> to, valid from_s <= t < until_s, null: to the end); "
                     "no coupling across stands",
        "stands": [{"id": s, "pads": v["pads"], "others": v["others"],
                    "ringing_hz": round(scene.stand_hz[s], 2)} for s, v in scene.stands.items()],
        "pads": pads,
        "couplings": [c.as_json() for c in scene.couplings],
        "moved": scene.moved,
        "events": [e.as_json() for e in scene.events],
    } | ({"variation": f"{vary}: {VARIATIONS[vary][0]}"} if vary is not None else {})


def dump_json(description):
    """stand.json's text: indented, but one line per coupling and per event."""
    lines = ["{"]
    items = list(description.items())
    for k, (key, value) in enumerate(items):
        comma = "," if k + 1 < len(items) else ""
        if key in ("couplings", "events", "pads", "stands") and value:
            lines.append(f" {json.dumps(key)}: [")
            lines += [f"  {json.dumps(v, ensure_ascii=False)}{',' if j + 1 < len(value) else ''}"
                      for j, v in enumerate(value)]
            lines.append(f" ]{comma}")
        else:
            lines.append(f" {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}{comma}")
    return "\n".join(lines + ["}"]) + "\n"


def generate(out_dir, scenarios, seconds, seed, profile=None, log=None, vary=None):
    """Writes OUT/SCENARIO-seedN/ for each scenario (with variation `vary` of VARIATIONS, or as
    tuned on: None); returns the folders."""
    written = []
    with varied(vary):
        for scenario in scenarios:
            scene = make_scene(scenario, seconds, seed, profile)
            folder = os.path.join(out_dir, f"{scenario}-seed{seed}")
            os.makedirs(folder, exist_ok=True)
            for pad in scene.pads:
                r = render_pad(scene, pad)
                with open(os.path.join(folder, f"{pad.name}.csv"), "w", encoding="utf-8") as f:
                    f.write(format_log(scene, pad, r))
                with open(os.path.join(folder, f"{pad.name}.labels.csv"), "w", encoding="utf-8") as f:
                    f.write(format_labels(scene, pad))
                if log:
                    log(f"{folder}/{pad.name}.csv: {pad.profile}, {r.t.size} samples, "
                        f"{r.labels_t.size} strikes")
            with open(os.path.join(folder, "stand.json"), "w", encoding="utf-8") as f:
                f.write(dump_json(describe(scene, profile, vary)))
            written.append(folder)
    return written
