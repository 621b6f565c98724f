"""The `plot` command on the fixtures: valid PNG/SVG/PDF files of the requested size, the marks
in their colours, and clear errors (exit 1, file:line) and usage errors (exit 2)."""

import os
import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import HITS, LABELS, LOG, PLOT_DIR, SWEEP, SWEEP_UNSCORED
from PIL import Image

from drumplot import render
from drumplot.cli import main

PLOT = os.path.join(PLOT_DIR, "plot")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and head[12:16] == b"IHDR"
    return struct.unpack(">II", head[16:24])


def check_png(path, width, height):
    assert png_size(path) == (width, height)
    with Image.open(path) as im:
        im.verify()  # checksums and structure
    with Image.open(path) as im:
        return np.asarray(im.convert("RGB"))


def check_svg(path, width, height):
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    assert root.get("width") == f"{width}px" and root.get("height") == f"{height}px"
    vb = [float(x) for x in root.get("viewBox").split()]
    assert vb[2] / vb[3] == pytest.approx(width / height, rel=1e-3)
    return root


def check_pdf(path, width, height):
    data = open(path, "rb").read()
    assert data.startswith(b"%PDF-") and data.rstrip().endswith(b"%%EOF")
    box = re.search(rb"/MediaBox\s*\[\s*0\s+0\s+([\d.]+)\s+([\d.]+)\s*\]", data)
    assert box, "no MediaBox"
    # The page is width x height pixels at 100 dpi: 0.72 pt per pixel.
    assert float(box.group(1)) == pytest.approx(width * 0.72, abs=0.01)
    assert float(box.group(2)) == pytest.approx(height * 0.72, abs=0.01)


def pixels_near(rgb, colour, tolerance=40):
    target = np.array([int(colour[i:i + 2], 16) for i in (1, 3, 5)])
    return int((np.abs(rgb.astype(int) - target).sum(axis=2) < tolerance).sum())


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.err


# ---------------------------------------------------------------------------------------------
# Log plots


def test_log_with_hits_and_labels_png(tmp_path, capsys):
    out = str(tmp_path / "hits.png")
    code, err = run(capsys, LOG, "--hits", HITS, "--labels", LABELS, "--out", out)
    assert code == 0, err
    rgb = check_png(out, 1600, 900)
    assert pixels_near(rgb, render.KIND_STYLE["matched"]["color"]) > 500
    assert pixels_near(rgb, render.KIND_STYLE["false"]["color"]) > 100
    assert pixels_near(rgb, render.MISS_COLOUR) > 50
    assert pixels_near(rgb, "#fbebc4", 12) > 2000  # refractory shading (yellow at 28 % on white)
    assert "8 matched, 2 false, 1 missed" in err
    assert "8 of 9 strikes found, 2 false hits" in err


@pytest.mark.parametrize("fmt, width, height", [("png", 640, 400), ("svg", 1200, 700), ("pdf", 900, 500)])
def test_log_formats_have_the_requested_size(tmp_path, capsys, fmt, width, height):
    out = str(tmp_path / f"log.{fmt}")
    code, err = run(capsys, LOG, "--threshold", "0.25", "--refractory", "24", "--from", "1.9",
                    "--to", "2.4", "--width", str(width), "--height", str(height), "--out", out)
    assert code == 0, err
    {"png": check_png, "svg": check_svg, "pdf": check_pdf}[fmt](out, width, height)


def test_log_without_labels_uses_computed_hits(tmp_path, capsys, write):
    log = write("nolabels.csv", "t,z\n" + "".join(f"{i / 250:.6f},{1 + (1.0 if i % 50 == 10 else 0)}\n"
                                                  for i in range(500)))
    out = str(tmp_path / "n.png")
    code, err = run(capsys, log, "--out", out, "--width", "800", "--height", "450")
    assert code == 0, err
    rgb = check_png(out, 800, 450)
    assert pixels_near(rgb, render.KIND_STYLE["hit"]["color"]) > 200
    assert "hits 10 hit" in err and "score" not in err


# ---------------------------------------------------------------------------------------------
# Sweep plots


def test_sweep_png_marks_the_best_cell(tmp_path, capsys):
    out = str(tmp_path / "sweep.png")
    code, err = run(capsys, "sweep", SWEEP, "--out", out)
    assert code == 0, err
    rgb = check_png(out, 1000, 700)
    assert pixels_near(rgb, "#e4003a") > 40  # the best cell's outline
    assert "best: --threshold 0.25 --refractory 24" in err


def test_unscored_sweep_svg_and_pdf(tmp_path, capsys):
    svg = str(tmp_path / "sweep.svg")
    code, err = run(capsys, "sweep", SWEEP_UNSCORED, "--strikes", "9", "--out", svg,
                    "--width", "800", "--height", "600")
    assert code == 0, err
    check_svg(svg, 800, 600)
    assert "hits over 60 settings; best: --threshold 1.4 --refractory 5" in err
    pdf = str(tmp_path / "sweep.pdf")
    code, err = run(capsys, "sweep", SWEEP, "--metric", "recall", "--out", pdf)
    assert code == 0, err
    check_pdf(pdf, 1000, 700)


# ---------------------------------------------------------------------------------------------
# Errors


def test_bad_log_is_exit_1_naming_file_and_line(tmp_path, capsys, write):
    bad = write("bad.csv", "# log\nt,z\n0,1\n0.004,1\n0.008,one\n")
    code, err = run(capsys, bad, "--out", str(tmp_path / "x.png"))
    assert code == 1
    assert err.strip() == f'plot: error: {bad}:5: column "z": "one" is not a number'
    assert not os.path.exists(tmp_path / "x.png")


@pytest.mark.parametrize("argv, words", [
    (["--out", "x.jpg"], ['"x.jpg" does not end in .png, .svg or .pdf']),
    (["--from", "3", "--to", "2", "--out", "x.png"], ["--to: 2 is not after --from 3"]),
    (["--from", "100", "--out", "x.png"], ["no samples", "the log spans 0.000 to 5.996 s"]),
    (["--hits", HITS + ".missing", "--out", "x.png"], ["no such file"]),
    (["--labels", LOG, "--out", "x.png"], ["looks like a sensor log"]),
])
def test_input_errors_exit_1(tmp_path, capsys, argv, words):
    argv = [a if a != "x.png" else str(tmp_path / "x.png") for a in argv]
    code, err = run(capsys, LOG, *argv)
    assert code == 1
    for w in words:
        assert w in err


def test_sweep_metric_needs_scores(tmp_path, capsys):
    code, err = run(capsys, "sweep", SWEEP_UNSCORED, "--metric", "f1", "--out", str(tmp_path / "s.png"))
    assert code == 1 and "has no scores" in err and "--labels" in err


@pytest.mark.parametrize("argv, words", [
    ([LOG], ["the following arguments are required: --out"]),
    ([LOG, "--threshold", "-1", "--out", "x.png"], ["is negative"]),
    ([LOG, "--refractory", "2.5", "--out", "x.png"], ["not a whole number"]),
    ([LOG, "--width", "50", "--out", "x.png"], ["outside 200…20000"]),
    (["sweep", SWEEP, "--metric", "speed", "--out", "x.png"], ["invalid choice"]),
])
def test_usage_errors_exit_2(capsys, argv, words):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    for w in words:
        assert w in err


def test_the_executable_runs_and_explains_itself(tmp_path):
    help_text = subprocess.run([PLOT, "--help"], capture_output=True, text=True, check=True).stdout
    for word in ("--hits", "--labels", "--threshold", "--refractory", "--from", "--to", "--width",
                 "--height", "--out", "examples:", "plot sweep"):
        assert word in help_text
    sweep_help = subprocess.run([sys.executable, PLOT, "sweep", "--help"], capture_output=True,
                                text=True, check=True).stdout
    assert "--strikes" in sweep_help and "examples:" in sweep_help
    out = str(tmp_path / "run.png")
    done = subprocess.run([PLOT, LOG, "--out", out, "--width", "300", "--height", "200"],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert png_size(out) == (300, 200)
