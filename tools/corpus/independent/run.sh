#!/bin/bash
# An independent stand corpus: physics written from the issue's words alone, by a second author who
# never read tools/corpus/stand or the detectors (docs/independent-stands-notebook.md, "An
# independent stand corpus"). Generate and score seeds 1-6 x {phone,joycon,dualsense,adxl}, kit and bumps-alone, 2 jobs at a time.
# Needs numpy and scipy. ROOT and BIN may be relative to where it is run from.
set -u
ROOT=$(realpath -m "${ROOT:-/tmp/independent-corpus}")
BIN=$(realpath -m "${BIN:-$(dirname "$0")/../../../.build/release}")
cd "$(dirname "$0")"
SEEDS=${SEEDS:-"1 2 3 4 5 6"}
VARIANT=${VARIANT:-default}
CLASSES=${CLASSES:-"phone joycon dualsense adxl"}
mkdir -p "$ROOT"
job() {  # class seed scenario
  local c=$1 s=$2 sc=$3 d
  if [ "$sc" = kit ]; then d=$ROOT/$c/kit-s$s; else d=$ROOT/$c/bumps-s$s; fi
  rm -f "$d"/score.json "$d"/score.txt
  python3 gen.py --seed "$s" --class "$c" --out "$d" --scenario "$sc" --variant "$VARIANT" \
    && python3 score.py "$d" --bin "$BIN" > "$d/score.txt" 2>&1
}
export -f job; export ROOT BIN VARIANT
for c in $CLASSES; do for s in $SEEDS; do echo "$c $s kit"; echo "$c $s bumps-alone"; done; done \
  | xargs -P 2 -L 1 bash -c 'job $0 $1 $2'
for c in $CLASSES; do for s in $SEEDS; do cat "$ROOT/$c/kit-s$s/score.txt"; done; done
python3 - "$ROOT" "$SEEDS" "$CLASSES" <<'PY'
import json, sys, os
root, seeds, classes = sys.argv[1], sys.argv[2].split(), sys.argv[3].split()
def f(x, n=2): return "-" if x is None else f"{x:.{n}f}"
print()
print("class     | worst played pad F1 per seed              | idle hits       | lowest rho               | delay p99 ms             | bumps-alone hits")
for c in classes:
    k = [json.load(open(f"{root}/{c}/kit-s{s}/score.json")) for s in seeds]
    b = [json.load(open(f"{root}/{c}/bumps-s{s}/score.json")) for s in seeds]
    print(f"{c:9s} | " + " ".join(f(x['worst_f1'], 3) for x in k)
          + " | " + " ".join(str(x['idle_hits']) for x in k)
          + " | " + " ".join(f(x['lowest_rho']) for x in k)
          + " | " + " ".join(f(x['delay_p99'], 1) for x in k)
          + " | " + " ".join(str(x['hits']) for x in b))
PY
