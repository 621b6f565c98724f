#!/usr/bin/env python3
"""`drumpad replay` in pandas and numpy: the named peer for the replay benchmark.

Reads a sensor log (docs/architecture.md, Sensor log CSV) with pandas' C parser, runs the default detector of
docs/architecture.md, Detection and writes the hits as CSV to standard output, `index,t,strength`, as
`drumpad replay` does (§5): index is the 0-based data row that fired, t that row's time with
6 decimals, strength the squared delta that fired (shortest round-trip form). A one-line
summary goes to standard error.

The detector: d[n] = (z[n] - z[n-1])^2 for n >= 1 (sample 0 and the first sample after a
`# gap` comment only prime); a hit at n when d[n] > threshold strictly and n is past the
refractory period of the last hit (a hit at n blocks n+1 ... n+R). Candidates are found with one
vectorised comparison; only they go through the refractory loop.

Differences from drumpad's own reader, none of which matter for logs drumpad writes or
tools/bench/gen_log.py makes: column names must be exactly `t` and `z`; '#' starts a comment
anywhere in a line, not only at its start; malformed rows are pandas' errors, not `file:line`.
"""

from __future__ import annotations

import argparse
import math
import mmap
import os
import sys
import time

import numpy as np
import pandas as pd


def gap_rows(path: str) -> list[int]:
    """Data-row indices that follow a `# gap` comment (they prime instead of firing).

    A cheap byte search first: logs without the word "gap" anywhere need no line scan.
    """
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return []
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mm:
            if mm.find(b"gap") < 0:
                return []
    gaps: list[int] = []
    header_seen = False
    row = 0
    with open(path, "rb") as f:
        for raw in f:
            line = raw.strip()
            if not line:
                continue
            if line.startswith(b"#"):
                if header_seen and line[1:].strip() == b"gap" and row > 0:
                    if not gaps or gaps[-1] != row:
                        gaps.append(row)
                continue
            if header_seen:
                row += 1
            else:
                header_seen = True
    return gaps


def detect(z: np.ndarray, threshold: float, refractory: int, prime_at: list[int]):
    """Returns (indices, strengths) of the hits of the default detector."""
    d = np.diff(z)                      # d[n-1] = z[n] - z[n-1]
    np.multiply(d, d, out=d)
    for row in prime_at:
        if 1 <= row < z.size:
            d[row - 1] = np.nan         # NaN > threshold is False: this sample only primes
    candidates = np.flatnonzero(d > threshold) + 1
    hits = []
    next_allowed = 0
    for n in candidates.tolist():
        if n >= next_allowed:
            hits.append(n)
            next_allowed = n + refractory + 1
    index = np.asarray(hits, dtype=np.int64)
    return index, d[index - 1]


def fixed6(value: float) -> str:
    """`value` with 6 decimals, rounded half away from zero like drumpad's DecimalFormatting."""
    scaled = abs(value) * 1e6
    units = math.floor(scaled)
    if scaled - units >= 0.5:
        units += 1
    sign = "-" if value < 0 and units != 0 else ""
    return f"{sign}{units // 1_000_000}.{units % 1_000_000:06d}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="example: tools/bench/pandas_replay.py Samples/logs/snare-250hz.csv > hits.csv")
    parser.add_argument("log", help="the sensor log CSV (columns t and z)")
    parser.add_argument("--threshold", type=float, default=0.4,
                        help="fire when the squared delta is above this, in g^2 (default 0.4)")
    parser.add_argument("--refractory", type=int, default=10,
                        help="samples after a hit that cannot fire (default 10)")
    args = parser.parse_args(argv)
    if not (args.threshold >= 0 and math.isfinite(args.threshold)):
        parser.error("--threshold must be a number >= 0, such as 0.4")
    if args.refractory < 0:
        parser.error("--refractory must be a whole number of samples >= 0, such as 10")

    started = time.perf_counter()
    frame = pd.read_csv(args.log, comment="#", engine="c", usecols=["t", "z"])
    t = frame["t"].to_numpy(dtype=np.float64)
    z = frame["z"].to_numpy(dtype=np.float64)
    gaps = gap_rows(args.log)
    index, strength = detect(z, args.threshold, args.refractory, gaps)

    times = t[index].tolist()
    lines = ["index,t,strength\n"]
    lines.extend(f"{i},{fixed6(ti)},{s!r}\n"
                 for i, ti, s in zip(index.tolist(), times, strength.tolist()))
    sys.stdout.write("".join(lines))
    sys.stdout.flush()
    elapsed = time.perf_counter() - started
    gap_text = f", {len(gaps)} gap{'s' if len(gaps) != 1 else ''}" if gaps else ""
    print(f"pandas_replay: {args.log}: {z.size} rows{gap_text}; default detector (threshold "
          f"{args.threshold} g^2, refractory {args.refractory} samples): {index.size} hit"
          f"{'s' if index.size != 1 else ''} in {elapsed:.3f} s (pandas {pd.__version__}, "
          f"numpy {np.__version__})", file=sys.stderr)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:
        sys.exit(1)
