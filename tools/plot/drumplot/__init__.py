"""drumplot: plots of sensor logs, detected hits and threshold sweeps for the drum trigger
network (see ../../README.md and docs/architecture.md, Sensor log CSV).

- readers: the CSVs (sensor log, hits, labels, sweep), with errors naming file:line.
- prep: pure data preparation (squared delta, detector, decimation, matching, sweep grid).
- render: matplotlib drawing (Agg) to PNG, SVG or PDF.
- cli: the `plot` command line.
"""

from .errors import InputError

__all__ = ["InputError"]
__version__ = "1.0"
