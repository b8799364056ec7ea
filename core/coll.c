/*
** coll.c: collective-communication kernels (see pod_coll.h, DESIGN 4.2):
** collectives as NCCL runs them.  Facts from NVIDIA/nccl at commit
** 5067397c2676d5aed50042fc39e5c8ee96eb0027 (src/graph/tuning.cc,
** search.cc, topo.cc, src/transport/nvls.cc, src/include/device.h,
** src/init.cc); podsim's own model, no NCCL code.
**
** Model.  Every (op, algorithm) pair reduces to a plan: latency steps on
** the scale-up fabric and on the scale-out fabric, and the bytes moved
** per direction on each GPU's scale-up link and on the network, as
** multiples k of the buffer size S.  The fabrics run concurrently (NCCL
** pipelines chunks through both), so
**
**   t = latency + max(k_up S / B_up, k_out S / B_out) + pipeline fills
**
** with B the achievable rate (eff x line rate) (see Pipeline fill).
**
** Channels and NICs.  A collective runs NCCL's channels, not one flow per
** GPU.  A ring runs its graph's c channels (coll_tune.c), each sending
** through one NIC at the NIC's rate: min(c, NICs) NICs per domain.  A
** tree, NVLS-tree or chain: net_channels channels, each through one GPU's
** NICs and at most net_channel_GBps, so min(min(r, net_channels) x GPU NIC
** rate, net_channels x net_channel_GBps) (hw.c).  A GB200 NVL72 rack drives
** 16 channels, not its 72 NICs.  All-to-all and send/recv are point-to-
** point: every GPU uses its own NICs.
**
** Pipeline fill.  NCCL cuts each channel's share into one chunk per rank
** of the ring or chain, each with a fixed per-step cost, so the scale-up
** half is h_up = rows x up_channels x up_fill_KiB with rows the ring or
** chain length (n for a ring, r for a chain or NVLS inside a domain): a
** 72-rank ring reaches its bandwidth at a 9x larger message than an
** 8-rank one.  A collective's data passes the scale-up and network stages
** in series, so their fills add: t = latency + max(k_up S / B_up, k_out S
** / B_out) + k_up h_up / B_up + k_out h_out / B_out + fills of the tree.
** A tree (tree, NVLS-tree) or a chain (broadcast) fills through every
** domain it spans: each holds its network channels' NCCL buffers
** (net_channels x NCCL_BUFFSIZE 4 MiB, or S when the message is smaller:
** it cannot hold more) before the pipeline streams, d x that at the
** domain's rate; measured on C7, where the fixed cost grows from about
** 0.35 ms at 2 racks to 4 ms at 20 (linear in d, not in the tree depth).
** A ring starts every link at once and pays no such fill.
** Point-to-point (all-to-all, send/recv) moves each peer's S/n in NCCL's
** p2p chunks (P2P_NVL_CHUNKSIZE 512 KiB, P2P_NET_CHUNKSIZE 128 KiB) with
** the peers in flight that NCCL's schedule gives (NVIDIA/nccl 2.28.7
** ae7aed19): a channel batches the 8 ops of one 8-round epoch
** (src/enqueue.cc:130-139), every epoch runs on its own channels, one CTA
** each, all in one kernel, so p2pnChannels / c epochs run at once, c the
** channels of one peer's message: NCCL's own count of peers in flight,
** F = 8 p2pnChannels / c (enqueue.cc:965).  Past F the epochs share
** channels and run in turn.  p2pnChannels is pow2Up of twice the ring
** graph's channels (paths.cc:860-886, connect.cc:452: 16 on H800 and on
** H100 across nodes, 32 on one H100 or NVL72 node); c = min(nChannelsMin,
** b / min_part), doubled while a part exceeds max_part, up to the
** per-peer channels (enqueue.cc:894-901, 1053-1056; paths.cc:817-852:
** across nodes 2 per network peer, 1 once 2n > 4 p2pnChannels, at least
** the GPU's NICs); coll_tune.c, pod_coll__p2p_channels.  Each group of F
** concurrent peers on a fabric pays one latency step and fills its
** pipeline once by one chunk, so a small per-peer message costs latency,
** not bandwidth: 64x H800 all-to-all of 8 MiB, 128 KiB per peer, 63
** peers in one group (NVIDIA/nccl issue 1531 measured 338 us; podsim
** 309, 376 while it ran rounds of 8 one after another).  One proxy
** thread posts every network peer's message (msg_overhead_us each): the
** network latency is at least (n - r) posts.  NVLink and network flows
** run side by side (max, not sum).
**
** Protocols.  Each plan is timed with NCCL's two extreme protocols and
** the faster wins, as NCCL's tuner does:
**   Simple: NCCL baseLat 8.4 us + steps x per-step latency (system
**           fields), bandwidth with the fill term;
**   LL:     NCCL baseLat 6.6 us + steps x 0.18 x per-step latency (NCCL
**           hwLat LL/Simple: NVLink 0.6/3.4, network 2.7/14; the tree's
**           network steps 5.0/14), bandwidth 0.38 of the achievable rate
**           (NCCL's LL cap, llMaxBws) with no fill term.
** NVLS, NVLS-tree and CollNet run Simple only (tuning.cc), NVLS with its
** own fixed latency.
**
** Algorithms and NCCL's rules (tuning.cc):
**   ring, tree      everywhere; the tree is a chain inside each domain and
**                   a double binary tree across domains: S per domain at
**                   2 domains, 1.5 S at 3, 2 S from 4 (tree_net_k).  The
**                   ring's network stage runs its graph's channels at
**                   their NICs' rate (coll_tune.c).  Across domains auto
**                   picks ring, tree or NVLS-tree as NCCL 2.28.9's tuner
**                   rates them (coll_tune.c, pod_coll__net_tune) and
**                   the time is podsim's own for the one chosen.
**   nvls            inside one NVLink domain only (NCCL disables NVLS for
**                   nNodes > 1 unless CollNet is enabled).
**   nvls_tree       2+ domains, sys->nvls: NVLS inside, tree across; its
**                   network traffic counts double at 2 domains only (its
**                   rates: see NVLS-tree below).
**   collnet         2+ domains, sys->sharp: the switches reduce, a domain
**                   sends S once whatever the domain count (NCCL's
**                   CollNetDirect inside, or NVLS with sys->nvls).
**   collnet_chain   the same across domains, a chain inside (CollNetChain).
**   hierarchical    podsim's own; only when named (never in auto).
** auto tries NCCL's set for the op (all-reduce: ring, tree, nvls,
** nvls_tree, collnet, collnet_chain; the other ops one algorithm each) and
*keeps the
** one NCCL's tuner rates fastest.
**
** NVLS-tree.  NCCL's NVLSTree reduces onto the domain's NVLS heads (one
** GPU each, min(r, 32), NCCL_MAX_NVLS_ARITY; in a multi-node NVLink
** clique each head has its own NIC: the NVLS graph search in search.cc
** pairs every head with a NIC of its GPU), runs the double binary tree
** across domains between heads of one index, and broadcasts back.  Two
** limits, the slower wins:
**   channels  the domain's channels stream S at net_channels x
**             net_channel_GBps with NCCL's NVLS-tree chunk of 128 KiB
**             (NCCL_NVLS_CHUNKSIZE, src/transport/nvls.cc), at half that
**             from four domains on, where NCCL caps the chunk at 64 KiB
**             (src/enqueue.cc, NCCL_NVLSTREE_MAX_CHUNKSIZE unset; a fixed
**             cost per chunk step: the rate goes with the chunk);
**   network   the tree's k S per domain (tree_net_k) crosses the heads'
**             NICs, min(r, 32) x one GPU's NIC rate.
** An 8-GPU node's 8 heads' NICs bind; a GB200 NVL72 rack's 32 heads (1.5
** TB/s) leave the channels binding: 384 GB/s to 3 racks, 192 from 4 (C7,
** C11).
** Small buffers: NCCL also shrinks the chunk to keep four steps in flight;
** podsim models that regime by its pipeline fills instead.
**
** Fabric tiers.  oversub applies only to traffic leaving a leaf group of
** leaf_gpus GPUs (a ring's 1/m over m domains per leaf, a tree's levels
** above the leaf, all-to-all peers beyond it): time x max(1, share x oversub).
**
** All-to-all.  Grouped send/recv, NCCL's peers in flight, NVLink and NICs side
** by side, static-ECMP path collisions 1 - (1 - 1/k)^k over k = d - 1 rail
** peers (Hedera, NSDI 2010); adaptive routing, spraying and SRD none (see
** the all-to-all plan in make_plan and docs/design.md 4).
**
** Everything is pure arithmetic on the arguments: no allocation, no
** globals written, reentrant and thread-safe, O(1) per call.
*/
#include "coll_plan.h"
#include "pod_coll.h"

#include <math.h>
#include <string.h>

double pod_coll_busbw_factor(pod_coll_op op, int n) {
  if (n < 1 || (int)op < 0 || op >= POD_COLL_NOPS) return 0.0;
  if (op == POD_COLL_BROADCAST || op == POD_COLL_SEND_RECV) return 1.0;
  return BUSBW_FACTOR_NUM[op] * (double)(n - 1) / (double)n;
}

/* auto: NCCL's set for `op`, chosen by NCCL's estimate (across domains,
** tu: 2.28.9's ratings of ring, tree and NVLS-tree; NVLS: nvls_tuner_div)
** and timed at the real rate; *best stays AUTO when none runs. */
static double auto_time(const pod_system *sys, pod_coll_op op, const place *pl,
                        const rates *q, double S, const pod_coll__tune *tu,
                        pod_coll_algo *best) {
  double t_sel = INFINITY;
  plan p, chosen = {0};
  *best = POD_ALGO_AUTO;
  for (int i = 0; i < AUTO[op].n; i++) {
    pod_coll_algo a = AUTO[op].algos[i];
    if (make_plan(sys, op, a, pl, &p) != POD_OK) continue;
    if (a == POD_ALGO_NVLS)
      p.tune_up_div = pod_coll__nvls_tuner_div(sys, pl->n);
    double rate = !tu                       ? 0.0
                  : a == POD_ALGO_RING      ? tu->ring_GBps
                  : a == POD_ALGO_TREE      ? tu->tree_GBps
                  : a == POD_ALGO_NVLS_TREE ? tu->nvlstree_GBps
                                            : 0.0;
    double sel, up_div = p.up_div;
    if (rate > 0.0) {
      sel = rated_time(q, &p, S, rate * 1e9);
    } else {
      if (p.tune_up_div > 0.0) p.up_div = p.tune_up_div;
      sel = plan_time(q, &p, S);
      p.up_div = up_div;
    }
    if (sel < t_sel) t_sel = sel, chosen = p, *best = a;
  }
  if (*best == POD_ALGO_AUTO) return INFINITY;
  return chosen.tune_up_div > 0.0 || tu ? plan_time(q, &chosen, S) : t_sel;
}

/* The ring graph of nodes of r GPUs: kept in gs when given, else in tmp. */
static const pod_coll_graph *graph_of(const pod_system *sys, int r,
                                      pod_coll_graphs *gs,
                                      pod_coll_graph *tmp) {
  if (gs != NULL) {
    for (int i = 0; i < gs->n; i++)
      if (gs->g[i].r == r) return &gs->g[i];
    if (gs->n < POD_COLL_GRAPHS) tmp = &gs->g[gs->n++];
  }
  pod_coll__net_graph(sys, r, tmp);
  return tmp;
}

/* coll_int.h; graph_of keeps the ring graph in gs */
int pod_coll__time(const pod_system *sys, pod_coll_op op, pod_coll_algo algo,
                   int n, int r, double S, pod_coll_graphs *gs, double *t_out,
                   pod_coll_algo *best_out, double *factor, pod_err *err) {
  place pl;
  rates q;
  setup(sys, n, r, &pl, &q);
  /* across domains: the ring's rate, and for auto all-reduce the ratings
  ** by which NCCL 2.28.9 picks ring, tree or NVLS-tree (coll_tune.c) */
  pod_coll__tune tu = {0};
  int net_ar = op == POD_COLL_ALL_REDUCE && pl.d > 1 && algo == POD_ALGO_AUTO;
  if (net_ar || (pl.d > 1 && op <= POD_COLL_REDUCE_SCATTER)) {
    pod_coll_graph tmp;
    const pod_coll_graph *g = graph_of(sys, r, gs, &tmp);
    if (net_ar)
      pod_coll__graph_tune(sys, n, g, &tu);
    else
      tu.ring_net_GBps = pod_coll__graph_net_GBps(sys, g);
  }
  pl.ring_net = tu.ring_net_GBps * 1e9;
  if (op == POD_COLL_ALL_TO_ALL && n > 1 + (int)P2P_OPS_PER_BATCH) {
    pod_coll_graph tmp; /* NCCL's p2p channels read the ring graph */
    place_p2p(sys, op, pl.d > 1 ? graph_of(sys, r, gs, &tmp) : NULL, &pl, &q);
  }
  pod_coll_algo best = algo;
  double t;
  if (algo == POD_ALGO_AUTO) {
    t = auto_time(sys, op, &pl, &q, S, net_ar ? &tu : NULL, &best);
    if (best == POD_ALGO_AUTO) /* every op has at least one algorithm */
      return pod_err_set(err, POD_ENOTSUP, "algo", "no algorithm for %s",
                         pod_coll_op_name(op));
  } else {
    plan p;
    if (make_plan(sys, op, algo, &pl, &p) != POD_OK)
      return pod_err_set(err, POD_ENOTSUP, "algo",
                         "%s cannot run %s on %s with %d ranks, %d per domain",
                         pod_coll_algo_name(algo), pod_coll_op_name(op),
                         sys->name, n, r);
    t = plan_time(&q, &p, S);
  }
  if (n == 1) t = 0.0; /* nothing moves between ranks */
  if (!isfinite(t))
    return pod_err_set(err, POD_ERANGE, "bytes", "time is not finite");
  *t_out = t;
  *best_out = best;
  /* nccl-tests bus factor (pod_coll_busbw_factor), without a division */
  *factor = (op == POD_COLL_BROADCAST || op == POD_COLL_SEND_RECV)
                ? 1.0
                : BUSBW_FACTOR_NUM[op] * (pl.nn - 1.0) * pl.in;
  return POD_OK;
}
