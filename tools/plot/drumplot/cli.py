"""The `plot` command line: `plot LOG.csv ... --out FILE` and `plot sweep SWEEP.csv --out FILE`."""

from __future__ import annotations

import argparse
import math
import sys
import time

from .errors import InputError

LOG_USAGE = """plot LOG.csv [--hits HITS.csv] [--labels L.csv] [--threshold T] [--refractory N]
            [--from S] [--to S] [--width PX] [--height PX] --out FILE.png|svg|pdf
       plot sweep SWEEP.csv [--metric NAME] [--strikes N] --out FILE.png|svg|pdf"""

LOG_DESCRIPTION = """\
Plot a sensor log as the hit detector sees it: z over time on top; below it the squared delta
(z[n] - z[n-1])² on a log axis with the threshold line; hits sized by velocity; hits on
labelled strikes (green circles), false hits (red diamonds) and missed strikes (purple crosses)
in distinct colours and shapes; refractory windows shaded; `# gap`s dotted.

Hits come from --hits (the output of `drumpad replay`) or, without it, from the default detector
run here with --threshold and --refractory (exactly as drumpad replay runs it). Labels come from
--labels (a CSV with a t column of true strike times) or the log's own hit column. A log of
millions of rows is reduced per pixel column (min and max), so no peak is hidden.
"""

LOG_EPILOG = """\
examples:
  plot log.csv --out log.png
      the whole log, with the hits the default detector (0.4 g², 10 samples) finds
  drumpad replay log.csv --threshold 0.25 > hits.csv
  plot log.csv --hits hits.csv --threshold 0.25 --labels strikes.csv --out hits.png
      the hits drumpad found, scored against true strike times
  plot log.csv --threshold 0.25 --refractory 15 --from 12.5 --to 14 --out zoom.svg
      try a setting on 1.5 s of the log, as SVG
  plot sweep sweep.csv --out sweep.png
      the threshold x refractory grid of `drumpad replay log.csv --sweep` (see plot sweep --help)

formats: the extension of --out picks PNG, SVG or PDF. A PNG is exactly --width x --height
pixels; an SVG declares that size in px; a PDF page is that size at 100 dpi.
exit status: 0 written, 1 bad input (the message names file:line and the fix), 2 bad usage.
"""

SWEEP_DESCRIPTION = """\
Plot the threshold x refractory grid written by `drumpad replay LOG.csv --sweep` as a heatmap:
F1 when the sweep was scored against labels, hit counts when it was not. The best cell is
outlined: the highest F1, among equals the highest threshold (most margin over noise), then the
shortest refractory (fastest rolls) -- the same choice drumpad replay --sweep prints. Without
labels, --strikes N marks the setting whose hit count is closest to the N strikes you played.
"""

SWEEP_EPILOG = """\
examples:
  drumpad replay log.csv --labels strikes.csv --sweep > sweep.csv
  plot sweep sweep.csv --out sweep.png
  drumpad replay log.csv --sweep --thresholds 0.1:1.0:0.05 --refractories 4:20:2 > sweep.csv
  plot sweep sweep.csv --strikes 40 --out sweep.png     (no labels: you played 40 strikes)
  plot sweep sweep.csv --metric recall --out recall.pdf
"""


def _number(text: str, name: str, example: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f'"{text}" is not a number; use a number such as {example}') from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f'"{text}" is not a finite number; use a number such as {example}')
    return value


def _non_negative(name: str, example: str):
    def parse(text: str) -> float:
        value = _number(text, name, example)
        if value < 0:
            raise argparse.ArgumentTypeError(f"{text} is negative; use a number ≥ 0 such as {example}")
        return value
    return parse


def _whole(name: str, low: int, high: int, example: str):
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f'"{text}" is not a whole number; use one such as {example}') from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is outside {low}…{high}; use one such as {example}")
        return value
    return parse


def _seconds(text: str) -> float:
    return _number(text, "seconds", "12.5")


def _size_options(parser: argparse.ArgumentParser, width: int, height: int) -> None:
    parser.add_argument("--width", type=_whole("--width", 200, 20000, str(width)), default=width,
                        metavar="PX", help=f"image width in pixels (default {width})")
    parser.add_argument("--height", type=_whole("--height", 150, 20000, str(height)), default=height,
                        metavar="PX", help=f"image height in pixels (default {height})")


def log_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="plot", usage=LOG_USAGE, description=LOG_DESCRIPTION, epilog=LOG_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("log", metavar="LOG.csv",
                   help="sensor log CSV (docs/architecture.md, Sensor log CSV: columns t and z; x, y, hit optional)")
    p.add_argument("--hits", metavar="HITS.csv",
                   help="hits from `drumpad replay LOG.csv > HITS.csv` (index,t,strength,velocity); "
                        "default: run the default detector here")
    p.add_argument("--labels", metavar="L.csv",
                   help="true strike times (a t column, seconds); default: the log's hit column, if any")
    p.add_argument("--threshold", type=_non_negative("--threshold", "0.4"), default=0.4, metavar="T",
                   help="threshold in g² for the line and the detector (default 0.4)")
    p.add_argument("--refractory", type=_whole("--refractory", 0, 10**9, "10"), default=10, metavar="N",
                   help="samples after a hit that cannot fire, for the shading and the detector (default 10)")
    p.add_argument("--from", dest="t_from", type=_seconds, metavar="S",
                   help="start of the time range to show, in seconds (default: the log's start)")
    p.add_argument("--to", dest="t_to", type=_seconds, metavar="S",
                   help="end of the time range to show, in seconds (default: the log's end)")
    _size_options(p, 1600, 900)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output image: FILE.png, FILE.svg or FILE.pdf")
    p.add_argument("--tolerance-ms", type=_non_negative("--tolerance-ms", "10"), metavar="MS",
                   help="matching window for scoring, ms either side of a label "
                        "(default: max(10 ms, 2.5 sample periods), as drumpad replay)")
    p.add_argument("--skip-bad-rows", action="store_true",
                   help="skip malformed log rows (counted and reported) instead of stopping, "
                        "as drumpad replay --skip-bad-rows does")
    p.add_argument("--title", help="replace the first title line (default: the log's name and size)")
    return p


def sweep_parser() -> argparse.ArgumentParser:
    from .prep import METRICS

    p = argparse.ArgumentParser(
        prog="plot sweep", usage="plot sweep SWEEP.csv [--metric NAME] [--strikes N] [--width PX] "
                                 "[--height PX] --out FILE.png|svg|pdf",
        description=SWEEP_DESCRIPTION, epilog=SWEEP_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("sweep", metavar="SWEEP.csv",
                   help="output of `drumpad replay LOG.csv --sweep` (threshold,refractory,hits,...,f1)")
    p.add_argument("--metric", choices=METRICS,
                   help="what the colours show (default: f1 when scored, else hits)")
    p.add_argument("--strikes", type=_whole("--strikes", 0, 10**9, "40"), metavar="N",
                   help="strikes you played, to mark the best cell of an unscored sweep")
    _size_options(p, 1000, 700)
    p.add_argument("--out", required=True, metavar="FILE",
                   help="output image: FILE.png, FILE.svg or FILE.pdf")
    return p


def _say(text: str) -> None:
    print(f"plot: {text}", file=sys.stderr)


def run_log(args: argparse.Namespace) -> None:
    from . import prep, readers, render

    render.output_format(args.out)  # fail on a bad --out before reading anything
    if args.t_from is not None and args.t_to is not None and args.t_to <= args.t_from:
        raise InputError("--to", None, f"{args.t_to:g} is not after --from {args.t_from:g}",
                         "give a range such as --from 12.5 --to 14")
    started = time.perf_counter()
    log = readers.read_log(args.log, skip_bad_rows=args.skip_bad_rows)
    if log.skipped:
        _say(f"skipped {log.skipped} bad row{'' if log.skipped == 1 else 's'}; the first: "
             + "; ".join(log.skipped_messages))
    if log.n == 0:
        raise InputError(args.log, None, "has a header but no data rows", "record some samples first")
    hits = readers.read_hits(args.hits, log) if args.hits else None
    if hits is not None and hits.n > 1 and args.refractory > 0:
        close = (hits.index[1:] - hits.index[:-1]) <= args.refractory
        if close.any():
            k = int(close.argmax()) + 1
            _say(f"warning: {args.hits}:{int(hits.lines[k])}: this hit is "
                 f"{int(hits.index[k] - hits.index[k - 1])} samples after the previous one, inside "
                 f"--refractory {args.refractory}; pass the --refractory the hits were replayed with")
    labels = readers.read_labels(args.labels) if args.labels else None
    if args.t_from is not None or args.t_to is not None:
        lo = args.t_from if args.t_from is not None else -math.inf
        hi = args.t_to if args.t_to is not None else math.inf
        if lo > log.t[-1] or hi < log.t[0] or not ((log.t >= lo) & (log.t <= hi)).any():
            raise InputError("--from/--to", None,
                             f"no samples of {args.log} in that range",
                             f"the log spans {log.t[0]:.3f} to {log.t[-1]:.3f} s")
    tolerance = args.tolerance_ms / 1000 if args.tolerance_ms is not None else None
    view = prep.prepare_log_view(log, hits, labels, args.threshold, args.refractory, args.t_from,
                                 args.t_to, columns=args.width, tolerance=tolerance,
                                 name=readers.display_name(args.log))
    if args.title:
        view.title = args.title
    prepared = time.perf_counter()
    render.render_log(view, args.out, args.width, args.height)
    done = time.perf_counter()
    counts = ", ".join(f"{len(h['t'])} {k}" for k, h in view.hits.items())
    misses = f", {len(view.miss_t)} missed" if view.has_labels else ""
    _say(f"wrote {args.out} ({args.width}x{args.height}): {view.samples_in_view} sample{'' if view.samples_in_view == 1 else 's'} in view, "
         f"hits {counts}{misses}; read+prepare {prepared - started:.2f} s, draw {done - prepared:.2f} s")
    if view.match is not None:
        _say(f"score over the whole log: {view.match.text()}")


def run_sweep(args: argparse.Namespace) -> None:
    from . import prep, readers, render

    render.output_format(args.out)
    sweep = readers.read_sweep(args.sweep)
    metric = args.metric
    if metric is not None and metric not in ("hits",) and not sweep.has_scores:
        raise InputError(args.sweep, None, f"has no scores, so it cannot show {metric}",
                         "replay with labels (drumpad replay LOG.csv --labels L.csv --sweep), "
                         "or plot hit counts (--metric hits)")
    grid = prep.sweep_grid(sweep, metric)
    best = prep.best_cell(sweep, args.strikes)
    render.render_sweep(grid, sweep, best, args.out, args.width, args.height,
                        name=readers.display_name(args.sweep), strikes=args.strikes)
    message = f"wrote {args.out} ({args.width}x{args.height}): {grid.metric} over {sweep.threshold.size} settings"
    if best is not None:
        message += (f"; best: --threshold {sweep.threshold[best]:g} "
                    f"--refractory {int(sweep.refractory[best])}")
    _say(message)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        import matplotlib  # noqa: F401
        import numpy  # noqa: F401
    except ImportError as e:
        print(f"plot: error: {e.name} is not installed; run: python3 -m pip install -r "
              "tools/plot/requirements.txt", file=sys.stderr)
        return 1
    is_sweep = bool(argv) and argv[0] == "sweep"
    parser = sweep_parser() if is_sweep else log_parser()
    args = parser.parse_args(argv[1:] if is_sweep else argv)
    try:
        (run_sweep if is_sweep else run_log)(args)
    except InputError as e:
        print(f"plot: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 130
    return 0
