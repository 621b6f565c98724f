#!/usr/bin/env python3
"""Deterministic synthetic drumpad sensor logs (docs/architecture.md, Sensor log CSV) for tests and benchmarks.

The signal, in g:
  z = 1 (gravity) + slow handling wobble + gaussian sensor noise + strikes
  x, y = small wobble + noise + a little of each strike's ringing (cross-axis)

Each strike is a shock, a jump of 0.8-3 g in z within one sample, followed by damped ringing.
The ringing is defined in samples (its frequency is a fraction of the rate and its decay a number
of samples), so the same guarantee holds at every rate: from the 6th sample after the shock on,
no consecutive-sample jump exceeds 0.55 g (0.55^2 = 0.3025 g^2 < 0.4), so the default detector
(squared delta > 0.4 g^2, refractory 10 samples) fires exactly once per strike, on the shock.
At 250 Hz the ringing is 30-75 Hz with a time constant of 5-8 ms. Strikes come at random
intervals: 0.15 s plus an exponential with mean 0.35 s (mean 0.5 s), never closer than 16 samples.
Noise is gaussian with sigma 0.005 g, clipped at 5 sigma so the guarantee is not left to chance.

The same arguments always give the same bytes. 2.4 M rows at 250 Hz take a few seconds.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from reference_detector import detect  # noqa: E402

GRAVITY = 1.0
NOISE_SIGMA = 0.005          # g
NOISE_CLIP = 5.0             # sigmas
JUMP_MIN, JUMP_MAX = 0.8, 3.0  # g, the shock
RING_CYCLES_PER_SAMPLE = (0.12, 0.30)
RING_DECAY_SAMPLES = (1.25, 2.0)  # e-folding time of the ringing envelope, in samples
RING_LENGTH = 40             # samples of ringing added after each shock (the rest is < 1e-8 g)
MIN_INTERVAL_S = 0.15
MEAN_INTERVAL_S = 0.5
MIN_INTERVAL_SAMPLES = 16    # keeps strikes apart at low rates (refractory 10 + settled ringing)
SETTLED_AFTER = 6            # samples after the shock from which jumps stay <= SETTLED_MAX_JUMP
SETTLED_MAX_JUMP = 0.55      # g
TIME_DECIMALS = 6
VALUE_DECIMALS = 4
CHUNK_ROWS = 1 << 18


# Grooves for the demo: strike positions in sixteenth notes of a 4/4 bar, and the accent of each
# (1 = the hardest strikes, lower = softer), so three pads replaying their logs together play
# one beat.
GROOVES = {
    "kick": ([0, 7, 8, 10], [1.0, 0.6, 0.9, 0.7]),
    "snare": ([4, 12], [1.0, 1.0]),
    "hihat": ([0, 2, 4, 6, 8, 10, 12, 14], [0.9, 0.5, 0.8, 0.5, 0.9, 0.5, 0.8, 0.5]),
}
GROOVE_BPM = 100.0
GROOVE_START_S = 1.0


def groove_strikes(name: str, rows: int, rate: float, rng) -> tuple[np.ndarray, np.ndarray]:
    """Strike sample indices and accents for a groove, with a few ms of human timing."""
    steps, accents = GROOVES[name]
    sixteenth = 60.0 / GROOVE_BPM / 4
    times, levels = [], []
    bar = 0
    while True:
        start = GROOVE_START_S + bar * 16 * sixteenth
        if start >= rows / rate:
            break
        for step, accent in zip(steps, accents):
            times.append(start + step * sixteenth + rng.normal(0, 0.003))
            levels.append(accent)
        bar += 1
    k = np.rint(np.asarray(times) * rate).astype(np.int64)
    keep = (k >= 1) & (k < rows)
    return k[keep], np.asarray(levels)[keep]


def synthesize(rows: int, rate: float, seed: int, groove: str | None = None):
    """Returns (x, y, z, strikes): float64 signals in g and the sorted strike sample indices."""
    rng = np.random.default_rng(seed)
    t = np.arange(rows, dtype=np.float64) / rate

    def wobble(amplitudes):
        out = np.zeros(rows)
        for amplitude in amplitudes:
            freq = rng.uniform(0.15, 1.5)       # Hz: a hand, a stand, a table
            phase = rng.uniform(0, 2 * math.pi)
            out += amplitude * np.sin(2 * math.pi * freq * t + phase)
        return out

    def noise():
        n = rng.standard_normal(rows)
        np.clip(n, -NOISE_CLIP, NOISE_CLIP, out=n)
        return n * NOISE_SIGMA

    z = GRAVITY + wobble((0.012, 0.006, 0.003)) + noise()
    x = wobble((0.02, 0.005)) + noise()
    y = wobble((0.02, 0.005)) + noise()

    # Strike times: first after 0.2-0.5 s, then 0.15 s + exponential(mean 0.35 s).
    gap_min = max(int(math.ceil(MIN_INTERVAL_S * rate)), MIN_INTERVAL_SAMPLES)
    expected = int(rows / max(MEAN_INTERVAL_S * rate, 1)) + 16
    strikes = []
    position = max(1, int(round(rng.uniform(0.2, 0.5) * rate)))
    while position < rows:
        strikes.append(position)
        intervals = MIN_INTERVAL_S + rng.exponential(MEAN_INTERVAL_S - MIN_INTERVAL_S, expected)
        steps = np.maximum(np.rint(intervals * rate).astype(np.int64), gap_min)
        following = position + np.cumsum(steps)
        following = following[following < rows]
        strikes.extend(following.tolist())
        position = int(strikes[-1] + gap_min + rows)  # stop: one batch is always enough
    k = np.asarray(sorted(set(strikes)), dtype=np.int64)
    accents = None
    if groove is not None:
        k, accents = groove_strikes(groove, rows, rate, rng)
    count = k.size

    jump = rng.uniform(JUMP_MIN, JUMP_MAX, count)
    if accents is not None:
        # Accented strikes hit hardest; every jump stays within JUMP_MIN…JUMP_MAX.
        jump = JUMP_MIN + (JUMP_MAX - JUMP_MIN) * accents * rng.uniform(0.85, 1.0, count)
    cycles = rng.uniform(*RING_CYCLES_PER_SAMPLE, count)
    decay = rng.uniform(*RING_DECAY_SAMPLES, count)
    cross_x = rng.uniform(-0.3, 0.3, count)
    cross_y = rng.uniform(-0.3, 0.3, count)
    for m in range(RING_LENGTH):
        idx = k + m
        keep = idx < rows
        shape = jump * np.exp(-m / decay) * np.cos(2 * math.pi * cycles * m)
        z[idx[keep]] += shape[keep]
        x[idx[keep]] += (cross_x * shape)[keep]
        y[idx[keep]] += (cross_y * shape)[keep]
    return x, y, z, k


def round_units(values: np.ndarray, decimals: int) -> np.ndarray:
    """|value| * 10^decimals rounded half away from zero, as int64 (as DecimalFormatting does)."""
    scaled = np.abs(values) * float(10 ** decimals)
    units = np.floor(scaled)
    units += (scaled - units) >= 0.5
    return units.astype(np.int64)


def integer_width(max_abs: float, decimals: int) -> int:
    units = int(round_units(np.asarray([max_abs]), decimals)[0])
    return max(1, len(str(units // 10 ** decimals)))


def format_fixed(values: np.ndarray, decimals: int, int_width: int) -> np.ndarray:
    """Fixed-point text of each value as a (n, 1 + int_width + 1 + decimals) uint8 matrix.

    Unused leading positions hold 0 bytes, which the caller removes; the sign sits in the first
    column, so it ends up right before the first digit. A value that rounds to zero gets no sign.
    """
    n = values.size
    units = round_units(values, decimals)
    width = 1 + int_width + 1 + decimals
    out = np.zeros((n, width), dtype=np.uint8)
    out[:, 0] = np.where((values < 0) & (units != 0), ord("-"), 0)
    out[:, 1 + int_width] = ord(".")
    rest = units.copy()
    # Decimals, right to left, always written.
    for col in range(width - 1, 1 + int_width, -1):
        out[:, col] = ord("0") + (rest % 10).astype(np.uint8)
        rest //= 10
    # Integer digits, right to left: the units digit always, the others while any remain.
    for position, col in enumerate(range(int_width, 0, -1)):
        digit = ord("0") + (rest % 10).astype(np.uint8)
        out[:, col] = digit if position == 0 else np.where(rest > 0, digit, 0)
        rest //= 10
    if np.any(rest):
        raise ValueError("int_width too small for the values")
    return out


def column(char: str, n: int) -> np.ndarray:
    return np.full((n, 1), ord(char), dtype=np.uint8)


def format_rate(rate: float) -> str:
    return str(int(rate)) if float(rate).is_integer() else repr(rate)


def write_log(path: str, rate: float, seed: int, device: str, x, y, z, strikes,
              hit_column: bool) -> int:
    rows = z.size
    header = (
        "# drumpad sensor log v1\n"
        f"# device: {device}\n"
        f"# rate_hz: {format_rate(rate)}\n"
        f"# generator: tools/bench/gen_log.py seed={seed}\n"
        + ("t,x,y,z,hit\n" if hit_column else "t,x,y,z\n")
    )
    t_width = integer_width((rows - 1) / rate if rows else 0.0, TIME_DECIMALS)
    v_width = integer_width(float(max(np.max(np.abs(x), initial=0), np.max(np.abs(y), initial=0),
                                      np.max(np.abs(z), initial=0))), VALUE_DECIMALS)
    hit = np.zeros(rows, dtype=np.uint8)
    hit[strikes] = 1
    written = 0
    with open(path, "wb") as f:
        f.write(header.encode("utf-8"))
        written += len(header.encode("utf-8"))
        for start in range(0, rows, CHUNK_ROWS):
            stop = min(rows, start + CHUNK_ROWS)
            n = stop - start
            t = np.arange(start, stop, dtype=np.float64) / rate
            parts = [
                format_fixed(t, TIME_DECIMALS, t_width), column(",", n),
                format_fixed(x[start:stop], VALUE_DECIMALS, v_width), column(",", n),
                format_fixed(y[start:stop], VALUE_DECIMALS, v_width), column(",", n),
                format_fixed(z[start:stop], VALUE_DECIMALS, v_width),
            ]
            if hit_column:
                parts += [column(",", n), (ord("0") + hit[start:stop]).reshape(n, 1)]
            parts.append(column("\n", n))
            flat = np.concatenate(parts, axis=1).ravel()
            data = flat[flat != 0].tobytes()
            f.write(data)
            written += len(data)
    return written


def write_labels(path: str, rate: float, strikes: np.ndarray) -> None:
    times = strikes.astype(np.float64) / rate
    width = integer_width(float(times.max()) if times.size else 0.0, TIME_DECIMALS)
    n = times.size
    with open(path, "wb") as f:
        f.write(b"t\n")
        if n:
            flat = np.concatenate([format_fixed(times, TIME_DECIMALS, width), column("\n", n)],
                                  axis=1).ravel()
            f.write(flat[flat != 0].tobytes())


def check(z: np.ndarray, strikes: np.ndarray) -> list[str]:
    """Checks the guarantees on z as written (rounded to VALUE_DECIMALS); returns the problems."""
    problems = []
    scale = 10.0 ** VALUE_DECIMALS
    units = round_units(z, VALUE_DECIMALS)
    written = np.where(z < 0, -units, units) / scale  # what a reader parses back
    hits = detect(written)
    fired = np.asarray([index for index, _ in hits], dtype=np.int64)
    if not np.array_equal(fired, strikes):
        missed = np.setdiff1d(strikes, fired)
        extra = np.setdiff1d(fired, strikes)
        problems.append(f"default detector: {fired.size} hits for {strikes.size} strikes; "
                        f"missed at {missed[:10].tolist()}, extra at {extra[:10].tolist()}")
    jumps = np.abs(np.diff(written, prepend=written[:1]))
    unsettled = np.zeros(z.size, dtype=bool)
    for m in range(SETTLED_AFTER):
        idx = strikes + m
        unsettled[idx[idx < z.size]] = True
    settled = jumps[~unsettled]
    worst = float(settled.max()) if settled.size else 0.0
    if worst > SETTLED_MAX_JUMP:
        where = int(np.flatnonzero(~unsettled)[np.argmax(settled)])
        problems.append(f"a jump of {worst:.4f} g at sample {where} outside the first "
                        f"{SETTLED_AFTER} samples of a strike (limit {SETTLED_MAX_JUMP} g)")
    return problems, len(hits), worst


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog="""examples:
  tools/bench/gen_log.py --out Samples/logs/snare-250hz.csv --seconds 20 --seed 7 --hit-column \\
      --device "synthetic snare pad (tools/bench/gen_log.py)"
  tools/bench/gen_log.py --out bench-data/log-2.4M.csv --rows 2400000 --hit-column --check
  tools/bench/gen_log.py --out /tmp/1k.csv --seconds 60 --rate 1000 --labels /tmp/1k-labels.csv""")
    parser.add_argument("--out", required=True, metavar="FILE", help="the log CSV to write")
    size = parser.add_mutually_exclusive_group()
    size.add_argument("--rows", type=int, metavar="N", help="number of data rows")
    size.add_argument("--seconds", type=float, metavar="S",
                      help="length in seconds (rows = round(S * rate)); default 20")
    parser.add_argument("--rate", type=float, default=250.0, metavar="HZ",
                        help="sample rate in Hz; t = row / rate (default 250)")
    parser.add_argument("--seed", type=int, default=1, help="random seed (default 1)")
    parser.add_argument("--hit-column", action="store_true",
                        help="add a hit column: 1 on each strike's shock sample, else 0")
    parser.add_argument("--labels", metavar="FILE",
                        help="also write the strike times as a CSV with a t column")
    parser.add_argument("--device", default="synthetic pad (tools/bench/gen_log.py)",
                        help="the '# device:' metadata (default: %(default)s)")
    parser.add_argument("--check", action="store_true",
                        help="verify with reference_detector.py that the default detector fires "
                             "exactly once per strike, on its shock; exit 1 if not")
    parser.add_argument("--quiet", action="store_true", help="no summary on standard error")
    parser.add_argument("--groove", choices=sorted(GROOVES),
                        help=f"place strikes on a {GROOVE_BPM:g} BPM 4/4 groove for this drum "
                             "(from 1 s on) instead of at random, with accents")
    args = parser.parse_args(argv)

    if not (args.rate > 0 and math.isfinite(args.rate)):
        parser.error("--rate must be a positive number of Hz, such as 250")
    if args.rows is not None:
        rows = args.rows
    else:
        rows = int(round((args.seconds if args.seconds is not None else 20.0) * args.rate))
    if rows < 0:
        parser.error("--rows/--seconds must not be negative")
    if "\n" in args.device:
        parser.error("--device must be one line")

    started = time.perf_counter()
    x, y, z, strikes = synthesize(rows, args.rate, args.seed, args.groove)
    out_dir = os.path.dirname(os.path.abspath(args.out))
    os.makedirs(out_dir, exist_ok=True)
    size = write_log(args.out, args.rate, args.seed, args.device, x, y, z, strikes,
                     args.hit_column)
    if args.labels:
        write_labels(args.labels, args.rate, strikes)
    elapsed = time.perf_counter() - started
    if not args.quiet:
        print(f"gen_log: wrote {args.out}: {rows} rows at {format_rate(args.rate)} Hz "
              f"({rows / args.rate:.1f} s), {strikes.size} strikes, {size / 1e6:.1f} MB "
              f"in {elapsed:.2f} s", file=sys.stderr)
    if args.check:
        problems, hit_count, worst = check(z, strikes)
        if problems:
            for problem in problems:
                print(f"gen_log --check: FAILED: {problem}", file=sys.stderr)
            return 1
        if not args.quiet:
            print(f"gen_log --check: ok: the default detector fires {hit_count} times, once per "
                  f"strike on its shock; largest settled jump {worst:.4f} g "
                  f"(limit {SETTLED_MAX_JUMP} g)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
