#!/usr/bin/env python3
"""Check that podsim and its NumPy peer agree within Monte Carlo error.

Usage: compare.py STUDY_DIR PEER_JSON
STUDY_DIR holds podsim's summary.csv and sensitivity.csv; PEER_JSON is
a2a_numpy.py's output.  Grid points are matched in order.  Means must
agree within 5 combined standard errors, p5/p50/p95 within 2% (plus 5
standard errors of the mean, for quantiles near zero), Spearman
coefficients within 0.02.  Prints one line; exit 1 on disagreement.
"""
import csv
import json
import math
import sys

study, peer = sys.argv[1], json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(f"{study}/summary.csv")))
sens = list(csv.DictReader(open(f"{study}/sensitivity.csv")))
metrics = []
for r in rows:
    if r["metric"] not in metrics:
        metrics.append(r["metric"])
bad, zmax, smax = [], 0.0, 0.0
for m in [m for m in metrics if m in peer["grid"][0]]:
    mine = [r for r in rows if r["metric"] == m]
    for g, r in enumerate(mine):
        p = peer["grid"][g][m]
        se = math.sqrt(float(r["se"]) ** 2 + (p["sd"] / math.sqrt(p["n"])) ** 2)
        z = abs(float(r["mean"]) - p["mean"]) / se
        zmax = max(zmax, z)
        if z > 5:
            bad.append(f"{m}[{g + 1}] mean {r['mean']} vs {p['mean']:.6g} ({z:.1f} se)")
        for q in ("p5", "p50", "p95"):
            if abs(float(r[q]) - p[q]) > 0.02 * abs(p[q]) + 5 * se:
                bad.append(f"{m}[{g + 1}] {q} {r[q]} vs {p[q]:.6g}")
        keys = [k for k in r if k not in ("study", "metric", "n", "mean", "sd", "se", "ci95_lo",
                                          "ci95_hi", "p1", "p5", "p25", "p50", "p75", "p95",
                                          "p99", "min", "max", "exact_quantiles")]
        for s in sens:
            if s["metric"] != m or any(s.get(k) != r[k] for k in keys):
                continue
            d = abs(float(s["spearman"]) - p["spearman"][s["param"]])
            smax = max(smax, d)
            if d > 0.02:
                bad.append(f"{m}[{g + 1}] spearman({s['param']}) {s['spearman']} vs "
                           f"{p['spearman'][s['param']]:.4f}")
if bad:
    print("DISAGREE: " + "; ".join(bad[:6]))
    sys.exit(1)
print(f"agree within Monte Carlo error (means within {zmax:.1f} se, Spearman within {smax:.3f})")
