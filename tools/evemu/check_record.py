#!/usr/bin/env python3
"""Checks what the kernel evdev test brought back from the VM (scripts/kernel-evdev).

    check_record.py DIR                     after `scripts/kernel-evdev --drumpad BIN --out DIR`
    check_record.py --evemu-record FILE     after `--self-check` (FILE is DIR/rec.evemu)

For a drumpad run, DIR holds what the guest sent back (node, devices.*, record.*, rec.csv). It
checks that
- `drumpad devices` exited 0 and printed a line naming both the node and the device's name;
- `drumpad record --device auto` exited 0 and its log's `# device:` comment names the device;
- the log equals the fixtures' strikes.expected.csv row for row: the same number of rows, t
  within 1 µs and x, y, z within 1e-6 g (so values are in g, times come from MSC_TIMESTAMP
  through its wrap, and every frame was kept).
For a self-check, the evemu-record output of the node is turned into a log by the same frame
rules (evdev_model.py) and compared the same way: that proves the fixture's fuzz model against
the real kernel.

Every difference is printed (the first 12 rows in detail); exits 1 if there is any.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "plot"))
import evdev_model as m  # noqa: E402
from drumplot.errors import InputError  # noqa: E402
from drumplot.readers import read_log  # noqa: E402
from make_strikes import DEVICE_NAME, FIXTURES, UNITS_PER_G  # noqa: E402

T_TOLERANCE_S = 1e-6
G_TOLERANCE = 1e-6
SLACK = 1e-9  # decimal text -> binary float rounding on both sides
SHOWN = 12


def compare_rows(actual: np.ndarray, expected: np.ndarray, what: str) -> list[str]:
    """Differences between two (n, 4) arrays of t, x, y, z rows, as lines to print."""
    problems = []
    if len(actual) != len(expected):
        problems.append(f"{what}: {len(actual)} rows, expected {len(expected)}"
                        + shift_hint(actual, expected))
    n = min(len(actual), len(expected))
    tolerance = np.array([T_TOLERANCE_S, G_TOLERANCE, G_TOLERANCE, G_TOLERANCE]) + SLACK
    diff = np.abs(actual[:n] - expected[:n])
    bad_rows = np.flatnonzero((diff > tolerance).any(axis=1))
    if bad_rows.size:
        columns = "txyz"
        counts = ", ".join(f"{columns[c]} in {int((diff[:, c] > tolerance[c]).sum())}" for c in range(4))
        problems.append(f"{what}: {bad_rows.size} of {n} rows differ ({counts}); first at row {bad_rows[0]}"
                        + ("" if len(actual) != len(expected) else shift_hint(actual, expected)))
        for r in bad_rows[:SHOWN]:
            cells = [f"{columns[c]} {actual[r, c]:.7f} expected {expected[r, c]:.7f} (off by {diff[r, c]:.3g})"
                     for c in range(4) if diff[r, c] > tolerance[c]]
            problems.append(f"  row {r} (expected t {expected[r, 0]:.6f}): " + "; ".join(cells))
        if bad_rows.size > SHOWN:
            problems.append(f"  ... and {bad_rows.size - SHOWN} more rows")
    return problems


def shift_hint(actual: np.ndarray, expected: np.ndarray, widest: int = 200) -> str:
    """Where the rows line up by value (x, y, z), when they do at an offset: names lost frames."""
    best = None
    for offset in range(-widest, widest + 1):
        a = actual[max(0, -offset):]
        e = expected[max(0, offset):]
        n = min(len(a), len(e))
        if n < 20:
            continue
        same = (np.abs(a[:n, 1:] - e[:n, 1:]) <= G_TOLERANCE + SLACK).all(axis=1).mean()
        if best is None or same > best[1]:
            best = (offset, same)
    if best is None or best[1] < 0.9:
        return ""
    offset, same = best
    if offset == 0:
        return f" (values line up from row 0 for {same:.0%} of rows: frames are missing or extra later on)"
    if offset > 0:
        return (f" (by value its row 0 is expected row {offset}: the first {offset} frames are missing,"
                " as if the reader opened the node late or dropped events)")
    return f" (by value expected row 0 is its row {-offset}: {-offset} extra rows before the playback)"


def rows_of_log(path: str) -> tuple[np.ndarray, list, list[str]]:
    """A sensor log's rows (n, 4), its metadata and problems reading it (missing columns, gaps)."""
    log = read_log(path)
    problems = []
    if log.x is None or log.y is None:
        problems.append(f"{path}: no x and y columns (header {','.join(log.columns)})")
    if log.gaps_before.size:
        problems.append(f"{path}: `# gap` before rows {log.gaps_before[:10].tolist()}: events were lost")
    zeros = np.zeros_like(log.t)
    x = zeros if log.x is None else log.x
    y = zeros if log.y is None else log.y
    return np.column_stack([log.t, x, y, log.z]), log.metadata, problems


def read_text(path: str) -> str:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return ""


def exit_code(folder: str, step: str) -> str:
    return read_text(os.path.join(folder, f"{step}.rc")).strip() or "missing"


def check_run(folder: str, expected: np.ndarray) -> list[str]:
    """Problems with a drumpad run's results in `folder` (empty when all is well)."""
    problems = []
    node = read_text(os.path.join(folder, "node")).strip()
    if not node:
        return [f"{folder}/node: missing: the guest never made the device"]

    code = exit_code(folder, "devices")
    listing = read_text(os.path.join(folder, "devices.stdout"))
    if code != "0":
        problems.append(f"`drumpad devices` exited {code}; stderr: {read_text(os.path.join(folder, 'devices.stderr')).strip()!r}")
    if not any(node in line and DEVICE_NAME in line for line in listing.splitlines()):
        problems.append(f"`drumpad devices` printed no line with both {node} and \"{DEVICE_NAME}\"; it printed:\n"
                        + (listing.rstrip() or "(nothing)"))

    code = exit_code(folder, "record")
    if code != "0":
        problems.append(f"`drumpad record` exited {code}; stderr: {read_text(os.path.join(folder, 'record.stderr')).strip()!r}")
    path = os.path.join(folder, "rec.csv")
    if not os.path.exists(path):
        return problems + [f"{path}: missing: `drumpad record` wrote no log"]
    try:
        actual, metadata, read_problems = rows_of_log(path)
    except InputError as error:
        return problems + [f"{path}: not a sensor log: {error}"]
    problems += read_problems
    devices = [value for key, value in metadata if key == "device"]
    if not any(DEVICE_NAME in value for value in devices):
        problems.append(f"{path}: no `# device:` comment naming \"{DEVICE_NAME}\" (device comments: {devices})")
    return problems + compare_rows(actual, expected, path)


def check_evemu_record(path: str, expected: np.ndarray) -> list[str]:
    """Problems with an evemu-record recording of the node during the playback."""
    try:
        events = list(m.parse_events(read_text(path), path))
        rows = m.sensor_rows(m.frames(events), UNITS_PER_G)
    except ValueError as error:
        return [f"{path}: {error}"]
    if not rows:
        return [f"{path}: no frames recorded"]
    return compare_rows(np.array(rows), expected, path)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", nargs="?", help="the --out folder of a drumpad run")
    parser.add_argument("--evemu-record", metavar="FILE", help="check a --self-check recording instead")
    parser.add_argument("--fixtures", default=FIXTURES, help="folder of strikes.expected.csv (default: %(default)s)")
    args = parser.parse_args(argv)
    if (args.folder is None) == (args.evemu_record is None):
        parser.error("give either a run's folder or --evemu-record FILE")

    expected, _, problems = rows_of_log(os.path.join(args.fixtures, "strikes.expected.csv"))
    if args.evemu_record:
        problems += check_evemu_record(args.evemu_record, expected)
    else:
        problems += check_run(args.folder, expected)
    if problems:
        print("check_record: FAILED", file=sys.stderr)
        for line in problems:
            print(line, file=sys.stderr)
        return 1
    what = args.evemu_record or os.path.join(args.folder, "rec.csv")
    print(f"check_record: ok: {what} matches strikes.expected.csv ({len(expected)} rows, t within 1 µs, "
          f"x/y/z within 1e-6 g)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
