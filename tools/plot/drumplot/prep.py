"""Data preparation for the plots: pure functions of arrays, no matplotlib, no files.

The detector, velocity and scoring here mirror the Swift side (Sources/HitDetect:
SquaredDeltaDetector, VelocityCurve, HitScore, Sweep.best) so that a plot shows exactly what
`drumpad replay` computes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .readers import Hits, SensorLog, Sweep

DEFAULT_THRESHOLD = 0.4  # g², docs/architecture.md, Detection
DEFAULT_REFRACTORY = 10  # samples, docs/architecture.md, Detection
VELOCITY_FLOOR = 0.1  # VelocityCurve() defaults
VELOCITY_FULL_SCALE = 2.0  # g


# ---------------------------------------------------------------------------------------------
# Detector


def squared_delta(z: np.ndarray, gaps_before=None) -> np.ndarray:
    """d[n] = (z[n] - z[n-1])² for n ≥ 1; NaN at sample 0 and at every sample after a gap,
    which only prime the previous value (docs/architecture.md, Detection)."""
    z = np.asarray(z, np.float64)
    d = np.empty_like(z)
    if z.size:
        d[0] = np.nan
        np.subtract(z[1:], z[:-1], out=d[1:])
        np.multiply(d[1:], d[1:], out=d[1:])
        if gaps_before is not None and len(gaps_before):
            d[np.asarray(gaps_before, np.int64)] = np.nan
    return d


def velocity(strength, threshold: float, floor: float = VELOCITY_FLOOR,
             full_scale: float = VELOCITY_FULL_SCALE) -> np.ndarray:
    """VelocityCurve: linear in |Δz| = √strength from `floor` at the threshold to 1 at
    `full_scale` g."""
    amplitude = np.sqrt(np.asarray(strength, np.float64))
    threshold_amplitude = math.sqrt(threshold)
    span = full_scale - threshold_amplitude
    if span <= 0:
        return np.ones_like(amplitude)
    position = np.clip((amplitude - threshold_amplitude) / span, 0.0, 1.0)
    return floor + (1.0 - floor) * position


def detect(log: SensorLog, threshold: float = DEFAULT_THRESHOLD,
           refractory: int = DEFAULT_REFRACTORY, d: np.ndarray | None = None) -> Hits:
    """The default detector over a whole log: fires at n when d[n] > threshold (strictly) and n
    is not within `refractory` samples after the last hit (n+1 … n+R are blocked)."""
    if d is None:
        d = squared_delta(log.z, log.gaps_before)
    with np.errstate(invalid="ignore"):
        candidates = np.flatnonzero(d > threshold)  # NaN (priming samples) never fires
    fired = []
    k = 0
    count = candidates.size
    while k < count:
        n = int(candidates[k])
        fired.append(n)
        # Jump to the first candidate past the refractory period.
        k = int(np.searchsorted(candidates, n + refractory + 1, side="left"))
    index = np.asarray(fired, np.int64)
    strength = d[index]
    return Hits(index, log.t[index], strength, velocity(strength, threshold))


# ---------------------------------------------------------------------------------------------
# Scoring


def default_tolerance(rate: float | None) -> float:
    """HitScore.defaultTolerance: the larger of 10 ms and 2.5 sample periods."""
    if rate is None or rate <= 0:
        return 0.010
    return max(0.010, 2.5 / rate)


@dataclass
class Match:
    """Hits matched one-to-one with labels (HitScore's rules)."""

    hit_matched: np.ndarray  # bool per hit (in the order given): True = matched a label
    label_matched: np.ndarray  # bool per label: False = a miss
    pairs: np.ndarray  # (k, 2) int: hit position, label position
    tolerance: float

    @property
    def true_positives(self) -> int:
        return int(self.pairs.shape[0])

    @property
    def false_positives(self) -> int:
        return int(self.hit_matched.size - self.true_positives)

    @property
    def false_negatives(self) -> int:
        return int(self.label_matched.size - self.true_positives)

    @property
    def precision(self) -> float:
        found = self.hit_matched.size
        return 1.0 if found == 0 else self.true_positives / found

    @property
    def recall(self) -> float:
        labels = self.label_matched.size
        return 1.0 if labels == 0 else self.true_positives / labels

    @property
    def f1(self) -> float:
        p, r = self.precision, self.recall
        return 0.0 if p + r == 0 else 2 * p * r / (p + r)

    def text(self) -> str:
        """`12 of 13 strikes found, 1 false hit; precision 0.923, recall 0.923, F1 0.923`."""
        labels = self.label_matched.size
        fp = self.false_positives
        return (f"{self.true_positives} of {labels} strikes found, {fp} false hit{'' if fp == 1 else 's'}; "
                f"precision {self.precision:.3f}, recall {self.recall:.3f}, F1 {self.f1:.3f}")


def match_hits(hit_times, label_times, tolerance: float) -> Match:
    """Matches hits to labels one-to-one in time order.

    Walking both (sorted) lists: a hit more than `tolerance` before the next label is a false
    hit; a label whose window (± tolerance, inclusive) passes with no hit is a miss; otherwise
    the two match. Each hit and label is used at most once, so two hits in one window are one
    match and one false hit."""
    if tolerance < 0:
        raise ValueError("tolerance must not be negative")
    hit_times = np.asarray(hit_times, np.float64)
    label_times = np.asarray(label_times, np.float64)
    hit_order = np.argsort(hit_times, kind="stable")
    label_order = np.argsort(label_times, kind="stable")
    hits = hit_times[hit_order].tolist()
    labels = label_times[label_order].tolist()
    h = lab = 0
    pairs = []
    while h < len(hits) and lab < len(labels):
        if hits[h] < labels[lab] - tolerance:
            h += 1  # false hit
        elif hits[h] > labels[lab] + tolerance:
            lab += 1  # miss
        else:
            pairs.append((int(hit_order[h]), int(label_order[lab])))
            h += 1
            lab += 1
    pairs_arr = np.asarray(pairs, np.int64).reshape(-1, 2)
    hit_matched = np.zeros(hit_times.size, bool)
    label_matched = np.zeros(label_times.size, bool)
    hit_matched[pairs_arr[:, 0]] = True
    label_matched[pairs_arr[:, 1]] = True
    return Match(hit_matched, label_matched, pairs_arr, tolerance)


# ---------------------------------------------------------------------------------------------
# What to draw


def refractory_windows(hit_index, t: np.ndarray, refractory: int):
    """Time spans in which the detector could not fire: after a hit at n, samples n+1 … n+R.

    Returns (start, end) arrays: from the hit's time to the time of its last blocked sample
    (clipped to the log's end). Empty spans (R = 0, or a hit on the last sample) are left out."""
    hit_index = np.asarray(hit_index, np.int64)
    if refractory <= 0 or hit_index.size == 0 or t.size == 0:
        return np.zeros(0), np.zeros(0)
    last = np.minimum(hit_index + refractory, t.size - 1)
    keep = last > hit_index
    return t[hit_index[keep]], t[last[keep]]


def threshold_line(threshold: float, t_from: float, t_to: float):
    """The threshold as a horizontal line across the view: ([t_from, t_to], [T, T])."""
    return np.array([t_from, t_to], np.float64), np.array([threshold, threshold], np.float64)


def view_range(t: np.ndarray, t_from: float | None, t_to: float | None):
    """The rows [i0, i1) with t_from ≤ t ≤ t_to, and the time range to show."""
    if t.size == 0:
        lo = 0.0 if t_from is None else t_from
        hi = lo + 1.0 if t_to is None else t_to
        return 0, 0, lo, hi
    lo = float(t[0]) if t_from is None else float(t_from)
    hi = float(t[-1]) if t_to is None else float(t_to)
    i0 = int(np.searchsorted(t, lo, side="left"))
    i1 = int(np.searchsorted(t, hi, side="right"))
    if hi <= lo:
        hi = lo + 1e-3
    return i0, i1, lo, hi


def _bin_extremes(t: np.ndarray, v: np.ndarray, columns: int, t_from: float | None,
                  t_to: float | None):
    """Per time bin (`columns` equal bins over the view): the index of the first smallest and of
    the first largest value, NaN ignored (a bin of only NaN gives a NaN sample)."""
    n = t.size
    t0 = float(t[0]) if t_from is None else float(t_from)
    t1 = float(t[-1]) if t_to is None else float(t_to)
    span = t1 - t0 if t1 > t0 else 1.0
    bins = np.floor((t - t0) * (columns / span)).astype(np.int64)
    np.clip(bins, 0, columns - 1, out=bins)
    starts = np.concatenate(([0], np.flatnonzero(np.diff(bins)) + 1))
    counts = np.diff(np.concatenate((starts, [n])))
    nan = np.isnan(v)
    hi = np.where(nan, -np.inf, v)
    lo = np.where(nan, np.inf, v)
    bin_of = np.repeat(np.arange(starts.size), counts)

    def first_where(values, per_bin):
        idx = np.flatnonzero(values == np.repeat(per_bin, counts))
        b = bin_of[idx]
        keep = np.concatenate(([True], b[1:] != b[:-1]))
        return idx[keep]  # one per bin: each bin holds its own extreme

    return (first_where(lo, np.minimum.reduceat(lo, starts)),
            first_where(hi, np.maximum.reduceat(hi, starts)))


def decimate_minmax(t: np.ndarray, v: np.ndarray, columns: int, t_from: float | None = None,
                    t_to: float | None = None) -> np.ndarray:
    """Indices of the samples to draw so that every pixel column keeps its minimum and maximum.

    The view [t_from, t_to] (default: all of t) is cut into `columns` equal time bins; each
    non-empty bin contributes the index of its smallest and of its largest value (NaN ignored),
    in time order. Drawn as a line, that looks exactly like the full signal at this width and
    keeps every peak. With no more than 2 samples per column, all indices come back."""
    t = np.asarray(t, np.float64)
    v = np.asarray(v, np.float64)
    if t.size <= 2 * columns or columns < 1:
        return np.arange(t.size, dtype=np.int64)
    at_min, at_max = _bin_extremes(t, v, columns, t_from, t_to)
    first = np.minimum(at_min, at_max)
    second = np.maximum(at_min, at_max)
    out = np.empty(2 * first.size, np.int64)
    out[0::2] = first
    out[1::2] = second
    keep = np.ones(out.size, bool)
    keep[1::2] = second != first  # one sample is both the bin's min and max
    return out[keep]


def decimate_max(t: np.ndarray, v: np.ndarray, columns: int, t_from: float | None = None,
                 t_to: float | None = None) -> np.ndarray:
    """Indices of each pixel column's largest value (NaN ignored): the envelope of the peaks.
    With no more than 2 samples per column, all indices come back."""
    t = np.asarray(t, np.float64)
    v = np.asarray(v, np.float64)
    if t.size <= 2 * columns or columns < 1:
        return np.arange(t.size, dtype=np.int64)
    return _bin_extremes(t, v, columns, t_from, t_to)[1]


def log_floor(d: np.ndarray, threshold: float) -> float:
    """Bottom of the log axis for squared deltas: a power of ten just below the quietest
    readings (the 1st percentile of the positive values), never above threshold/100."""
    positive = d[np.isfinite(d) & (d > 0)]
    if positive.size == 0:
        return max(threshold, 1e-6) / 1e4
    low = float(np.percentile(positive, 1)) if positive.size > 100 else float(positive.min())
    low = min(low, threshold / 100 if threshold > 0 else low)
    return 10.0 ** math.floor(math.log10(max(low, 1e-15)))


def marker_sizes(vel: np.ndarray | None, count: int, smallest: float = 18.0,
                 largest: float = 160.0) -> np.ndarray:
    """Marker areas (points²) growing linearly with velocity 0…1; mid-size without velocities."""
    if vel is None:
        return np.full(count, (smallest + largest) / 2)
    return smallest + (largest - smallest) * np.clip(np.asarray(vel, np.float64), 0, 1)


@dataclass
class LogView:
    """Everything the log plot draws, in data coordinates."""

    title: str
    subtitle: str
    t_from: float
    t_to: float
    z_t: np.ndarray  # decimated z
    z_v: np.ndarray
    d_t: np.ndarray  # decimated squared delta (clipped to d_floor): per-column min and max
    d_v: np.ndarray
    d_peak_t: np.ndarray | None  # per-column maxima when decimated (None: every sample drawn)
    d_peak_v: np.ndarray | None
    d_floor: float
    d_top: float
    threshold: float
    samples_in_view: int
    show_samples: bool  # few enough samples to mark each one
    # Hits in view, by kind: "hit" (no labels), "matched", "false"; parallel arrays per kind.
    hits: dict
    miss_t: np.ndarray  # labels in view that no hit matched
    miss_z: np.ndarray
    label_t: np.ndarray  # all labels in view
    window_start: np.ndarray  # refractory windows overlapping the view
    window_end: np.ndarray
    gap_t: np.ndarray  # times of samples after a gap, in view
    has_labels: bool
    hits_computed: bool
    refractory: int
    match: Match | None
    dense: bool = False  # too many hits or windows in view to draw one by one at this width
    note: str = ""


def prepare_log_view(log: SensorLog, hits: Hits | None = None, labels: np.ndarray | None = None,
                     threshold: float = DEFAULT_THRESHOLD, refractory: int = DEFAULT_REFRACTORY,
                     t_from: float | None = None, t_to: float | None = None, columns: int = 1600,
                     tolerance: float | None = None, name: str | None = None) -> LogView:
    """Prepares the log plot: decimated signals, hits classified against labels, windows.

    Without `hits`, the default detector runs with `threshold` and `refractory`. Without
    `labels`, the log's own `hit` column is used when it has one. Matching runs over the whole
    log (so hits just outside the view still pair with their labels); what is drawn is cropped."""
    d = squared_delta(log.z, log.gaps_before)
    computed = hits is None
    if hits is None:
        hits = detect(log, threshold, refractory, d)
    if labels is None and log.labelled is not None:
        labels = log.label_times
    if tolerance is None:
        tolerance = default_tolerance(log.rate)
    match = match_hits(hits.t, labels, tolerance) if labels is not None else None

    i0, i1, lo, hi = view_range(log.t, t_from, t_to)
    t = log.t[i0:i1]
    keep = decimate_minmax(t, log.z[i0:i1], columns, lo, hi)
    z_t, z_v = t[keep], log.z[i0:i1][keep]
    dv = d[i0:i1]
    floor = log_floor(dv, threshold)
    keep = decimate_minmax(t, dv, columns, lo, hi)
    d_t = t[keep]
    d_v = np.maximum(dv[keep], floor)  # zeros and below sit on the axis; NaN stays a break
    d_v[np.isnan(dv[keep])] = np.nan
    if d_t.size < dv.size:
        keep = decimate_max(t, dv, columns, lo, hi)
        d_peak_t, d_peak_v = t[keep], np.maximum(dv[keep], floor)
        d_peak_v[np.isnan(dv[keep])] = np.nan
    else:
        d_peak_t = d_peak_v = None
    finite = dv[np.isfinite(dv)]
    d_top = max(float(finite.max()) if finite.size else threshold, threshold, floor * 10) * 3

    # Hits in view, with their places on both panels.
    in_view = (hits.t >= lo) & (hits.t <= hi)
    vel = hits.velocity
    size = marker_sizes(vel, hits.n)
    hz = log.z[hits.index] if hits.n else np.zeros(0)
    hd = d[hits.index] if hits.n else np.zeros(0)
    hd = np.where(np.isfinite(hd), hd, hits.strength)
    kinds = {}
    if match is None:
        groups = {"hit": in_view}
    else:
        groups = {"matched": in_view & match.hit_matched, "false": in_view & ~match.hit_matched}
    for kind, mask in groups.items():
        kinds[kind] = {"t": hits.t[mask], "z": hz[mask], "d": np.maximum(hd[mask], floor),
                       "size": size[mask], "velocity": None if vel is None else vel[mask],
                       "index": hits.index[mask]}

    if labels is not None:
        labels = np.asarray(labels, np.float64)
        lv = (labels >= lo) & (labels <= hi)
        label_t = labels[lv]
        miss_t = labels[lv & ~match.label_matched]
        rows = np.clip(np.searchsorted(log.t, miss_t), 0, max(log.n - 1, 0))
        miss_z = log.z[rows] if log.n else np.zeros(0)
    else:
        label_t = miss_t = miss_z = np.zeros(0)

    ws, we = refractory_windows(hits.index, log.t, refractory)
    wv = (we >= lo) & (ws <= hi)
    # One hit or window per few pixels at most; past that they are drawn as a density.
    shown_hits = int(in_view.sum())
    dense = shown_hits > columns / 8
    note = ""
    if dense:
        note = "too many hits to size and shade at this width: zoom in with --from/--to"
    gaps = log.gaps_before
    gap_t = log.t[gaps[(gaps >= i0) & (gaps < i1)]] if gaps.size else np.zeros(0)

    shown = name or log.path
    rate = log.rate
    rate_text = f" (~{rate:.1f} Hz)" if rate else ""
    title = f"{shown}: {log.n} sample{'' if log.n == 1 else 's'} over {log.duration:.3f} s{rate_text}"
    source = (f"default detector: threshold {threshold:g} g², refractory {refractory} samples"
              if computed else f"hits from {hits.path}; threshold line {threshold:g} g², "
              f"refractory shading {refractory} samples")
    subtitle = source + (f" · {match.text()} (±{tolerance * 1000:.1f} ms)" if match else
                         f" · {hits.n} hit{'' if hits.n == 1 else 's'}, no labels")
    if note:
        subtitle += " · " + note
    return LogView(title, subtitle, lo, hi, z_t, z_v, d_t, d_v, d_peak_t, d_peak_v, floor, d_top,
                   threshold, i1 - i0, (i1 - i0) <= columns / 6, kinds, miss_t, miss_z, label_t,
                   ws[wv], we[wv], gap_t, labels is not None, computed, refractory, match, dense, note)


# ---------------------------------------------------------------------------------------------
# Sweeps


@dataclass
class SweepGrid:
    """A sweep as a matrix: rows are thresholds (ascending), columns refractories (ascending)."""

    thresholds: np.ndarray
    refractories: np.ndarray
    values: np.ndarray  # (len(thresholds), len(refractories)); NaN where the sweep had no cell
    row: np.ndarray  # same shape: the sweep row of each cell, -1 where none
    metric: str


METRICS = ("f1", "precision", "recall", "hits", "false_positives", "false_negatives")


def sweep_grid(sweep: Sweep, metric: str | None = None) -> SweepGrid:
    """The threshold × refractory matrix of `metric` (default: f1 with labels, else hits)."""
    if metric is None:
        metric = "f1" if sweep.has_scores else "hits"
    if metric not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}")
    values = getattr(sweep, metric)
    if values is None:
        raise ValueError(f"{metric} needs a scored sweep (run the sweep with labels)")
    thresholds = np.unique(sweep.threshold)
    refractories = np.unique(sweep.refractory)
    i = np.searchsorted(thresholds, sweep.threshold)
    j = np.searchsorted(refractories, sweep.refractory)
    grid = np.full((thresholds.size, refractories.size), np.nan)
    row = np.full(grid.shape, -1, np.int64)
    grid[i, j] = np.asarray(values, np.float64)
    row[i, j] = np.arange(sweep.threshold.size)
    return SweepGrid(thresholds, refractories, grid, row, metric)


def best_cell(sweep: Sweep, strikes: int | None = None) -> int | None:
    """The row of the best setting, as `drumpad replay --sweep` picks it (Sweep.best): highest F1;
    among equals the highest threshold (most margin over noise), then the shortest refractory
    (fastest rolls). Without scores, given the number of `strikes` played, the hit count closest
    to it wins, with the same tie-breaks. Otherwise None."""
    if sweep.threshold.size == 0:
        return None
    if sweep.has_scores:
        primary = -np.asarray(sweep.f1, np.float64)
    elif strikes is not None:
        primary = np.abs(sweep.hits.astype(np.float64) - strikes)
    else:
        return None
    # lexsort sorts by the last key first: primary, then -threshold, then refractory.
    order = np.lexsort((sweep.refractory, -sweep.threshold, primary))
    return int(order[0])
