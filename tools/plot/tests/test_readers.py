"""Reading the CSVs of docs/architecture.md, Sensor log CSV and §5: what is accepted, and errors naming file:line + fix."""

import numpy as np
import pytest
from conftest import HITS, LABELS, LOG, SWEEP, SWEEP_UNSCORED

from drumplot import readers
from drumplot.errors import InputError

# ---------------------------------------------------------------------------------------------
# Sensor logs: what is accepted


def test_fixture_log(engine):
    log = readers.read_log(LOG)
    assert log.n == 1488
    assert log.columns == ["t", "x", "y", "z", "hit"]
    assert log.t[0] == 0.0 and log.t[1] == 0.004
    assert log.z.dtype == np.float64 and abs(log.z.mean() - 1.0) < 0.05
    assert log.x is not None and log.y is not None
    assert log.labelled.tolist() == [100, 238, 375, 512, 650, 775, 1050, 1138, 1313]
    assert log.gaps_before.tolist() == [1288]  # the row after "# gap"
    assert log.meta("rate_hz") == "250"
    assert abs(log.rate - 1487 / 5.996) < 1e-9  # as drumpad's LogSummary estimates it


def test_comments_blanks_crlf_bom_header_by_name(write, engine):
    text = ("\ufeff# drumpad sensor log v1\r\n"
            "\r\n"
            "  # device: test\r\n"
            ' "Z" , T ,note\r\n'
            "1.0,0.000,a\r\n"
            "# a comment between rows\r\n"
            "\r\n"
            "   \r\n"
            "1.5,0.004,b\r\n"
            "# gap\r\n"
            "# gap\r\n"
            "2.0,0.008,c\r\n"
            "2.5,0.012,d\r")
    path = write("log.csv", text)
    log = readers.read_log(path)
    assert log.t.tolist() == [0.0, 0.004, 0.008, 0.012]
    assert log.z.tolist() == [1.0, 1.5, 2.0, 2.5]
    assert log.x is None and log.labelled is None
    assert log.gaps_before.tolist() == [2]
    assert log.metadata == [("device", "test")]


def test_gap_before_first_row_is_ignored(write, engine):
    path = write("log.csv", "t,z\n# gap\n0,1\n0.004,1.1\n")
    assert readers.read_log(path).gaps_before.tolist() == []


def test_hit_column_empty_fields_are_zero(write, engine):
    path = write("log.csv", "t,z,hit\n0,1,\n0.004,2,1\n0.008,1, \n")
    log = readers.read_log(path)
    assert log.labelled.tolist() == [1]
    assert log.label_times.tolist() == [0.004]


@pytest.mark.parametrize("comments", [True, False])
@pytest.mark.parametrize("last_line_end", ["\n", ""])
def test_fast_and_slow_readers_agree(write, engine, comments, last_line_end):
    rng = np.random.default_rng(3)
    rows = [f"{i / 250:.6f},{rng.normal():.4f},{rng.normal():.4f},{1 + rng.normal():.4f},{int(i % 97 == 5)}"
            for i in range(3000)]
    if comments:  # the reader's second fast path: comments and blank lines among the rows
        rows.insert(1000, "# gap")
        rows.insert(2000, "")
        rows.insert(2500, "  # indented comment")
    path = write("log.csv", "# x\nt,x,y,z,hit\n" + "\n".join(rows) + last_line_end)
    fast = readers.read_log(path)
    slow = readers.read_log(path, skip_bad_rows=True)  # always the line-by-line reader
    assert fast.n == 3000
    for name in ("t", "x", "y", "z", "labelled", "gaps_before"):
        assert np.array_equal(getattr(fast, name), getattr(slow, name)), name
    assert fast.gaps_before.tolist() == ([1000] if comments else [])


def test_header_only_log_reads_empty(write, engine):
    log = readers.read_log(write("log.csv", "# only a header\nt,z\n"))
    assert log.n == 0


# ---------------------------------------------------------------------------------------------
# Sensor logs: errors


def _error(func, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as info:
        func(*args, **kwargs)
    return info.value


@pytest.mark.parametrize("text, line, words", [
    ("# c\nt,x,y\n0,1,2\n", 2, ['header has no "z" column (found: t,x,y)', 'add "z"']),
    ("t,z,t\n0,1,2\n", 1, ['column "t" twice', "keep one"]),
    ("t,z\n0,1\n0.004,abc\n", 3, ['column "z": "abc" is not a number']),
    ("t,z\n0,1\n0.004,1,5\n", 3, ["expected 2 fields as in the header, found 3", "one value per column"]),
    ("t,x,z\n0,0,1\n0.004,1\n", 3, ["expected 3 fields as in the header, found 2"]),
    ("t,z\n0,1\n0.004,nan\n", 3, ['column "z": "nan" is not a finite number']),
    ("t,z\n0,1\n0.5,1\n# c\n\n0.25,1\n", 6, ["t goes backwards (0.25 after 0.5)", "non-decreasing"]),
    ("t,z\n0,1\n0.004,\n", 3, ['column "z": "" is not a number']),
    ("t,z\r\n0,1\r\n0.004,1\r\n0.008,1.0.0\r\n", 4, ['"1.0.0" is not a number']),
])
def test_log_errors_name_file_and_line(write, engine, text, line, words):
    path = write("bad.csv", text)
    e = _error(readers.read_log, path)
    assert e.path == path and e.line == line
    assert str(e).startswith(f"{path}:{line}: ")
    for w in words:
        assert w in str(e)


def test_error_on_a_late_line_of_a_long_log(write, engine):
    rows = [f"{i / 250:.6f},1.0" for i in range(50_000)]
    rows[40_000] = f"{40_000 / 250:.6f},oops"
    path = write("long.csv", "# a\n# b\nt,z\n" + "\n".join(rows) + "\n")
    e = _error(readers.read_log, path)
    assert e.line == 40_000 + 4 and '"oops"' in str(e)


@pytest.mark.parametrize("text, words", [
    ("", ["no header line", "t,x,y,z"]),
    ("# only comments\n\n", ["no header line"]),
    ("t,z\0\n", ["NUL"]),
])
def test_log_errors_whole_file(write, text, words):
    path = write("bad.csv", text)
    e = _error(readers.read_log, path)
    assert e.line is None and str(e).startswith(f"{path}: ")
    for w in words:
        assert w in str(e)


def test_missing_file():
    e = _error(readers.read_log, "/nonexistent/log.csv")
    assert str(e) == "/nonexistent/log.csv: no such file; check the path"


def test_skip_bad_rows_counts_and_keeps_gaps(write):
    path = write("log.csv", "t,z\n0,1\n# gap\n0.004,x\n0.008,2\n0.012,1,1\n0.016,3\n")
    log = readers.read_log(path, skip_bad_rows=True)
    assert log.t.tolist() == [0.0, 0.008, 0.016]
    assert log.skipped == 2
    assert log.skipped_messages[0].startswith(f"{path}:4: ")
    assert log.gaps_before.tolist() == [1]  # the gap carries over the skipped row


# ---------------------------------------------------------------------------------------------
# Hits, labels, sweeps


def test_hits_fixture_matches_log():
    log = readers.read_log(LOG)
    hits = readers.read_hits(HITS, log)
    assert hits.n == 10
    assert hits.index[:3].tolist() == [100, 238, 512]
    assert np.allclose(hits.t, log.t[hits.index])
    assert hits.velocity is not None and hits.velocity.max() == 1.0
    assert hits.lines[0] == 2


def test_hits_without_velocity_column(write):
    hits = readers.read_hits(write("h.csv", "# from replay\nT,Strength,Index\n0.4,2.5,100\n"))
    assert hits.velocity is None and hits.index.tolist() == [100]


@pytest.mark.parametrize("text, line, words", [
    ("t,strength\n0.4,2\n", 1, ['header has no "index" column', "needs columns index, t, strength"]),
    ("index,t,strength\n1.5,0.4,2\n", 2, ['"index"', "whole number"]),
    ("index,t,strength\n-1,0.4,2\n", 2, ['"index"']),
    ("index,t,strength,velocity\n1,0.4,2,1.5\n", 2, ['"velocity": 1.5 is outside 0…1']),
    ("index,t,strength\n1,0.4,2\n0,0.3,2\n", 3, ["t goes backwards"]),
    ("index,t,strength\n1,0.4\n", 2, ["expected 3 fields"]),
])
def test_hits_errors(write, text, line, words):
    path = write("hits.csv", text)
    e = _error(readers.read_hits, path)
    assert e.line == line and str(e).startswith(f"{path}:{line}: ")
    for w in words:
        assert w in str(e)


def test_hits_from_another_log_fail_clearly(write):
    log = readers.read_log(LOG)
    path = write("hits.csv", "index,t,strength\n100,0.400000,2\n101,0.5,2\n")
    e = _error(readers.read_hits, path, log)
    assert e.line == 3 and "row 101" in str(e) and "drumpad replay" in str(e)
    path = write("hits2.csv", "index,t,strength\n5000,20.0,2\n")
    e = _error(readers.read_hits, path, log)
    assert e.line == 2 and "past the end" in str(e)


def test_labels():
    assert readers.read_labels(LABELS).tolist()[:3] == [0.4, 0.952, 1.5]


def test_labels_unsorted_are_sorted(write):
    assert readers.read_labels(write("l.csv", "t\n2\n1\n")).tolist() == [1.0, 2.0]


def test_labels_errors(write):
    e = _error(readers.read_labels, write("l.csv", "time\n1\n"))
    assert e.line == 1 and 'no "t" column' in str(e)
    e = _error(readers.read_labels, LOG)
    assert "looks like a sensor log" in str(e) and "leave out --labels" in str(e)


def test_sweep_fixtures():
    s = readers.read_sweep(SWEEP)
    assert s.threshold.size == 600 and s.has_scores
    assert s.refractory.dtype == np.int64 and s.refractory[:2].tolist() == [2, 4]
    assert 0 <= s.f1.min() and s.f1.max() <= 1
    u = readers.read_sweep(SWEEP_UNSCORED)
    assert not u.has_scores and u.threshold.size == 60 and u.f1 is None


@pytest.mark.parametrize("text, line, words", [
    ("threshold,hits\n0.1,3\n", 1, ['no "refractory" column']),
    ("threshold,refractory,hits\n0.1,2.5,3\n", 2, ['"refractory": 2.5 is not a whole number']),
    ("threshold,refractory,hits\n0.1,2,3\n0.1,2,4\n", 3, ["already came on line 2"]),
    ("threshold,refractory,hits,f1\n0.1,2,3,0.5\n0.2,2,3,\n", 3, ['"f1" is empty here but scored on line 2']),
    ("threshold,refractory,hits,f1\n0.1,2,3,1.5\n", 2, ['"f1": 1.5 is outside 0…1']),
    ("threshold,refractory,hits\n0.1,2,three\n", 2, ['"three" is not a number']),
])
def test_sweep_errors(write, text, line, words):
    path = write("sweep.csv", text)
    e = _error(readers.read_sweep, path)
    assert e.line == line and str(e).startswith(f"{path}:{line}: ")
    for w in words:
        assert w in str(e)


def test_sweep_without_rows(write):
    e = _error(readers.read_sweep, write("s.csv", "threshold,refractory,hits\n"))
    assert "no rows" in str(e) and "--sweep" in str(e)
