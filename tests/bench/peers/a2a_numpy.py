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
grouped send/recv with NCCL's peers in flight (8 x p2p channels /
channels per message, from NCCL's channel rules as core/coll_tune.c
derives them; message posting, p2p chunk fills per group of concurrent
peers), Simple and LL protocols, the faster taken, path collisions under
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
                 "LL_BW_SHARE", "P2P_OPS_PER_BATCH", "P2P_NVL_CHUNK",
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


def gpu_gens():
    """Generation per GPU preset as core/coll_tune.c reads it: 2 with fp4
    (Blackwell), 1 with fp8 (Hopper), else 0."""
    text = subprocess.run([PODSIM, "presets", "gpus", "--format", "json"],
                          capture_output=True, text=True, check=True).stdout
    return {name: 2 if g["fp4_tflops"] > 0 else 1 if g["fp8_tflops"] > 0 else 0
            for name, g in json.loads(text)["gpus"].items()}


K = coll_constants()
SYS = systems()
GEN = gpu_gens()

# NCCL's ring-graph search speeds (src/graph/search.cc, NVIDIA/nccl 2.28.7),
# its NVLink credit per link and the NVLink line rate per link
INTRA = {0: [40, 30, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3],
         1: [60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3],
         2: [90, 80, 70, 60, 50, 40, 30, 24, 20, 19, 18]}
INTER = {0: [48, 30, 28, 24, 20, 18, 15, 12, 10, 9, 7, 6, 5, 4, 3, 2.4, 1.2, 0.24, 0.12],
         1: [48, 45, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24, 0.12],
         2: [96, 48, 45.1, 42, 40, 30, 24, 22, 20, 17.5, 15, 12, 6, 3, 2.4, 1.2, 0.24,
             0.12]}
CREDIT = {0: 20.0 / 25.0, 1: 20.6 / 25.0, 2: 40.1 / 50.0}
LINK = {0: 25.0, 1: 25.0, 2: 50.0}


def floor_div(x, s):
    c = math.floor(x / s)
    if (c + 1) * s <= x:
        c += 1
    if c * s > x:
        c -= 1
    return min(c, 64)


def ring_channels(sys_, gen, d, r):
    """Channels of NCCL's ring graph: across nodes its network ring, in
    one node its NVSwitch ring, each duplicated as ncclTopoDupChannels
    does (the same rules as core/coll_tune.c)."""
    L = sys_["up_GBps"] * CREDIT[gen]
    if d > 1:
        nic, nics = sys_["nic_gbps"] / 8.0, r * sys_["nics_per_gpu"]
        bc = bs = 0.0
        for s in INTER[gen]:
            if s > nic:
                continue
            if bs > 0 and s <= 0.49 * bs:
                break
            c = min(floor_div(L, s), nics * floor_div(nic, s), 32)
            if c >= 1 and c * s > bc * bs:
                bc, bs = c, s
            if bc * bs >= L:
                break
    else:
        best = first = bc = bs = 0.0
        for s in INTRA[gen]:
            if s > L:
                continue
            if first > 0 and s <= 0.49 * first:
                break
            c = min(floor_div(L, s), 32)
            if first == 0:
                first = s
            if c * s > best:
                best, bc, bs = c * s, c, s
    if bs >= 25 and not (gen > 0 and bs < 50 and bc > 4):
        bc = min(2 * bc, 32)
    return bc


def pow2_up(x):
    p = 1.0
    while p < x:
        p *= 2.0
    return p


def p2p_groups(sys_, n, r, b):
    """Groups of concurrent peers on NVLink and on the network for b bytes
    per peer (an array): NCCL's p2p channels (paths.cc, enqueue.cc)."""
    gen, d = GEN[sys_["gpu"]], n // r
    nch = max(min(2.0 * ring_channels(sys_, gen, d, r), 64.0), 1.0)
    P = pow2_up(nch)
    per = 2.0 * max(float(int(sys_["up_GBps"] / LINK[gen])), 1.0)
    if d > 1:
        net = 2.0
        while net * n > 4.0 * nch and net > 1.0:
            net *= 0.5
        per = min(per, max(net, float(sys_["nics_per_gpu"])))
    per = min(pow2_up(per), P)
    cmin = per
    while cmin * n > P and cmin > 1.0:
        cmin *= 0.5
    step = K["P2P_NET_CHUNK"] if d > 1 else K["P2P_NVL_CHUNK"]
    lo, hi = (step / 2.0, step) if d > 1 else (step / 8.0, step * 32.0)
    b = np.asarray(b, dtype=float)
    ch = np.where(b > 0, np.minimum(np.ceil(b / lo), cmin), 1.0)
    for _ in range(8):  # channels double up to per (a power of two <= 64)
        ch = np.where((b / ch > hi) & (ch <= 0.5 * per), ch * 2.0, ch)
    F = K["P2P_OPS_PER_BATCH"] * P / ch
    def groups(peers):
        return np.where(peers > F, np.ceil(peers / F), 1.0) if peers > 0 else 0.0 * F
    return groups(r - 1.0), groups(float(n - r))


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
    up_steps, out_steps = p2p_groups(sys_, n, r, S / n)
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
    post = (n - r) * sys_["msg_overhead_us"] * 1e-6
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
