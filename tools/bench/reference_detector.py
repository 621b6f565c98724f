"""Reference implementation of the default hit detector (docs/architecture.md, Detection), in numpy.

    d[n] = (z[n] - z[n-1])**2   for n >= 1; sample 0 only primes the previous value.
    A hit fires at n when d[n] > threshold (strictly) and n is not within the refractory period
    of the last hit: after a hit at n, samples n+1 ... n+R cannot fire, n+R+1 can.
    The previous value updates on every sample, refractory or not.
    After a gap (`# gap` in a log) the next sample primes again instead of producing a delta.

Two implementations that must agree:
- `detect`: vectorised candidate search (`d > threshold`), then a loop over the candidates only
  for the refractory rule. Fast enough for logs of millions of samples.
- `detect_naive`: a literal per-sample transcription of the rule above, for tests.

Both return a list of (index, strength) with index the 0-based sample index and strength the
squared delta that fired, as a Python float.
"""

from __future__ import annotations

from typing import Iterable, List, Sequence, Tuple

import numpy as np

DEFAULT_THRESHOLD = 0.4
DEFAULT_REFRACTORY = 10

Hit = Tuple[int, float]


def squared_deltas(z: np.ndarray, prime_at: Iterable[int] = ()) -> np.ndarray:
    """d[n] = (z[n] - z[n-1])**2 as float64; d[0] and d[p] for p in prime_at are NaN (no delta)."""
    z = np.asarray(z, dtype=np.float64)
    d = np.empty_like(z)
    if z.size == 0:
        return d
    d[0] = np.nan
    np.subtract(z[1:], z[:-1], out=d[1:])
    np.multiply(d[1:], d[1:], out=d[1:])
    for p in prime_at:
        if 0 <= p < d.size:
            d[p] = np.nan
    return d


def detect(z: Sequence[float] | np.ndarray, threshold: float = DEFAULT_THRESHOLD,
           refractory: int = DEFAULT_REFRACTORY, *, prime_at: Iterable[int] = ()) -> List[Hit]:
    """Default detector over the z samples; `prime_at` lists sample indices that follow a gap."""
    if threshold < 0 or refractory < 0:
        raise ValueError("threshold and refractory must be >= 0")
    d = squared_deltas(np.asarray(z, dtype=np.float64), prime_at)
    # NaN > threshold is False, so priming samples never become candidates.
    candidates = np.flatnonzero(d > threshold)
    hits: List[Hit] = []
    next_allowed = 0  # first index that may fire; after a hit at n it is n + R + 1
    for n in candidates.tolist():
        if n >= next_allowed:
            hits.append((n, float(d[n])))
            next_allowed = n + refractory + 1
    return hits


def detect_naive(z: Sequence[float], threshold: float = DEFAULT_THRESHOLD,
                 refractory: int = DEFAULT_REFRACTORY, *,
                 prime_at: Iterable[int] = ()) -> List[Hit]:
    """The same rule, one sample at a time, the way the state machine in the pad runs it."""
    gaps = set(prime_at)
    hits: List[Hit] = []
    previous = 0.0
    primed = False
    blocked = 0
    for n, value in enumerate(z):
        value = float(value)
        if n in gaps:
            primed = False
        delta = value - previous
        previous = value
        was_primed, primed = primed, True
        if blocked > 0:
            blocked -= 1
            continue
        strength = delta * delta
        if was_primed and strength > threshold:
            hits.append((n, strength))
            blocked = refractory
    return hits
