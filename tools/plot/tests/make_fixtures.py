#!/usr/bin/env python3
"""Writes the small, realistic fixtures under fixtures/ (deterministic: fixed seed).

    python3 tools/plot/tests/make_fixtures.py

- strikes-250hz.csv: 6 s at 250 Hz, columns t,x,y,z,hit. About 1 g of gravity on z with 0.005 g of
  noise; strikes are a sharp jump of 0.5-3 g in z followed by damped ringing (about 40 Hz). The
  hit column is 1 on the first sample of each strike. It holds on purpose: a soft strike the
  default threshold misses, a hard strike whose ringing fires again after the refractory period,
  a knock on the table that is no strike, and a `# gap` (lost samples) comment.
- strikes-labels.csv: the true strike times as a labels file (a t column).

The hits and sweep fixtures are drumpad's own output for that log (docs/architecture.md, `drumpad replay` output), made in
fixtures/ with:

    drumpad replay strikes-250hz.csv > strikes-hits.csv
    drumpad replay strikes-250hz.csv --sweep > strikes-sweep.csv
    cut -d, -f1-4 strikes-250hz.csv > /tmp/nohit.csv     # the log without its hit column
    drumpad replay /tmp/nohit.csv --sweep --thresholds 0.1:1.5:0.1 --refractories 0,5,10,20 \
        > strikes-sweep-unscored.csv

The tests check that drumplot's detector and scoring reproduce every row of these files.
"""

import os

import numpy as np

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
RATE = 250.0
SECONDS = 6.0

# (time in s, jump in g, is a real strike)
EVENTS = [
    (0.40, 1.6, True),
    (0.95, 2.2, True),
    (1.50, 0.5, True),   # soft: d = 0.25 g² < 0.4, the default threshold misses it
    (2.05, 3.0, True),   # hard: its ringing fires again after 10 samples
    (2.60, 1.2, True),
    (3.10, 1.9, True),
    (3.60, 0.9, False),  # a knock on the table: fires, but no strike
    (4.20, 2.6, True),
    (4.55, 1.4, True),   # a quick second strike (350 ms later)
    (5.30, 2.0, True),   # right after a gap of lost samples
]
GAP_AT = 5.2  # lost samples just before this time


def main() -> None:
    rng = np.random.default_rng(8)
    n = int(SECONDS * RATE)
    t = np.arange(n) / RATE
    x = rng.normal(0.0, 0.005, n) + 0.01
    y = rng.normal(0.0, 0.005, n) - 0.02
    z = 1.0 + rng.normal(0.0, 0.005, n)
    hit = np.zeros(n, np.int64)
    k = np.arange(80)
    for when, jump, real in EVENTS:
        i = int(round(when * RATE))
        ring = jump * np.exp(-k / (14.0 if jump >= 2.9 else 6.0)) * np.cos(2 * np.pi * 40.0 * k / RATE)
        m = min(80, n - i)
        z[i:i + m] += ring[:m]
        x[i:i + m] += 0.2 * ring[:m] * np.sin(2 * np.pi * 25.0 * k[:m] / RATE)
        y[i:i + m] -= 0.15 * ring[:m]
        if real:
            hit[i] = 1
    # Lost samples: drop 12 rows before GAP_AT and mark the gap.
    g = int(round(GAP_AT * RATE))
    keep = np.ones(n, bool)
    keep[g - 12:g] = False
    os.makedirs(HERE, exist_ok=True)
    with open(os.path.join(HERE, "strikes-250hz.csv"), "w") as f:
        f.write("# drumpad sensor log v1\n# device: synthetic pad (tools/plot/tests/make_fixtures.py)\n")
        f.write("# rate_hz: 250\nt,x,y,z,hit\n")
        for i in np.flatnonzero(keep):
            if i == g:
                f.write("# gap\n")
            f.write(f"{t[i]:.6f},{x[i]:.4f},{y[i]:.4f},{z[i]:.4f},{hit[i]}\n")
    with open(os.path.join(HERE, "strikes-labels.csv"), "w") as f:
        f.write("# true strike times of strikes-250hz.csv, in seconds\nt\n")
        for when, _, real in EVENTS:
            if real:
                f.write(f"{round(when * RATE) / RATE:.6f}\n")


if __name__ == "__main__":
    main()
