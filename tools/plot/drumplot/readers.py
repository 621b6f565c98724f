"""Readers for the three CSVs the plots show, with errors that name `file:line` and the fix.

- Sensor logs (docs/architecture.md, Sensor log CSV), as `drumpad record` writes them: `read_log`.
- Hits (docs/architecture.md, `drumpad replay` output), as `drumpad replay LOG.csv > hits.csv` writes them: `read_hits`.
- Labels (a `t` column of true strike times): `read_labels`.
- Sweeps, as `drumpad replay LOG.csv --sweep > sweep.csv` writes them: `read_sweep`.

All four share the log's rules: UTF-8 text (a byte-order mark is accepted), lines starting with
`#` are comments anywhere (`# key: value` is metadata; `# gap` in a log marks lost samples before
the next row), blank lines are ignored, CRLF is accepted, the first other line is the header and
columns are found by name (case, surrounding spaces and quotes ignored), in any order; unknown
columns are ignored.

Sensor logs are read fast (a 2.4 M-row log in well under a second): numpy's C parser (or pandas'
when it is installed) reads the data rows in one call and the checks run on whole arrays. Only
when that finds something wrong is the file read again line by line, to name the first bad line
exactly as `drumpad replay` would (or to skip bad rows, with `skip_bad_rows`).
"""

from __future__ import annotations

import io
import math
import os
from dataclasses import dataclass, field

import numpy as np

from .errors import InputError

try:  # optional: pandas' C reader is a little faster than numpy's
    import pandas as _pd  # type: ignore
except ImportError:  # pragma: no cover - depends on the machine
    _pd = None

#: Set to False to read logs with numpy even when pandas is installed (tests use this).
USE_PANDAS = True

_BLANKS = b" \t"


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class SensorLog:
    """The samples of a sensor log, one array entry per data row (in file order)."""

    path: str
    t: np.ndarray
    z: np.ndarray
    x: np.ndarray | None = None
    y: np.ndarray | None = None
    #: Row indices labelled as hits (the `hit` column is non-zero); None without a `hit` column.
    labelled: np.ndarray | None = None
    #: Row indices (ascending, never 0) of samples that follow a `# gap` comment.
    gaps_before: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))
    #: `# key: value` comments, in order.
    metadata: list = field(default_factory=list)
    #: Column names from the header, lower-cased.
    columns: list = field(default_factory=list)
    #: Malformed rows skipped (only with `skip_bad_rows`) and the first ten messages.
    skipped: int = 0
    skipped_messages: list = field(default_factory=list)

    @property
    def n(self) -> int:
        return int(self.t.size)

    @property
    def duration(self) -> float:
        return float(self.t[-1] - self.t[0]) if self.n else 0.0

    @property
    def rate(self) -> float | None:
        """Mean sample rate from the timestamps, as `drumpad replay` estimates it (LogSummary)."""
        span = self.duration
        return (self.n - 1) / span if self.n >= 2 and span > 0 else None

    @property
    def label_times(self) -> np.ndarray | None:
        return None if self.labelled is None else self.t[self.labelled]

    def meta(self, key: str) -> str | None:
        for k, v in self.metadata:
            if k == key:
                return v
        return None


@dataclass
class Hits:
    """Hits from `drumpad replay` (or computed here): parallel arrays, in time order."""

    index: np.ndarray  # int64, 0-based data-row index of the sample that fired
    t: np.ndarray  # seconds
    strength: np.ndarray  # the detector's value that fired (g² for the default detector)
    velocity: np.ndarray | None = None  # 0..1, None when the file had no velocity column
    path: str | None = None  # None for computed hits
    lines: np.ndarray | None = None  # 1-based line of each hit in its file

    @property
    def n(self) -> int:
        return int(self.t.size)


@dataclass
class Sweep:
    """Rows of a sweep CSV. Score columns are None when the sweep had no labels."""

    path: str
    threshold: np.ndarray
    refractory: np.ndarray  # int64, samples
    hits: np.ndarray  # int64
    true_positives: np.ndarray | None = None
    false_positives: np.ndarray | None = None
    false_negatives: np.ndarray | None = None
    precision: np.ndarray | None = None
    recall: np.ndarray | None = None
    f1: np.ndarray | None = None
    lines: np.ndarray | None = None

    @property
    def has_scores(self) -> bool:
        return self.f1 is not None


# ---------------------------------------------------------------------------------------------
# Shared pieces


def _read_bytes(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            data = f.read()
    except FileNotFoundError:
        raise InputError(path, None, "no such file", "check the path") from None
    except IsADirectoryError:
        raise InputError(path, None, "is a folder, not a CSV file", "give the CSV file inside it") from None
    except OSError as e:
        raise InputError(path, None, f"cannot read it ({e.strerror})") from None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n")
        if data.endswith(b"\r"):
            data = data[:-1]
    if b"\0" in data[:65536]:
        raise InputError(path, None, "holds NUL bytes, so it is not a CSV text file",
                         "give the CSV that drumpad wrote")
    return data


def _text(raw: bytes, limit: int = 40) -> str:
    text = raw.decode("utf-8", "replace")
    return text if len(text) <= limit else text[:limit] + "…"


def _parse_comment(raw: bytes, metadata: list) -> bool:
    """Handles a comment's text (after `#`); returns True when it is exactly `gap`."""
    comment = raw.strip(_BLANKS).decode("utf-8", "replace")
    if comment == "gap":
        return True
    key, colon, value = comment.partition(":")
    key = key.strip(" \t")
    if colon and key and " " not in key and len(metadata) < 256:
        metadata.append((key, value.strip(" \t")))
    return False


def _parse_header(raw: bytes, path: str, line: int, required: list[str], what: str) -> list[str]:
    names = []
    for part in raw.decode("utf-8", "replace").split(","):
        name = part.strip(" \t")
        if len(name) >= 2 and name.startswith('"') and name.endswith('"'):
            name = name[1:-1]
        names.append(name.lower())
    for i, name in enumerate(names):
        if name and name in names[:i]:
            raise InputError(path, line, f'header names column "{name}" twice', "keep one")
    for column in required:
        if column not in names:
            raise InputError(
                path, line,
                f'header has no "{column}" column (found: {",".join(names)})',
                f'{what} needs columns {", ".join(required)}; add "{column}", spelled exactly so')
    return names


def _find_header(data: bytes, path: str, required: list[str], what: str, example: str):
    """Reads comments and blank lines up to the header.

    Returns (names, header line number, byte offset of the line after it, metadata, gap seen)."""
    metadata: list = []
    gap = False
    for line, raw, after in _iter_rows(data, 0, 1):
        stripped = raw.lstrip(_BLANKS)
        if not stripped:
            continue
        if stripped.startswith(b"#"):
            gap = _parse_comment(stripped[1:], metadata) or gap
            continue
        names = _parse_header(raw, path, line, required, what)
        return names, line, after, metadata, gap
    raise InputError(path, None, "no header line (the file is empty or holds only comments)",
                     f"the first non-comment line must name the columns, such as {example}")


def _number(text: bytes, path: str, line: int, column: str, empty_ok: bool = False) -> float:
    """One field as a float, with the error `drumpad replay` gives for it."""
    s = text.strip(b" ")
    if not s:
        if empty_ok:
            return math.nan
        raise InputError(path, line, f'column "{column}": "" is not a number',
                         "fill it in or remove the row")
    try:
        if b"_" in s:
            raise ValueError
        value = float(s)
    except ValueError:
        raise InputError(path, line, f'column "{column}": "{_text(s)}" is not a number') from None
    if not math.isfinite(value):
        raise InputError(path, line, f'column "{column}": "{_text(s)}" is not a finite number')
    return value


def _iter_rows(data: bytes, start: int, first_line: int):
    """Yields (line number, raw line, offset of the next line) for every line from byte `start`
    (line `first_line`)."""
    pos = start
    line = first_line
    size = len(data)
    while pos < size:
        end = data.find(b"\n", pos)
        if end < 0:
            end = size
        yield line, data[pos:end], min(end + 1, size)
        line += 1
        pos = end + 1


def _read_table(path: str, required: list[str], optional: list[str], what: str, example: str,
                empty_ok: tuple[str, ...] = ()):
    """Reads a small CSV (hits, labels, sweeps) with the log's rules.

    Returns (columns: dict name -> list of floats (NaN for empty fields in `empty_ok`), line
    numbers, header names, metadata)."""
    data = _read_bytes(path)
    names, header_line, start, metadata, _ = _find_header(data, path, required, what, example)
    wanted = [c for c in required + optional if c in names]
    where = {c: names.index(c) for c in wanted}
    values: dict[str, list] = {c: [] for c in wanted}
    lines: list[int] = []
    ncols = len(names)
    for line, raw, _ in _iter_rows(data, start, header_line + 1):
        stripped = raw.lstrip(_BLANKS)
        if not stripped:
            continue
        if stripped.startswith(b"#"):
            _parse_comment(stripped[1:], metadata)
            continue
        fields = raw.split(b",")
        if len(fields) != ncols:
            raise InputError(path, line, f"expected {ncols} fields as in the header, found {len(fields)}",
                             f"every row needs one value per column ({','.join(names)})")
        for c in wanted:
            values[c].append(_number(fields[where[c]], path, line, c, empty_ok=c in empty_ok))
        lines.append(line)
    return values, np.asarray(lines, np.int64), names, metadata


def _check_non_decreasing(t: np.ndarray, lines: np.ndarray, path: str, column: str = "t"):
    if t.size > 1:
        bad = np.flatnonzero(np.diff(t) < 0)
        if bad.size:
            k = int(bad[0]) + 1
            raise InputError(path, int(lines[k]),
                             f"{column} goes backwards ({float(t[k])!r} after {float(t[k - 1])!r})",
                             f"{column} must be non-decreasing")


# ---------------------------------------------------------------------------------------------
# Sensor logs


def read_log(path: str, skip_bad_rows: bool = False) -> SensorLog:
    """Reads a sensor log (docs/architecture.md, Sensor log CSV). Raises InputError naming the first bad line."""
    data = _read_bytes(path)
    names, header_line, start, metadata, _ = _find_header(
        data, path, ["t", "z"], "a sensor log", "t,x,y,z")
    if not skip_bad_rows:
        fast = _read_log_fast(data, start, header_line, names)
        if fast is not None:
            t, z, x, y, hit, gaps_before, more_meta = fast
            metadata += more_meta
            labelled = None if hit is None else np.flatnonzero(hit != 0)
            return SensorLog(path, t, z, x, y, labelled, gaps_before, metadata, names)
    return _read_log_slow(path, data, start, header_line, names, metadata, skip_bad_rows)


def _read_log_fast(data: bytes, start: int, header_line: int, names: list[str]):
    """One C-parser call over all data rows, then whole-array checks.

    Returns None when anything is off (the slow reader then names the line); this never raises
    for bad content."""
    ncols = len(names)
    size = len(data)
    metadata: list = []
    skip: list[int] = []  # line positions (0-based within the body) that are comments or blank
    gap_lines: list[int] = []
    odd = start < size and (data[start:start + 1] in (b"#", b" ", b"\t", b"\n") or any(
        data.find(p, start) >= 0 for p in (b"\n#", b"\n\n", b"\n ", b"\n\t")))
    if not odd:
        # The usual log: nothing but data rows after the header. Parse in place, no copies.
        nrows = 0 if start >= size else data.count(b"\n", start) + (0 if data.endswith(b"\n") else 1)
        commas = data.count(b",", start)
        source = io.BytesIO(data)
        source.seek(start)
    else:
        body = memoryview(data)[start:]
        arr = np.frombuffer(body, np.uint8)
        newlines = np.flatnonzero(arr == 10)
        starts = np.concatenate(([0], newlines + 1))
        ends = np.concatenate((newlines, [arr.size]))
        if starts[-1] >= arr.size:  # the file ends with a line end: no line after it
            starts, ends = starts[:-1], ends[:-1]
        nlines = starts.size
        del newlines
        # Lines that are not plain data rows start with '#', a blank or a line end; look at
        # those few in Python.
        first = arr[np.minimum(starts, arr.size - 1)]
        odd_lines = np.flatnonzero((first == ord("#")) | (first == ord(" ")) | (first == ord("\t"))
                                   | (first == ord("\n")) | (starts == ends))
        for i in odd_lines.tolist():
            raw = bytes(body[starts[i]:ends[i]]).lstrip(_BLANKS)
            if not raw:
                skip.append(i)
            elif raw.startswith(b"#"):
                skip.append(i)
                if _parse_comment(raw[1:], metadata):
                    gap_lines.append(i)
            # else: a data row with leading blanks, which the parser takes as it is
        nrows = nlines - len(skip)
        # Join the runs of data lines between the skipped lines.
        parts = []
        previous = -1
        for i in skip + [nlines]:
            if i > previous + 1:
                parts.append(body[starts[previous + 1]:ends[i - 1]])
                parts.append(b"\n")
            previous = i
        buf = b"".join(parts)
        del parts, body, arr, starts, ends, first
        commas = buf.count(b",")
        source = io.BytesIO(buf)
    if nrows == 0:
        empty = np.zeros(0)
        return (empty, empty.copy(), None if "x" not in names else empty.copy(),
                None if "y" not in names else empty.copy(), None if "hit" not in names else empty.copy(),
                np.zeros(0, np.int64), metadata)

    roles = {c: names.index(c) for c in ("t", "z", "x", "y", "hit") if c in names}
    usecols = sorted(set(roles.values()) | {ncols - 1})  # the last column shows short rows
    try:
        table = _parse_numbers(source, usecols)
    except Exception:  # any parse problem: let the slow reader find and name it
        return None
    if table.shape != (nrows, len(usecols)) or not np.isfinite(table).all():
        return None
    # Every row has at least ncols fields (the last column parsed); equal comma totals then
    # mean no row has more.
    if commas != nrows * (ncols - 1):
        return None
    col = {c: table[:, usecols.index(i)] for c, i in roles.items()}
    t = np.ascontiguousarray(col["t"])
    if t.size > 1 and (np.diff(t) < 0).any():
        return None
    # A gap marks the next data row, unless no row came before it.
    gaps_before = np.zeros(0, np.int64)
    if gap_lines:
        skip_arr = np.asarray(skip, np.int64)
        rows_before = np.asarray(gap_lines, np.int64) - np.searchsorted(skip_arr, gap_lines)
        # rows_before counts data lines before each gap line = index of the next data row
        rows = np.unique(rows_before)
        gaps_before = rows[(rows > 0) & (rows < nrows)]
    pick = lambda c: np.ascontiguousarray(col[c]) if c in col else None  # noqa: E731
    return t, pick("z"), pick("x"), pick("y"), pick("hit"), gaps_before, metadata


def _parse_numbers(source, usecols: list[int]) -> np.ndarray:
    """Parses the data rows from a binary file object (at its current position)."""
    if _pd is not None and USE_PANDAS:
        frame = _pd.read_csv(source, header=None, usecols=usecols, dtype=np.float64,
                             engine="c", skip_blank_lines=False, comment=None, quoting=3,
                             na_filter=True, keep_default_na=False, na_values=[""])
        return frame.to_numpy(np.float64)
    return np.loadtxt(source, delimiter=",", usecols=usecols, dtype=np.float64,
                      comments=None, ndmin=2, encoding="latin1")


def _read_log_slow(path, data, start, header_line, names, metadata, skip_bad_rows) -> SensorLog:
    """Line by line, exactly as `drumpad replay` reads (and skips) rows."""
    ncols = len(names)
    roles = {c: names.index(c) for c in ("t", "z", "x", "y", "hit") if c in names}
    ordered = sorted(roles.items(), key=lambda item: item[1])
    cols = {c: [] for c in roles}
    gaps_before: list[int] = []
    labelled: list[int] = []
    pending_gap = False
    skipped = 0
    messages: list[str] = []
    last_t = None
    rows = 0
    for line, raw, _ in _iter_rows(data, start, header_line + 1):
        stripped = raw.lstrip(_BLANKS)
        if not stripped:
            continue
        if stripped.startswith(b"#"):
            pending_gap = _parse_comment(stripped[1:], metadata) or pending_gap
            continue
        try:
            fields = raw.split(b",")
            values = {}
            for c, i in ordered:  # the first bad field from the left, as drumpad replay reports
                if i < len(fields):
                    v = _number(fields[i], path, line, c, empty_ok=(c == "hit"))
                    values[c] = 0.0 if (c == "hit" and math.isnan(v)) else v
            if len(fields) != ncols:
                raise InputError(path, line, f"expected {ncols} fields as in the header, found {len(fields)}",
                                 f"every row needs one value per column ({','.join(names)})")
            if last_t is not None and values["t"] < last_t:
                raise InputError(path, line, f"t goes backwards ({values['t']!r} after {last_t!r})",
                                 "t must be non-decreasing")
        except InputError as e:
            if not skip_bad_rows:
                raise
            skipped += 1
            if len(messages) < 10:
                messages.append(str(e))
            continue
        if pending_gap:
            pending_gap = False
            if rows > 0:
                gaps_before.append(rows)
        for c in roles:
            cols[c].append(values[c])
        if values.get("hit", 0.0) != 0:
            labelled.append(rows)
        last_t = values["t"]
        rows += 1
    arr = {c: np.asarray(v, np.float64) for c, v in cols.items()}
    return SensorLog(path, arr["t"], arr["z"], arr.get("x"), arr.get("y"),
                     np.asarray(labelled, np.int64) if "hit" in roles else None,
                     np.asarray(gaps_before, np.int64), metadata, names, skipped, messages)


# ---------------------------------------------------------------------------------------------
# Hits, labels, sweeps


def read_hits(path: str, log: SensorLog | None = None) -> Hits:
    """Reads `drumpad replay` output (`index,t,strength[,velocity]`).

    With `log`, checks that each hit's index is a row of that log with the same time, so hits
    replayed from another log (or with --skip-bad-rows on one side only) fail clearly."""
    values, lines, _, _ = _read_table(
        path, ["index", "t", "strength"], ["velocity"],
        "a hits file (drumpad replay LOG.csv > hits.csv)", "index,t,strength,velocity")
    index = np.asarray(values["index"], np.float64)
    t = np.asarray(values["t"], np.float64)
    strength = np.asarray(values["strength"], np.float64)
    velocity = np.asarray(values["velocity"], np.float64) if "velocity" in values else None
    for k in range(index.size):
        if index[k] < 0 or index[k] != math.floor(index[k]):
            raise InputError(path, int(lines[k]), f'column "index": {values["index"][k]!r} is not a whole number ≥ 0',
                             "index is the 0-based data row of the log that fired (a whole number ≥ 0)")
        if velocity is not None and not (0 <= velocity[k] <= 1):
            raise InputError(path, int(lines[k]), f'column "velocity": {float(velocity[k])!r} is outside 0…1')
    _check_non_decreasing(t, lines, path)
    idx = index.astype(np.int64)
    if log is not None and idx.size:
        bad = np.flatnonzero(idx >= log.n)
        if bad.size:
            k = int(bad[0])
            raise InputError(path, int(lines[k]),
                             f"hit index {idx[k]} is past the end of {log.path} ({log.n} data rows)",
                             f"were these hits replayed from another log? run: drumpad replay {log.path} > {path}")
        # Times are written with 6 decimals (µs).
        off = np.abs(log.t[idx] - t) > 1.5e-6 + 1e-9 * np.abs(t)
        if off.any():
            k = int(np.flatnonzero(off)[0])
            raise InputError(path, int(lines[k]),
                             f"hit index {idx[k]} has t={t[k]:.6f} but row {idx[k]} of {log.path} has t={log.t[idx[k]]:.6f}",
                             f"were these hits replayed from another log (or with --skip-bad-rows)? run: drumpad replay {log.path} > {path}")
    return Hits(idx, t, strength, velocity, path, lines)


def read_labels(path: str) -> np.ndarray:
    """Reads a labels file: a `t` column of true strike times, in seconds. Returns them sorted."""
    values, lines, names, _ = _read_table(path, ["t"], [], "a labels file", "t")
    if "z" in names or "hit" in names:
        raise InputError(path, None,
                         "has a z or hit column, so it looks like a sensor log, not a labels file",
                         "a labels file holds one row per true strike (a t column); to use a log's own "
                         "hit column, leave out --labels")
    t = np.asarray(values["t"], np.float64)
    return np.sort(t, kind="stable")


_SCORES = ["true_positives", "false_positives", "false_negatives", "precision", "recall", "f1"]


def read_sweep(path: str) -> Sweep:
    """Reads `drumpad replay --sweep` output. Score columns may be empty on every row (no labels)."""
    values, lines, names, _ = _read_table(
        path, ["threshold", "refractory", "hits"], _SCORES,
        "a sweep file (drumpad replay LOG.csv --sweep > sweep.csv)",
        "threshold,refractory,hits,true_positives,false_positives,false_negatives,precision,recall,f1",
        empty_ok=tuple(_SCORES))
    if not lines.size:
        raise InputError(path, None, "has a header but no rows",
                         "run: drumpad replay LOG.csv --sweep > sweep.csv")
    threshold = np.asarray(values["threshold"], np.float64)
    refractory = np.asarray(values["refractory"], np.float64)
    hits = np.asarray(values["hits"], np.float64)
    for name, arr in (("refractory", refractory), ("hits", hits)):
        bad = np.flatnonzero((arr < 0) | (arr != np.floor(arr)))
        if bad.size:
            k = int(bad[0])
            raise InputError(path, int(lines[k]), f'column "{name}": {float(arr[k])!r} is not a whole number ≥ 0')
    seen: dict = {}
    for k in range(threshold.size):
        key = (threshold[k], refractory[k])
        if key in seen:
            raise InputError(path, int(lines[k]),
                             f"threshold {float(threshold[k])!r}, refractory {int(refractory[k])} already came on line {seen[key]}",
                             "each setting must appear once; was the file written twice into one?")
        seen[key] = int(lines[k])
    sweep = Sweep(path, threshold, refractory.astype(np.int64), hits.astype(np.int64), lines=lines)
    present = [c for c in _SCORES if c in values]
    if "f1" in values:
        f1 = np.asarray(values["f1"], np.float64)
        empty = np.isnan(f1)
        if not empty.all():
            for c in present:
                arr = np.asarray(values[c], np.float64)
                mixed = np.flatnonzero(np.isnan(arr))
                if mixed.size:
                    k = int(mixed[0])
                    first = int(lines[int(np.flatnonzero(~empty)[0])])
                    raise InputError(path, int(lines[k]),
                                     f'column "{c}" is empty here but scored on line {first}',
                                     "a sweep is scored on every row (with labels) or on none")
                if c in ("precision", "recall", "f1"):
                    out = np.flatnonzero((arr < 0) | (arr > 1))
                    if out.size:
                        k = int(out[0])
                        raise InputError(path, int(lines[k]), f'column "{c}": {float(arr[k])!r} is outside 0…1')
                setattr(sweep, c, arr if c in ("precision", "recall", "f1") else arr.astype(np.int64))
    return sweep


def display_name(path: str) -> str:
    """A short name for titles: the path relative to the working folder when that is shorter."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return path
    return rel if len(rel) < len(path) else path
