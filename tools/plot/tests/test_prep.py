"""Data preparation: detector (as drumpad's), threshold line, hit markers, decimation that keeps
every peak, matching, refractory windows, sweep grid and best cell."""

import math

import numpy as np
import pytest
from conftest import HITS, LABELS, LOG, SWEEP, SWEEP_UNSCORED

from drumplot import prep, readers
from drumplot.readers import SensorLog, Sweep


def make_log(z, gaps=(), rate=250.0):
    z = np.asarray(z, np.float64)
    return SensorLog("mem.csv", np.arange(z.size) / rate, z, gaps_before=np.asarray(gaps, np.int64))


# ---------------------------------------------------------------------------------------------
# Squared delta and the default detector (docs/architecture.md, Detection)


def test_squared_delta_primes_at_start_and_after_gaps():
    d = prep.squared_delta([1.0, 1.5, 0.5, 3.0, 3.0], gaps_before=[3])
    assert math.isnan(d[0]) and math.isnan(d[3])
    assert d[1] == 0.25 and d[2] == 1.0 and d[4] == 0.0


def test_fires_strictly_above_threshold():
    log = make_log([1.0, 1.5, 1.0])  # d = 0.25, 0.25
    assert prep.detect(log, threshold=0.25, refractory=0).n == 0
    assert prep.detect(log, threshold=0.2499, refractory=0).index.tolist() == [1, 2]


def test_refractory_blocks_n_plus_1_to_n_plus_r():
    z = [0.0, 2.0] * 10  # d = 4 on every sample from 1 on
    assert prep.detect(make_log(z), 0.4, 3).index.tolist() == [1, 5, 9, 13, 17]
    assert prep.detect(make_log(z), 0.4, 0).index.tolist() == list(range(1, 20))
    assert prep.detect(make_log(z), 0.4, 100).index.tolist() == [1]


def test_sample_zero_and_sample_after_gap_only_prime():
    log = make_log([5.0, 5.0, 5.0, 0.0, 0.0, 2.0], gaps=[3])
    # Sample 0 (5 g from nothing) and sample 3 (a 5 g drop across the gap) never fire.
    assert prep.detect(log, 0.4, 0).index.tolist() == [5]


def test_refractory_counts_samples_across_a_gap():
    log = make_log([0.0, 2.0, 0.0, 2.0, 0.0, 2.0, 0.0], gaps=[2])
    assert prep.detect(log, 0.4, 2).index.tolist() == [1, 4]


def test_velocity_curve():
    v = prep.velocity([0.4, 4.0, 100.0, ((math.sqrt(0.4) + 2.0) / 2) ** 2], 0.4)
    assert v[0] == pytest.approx(0.1) and v[1] == 1.0 and v[2] == 1.0
    assert v[3] == pytest.approx(0.55)
    assert prep.velocity([9.0], 4.0).tolist() == [1.0]  # threshold amplitude ≥ full scale


def test_detector_matches_drumpad_replay_on_fixture(engine):
    log = readers.read_log(LOG)
    ours = prep.detect(log)  # 0.4 g², 10 samples: drumpad replay's defaults
    theirs = readers.read_hits(HITS, log)
    assert ours.index.tolist() == theirs.index.tolist()
    assert np.allclose(ours.strength, theirs.strength, rtol=1e-12, atol=0)
    assert np.allclose(ours.velocity, theirs.velocity, atol=5e-5)


def test_every_cell_of_drumpads_sweep_is_reproduced():
    log = readers.read_log(LOG)
    sweep = readers.read_sweep(SWEEP)
    d = prep.squared_delta(log.z, log.gaps_before)
    tolerance = prep.default_tolerance(log.rate)
    for k in range(sweep.threshold.size):
        hits = prep.detect(log, sweep.threshold[k], int(sweep.refractory[k]), d)
        m = prep.match_hits(hits.t, log.label_times, tolerance)
        got = (hits.n, m.true_positives, m.false_positives, m.false_negatives)
        want = (sweep.hits[k], sweep.true_positives[k], sweep.false_positives[k], sweep.false_negatives[k])
        assert got == tuple(int(x) for x in want), (sweep.threshold[k], sweep.refractory[k])
        assert m.f1 == pytest.approx(sweep.f1[k], abs=5e-5)


# ---------------------------------------------------------------------------------------------
# Threshold line, hit markers, refractory windows


def test_threshold_line_spans_the_view_at_the_threshold():
    x, y = prep.threshold_line(0.4, 2.0, 5.0)
    assert x.tolist() == [2.0, 5.0] and y.tolist() == [0.4, 0.4]
    view = prep.prepare_log_view(readers.read_log(LOG), threshold=0.25, t_from=1, t_to=3)
    assert view.threshold == 0.25
    assert view.d_floor < 0.25 < view.d_top


def test_hit_markers_sit_on_the_samples_that_fired_and_grow_with_velocity():
    log = readers.read_log(LOG)
    view = prep.prepare_log_view(log)  # computed hits, scored against the log's hit column
    d = prep.squared_delta(log.z, log.gaps_before)
    assert set(view.hits) == {"matched", "false"}
    for h in view.hits.values():
        assert np.array_equal(h["z"], log.z[h["index"]])
        assert np.array_equal(h["d"], d[h["index"]])
        assert np.array_equal(h["t"], log.t[h["index"]])
        assert (h["d"] > 0.4).all()
        order = np.argsort(h["velocity"])
        assert (np.diff(h["size"][order]) >= 0).all()
    assert prep.marker_sizes(np.array([0.0, 0.5, 1.0]), 3).tolist() == [18.0, 89.0, 160.0]
    assert prep.marker_sizes(None, 2).tolist() == [89.0, 89.0]


def test_view_classifies_hits_misses_and_false_hits_as_drumpad_scores():
    log = readers.read_log(LOG)
    view = prep.prepare_log_view(log, readers.read_hits(HITS, log), readers.read_labels(LABELS))
    m = view.match
    # drumpad replay: "8 of 9 strikes found, 2 false hits; precision 0.800, recall 0.889, F1 0.842"
    assert (m.true_positives, m.false_positives, m.false_negatives) == (8, 2, 1)
    assert m.text() == "8 of 9 strikes found, 2 false hits; precision 0.800, recall 0.889, F1 0.842"
    assert view.hits["false"]["t"].tolist() == [2.092, 3.6]  # ringing after the hard strike; a knock
    assert view.miss_t.tolist() == [1.5]  # the soft strike
    assert len(view.label_t) == 9 and not view.hits_computed
    assert view.gap_t.tolist() == [log.t[1288]]
    assert "hits from" in view.subtitle and "F1 0.842" in view.subtitle


def test_view_crops_to_the_time_range_but_scores_the_whole_log():
    log = readers.read_log(LOG)
    view = prep.prepare_log_view(log, t_from=1.9, t_to=2.4, threshold=0.25, refractory=24)
    assert view.samples_in_view == 126 and view.show_samples
    assert view.z_t.min() >= 1.9 and view.z_t.max() <= 2.4
    assert view.hits["matched"]["t"].tolist() == [2.048] and view.hits["false"]["t"].size == 0
    assert view.match.true_positives == 9  # all of the log
    assert view.window_start.tolist() == [2.048]
    assert view.window_end[0] == pytest.approx(2.048 + 24 / 250)


def test_refractory_windows():
    t = np.arange(100) / 100.0
    s, e = prep.refractory_windows([10, 50, 97, 99], t, 5)
    assert s.tolist() == [0.1, 0.5, 0.97] and e.tolist() == [0.15, 0.55, 0.99]
    assert prep.refractory_windows([10], t, 0)[0].size == 0


# ---------------------------------------------------------------------------------------------
# Decimation


def spiky_signal(n=200_000, spikes=400, seed=5):
    rng = np.random.default_rng(seed)
    t = np.arange(n) / 250.0
    v = rng.normal(0, 0.005, n)
    where = rng.choice(n, spikes, replace=False)
    v[where] += rng.uniform(0.5, 3.0, spikes) * rng.choice([-1, 1], spikes)
    return t, v, np.sort(where)


def columns_of(t, columns, lo, hi):
    return np.clip(np.floor((t - lo) * columns / (hi - lo)).astype(int), 0, columns - 1)


@pytest.mark.parametrize("columns", [37, 500, 1600])
def test_decimation_keeps_each_columns_min_and_max(columns):
    t, v, _ = spiky_signal()
    keep = prep.decimate_minmax(t, v, columns)
    assert keep.size <= 2 * columns
    assert (np.diff(keep) > 0).all()  # in time order, no repeats
    col_all = columns_of(t, columns, t[0], t[-1])
    col_kept = col_all[keep]
    for c in np.unique(col_all):
        assert v[keep][col_kept == c].max() == v[col_all == c].max()
        assert v[keep][col_kept == c].min() == v[col_all == c].min()


def test_decimation_keeps_every_peak():
    # One spike per pixel column at most: every one must survive, up or down.
    t, v, where = spiky_signal(n=400_000, spikes=300)
    columns = 1600
    col = columns_of(t, columns, t[0], t[-1])
    counts = np.bincount(col[where], minlength=columns)
    where = where[counts[col[where]] == 1]
    assert where.size > 200
    keep = set(prep.decimate_minmax(t, v, columns).tolist())
    assert all(int(i) in keep for i in where)
    # The peak envelope does the same for the upward ones.
    peaks = set(prep.decimate_max(t, np.abs(v), columns).tolist())
    assert all(int(i) in peaks for i in where)


def test_decimation_of_a_sub_range_and_nan():
    t = np.arange(10_000) / 1000.0
    v = np.sin(t * 7)
    v[[0, 5000]] = np.nan
    v[4321] = 50.0
    keep = prep.decimate_minmax(t[2000:8000], v[2000:8000], 100, 2.0, 8.0)
    assert 4321 - 2000 in keep.tolist()
    assert not np.isnan(v[2000:8000][keep]).any()


def test_small_inputs_are_not_decimated():
    t = np.arange(300.0)
    assert prep.decimate_minmax(t, t, 150).tolist() == list(range(300))
    assert prep.decimate_max(t, t, 200).tolist() == list(range(300))
    assert prep.decimate_minmax(np.zeros(0), np.zeros(0), 10).size == 0


def test_decimation_of_a_flat_signal_keeps_one_sample_per_column():
    t = np.arange(10_000.0)
    keep = prep.decimate_minmax(t, np.ones_like(t), 100)
    assert keep.size == 100


def test_decimation_is_fast_for_millions_of_rows():
    import time

    n = 2_400_000
    t = np.arange(n) / 250.0
    v = np.random.default_rng(1).normal(1, 0.005, n)
    start = time.perf_counter()
    prep.decimate_minmax(t, v, 1600)
    assert time.perf_counter() - start < 2.0


# ---------------------------------------------------------------------------------------------
# Matching hits to labels


def test_match_edges():
    tol = 0.010
    # inclusive at both edges of the window
    m = prep.match_hits([0.990, 2.010], [1.0, 2.0], tol)
    assert m.true_positives == 2
    # just outside: a false hit before, then the label is missed; a late hit is false too
    m = prep.match_hits([0.98999, 2.01001], [1.0, 2.0], tol)
    assert (m.true_positives, m.false_positives, m.false_negatives) == (0, 2, 2)
    # two hits in one window: one match (the first), one false hit
    m = prep.match_hits([1.0, 1.005], [1.0], tol)
    assert m.hit_matched.tolist() == [True, False] and m.false_positives == 1
    # one hit between two close labels matches the first; the second is missed
    m = prep.match_hits([0.995], [1.0, 1.004], tol)
    assert m.label_matched.tolist() == [True, False]
    # unsorted input: flags come back in the caller's order
    m = prep.match_hits([3.0, 1.0, 2.5], [1.001, 3.002], tol)
    assert m.hit_matched.tolist() == [True, True, False]
    assert sorted(map(tuple, m.pairs.tolist())) == [(0, 1), (1, 0)]


def test_match_empty_conventions():
    none = prep.match_hits([], [], 0.01)
    assert (none.precision, none.recall, none.f1) == (1.0, 1.0, 1.0)
    no_hits = prep.match_hits([], [1.0], 0.01)
    assert (no_hits.precision, no_hits.recall, no_hits.f1) == (1.0, 0.0, 0.0)
    no_labels = prep.match_hits([1.0], [], 0.01)
    assert (no_labels.precision, no_labels.recall) == (0.0, 1.0)
    with pytest.raises(ValueError):
        prep.match_hits([], [], -1)


def test_default_tolerance():
    assert prep.default_tolerance(250.0) == pytest.approx(0.010)
    assert prep.default_tolerance(100.0) == pytest.approx(0.025)
    assert prep.default_tolerance(1000.0) == 0.010
    assert prep.default_tolerance(None) == 0.010


# ---------------------------------------------------------------------------------------------
# Sweep grid and best cell


def test_sweep_grid_and_best_cell_as_drumpad_prints():
    sweep = readers.read_sweep(SWEEP)
    grid = prep.sweep_grid(sweep)
    assert grid.metric == "f1" and grid.values.shape == (40, 15)
    assert grid.thresholds[0] == 0.05 and grid.refractories.tolist() == list(range(2, 31, 2))
    k = int(grid.row[3, 4])
    assert grid.values[3, 4] == sweep.f1[k]
    assert sweep.threshold[k] == grid.thresholds[3] and sweep.refractory[k] == grid.refractories[4]
    best = prep.best_cell(sweep)
    # drumpad replay --sweep: "best: --threshold 0.25 --refractory 24"
    assert (sweep.threshold[best], sweep.refractory[best]) == (0.25, 24)
    assert prep.sweep_grid(sweep, "hits").values.max() == sweep.hits.max()


def test_unscored_sweep_shows_hits_and_needs_strikes_for_a_best_cell():
    sweep = readers.read_sweep(SWEEP_UNSCORED)
    grid = prep.sweep_grid(sweep)
    assert grid.metric == "hits" and grid.refractories.tolist() == [0, 5, 10, 20]
    assert prep.best_cell(sweep) is None
    best = prep.best_cell(sweep, strikes=9)  # 9 hits at 1.4 with 5 and 10: highest, then shortest
    assert (sweep.threshold[best], sweep.refractory[best], sweep.hits[best]) == (1.4, 5, 9)
    with pytest.raises(ValueError):
        prep.sweep_grid(sweep, "f1")


def test_best_cell_tie_breaks_and_missing_cells():
    s = Sweep("s.csv", np.array([0.2, 0.4, 0.4, 0.2]), np.array([10, 10, 4, 4]),
              np.array([5, 5, 5, 6]), f1=np.array([0.9, 0.9, 0.9, 0.95]))
    assert prep.best_cell(s) == 3  # highest F1 first
    s.f1 = np.array([0.9, 0.9, 0.9, 0.5])
    assert prep.best_cell(s) == 2  # then highest threshold, then shortest refractory
    part = Sweep("s.csv", np.array([0.2, 0.4, 0.4]), np.array([4, 4, 10]), np.array([1, 2, 3]))
    grid = prep.sweep_grid(part)
    assert grid.values.tolist()[0][1] != grid.values.tolist()[0][1]  # NaN: no (0.2, 10) cell
    assert grid.row[0, 1] == -1
