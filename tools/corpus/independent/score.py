#!/usr/bin/env python3
"""Score drumbrain (kit) or drumpad (bumps-alone) on a corpus dir made by gen.py.

F1: each played hit matched to at most one true strike within tol = max(10 ms, 2.5 periods),
greedy by |dt|. rho: Spearman of played velocity vs true strength on matched hits.
Delay p50/p99 over all played hits' delay_ms. --hits DIR scores an existing hits dir
(no run), used to test the scorer.
"""
import argparse, csv, json, os, subprocess, sys
import numpy as np
from scipy.stats import spearmanr

PADS = ["snare", "racktom", "floortom", "ride"]


def read_csv(path):
    with open(path) as f:
        return list(csv.DictReader(f))


def rate_of(path):
    with open(path) as f:
        for line in f:
            if line.startswith("# rate_hz:"):
                return float(line.split(":")[1])
    raise SystemExit(f"{path}: no rate_hz")


def match(hits, truth, tol):
    """hits, truth: arrays of times. Returns list of (hit_idx, truth_idx)."""
    pairs = []
    if len(hits) and len(truth):
        j0 = np.searchsorted(truth, hits - tol, "left")
        j1 = np.searchsorted(truth, hits + tol, "right")
        for i in range(len(hits)):
            for j in range(j0[i], j1[i]):
                d = abs(hits[i] - truth[j])
                if d <= tol:
                    pairs.append((d, i, j))
    pairs.sort()
    ui, uj, out = set(), set(), []
    for d, i, j in pairs:
        if i in ui or j in uj:
            continue
        ui.add(i); uj.add(j); out.append((i, j))
    return out


def score_kit(d, hits_dir, meta):
    rate = rate_of(os.path.join(d, "snare.csv"))
    tol = max(0.010, 2.5 / rate)
    notes = read_csv(os.path.join(d, "notes.csv")) if os.path.exists(os.path.join(d, "notes.csv")) else []
    allnotes = [(float(n["t"]), n["pad"], float(n["strength"]), n["kind"]) for n in notes]
    res = dict(dir=d, tol_ms=tol * 1e3, pads={})
    delays = []
    for p in PADS:
        tr = read_csv(os.path.join(d, f"{p}.truth.csv"))
        tt = np.array([float(r["t"]) for r in tr]); ts = np.array([float(r["strength"]) for r in tr])
        hp = os.path.join(hits_dir, f"{p}.hits.csv")
        hr = read_csv(hp) if os.path.exists(hp) else []
        ht = np.array([float(r["t"]) for r in hr]); hv = np.array([float(r["velocity"]) for r in hr])
        hs = np.array([float(r["strength"]) for r in hr]) if hr and "strength" in hr[0] else np.zeros(len(hr))
        dl = [float(r["delay_ms"]) for r in hr if r.get("delay_ms", "") != ""]
        delays += dl
        o = np.argsort(ht, kind="stable"); ht, hv, hs = ht[o], hv[o], hs[o]
        m = match(ht, tt, tol)
        tp = len(m)
        prec = tp / len(ht) if len(ht) else (1.0 if not len(tt) else 0.0)
        rec = tp / len(tt) if len(tt) else 1.0
        f1 = 2 * tp / (len(ht) + len(tt)) if (len(ht) + len(tt)) else 1.0
        rho = None
        if tp >= 3:
            r = spearmanr(hv[[i for i, _ in m]], ts[[j for _, j in m]]).statistic
            rho = None if np.isnan(r) else float(r)
        mi = {i for i, _ in m}; mj = {j for _, j in m}
        misses = [dict(t=float(tt[j]), strength=float(ts[j])) for j in range(len(tt)) if j not in mj]
        fps = [dict(t=float(ht[i]), velocity=float(hv[i]), strength=float(hs[i])) for i in range(len(ht)) if i not in mi]
        # annotate misses/false hits with the nearest other-pad note
        for x in misses + fps:
            near = [n for n in allnotes if abs(n[0] - x["t"]) < 0.05 and not (n[1] == p and abs(n[0] - x["t"]) < 1e-6)]
            x["near"] = [f"{n[1]}@{(n[0]-x['t'])*1e3:+.1f}ms/{n[2]:.1f}g/{n[3]}" for n in near[:3]]
        cym = [float(r["t"]) for r in read_csv(os.path.join(d, "cymbal.csv"))] if os.path.exists(os.path.join(d, "cymbal.csv")) else []
        for x in fps:
            prev = [n for n in allnotes if n[1] == p and n[0] < x["t"] - tol]
            if prev:
                x["prev_own"] = f"{(x['t']-prev[-1][0])*1e3:.0f}ms after {prev[-1][2]:.1f}g"
            pc = [c for c in cym if c <= x["t"] + 0.01]
            if pc and x["t"] - pc[-1] < 0.5:
                x["after_crash_ms"] = round((x["t"] - pc[-1]) * 1e3, 1)
            big = [n for n in allnotes if n[1] != p and 0 <= x["t"] - n[0] < 0.3]
            if big:
                b = max(big, key=lambda n: n[2])
                x["loudest_other_300ms"] = f"{b[1]} {b[2]:.1f}g {(x['t']-b[0])*1e3:.0f}ms before"
        for x in misses:
            k = [n[3] for n in allnotes if n[1] == p and abs(n[0] - x["t"]) < 1e-5]
            x["kind"] = k[0] if k else "?"
        off = [float(ht[i] - tt[j]) * 1e3 for i, j in m]
        res["pads"][p] = dict(truth=len(tt), played=len(ht), tp=tp, precision=prec, recall=rec, f1=f1, rho=rho,
                              offset_ms_median=float(np.median(off)) if off else None,
                              delay_p50=float(np.percentile(dl, 50)) if dl else None,
                              delay_p99=float(np.percentile(dl, 99)) if dl else None,
                              misses=misses, false_hits=fps)
    played = [p for p in PADS if res["pads"][p]["truth"] > 0]
    idle = [p for p in PADS if res["pads"][p]["truth"] == 0]
    res["worst_f1"] = min(res["pads"][p]["f1"] for p in played)
    res["idle_hits"] = sum(res["pads"][p]["played"] for p in idle)
    rhos = [res["pads"][p]["rho"] for p in played if res["pads"][p]["rho"] is not None]
    res["lowest_rho"] = min(rhos) if rhos else None
    res["delay_p50"] = float(np.percentile(delays, 50)) if delays else None
    res["delay_p99"] = float(np.percentile(delays, 99)) if delays else None
    parts = []
    for p in PADS:
        r = res["pads"][p]
        if r["truth"]:
            parts.append(f"{p} F1 {r['f1']:.3f} (P {r['precision']:.3f} R {r['recall']:.3f}) rho {r['rho'] if r['rho'] is None else round(r['rho'], 3)}")
        else:
            parts.append(f"{p}(idle) hits {r['played']}")
    line = (f"{meta.get('cls','?')} seed {meta.get('seed','?')}: " + "; ".join(parts)
            + f"; delay p50 {res['delay_p50']} p99 {res['delay_p99']} ms")
    return res, line


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--bin", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", ".build", "release"),
                    help="folder of drumbrain and drumpad (default: the checkout's .build/release)")
    ap.add_argument("--hits", help="score this existing hits dir instead of running drumbrain")
    a = ap.parse_args()
    d = os.path.abspath(a.dir)
    a.bin = os.path.abspath(a.bin)
    meta = json.load(open(os.path.join(d, "stand.json"))) if os.path.exists(os.path.join(d, "stand.json")) else {}
    if meta.get("scenario") == "bumps-alone" or os.path.exists(os.path.join(d, "pad.csv")):
        p = subprocess.run([os.path.join(a.bin, "drumpad"), "replay", os.path.join(d, "pad.csv")],
                           capture_output=True, text=True, timeout=600, cwd=a.bin)
        if p.returncode:
            sys.exit(f"drumpad failed rc {p.returncode}: {p.stderr[-500:]}")
        rows = [l for l in p.stdout.splitlines() if l[:1].isdigit()]
        hdr = [l for l in p.stdout.splitlines() if l.startswith("index")]
        hits = []
        if hdr:
            cols = hdr[0].split(",")
            for l in rows:
                v = dict(zip(cols, l.split(",")))
                hits.append(dict(t=float(v["t"]), strength=float(v.get("strength", "nan"))))
        bumps = [(float(r["t"]), float(r["peak_g"])) for r in read_csv(os.path.join(d, "bumps.csv"))]
        for h in hits:
            prev = [b for b in bumps if b[0] <= h["t"] + 0.005]
            if prev:
                h["bump_t"], h["bump_g"] = prev[-1]
                h["since_bump_ms"] = (h["t"] - prev[-1][0]) * 1e3
        res = dict(dir=d, scenario="bumps-alone", hits=len(rows), rc=p.returncode, detail=hits,
                   stderr=p.stderr[-2000:])
        print(f"{meta.get('cls','?')} seed {meta.get('seed','?')} bumps-alone: {len(rows)} hits"
              + (f" (rc {p.returncode})" if p.returncode else ""))
    else:
        hits_dir = a.hits
        stderr = ""
        if not hits_dir:
            hits_dir = os.path.join(d, "out")
            os.makedirs(hits_dir, exist_ok=True)
            for f in os.listdir(hits_dir):
                os.remove(os.path.join(hits_dir, f))
            logs = [os.path.abspath(os.path.join(d, f"{p}.csv")) for p in PADS]
            pr = subprocess.run([os.path.join(a.bin, "drumbrain"), "replay", *logs, "--hits-dir",
                                 os.path.abspath(hits_dir)], capture_output=True, text=True, timeout=600, cwd=a.bin)
            stderr = pr.stderr
            with open(os.path.join(d, "drumbrain.stderr"), "w") as f:
                f.write(stderr)
            if pr.returncode:
                sys.exit(f"drumbrain failed rc {pr.returncode}: {stderr[-500:]}")
        res, line = score_kit(d, hits_dir, meta)
        res["scenario"] = "kit"
        print(line)
    with open(os.path.join(d, "score.json"), "w") as f:
        json.dump(res, f, indent=1)


if __name__ == "__main__":
    main()
