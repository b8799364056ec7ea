#!/usr/bin/env python3
"""NumPy peer of two podsim studies (run by tests/bench/bench_peers.sh).

The same computation as podsim, written the way a strong NumPy user would
write it: one process, every sample of a grid point at once (vectorised),
the same sample counts and the same statistics (mean, sd, p5/p50/p95,
Spearman of every metric against every parameter).

  uncertainty  scenarios/alltoall_uncertainty.lua: the NVL72 / H100
               all-to-all ratio over efficiencies, latencies, routing
               and sizes, for 16, 64 and 256 ranks (200,000 samples each)
  kernel       tests/bench/peers/kernel_a2a.lua: one 64-rank all-to-all on
               GB200 NVL72 with four sampled parameters (built-in
               evaluator podsim.kernel.collective) and its three metrics
               (time, algbw, busbw)

The all-to-all model is podsim's (core/coll.c, docs/design.md section 4):
grouped send/recv with 8 peers in flight (message posting, p2p chunk
fills), Simple and LL protocols, the faster taken, path collisions under
static ECMP across more than two domains, leaf oversubscription.  Its constants are
read from core/coll.c and core/coll_plan.h and the systems from `podsim presets systems`, so
the peer follows the model it is compared with.

Usage: a2a_numpy.py MODE PODSIM SRCDIR SAMPLES
Prints one JSON object: compute seconds (sampling + model + statistics,
interpreter start and imports excluded) and the statistics per grid point.
"""
import json
import math
import re
import subprocess
import sys
import time

import numpy as np

MODE, PODSIM, SRC, SAMPLES = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])


def coll_constants():
    # the model's constants live with its plan code (core/coll_plan.h)
    text = "".join(open(f"{SRC}/core/{f}").read() for f in ("coll.c", "coll_plan.h"))
    out = {}
    for name in ("MIB", "BASE_SIMPLE_US", "BASE_LL_US", "LL_STEP_RATIO",
                 "LL_BW_SHARE", "P2P_PEERS_IN_FLIGHT", "P2P_NVL_CHUNK",
                 "P2P_NET_CHUNK"):
        m = re.search(r"#define %s \(?([0-9.eE+-]+)( \* ([0-9.eE+-]+))?" % name, text)
        v = float(m.group(1))
        if m.group(3):
            v *= float(m.group(3))
        out[name] = v
    return out


def systems():
    """System presets as podsim lists them (`podsim presets systems
    --format json`); booleans as 1.0/0.0 so they enter the arithmetic."""
    text = subprocess.run([PODSIM, "presets", "systems", "--format", "json"],
                          capture_output=True, text=True, check=True).stdout
    out = {}
    for name, fields in json.loads(text)["systems"].items():
        out[name] = {k: (float(v) if isinstance(v, bool) else v)
                     for k, v in fields.items()}
    return out


K = coll_constants()
SYS = systems()


def all_to_all(sys_, n, r, S, up_eff=None, out_eff=None, up_lat=None,
               out_lat=None, routing=None):
    """podsim's all-to-all time (s) on arrays of per-sample values; routing
    is an array of booleans (True: static ECMP, path collisions)."""
    up_eff = sys_["up_eff"] if up_eff is None else up_eff
    out_eff = sys_["out_eff"] if out_eff is None else out_eff
    up_lat = sys_["up_latency_us"] if up_lat is None else up_lat
    out_lat = sys_["out_latency_us"] if out_lat is None else out_lat
    ecmp = (sys_["routing"] == "static_ecmp") if routing is None else routing
    if r == 0:
        r = min(n, int(sys_["domain_gpus"]))
    d = n // r
    U = sys_["up_GBps"] * 1e9 * up_eff
    G = sys_["nics_per_gpu"] * sys_["nic_gbps"] * 1e9 / 8.0 * out_eff
    iu, io = 1.0 / U, 1.0 / G
    peers = K["P2P_PEERS_IN_FLIGHT"]
    up_steps, out_steps = math.ceil((r - 1.0) / peers), math.ceil((n - r) / peers)
    k_up, k_out = (r - 1.0) / n, (n - r) / n
    div = 1.0
    if d > 2:
        k = d - 1
        div = np.where(ecmp, 1.0 / (1.0 - (1.0 - 1.0 / k) ** k), 1.0)
    leaf = int(sys_["leaf_gpus"])
    if n > leaf:  # peers beyond the leaf group
        m = leaf // r if leaf > r else 1
        div = div * max((n - m * r) / (n - r) * sys_["oversub"], 1.0)
    io = io * div
    up_l = up_steps * up_lat * 1e-6
    out_l = out_steps * out_lat * 1e-6
    ll_out = K["LL_STEP_RATIO"] * out_l
    post = out_steps * peers * sys_["msg_overhead_us"] * 1e-6
    out_l, ll_out = np.maximum(out_l, post), np.maximum(ll_out, post)
    tu = (k_up * S + up_steps * K["P2P_NVL_CHUNK"]) * iu if k_up > 0 else 0.0 * S
    to = (k_out * S + out_steps * K["P2P_NET_CHUNK"]) * io if k_out > 0 else 0.0 * S
    simple = K["BASE_SIMPLE_US"] * 1e-6 + up_l + out_l + np.maximum(tu, to)
    ll = (K["BASE_LL_US"] * 1e-6 + K["LL_STEP_RATIO"] * up_l + ll_out
          + np.maximum(k_up * S * iu, k_out * S * io) / K["LL_BW_SHARE"])
    return np.minimum(simple, ll)


Z90 = 1.2815515655446004  # standard normal 90th percentile


def lognormal(rng, median, p90, n):
    return rng.lognormal(math.log(median), math.log(p90 / median) / Z90, n)


def loguniform(rng, lo, hi, n):
    return np.exp(rng.uniform(math.log(lo), math.log(hi), n))


def ranks(x):
    """Ranks with ties averaged (as podsim's Spearman and scipy's rankdata)."""
    order = np.argsort(x, kind="stable")
    xs = x[order]
    n = len(x)
    starts = np.concatenate(([0], np.flatnonzero(xs[1:] != xs[:-1]) + 1))
    counts = np.diff(np.concatenate((starts, [n])))
    r = np.empty(n)
    r[order] = np.repeat(starts + (counts + 1) / 2.0, counts)
    return r


def stats(metrics, params):
    out = {}
    pr = {k: ranks(v) for k, v in params.items()}
    for name, y in metrics.items():
        q = np.percentile(y, [5, 50, 95])
        ry = ranks(y)
        sp = {k: float(np.corrcoef(ry, v)[0, 1]) for k, v in pr.items()}
        out[name] = {"n": len(y), "mean": float(y.mean()), "sd": float(y.std(ddof=1)),
                     "p5": q[0], "p50": q[1], "p95": q[2], "spearman": sp}
    return out


def uncertainty():
    nvl, hgx = SYS["gb200_nvl72"], SYS["hgx_h100"]
    rng = np.random.default_rng(7)
    res = []
    for n in (16, 64, 256):
        N = SAMPLES
        p = {
            "nvlink_eff": rng.triangular(0.70, nvl["up_eff"], 0.90, N),
            "nic_eff": rng.triangular(0.80, hgx["out_eff"], 0.96, N),
            "nvlink_lat_us": lognormal(rng, nvl["up_latency_us"], 2 * nvl["up_latency_us"], N),
            "ib_lat_us": lognormal(rng, hgx["out_latency_us"], 2 * hgx["out_latency_us"], N),
            # choice{"static_ecmp", "adaptive"}: the label index, as podsim samples it
            "routing": rng.integers(0, 2, N).astype(float),
            "bytes": loguniform(rng, 2.0 ** 20, 2.0 ** 32, N),
        }
        ecmp = p["routing"] == 0
        a = all_to_all(nvl, n, min(n, 64), p["bytes"], p["nvlink_eff"], p["nic_eff"],
                       p["nvlink_lat_us"], p["ib_lat_us"], ecmp)
        b = all_to_all(hgx, n, 0, p["bytes"], None, p["nic_eff"], None, p["ib_lat_us"], ecmp)
        res.append(stats({"ratio": b / a, "t_nvl72_us": a * 1e6, "t_h100_us": b * 1e6}, p))
    return res


def kernel():
    nvl = SYS["gb200_nvl72"]
    rng = np.random.default_rng(1)
    N = SAMPLES
    p = {
        "system.up_eff": rng.uniform(0.70, 0.90, N),
        "system.out_eff": rng.triangular(0.80, 0.92, 0.96, N),
        "system.up_latency_us": lognormal(rng, 3.0, 6.0, N),
        "bytes": loguniform(rng, 2.0 ** 20, 2.0 ** 32, N),
    }
    t = all_to_all(nvl, 64, 0, p["bytes"], p["system.up_eff"], p["system.out_eff"],
                   p["system.up_latency_us"])
    # the built-in evaluator's three metrics: time, algbw and busbw
    # (nccl-tests' all-to-all bus factor (n - 1) / n)
    algbw = p["bytes"] / t * 1e-9
    return [stats({"time_s": t, "algbw_GBps": algbw, "busbw_GBps": algbw * (63 / 64)}, p)]


t0 = time.perf_counter()
result = uncertainty() if MODE == "uncertainty" else kernel()
dt = time.perf_counter() - t0
print(json.dumps({"compute_s": dt, "grid": result}))
