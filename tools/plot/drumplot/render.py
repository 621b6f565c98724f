"""Drawing: turns the prepared data (prep.LogView, prep.SweepGrid) into PNG, SVG or PDF files.

Uses matplotlib's object API with the Agg canvas (no pyplot, no display needed)."""

from __future__ import annotations

import math
import os
import re
import textwrap

import matplotlib

matplotlib.use("Agg")

import numpy as np  # noqa: E402
from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: E402
from matplotlib.collections import PolyCollection  # noqa: E402
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.legend_handler import HandlerTuple  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch, Rectangle  # noqa: E402

from .errors import InputError  # noqa: E402
from .prep import LogView, SweepGrid, marker_sizes  # noqa: E402
from .readers import Sweep  # noqa: E402

DPI = 100
FORMATS = ("png", "svg", "pdf")

# Colours: signal in blues/greys; outcomes in clearly different hues, and in different shapes
# too (circle, diamond, cross) so that red and green need not be told apart by colour alone.
Z_COLOUR = "#2b5d8a"
D_COLOUR = "#4f5b66"
D_BAND_COLOUR = "#c5ccd3"
THRESHOLD_COLOUR = "#111111"
WINDOW_COLOUR = "#f2c14e"
GAP_COLOUR = "#888888"
KIND_STYLE = {
    "hit": dict(color="#f28e2b", marker="o", label="hit"),
    "matched": dict(color="#2ca02c", marker="o", label="hit on a labelled strike"),
    "false": dict(color="#d62728", marker="D", label="false hit (no strike)"),
}
MISS_COLOUR = "#8e44ad"
BEST_COLOUR = "#e4003a"
LABEL_COLOUR = "#222222"


def output_format(path: str) -> str:
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise InputError("--out", None, f'"{path}" does not end in .png, .svg or .pdf',
                         "name the output FILE.png, FILE.svg or FILE.pdf")
    return ext


def _figure(width: int, height: int) -> Figure:
    fig = Figure(figsize=(width / DPI, height / DPI), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def save(fig: Figure, path: str, width: int, height: int) -> None:
    """Writes the figure at exactly width × height pixels: a PNG of that size, an SVG whose
    width and height are given in px (viewBox unchanged), a PDF page that is that size at
    100 dpi (width × 0.72 pt)."""
    fmt = output_format(path)
    metadata = {"Software": "drumplot"} if fmt == "png" else (
        {"Date": None} if fmt == "svg" else {"CreationDate": None})
    try:
        fig.savefig(path, format=fmt, dpi=DPI, metadata=metadata)
    except OSError as e:
        raise InputError(path, None, f"cannot write it ({e.strerror})",
                         "check that its folder exists and is writable") from None
    if fmt == "svg":
        with open(path, "r", encoding="utf-8") as f:
            text = f.read()
        text = re.sub(r'(<svg[^>]*?)width="[^"]*"', rf'\1width="{width}px"', text, count=1)
        text = re.sub(r'(<svg[^>]*?)height="[^"]*"', rf'\1height="{height}px"', text, count=1)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


# ---------------------------------------------------------------------------------------------
# Sensor log


def _spans(ax, start, end, **style):
    """Vertical bands from start[i] to end[i], full axes height, as one collection."""
    if len(start) == 0:
        return None
    verts = [((a, 0), (a, 1), (b, 1), (b, 0)) for a, b in zip(start.tolist(), end.tolist())]
    coll = PolyCollection(verts, transform=ax.get_xaxis_transform(), **style)
    ax.add_collection(coll, autolim=False)
    return coll


def _wrap(text: str, width_px: float, font_pt: float, separator: str = " · ",
          keep: bool = False) -> str:
    """Breaks `text` at `separator`s into lines that fit `width_px` (estimated glyph widths);
    with `keep`, a broken line ends with the separator (such as an arrow)."""
    per_char = font_pt * DPI / 72 * 0.56
    limit = max(20, int(width_px / per_char))
    lines, current = [], ""
    for part in text.split(separator):
        candidate = part if not current else current + separator + part
        if len(candidate) <= limit or not current:
            current = candidate
        else:
            lines.append(current + separator.rstrip() if keep else current)
            current = part
    lines.append(current)
    # A part too long on its own breaks between words.
    return "\n".join(piece for line in lines for piece in (textwrap.wrap(line, limit) or [""]))


def _fit(title: str, width_px: float, font_pt: float, bold: bool = True) -> str:
    """Shortens `NAME: details` to fit: the name's folder goes first, then the end of the text."""
    per_char = font_pt * DPI / 72 * (0.62 if bold else 0.56)
    limit = max(10, int(width_px / per_char))
    if len(title) <= limit:
        return title
    head, sep, rest = title.partition(": ")
    if sep:
        title = os.path.basename(head) + sep + rest
    return title if len(title) <= limit else title[:limit - 1] + "…"


def render_log(view: LogView, out: str, width: int = 1600, height: int = 900) -> None:
    fig = _figure(width, height)
    scale = min(1.0, height / 700, width / 1000)  # marker areas shrink on small images
    fs = 7 if (height < 400 or width < 600) else 8 if (height < 600 or width < 900) else 10
    px = DPI / 72  # pixels per point
    entries = [h if isinstance(h, tuple) else (h, h.get_label()) for h in _log_legend(view, scale)]
    handles = [h for h, _ in entries]
    labels = [label for _, label in entries]
    renderer = fig.canvas.get_renderer()

    def height_of(artist) -> float:
        return artist.get_window_extent(renderer).height if artist is not None else 0.0

    # The header, top down: title, subtitle, legend, measured as drawn. On small images the plots
    # come first: the legend goes, then the subtitle.
    bottom = (fs * px * 3.2 + 8) / height
    left = (fs * px * 6.5) / width
    y = 6.0
    title = fig.text(0.5, 1 - y / height, _fit(view.title, width - 20, fs + 2), ha="center",
                     va="top", fontsize=fs + 2, weight="bold")
    y += height_of(title) + 3
    subtitle = fig.text(0.5, 1 - y / height, _wrap(view.subtitle, width - 40, fs), ha="center",
                        va="top", fontsize=fs, color="#333333", linespacing=1.3)
    after_subtitle = y + height_of(subtitle) + 4
    legend = None
    for ncol in range(len(handles), 0, -1):
        legend = fig.legend(handles, labels, loc="upper center", ncol=ncol,
                            bbox_to_anchor=(0.5, 1 - after_subtitle / height),
                            handler_map={tuple: HandlerTuple(ndivide=None, pad=0.4)},
                            fontsize=fs - 1, frameon=False, handletextpad=0.4, columnspacing=1.4,
                            borderaxespad=0.0, borderpad=0.2, handlelength=2.6)
        if legend.get_window_extent(renderer).width <= width - 20 or ncol == 1:
            break
        legend.remove()
    y = after_subtitle + height_of(legend) + 6
    if 1 - y / height - bottom < 0.5:  # no room: drop the legend
        legend.remove()
        legend = None
        y = after_subtitle + 2
    if 1 - y / height - bottom < 0.45:  # still none: drop the subtitle
        subtitle.remove()
        y = 6 + height_of(title) + 6
    gs = fig.add_gridspec(2, 1, height_ratios=[1, 1.15], hspace=0.06, left=left,
                          right=1 - 12 / width, top=1 - y / height, bottom=bottom)
    ax_z = fig.add_subplot(gs[0])
    ax_d = fig.add_subplot(gs[1], sharex=ax_z)
    for ax in (ax_z, ax_d):
        ax.tick_params(labelsize=fs - 1)
        ax.grid(True, which="major", color="#e6e6e6", linewidth=0.6)
        ax.set_axisbelow(True)

    # Refractory windows and gaps behind everything.
    window_style = dict(facecolor=WINDOW_COLOUR, edgecolor="none", alpha=0.28, zorder=0.5)
    for ax in (ax_z, ax_d):
        if not view.dense:
            _spans(ax, view.window_start, view.window_end, **window_style)
        if len(view.gap_t):
            ax.vlines(view.gap_t, 0, 1, transform=ax.get_xaxis_transform(), colors=GAP_COLOUR,
                      linestyles=":", linewidth=1.0, zorder=0.6)

    # z on top.
    marker = dict(marker=".", markersize=3) if view.show_samples else {}
    ax_z.plot(view.z_t, view.z_v, color=Z_COLOUR, linewidth=0.8, zorder=2, **marker)
    ax_z.set_ylabel("z (g)", fontsize=fs)
    ax_z.tick_params(labelbottom=False)

    # Squared delta on a log axis below, with the threshold.
    ax_d.set_yscale("log")
    if view.d_peak_t is None:
        ax_d.plot(view.d_t, view.d_v, color=D_COLOUR, linewidth=0.7, zorder=2, **marker)
    else:  # decimated: the min..max band light, the peaks (what the detector compares) dark
        ax_d.plot(view.d_t, view.d_v, color=D_BAND_COLOUR, linewidth=0.7, zorder=1.8)
        ax_d.plot(view.d_peak_t, view.d_peak_v, color=D_COLOUR, linewidth=0.8, zorder=2)
    ax_d.axhline(view.threshold, color=THRESHOLD_COLOUR, linestyle="--", linewidth=1.2, zorder=3)
    ax_d.set_ylim(view.d_floor, view.d_top)
    ax_d.set_ylabel("(z[n] − z[n−1])²  (g², log)", fontsize=fs)
    ax_d.set_xlabel("time (s)", fontsize=fs)
    ax_d.text(0.002, view.threshold, f" threshold {view.threshold:g} g²",
              transform=ax_d.get_yaxis_transform(), va="bottom", ha="left", fontsize=fs - 1,
              color=THRESHOLD_COLOUR, zorder=4,
              bbox=dict(facecolor="white", edgecolor="none", alpha=0.7, pad=1))

    # Labelled strikes: ticks along the top of the z panel; misses: X and a line through both.
    if len(view.label_t):
        ax_z.scatter(view.label_t, np.full(len(view.label_t), 0.985), marker="v", s=22,
                     color=LABEL_COLOUR, transform=ax_z.get_xaxis_transform(), zorder=5,
                     clip_on=False, linewidths=0)
    if len(view.miss_t):
        for ax in (ax_z, ax_d):
            ax.vlines(view.miss_t, 0, 1, transform=ax.get_xaxis_transform(), colors=MISS_COLOUR,
                      linestyles="--", linewidth=1.0, alpha=0.8, zorder=2.5)
        ax_z.scatter(view.miss_t, view.miss_z, marker="X", s=70 * scale, color=MISS_COLOUR,
                     edgecolors="white", linewidths=0.6, zorder=6)

    # Hits: circles sized by velocity, coloured by outcome, on both panels.
    for kind, h in view.hits.items():
        if len(h["t"]) == 0:
            continue
        colour, shape = KIND_STYLE[kind]["color"], KIND_STYLE[kind]["marker"]
        # A diamond looks bigger than a circle of the same area: shrink it a little.
        area = 0.7 if shape == "D" else 1.0
        for ax, y in ((ax_z, h["z"]), (ax_d, h["d"])):
            if view.dense:
                ax.scatter(h["t"], y, s=9 * area, marker=shape, color=colour, linewidths=0,
                           alpha=0.6, zorder=6)
            else:
                ax.scatter(h["t"], y, s=h["size"] * scale * area, marker=shape, color=colour,
                           edgecolors="black", linewidths=0.5, alpha=0.9, zorder=6)

    ax_z.set_xlim(view.t_from, view.t_to)
    # Leave head room for the label ticks and the biggest markers.
    lo, hi = ax_z.get_ylim()
    ax_z.set_ylim(lo, hi + (hi - lo) * 0.08)

    if view.samples_in_view == 0:
        ax_z.text(0.5, 0.5, "no samples in this time range", transform=ax_z.transAxes,
                  ha="center", va="center", fontsize=fs + 2, color="#aa0000")
    save(fig, out, width, height)


def _log_legend(view: LogView, scale: float = 1.0) -> list:
    """What every mark means, with counts in view."""
    handles = []
    for kind, h in view.hits.items():
        label = KIND_STYLE[kind]["label"] + (" (computed)" if view.hits_computed and kind == "hit" else "")
        handles.append(Line2D([], [], linestyle="none", marker=KIND_STYLE[kind]["marker"],
                              markersize=7 if KIND_STYLE[kind]["marker"] == "D" else 8,
                              markerfacecolor=KIND_STYLE[kind]["color"], markeredgecolor="black",
                              markeredgewidth=0.5, label=f"{label}: {len(h['t'])}"))
    if view.has_labels:
        handles.append(Line2D([], [], linestyle="none", marker="X", markersize=8, color=MISS_COLOUR,
                              label=f"missed strike: {len(view.miss_t)}"))
        handles.append(Line2D([], [], linestyle="none", marker="v", markersize=6, color=LABEL_COLOUR,
                              label=f"labelled strike: {len(view.label_t)}"))
    if not view.dense:
        handles.append(Patch(facecolor=WINDOW_COLOUR, alpha=0.5, edgecolor="none",
                             label=f"refractory: {view.refractory} samples"))
    handles.append(Line2D([], [], color=THRESHOLD_COLOUR, linestyle="--",
                          label=f"threshold: {view.threshold:g} g²"))
    if len(view.gap_t):
        handles.append(Line2D([], [], color=GAP_COLOUR, linestyle=":",
                              label=f"gap (lost samples): {len(view.gap_t)}"))
    if view.d_peak_t is not None:
        handles.append(Line2D([], [], color=D_COLOUR, label="peak per pixel"))
        handles.append(Patch(facecolor=D_BAND_COLOUR, edgecolor="none", label="min…max per pixel"))
    if not view.dense and any(h["velocity"] is not None for h in view.hits.values()):
        sizes = tuple(Line2D([], [], linestyle="none", marker="o",
                             markersize=float(np.sqrt(marker_sizes(np.array([v]), 1)[0] * scale)),
                             markerfacecolor="#c8c8c8", markeredgecolor="black", markeredgewidth=0.5)
                      for v in (0.1, 0.5, 1.0))
        handles.append((sizes, "  velocity 0.1 · 0.5 · 1"))
    return handles


# ---------------------------------------------------------------------------------------------
# Sweep

METRIC_LABEL = {
    "f1": "F1 (harmonic mean of precision and recall)",
    "precision": "precision (share of hits that were strikes)",
    "recall": "recall (share of strikes found)",
    "hits": "hits fired",
    "false_positives": "false hits",
    "false_negatives": "missed strikes",
}


def _tick_positions(count: int, pixels: float, min_spacing: float) -> np.ndarray:
    step = max(1, int(np.ceil(min_spacing / max(pixels / max(count, 1), 1e-9))))
    return np.arange(0, count, step)


def _subtitle_for_sweep(sweep: Sweep, best: int | None, strikes: int | None) -> str:
    if best is not None:
        thr, ref = sweep.threshold[best], int(sweep.refractory[best])
        if sweep.has_scores:
            fp = int(sweep.false_positives[best])
            detail = (f"F1 {sweep.f1[best]:.3f} (precision {sweep.precision[best]:.3f}, recall "
                      f"{sweep.recall[best]:.3f}: {int(sweep.true_positives[best])} of "
                      f"{int(sweep.true_positives[best] + sweep.false_negatives[best])} strikes, "
                      f"{fp} false hit{'' if fp == 1 else 's'})")
        else:
            detail = f"{int(sweep.hits[best])} hits for {strikes} strikes played"
        return f"best (outlined): --threshold {thr:g} --refractory {ref} → {detail}"
    if sweep.has_scores:
        return "no best cell"
    return ("no labels, so the colours are hit counts → give --strikes N (how many strikes you "
            "played) to mark the closest setting, or replay with --labels")


def render_sweep(grid: SweepGrid, sweep: Sweep, best: int | None, out: str, width: int = 1000,
                 height: int = 700, name: str | None = None, strikes: int | None = None) -> None:
    fig = _figure(width, height)
    fs = 7 if (height < 400 or width < 600) else 8 if (height < 550 or width < 800) else 10
    px = DPI / 72
    title_px = 8 + (fs + 2) * px * 1.3
    subtitle = _wrap(_subtitle_for_sweep(sweep, best, strikes), width - 30, fs, separator=" → ", keep=True)
    subtitle_px = (subtitle.count("\n") + 1) * fs * px * 1.35 + 8
    left = fs * px * 7.5 / width
    bottom = fs * px * 4.2 / height
    bar_px = fs * px * 6.5 + 18  # the colour bar with its ticks and label
    top = 1 - (title_px + subtitle_px) / height
    right = 1 - bar_px / width
    ax = fig.add_axes((left, bottom, right - left - 10 / width, top - bottom))
    cax = fig.add_axes((right, bottom, 14 / width, top - bottom))
    values = np.ma.masked_invalid(grid.values)
    bounded = grid.metric in ("f1", "precision", "recall")
    cmap = matplotlib.colormaps["viridis"].with_extremes(bad="#d9d9d9")
    # Scores use the top of 0…1 that the sweep reaches, so close settings differ in colour.
    low = float(np.nanmin(grid.values)) if np.isfinite(grid.values).any() else 0.0
    vmin, vmax = (max(0.0, math.floor(low * 10) / 10), 1.0) if bounded else (None, None)
    image = ax.imshow(values, origin="lower", aspect="auto", cmap=cmap, vmin=vmin, vmax=vmax,
                      interpolation="nearest")
    bar = fig.colorbar(image, cax=cax)
    bar.set_label(METRIC_LABEL[grid.metric], fontsize=fs)
    bar.ax.tick_params(labelsize=fs - 1)

    nt, nr = grid.values.shape
    ax_w = (right - left) * width - 10
    ax_h = (top - bottom) * height
    xt = _tick_positions(nr, ax_w, 28)
    yt = _tick_positions(nt, ax_h, 16)
    ax.set_xticks(xt)
    ax.set_xticklabels([str(int(grid.refractories[i])) for i in xt], fontsize=fs - 1)
    ax.set_yticks(yt)
    ax.set_yticklabels([f"{grid.thresholds[i]:g}" for i in yt], fontsize=fs - 1)
    ax.set_xlabel("refractory (samples after a hit that cannot fire)", fontsize=fs)
    ax.set_ylabel("threshold (g², squared delta)", fontsize=fs)

    # Values in the cells when they fit.
    cell_w, cell_h = ax_w / max(nr, 1), ax_h / max(nt, 1)
    annotated = cell_w >= 30 and cell_h >= 13
    if annotated:
        norm = image.norm
        for i in range(nt):
            for j in range(nr):
                v = grid.values[i, j]
                if np.isnan(v):
                    continue
                text = f"{v:.2f}" if bounded else f"{int(v)}"
                colour = "black" if norm(v) > 0.6 else "white"
                ax.text(j, i, text, ha="center", va="center", fontsize=max(6, min(fs - 2, cell_h * 0.55)),
                        color=colour)

    shown = name or sweep.path
    title = f"{shown}: {METRIC_LABEL[grid.metric].split(' (')[0]} over {nt} thresholds × {nr} refractories"
    if best is not None:
        i = int(np.searchsorted(grid.thresholds, sweep.threshold[best]))
        j = int(np.searchsorted(grid.refractories, sweep.refractory[best]))
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor="white", linewidth=3.2, zorder=4))
        ax.add_patch(Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, edgecolor=BEST_COLOUR, linewidth=1.6, zorder=5))
        if not annotated:
            ax.scatter([j], [i], marker="*", s=max(40, min(220, cell_w * cell_h)), color=BEST_COLOUR,
                       edgecolors="white", linewidths=0.8, zorder=6)
    fig.text(0.5, 1 - 8 / height, _fit(title, width - 20, fs + 2), ha="center", va="top",
             fontsize=fs + 2, weight="bold")
    fig.text(0.5, 1 - title_px / height, subtitle, ha="center", va="top", fontsize=fs,
             color="#333333", linespacing=1.35)
    save(fig, out, width, height)
