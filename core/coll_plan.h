/*
** coll_plan.h: the plans and times of the collective model, shared by
** coll.c (one evaluation) and coll_prep.c (a collective prepared once and
** timed per sample): the same inline code in both, so a prepared time is
** the evaluated one bit for bit.  Internal to core/coll*.c; the model and
** its sources are described in coll.c.
*/
#ifndef POD_COLL_PLAN_H
#define POD_COLL_PLAN_H

#include "coll_int.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define MIB 1048576.0
/* NCCL_BUFFSIZE default, 4 MiB per channel and connection (src/init.cc
** DEFAULT_BUFFSIZE). */
#define NCCL_BUFFSIZE (4.0 * MIB)
/* NCCL's p2p chunk sizes (src/init.cc): P2P_NVL_CHUNKSIZE 512 KiB,
** P2P_NET_CHUNKSIZE 128 KiB. */
#define P2P_NVL_CHUNK (512.0 * 1024.0)
#define P2P_NET_CHUNK (128.0 * 1024.0)

/* NCCL src/graph/tuning.cc, baseLat (ring): LL 6.6 us, Simple 8.4 us. */
#define BASE_SIMPLE_US 8.4
#define BASE_LL_US 6.6
/* NCCL hwLat, LL per-step latency over Simple: ring and point-to-point
** NVLink 0.6/3.4 = 0.176, network 2.7/14 = 0.193; the tree's network
** step 5.0/14 = 0.357. */
#define LL_STEP_RATIO 0.18
#define LL_TREE_NET_RATIO (5.0 / 14.0)
/* NCCL batches a channel's point-to-point ops 8 at a time, the 8 rounds
** of one epoch (NCCL_MAX_DEV_WORK_P2P_PER_BATCH 8, src/include/device.h:364;
** src/enqueue.cc:130-139, NVIDIA/nccl 2.28.7 ae7aed19); every epoch runs
** on its own channels, all at once, up to p2pnChannels / channels per
** peer epochs: NCCL's own count of peers in flight is that x 8
** (enqueue.cc:965).  Beyond it epochs share channels and run in turn. */
#define P2P_OPS_PER_BATCH 8.0
/* LL protocol: each 8-byte store carries 4 bytes of data and a 4-byte
** flag, so at most half the link's achievable rate; NCCL caps it lower
** still (src/graph/tuning.cc, llMaxBws for one node: Hopper 141 GB/s,
** Blackwell 282 GB/s busbw, 0.313 of the 450/900 GB/s line rate, i.e.
** 0.38 of NCCL's achievable NVLink rate 370.8/721.8). */
#define LL_BW_SHARE 0.38
#define INV_LL_BW_SHARE (1.0 / LL_BW_SHARE)

/* The plan builders run up to five times per evaluation: keep them
** inline (a call per algorithm costs a third of the evaluation). */
#if defined(__GNUC__)
#define HOT_INLINE static inline __attribute__((always_inline))
#else
#define HOT_INLINE static inline
#endif

typedef struct plan {
  double up_steps, out_steps; /* latency steps on each fabric */
  double k_up, k_out;         /* bytes per direction, x S: per GPU on the
                              ** scale-up link; on the network per GPU
                              ** (out_dom 0) or per domain (out_dom 1) */
  double tune_up_div;         /* up_div as NCCL's tuner charges it, when it
                              ** differs (NVLS: nvls_tuner_div); else 0 */
  double up_rows, out_rows;   /* chunk rows of the pipeline fill: the
                              ** scale-up half is up_rows x up_channels x
                              ** up_fill_KiB, the network half out_rows x
                              ** out_half_MB */
  double fill_doms;           /* domains a tree or chain fills in series
                              ** before it streams, each holding its
                              ** network channels' NCCL buffers */
  double up_div, out_div;     /* inverse bandwidth multipliers (NVLS,
                              ** collisions, oversubscription); 1 when none */
  double fixed_us;            /* fixed latency besides the steps (NVLS) */
  double ll_out_ratio;        /* LL over Simple latency of a network step */
  int simple_only;            /* 1 for NVLS, NVLS-tree, CollNet */
  int out_dom;                /* k_out is per domain, at the domain's rate */
  /* point to point (out_dom 0): peers on each fabric, the share of S one
  ** peer gets, and NCCL's p2p channels (p2p.nch 0 when at most 8 peers:
  ** they are always in flight at once) */
  double p2p_up, p2p_out, p2p_in;
} plan;

static const double BUSBW_FACTOR_NUM[POD_COLL_NOPS] = {2, 1, 1, 1, 0, 0};

static inline double ceil_log2(int x) {
#if defined(__GNUC__)
  return x <= 1 ? 0.0 : (double)(32 - __builtin_clz((unsigned)(x - 1)));
#else
  double s = 0.0;
  for (long long v = 1; v < x; v <<= 1) s += 1.0; /* x up to INT_MAX */
  return s;
#endif
}

/* Share of a NIC's rate left when its k concurrent flows collide on
** randomly chosen paths (see the file comment). */
static inline double collision_mult(int k) {
  if (k <= 1) return 1.0;
  /* (1 - 1/k)^k by repeated squaring: exact to rounding, and cheaper
  ** than exp(k log1p(-1/k)) on this hot path. */
  double base = 1.0 - 1.0 / (double)k, miss = 1.0;
  for (int e = k; e > 0; e >>= 1) {
    if (e & 1) miss *= base;
    base *= base;
  }
  return 1.0 - miss;
}

/* A communicator's placement: n ranks, r per domain, d domains, with
** the inverses computed once per evaluation, and its leaf groups: m
** domains per leaf (at least 1), `spans` when it leaves one leaf. */
typedef struct place {
  int n, r, d, m, spans;
  double nn, rr, dd, in, ir, id;
  double leaf_use;         /* share of the leaf's NIC rate that the domains of a
                           ** ring or tree collective drive (<= 1) */
  double dom_nic, dom_cap; /* a domain's channels: their GPUs' NIC rate and
                           ** their per-channel cap, bytes/s */
  double gpu_nic;          /* one GPU's NICs, bytes/s */
  double ring_net;         /* a ring's network rate across domains, bytes/s
                           ** (0: not needed) */
  double ecmp_div;         /* an all-to-all's 1 / collision_mult(d - 1) made
                           ** once (a prepared one), or 0: make_plan makes it */
} place;

/* Oversubscription multiplier of the time on the network when a share
** `frac` of the traffic leaves the leaf: the leaf's uplinks carry
** leaf_gpus x NIC rate / oversub, so the time grows only once frac x
** oversub exceeds 1. */
static inline double leaf_mult(const pod_system *s, double frac) {
  double x = frac * s->oversub;
  return x > 1.0 ? x : 1.0;
}
/* leaf_mult for a share frac <= 1 (every share below is one: at most the
** leaf's use over its domains, or a count of peers over a larger one):
** 1 without computing frac when oversub <= 1, where frac x oversub
** cannot exceed 1; leaf_mult's value either way. */
#define LEAF_MULT(s, frac) ((s)->oversub > 1.0 ? leaf_mult(s, frac) : 1.0)

/* Share of a ring's (or chain's) network traffic that leaves the leaf:
** consecutive domains share a leaf, so one of every m domain hops crosses
** to the next leaf. */
static inline double ring_leaf_frac(const place *pl) {
  return pl->spans ? pl->leaf_use / (double)pl->m : 0.0;
}

/* Share of a double binary tree's network traffic that leaves the leaf:
** the levels above the first log2(m) join different leaves. */
static inline double tree_leaf_frac(const place *pl) {
  if (!pl->spans) return 0.0;
  double all = ceil_log2(pl->d), in_leaf = ceil_log2(pl->m);
  return all > 0.0 ? pl->leaf_use * (all - in_leaf) / all : 0.0;
}

/* Network bytes per direction of one domain in NCCL's double binary
** tree over d domains, x S (src/graph/trees.cc, ncclGetDtree: the first
** tree is a binary tree rooted at 0 whose root has one child; the second
** mirrors it for even d and shifts it by one rank for odd d).  Each tree
** carries S/2; a domain sends S/2 to its parent (reduce) and S/2 to each
** child (broadcast), and receives the same, so its load is (children +
** has-parent) x S/2 summed over both trees.  Counting that over NCCL's
** trees for every d up to 1,000 gives a busiest domain of 1 at d = 2
** (root of one tree, only child in the other), 1.5 at d = 3 (both trees
** are chains of three: the middle of one is the root or the leaf of the
** other) and 2 for every d >= 4 (some domain has two children and a
** parent in one tree and a parent in the other).  tests/unit/test_coll.c
** rebuilds the trees and checks this. */
static inline double tree_net_k(int d) {
  return d <= 1 ? 0.0 : d == 2 ? 1.0 : d == 3 ? 1.5 : 2.0;
}

/* NVLS-tree's rate (see NVLS-tree in the file comment): the domain's
** channels stream S at net_channels x net_channel_GBps with NCCL's 128
** KiB NVLS-tree chunk, at half that with the 64 KiB chunk NCCL uses from
** four domains on; the tree's k S per domain crosses the NICs of the
** domain's NVLS heads (one GPU each, at most 32).  Returns the network
** time of the plan over k S / D, D the domain rate inv_dom stands for. */
#define NVLS_MAX_HEADS POD_COLL__NVLS_MAX_HEADS
HOT_INLINE double nvlstree_out_div(const place *pl, double k, double leaf) {
  double heads = pl->r < NVLS_MAX_HEADS ? pl->rr : (double)NVLS_MAX_HEADS;
  double D = pl->dom_nic < pl->dom_cap ? pl->dom_nic : pl->dom_cap;
  /* NCCL_NVLSTREE_MAX_CHUNKSIZE unset: 64 KiB from 4 nodes, else
  ** NCCL_NVLS_CHUNKSIZE 128 KiB (src/enqueue.cc, src/transport/nvls.cc) */
  double t_ch = (pl->d >= 4 ? 2.0 : 1.0) / pl->dom_cap; /* per byte of S */
  double t_net = k * leaf / (heads * pl->gpu_nic);      /* the heads' NICs */
  return D * (t_ch > t_net ? t_ch : t_net) / k;
}

/* The ring's network stage at its channels' NICs (coll_tune.c), over D */
static inline double ring_net_div(const place *pl) {
  double D = pl->dom_nic < pl->dom_cap ? pl->dom_nic : pl->dom_cap;
  return pl->ring_net > 0.0 ? D / pl->ring_net : 1.0;
}

/* All-reduce plans (see make_plan). */
HOT_INLINE int allreduce_plan(const pod_system *s, pod_coll_algo algo,
                              const place *pl, plan *p) {
  const int n = pl->n, r = pl->r, d = pl->d;
  const double nn = pl->nn, rr = pl->rr, dd = pl->dd;
  const double in = pl->in, ir = pl->ir, id = pl->id;
  /* Network bytes per domain of the double binary tree (tree_net_k):
  ** S at two domains, 1.5 S at three, 2 S from four.  `auto` chooses by
  ** NCCL's ratings (coll_tune.c: the tree at bwInter from three nodes,
  ** NVIDIA/nccl issue 1801) and runs at the real figure. */
  const double tree_k = tree_net_k(d);
  switch (algo) {
    case POD_ALGO_RING: {
      double f = 2.0 * (nn - 1.0) * in;
      p->up_steps = 2.0 * (nn - dd);
      p->out_steps = 2.0 * (dd - 1.0);
      p->k_up = d == 1 ? f : f * (rr - 1.0) * ir;
      p->k_out = d > 1 ? f : 0.0; /* per domain: each channel leaves once */
      p->up_rows = nn;
      p->out_div = LEAF_MULT(s, ring_leaf_frac(pl)) * ring_net_div(pl);
      return POD_OK;
    }
    case POD_ALGO_TREE:
      /* A chain inside each domain, a double binary tree across domains
      ** (NCCL).  A rank receives and sends S on the way up and on the way
      ** down (NCCL: tree algbw = busBw / 2).  Latency as NCCL's tuner:
      ** 2((r-1) a_up + log2(d) a_out). */
      p->up_steps = 2.0 * (rr - 1.0);
      p->out_steps = 2.0 * ceil_log2(d);
      p->ll_out_ratio = LL_TREE_NET_RATIO;
      p->k_up = r > 1 ? 2.0 : 0.0;
      p->k_out = d > 1 ? tree_k : 0.0;
      p->up_rows = rr;
      p->out_div = LEAF_MULT(s, tree_leaf_frac(pl));
      p->fill_doms = dd;
      return POD_OK;
    case POD_ALGO_NVLS:
      /* In-switch reduction inside one NVLink domain only: across domains
      ** NCCL runs NVLS only together with CollNet (tuning.cc disables
      ** NVLS for nNodes > 1 without collnet), and NVLS-tree otherwise. */
      if (!s->nvls || d != 1 || n < 2) return POD_ENOTSUP;
      p->simple_only = 1;
      p->fixed_us = s->nvls_latency_us;
      p->up_div = s->up_eff / s->nvls_eff;
      p->k_up = 2.0 * (nn - 1.0) * in;
      p->up_rows = nn;
      /* auto chooses by NCCL's tuner: coll_eval sets tune_up_div */
      return POD_OK;
    case POD_ALGO_NVLS_TREE:
      /* NCCL's NVLSTree: NVLS reduce inside each domain onto the heads
      ** (one per network channel), a double binary tree across domains
      ** over the heads' NICs, NVLS broadcast back; the phases pipeline.
      ** Latency: NVLS's fixed cost + 2 log2(d) network steps (tuning.cc). */
      if (!s->nvls || d < 2 || r < 2) return POD_ENOTSUP;
      p->simple_only = 1;
      p->fixed_us = s->nvls_latency_us;
      p->up_div = s->up_eff / s->nvls_eff;
      p->k_up = 2.0 * (rr - 1.0) * ir;
      p->out_steps = 2.0 * ceil_log2(d);
      p->k_out = tree_k;
      p->up_rows = rr;
      p->out_div =
          nvlstree_out_div(pl, tree_k, LEAF_MULT(s, tree_leaf_frac(pl)));
      p->fill_doms = dd;
      return POD_OK;
    case POD_ALGO_COLLNET:
      /* CollNet (SHARP): the switches reduce, so each domain sends its S
      ** once up and receives the result once, whatever d.  Inside the
      ** domain a chain (or NVLS when the switch reduces: NCCL's NVLS with
      ** CollNet) gathers to the heads.  Latency: NCCL CollNet chain,
      ** 2(r-1) a_up + one network round trip (tuning.cc: 30 us). */
      if (!s->sharp || d < 2) return POD_ENOTSUP;
      p->simple_only = 1;
      p->up_steps = s->nvls ? 0.0 : 2.0 * (rr - 1.0);
      p->fixed_us = s->nvls ? s->nvls_latency_us : 0.0; /* baseLat 0 */
      if (s->nvls && r > 1) p->up_div = s->up_eff / s->nvls_eff;
      p->k_up = 2.0 * (rr - 1.0) * ir;
      p->out_steps = 2.0;
      p->k_out = 1.0;
      p->up_rows = rr;
      p->out_div = LEAF_MULT(s, ring_leaf_frac(pl));
      p->out_rows = 1.0; /* domains fill side by side towards the switch */
      return POD_OK;
    case POD_ALGO_COLLNET_CHAIN:
      /* NCCL's CollNetChain: a chain through the domain's GPUs to the head
      ** that talks to SHARP, reduce up and broadcast down, so every link
      ** of the chain carries S each way twice (k_up 2, as the tree's
      ** chain), where CollNetDirect scatters to the heads (2(r-1)/r).  The
      ** network side is CollNet's: S per domain once.  Measured: 64 H100
      ** on NDR with SHARP, NCCL_ALGO=COLLNETCHAIN, 8 GiB: 386.6 GB/s
      ** busbw, NVLink-bound (C13). */
      if (!s->sharp || d < 2) return POD_ENOTSUP;
      p->simple_only = 1;
      p->up_steps = 2.0 * (rr - 1.0);
      p->k_up = r > 1 ? 2.0 : 0.0;
      p->out_steps = 2.0;
      p->k_out = 1.0;
      p->up_rows = rr;
      p->out_div = LEAF_MULT(s, ring_leaf_frac(pl));
      p->out_rows = 1.0;
      return POD_OK;
    case POD_ALGO_HIERARCHICAL:
      /* podsim's own: reduce-scatter in the domain, ring across domains on
      ** S/r per GPU, all-gather in the domain (not an NCCL algorithm: only
      ** by name). */
      if (d == 1) return POD_ENOTSUP;
      p->up_steps = 2.0 * (rr - 1.0);
      p->out_steps = 2.0 * (dd - 1.0);
      p->k_up = 2.0 * (rr - 1.0) * ir;
      p->k_out = 2.0 * (dd - 1.0) * id;
      p->up_rows = rr;
      p->out_div = LEAF_MULT(s, ring_leaf_frac(pl));
      return POD_OK;
    default:
      return POD_ENOTSUP;
  }
}

/* Build the plan of `algo` (never AUTO) for `op`; POD_ENOTSUP when the
** algorithm cannot run the op on this placement or system:
**   all_reduce       ring, tree, nvls (one domain, sys->nvls), nvls_tree
**                    (2+ domains, sys->nvls, 2+ ranks per domain), collnet
**                    and collnet_chain (2+ domains, sys->sharp),
**                    hierarchical (2+ domains)
**   all_gather,
**   reduce_scatter   ring, hierarchical (2+ domains)
**   all_to_all       direct
**   broadcast        ring
**   send_recv        direct */
HOT_INLINE int make_plan(const pod_system *s, pod_coll_op op,
                         pod_coll_algo algo, const place *pl, plan *p) {
  const int n = pl->n, d = pl->d;
  const double nn = pl->nn, rr = pl->rr, dd = pl->dd;
  const double in = pl->in, ir = pl->ir, id = pl->id;
  *p = (plan){.up_div = 1.0,
              .out_div = 1.0,
              .ll_out_ratio = LL_STEP_RATIO,
              .up_rows = 1.0,
              .out_rows = 1.0,
              .out_dom = 1};
  switch (op) {
    case POD_COLL_ALL_REDUCE:
      return allreduce_plan(s, algo, pl, p);
    case POD_COLL_ALL_GATHER:
    case POD_COLL_REDUCE_SCATTER:
      if (algo == POD_ALGO_RING) {
        double f = (nn - 1.0) * in;
        p->up_steps = nn - dd;
        p->out_steps = dd - 1.0;
        p->k_up = d == 1 ? f : f * (rr - 1.0) * ir;
        p->k_out = d > 1 ? f : 0.0;
        p->up_rows = nn;
        p->out_div = LEAF_MULT(s, ring_leaf_frac(pl)) * ring_net_div(pl);
        return POD_OK;
      }
      if (algo == POD_ALGO_HIERARCHICAL) {
        if (d == 1) return POD_ENOTSUP;
        p->up_steps = rr - 1.0;
        p->out_steps = dd - 1.0;
        p->k_up = (rr - 1.0) * ir;
        p->k_out = (dd - 1.0) * id;
        p->up_rows = rr;
        p->out_div = LEAF_MULT(s, ring_leaf_frac(pl));
        return POD_OK;
      }
      return POD_ENOTSUP;
    case POD_COLL_ALL_TO_ALL: {
      if (algo != POD_ALGO_DIRECT) return POD_ENOTSUP;
      /* NCCL runs all-to-all as grouped send/recv, one operation per
      ** peer, its peers in flight at once as far as its p2p channels
      ** hold them (p2p_groups): one latency step and one chunk of fill per
      ** group of concurrent peers on each fabric, and the proxy thread
      ** posts every network peer's message.  Each peer gets S/n. */
      p->p2p_up = rr - 1.0;
      p->p2p_out = nn - rr;
      p->p2p_in = in;
      p->k_up = (rr - 1.0) * in;
      p->k_out = (nn - rr) * in;
      p->out_dom = 0;
      double div = 1.0;
      if (d > 2 && s->routing == POD_ROUTING_STATIC_ECMP)
        div = pl->ecmp_div > 0.0 ? pl->ecmp_div : 1.0 / collision_mult(d - 1);
      if (pl->spans) /* peers beyond the leaf group */
        div *= LEAF_MULT(s, (nn - (double)pl->m * rr) / (nn - rr));
      p->out_div = div;
      return POD_OK;
    }
    case POD_COLL_BROADCAST:
      if (algo != POD_ALGO_RING) return POD_ENOTSUP;
      /* Pipelined chain, one per channel across domains. */
      p->up_steps = nn - dd;
      p->out_steps = dd - 1.0;
      p->k_up = n == 1 ? 0.0 : (d == 1 ? 1.0 : (rr - 1.0) * ir);
      p->k_out = d > 1 ? 1.0 : 0.0;
      p->up_rows = nn;
      p->out_div = LEAF_MULT(s, ring_leaf_frac(pl));
      p->fill_doms = dd; /* a chain: the first chunk crosses every domain */
      return POD_OK;
    case POD_COLL_SEND_RECV:
      if (algo != POD_ALGO_DIRECT) return POD_ENOTSUP;
      p->out_dom = 0; /* one message: one chunk of fill (rows 1) */
      p->p2p_in = 1.0;
      if (d == 1) {
        p->p2p_up = 1.0;
        p->k_up = 1.0;
      } else {
        p->p2p_out = 1.0;
        p->k_out = 1.0;
        p->out_div = LEAF_MULT(s, (double)pl->spans);
      }
      return POD_OK;
    default:
      return POD_ENOTSUP;
  }
}

/* 1 when x is a power of two with a normal inverse: then v * (1 / x)
** is v / x for every v (both the one rounding of v x 2^-e), without a
** division.  Integer tests on x's bits. */
static inline int pow2_normal_inverse(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  uint64_t e = u >> 52; /* sign 0: the biased exponent */
  return (u & 0xfffffffffffffULL) == 0 && e >= 1 && e <= 2045;
}

/* The constants p2p_in_flight reads of NCCL's p2p channels, made once
** (an evaluation's, or a block of prepared samples'): X = 8 nch, and the
** exact inverses of X, min_part and cmin, each 0 where the value is not
** a power of two with a normal inverse. */
typedef pod_coll_p2p_k p2p_inv; /* pod_coll.h */

static inline void p2p_inverses(const pod_coll_p2p *c, p2p_inv *k) {
  k->X = P2P_OPS_PER_BATCH * c->nch;
  k->inv_X = pow2_normal_inverse(k->X) ? 1.0 / k->X : 0.0;
  k->inv_min = pow2_normal_inverse(c->min_part) ? 1.0 / c->min_part : 0.0;
  k->inv_cmin = pow2_normal_inverse(c->cmin) ? 1.0 / c->cmin : 0.0;
  k->cmin_int =
      c->cmin >= 1.0 && c->cmin <= 0x1p52 && c->cmin == floor(c->cmin);
}

/* Per-call constants of the system: inverse achievable rates (s/byte)
** and the pipeline fill sizes in bytes. */
typedef struct rates {
  double inv_up;           /* 1 / (eff x line rate), s per byte */
  double inv_gpu, inv_dom; /* network: one GPU's NICs; one domain's
                           ** channels */
  double row_up, half_out; /* bytes per fill row */
  double buf_dom;          /* bytes one domain holds in flight: its
                           ** network channels' NCCL buffers */
  double a_up, a_out;      /* per-step latency, s */
  double msg_s;            /* per-message overhead, s */
  pod_coll_p2p p2p;        /* NCCL's p2p channels of an all-to-all
                           ** (place_p2p; nch 0: all peers at once) */
  p2p_inv p2pk;            /* with nch > 0: p2p_inverses of them */
} rates;

/* NCCL's peers in flight for b bytes per peer (src/enqueue.cc, 2.28.7
** ae7aed19): the message takes min(nChannelsMin, b / min_part) channels,
** doubled while a part exceeds max_part, up to the per-peer channels
** (:894-901); p2pnChannels / those channels epochs of 8 ops run at once
** (:965).  *inv_F is 1 / F exactly when F is a power of two, else 0.
** The divisions come off the evaluation's chain of dependent operations
** where they are exact without (k: p2p_inverses of c): by min_part and
** by the channels when they are powers of two (NCCL's are: the model's
** part sizes and nChannelsMin, pod_coll__p2p_channels), and as the
** channels double the part and F halve, exactly (b / 2ch is (b / ch) /
** 2: a part above max_part, and F = 8 nch / ch with nch >= 1 and ch <=
** per_peer, stay far from the subnormals). */
HOT_INLINE double p2p_in_flight(const pod_coll_p2p *c, const p2p_inv *k,
                                double b, double *inv_F) {
  const double X = k->X;
  double ch = 1.0, F = X / 1.0;
  int ch2 = 1;
  if (b > 0.0) {
    /* divUp: at least 1 part; b/min */
    double q = k->inv_min > 0.0 ? b * k->inv_min : b / c->min_part;
    /* max(ceil(q), 1) < cmin: for an integer cmin, q <= cmin - 1 (ceil(q)
    ** is the least integer >= q) and 1 < cmin, without the ceil */
    int few = k->cmin_int ? q <= c->cmin - 1.0 && 1.0 < c->cmin
                          : (ceil(q) < 1.0 ? 1.0 : ceil(q)) < c->cmin;
    double part;
    if (few) { /* ch: an integer, perhaps a power of two */
      double parts = ceil(q);
      if (parts < 1.0) parts = 1.0; /* underflows for subnormal b */
      ch = parts;
      ch2 = pow2_normal_inverse(ch);
      part = b / ch;
      F = X / ch;
    } else {
      ch = c->cmin;
      ch2 = k->inv_cmin > 0.0;
      part = ch2 ? b * k->inv_cmin : b / ch;
      F = X / ch;
    }
    while (part > c->max_part && ch <= 0.5 * c->per_peer) {
      ch *= 2.0;
      part *= 0.5;
      F *= 0.5;
    }
  }
  /* 1 / F = ch / X, both powers of two */
  *inv_F = k->inv_X > 0.0 && ch2 ? ch * k->inv_X : 0.0;
  return F;
}

/* Groups of concurrent peers of a point-to-point plan on each fabric
** (0 where it has none): one when NCCL holds them all in flight; peers
** over F by F's exact inverse where it has one. */
HOT_INLINE void p2p_groups(const rates *q, const plan *p, double S, double *gu,
                           double *go) {
  *gu = p->p2p_up > 0.0 ? 1.0 : 0.0;
  *go = p->p2p_out > 0.0 ? 1.0 : 0.0;
  if (q->p2p.nch > 0.0) {
    double inv_F, F = p2p_in_flight(&q->p2p, &q->p2pk, S * p->p2p_in, &inv_F);
    if (p->p2p_up > F)
      *gu = ceil(inv_F > 0.0 ? p->p2p_up * inv_F : p->p2p_up / F);
    if (p->p2p_out > F)
      *go = ceil(inv_F > 0.0 ? p->p2p_out * inv_F : p->p2p_out / F);
  }
}

/* Time of a plan with the faster of the two protocols. */
HOT_INLINE double plan_time(const rates *q, const plan *p, double S) {
  double iu = q->inv_up * p->up_div;
  double io = (p->out_dom ? q->inv_dom : q->inv_gpu) * p->out_div;
  double up_lat = p->up_steps * q->a_up, out_lat = p->out_steps * q->a_out;
  double gu = 0.0, go = 0.0;
  if (!p->out_dom) { /* point to point: steps per group of peers */
    p2p_groups(q, p, S, &gu, &go);
    up_lat = gu * q->a_up;
    out_lat = go * q->a_out;
  }
  double ll_out_lat = p->ll_out_ratio * out_lat;
  if (!p->out_dom) {
    /* one proxy thread posts every network peer's message, one after
    ** another, whatever the protocol */
    double post = p->p2p_out * q->msg_s;
    if (post > out_lat) out_lat = post;
    if (post > ll_out_lat) ll_out_lat = post;
  }
  double steps = up_lat + out_lat;

  /* Simple: eta(S) = eff S / (S + half): k S / (eta B) = k (S+half)/(eff B). */
  double bw = 0.0;
  if (S > 0.0 && p->out_dom) {
    /* A collective's data passes the scale-up and network stages in
    ** series: the stages stream at the slower one's rate, and the
    ** pipeline fills through both (the fills add). */
    double tu = p->k_up * S * iu, to = p->k_out * S * io;
    bw = (tu > to ? tu : to) + p->k_up * p->up_rows * q->row_up * iu +
         p->k_out * p->out_rows * q->half_out * io +
         (p->k_out > 0.0 ? p->fill_doms * (S < q->buf_dom ? S : q->buf_dom) * io
                         : 0.0);
  } else if (S > 0.0) {
    /* Point-to-point: NVLink and network flows run side by side, each
    ** filling by one p2p chunk per group of concurrent peers. */
    double tu = p->k_up > 0.0 ? (p->k_up * S + gu * P2P_NVL_CHUNK) * iu : 0.0;
    double to = p->k_out > 0.0 ? (p->k_out * S + go * P2P_NET_CHUNK) * io : 0.0;
    bw = tu > to ? tu : to;
  }
  if (p->simple_only) return p->fixed_us * 1e-6 + steps + bw;
  double t = (BASE_SIMPLE_US + p->fixed_us) * 1e-6 + steps + bw;

  /* LL: LL_BW_SHARE of the achievable rate, no fill term, shorter steps. */
  double tu = p->k_up * S * iu, to = p->k_out * S * io;
  double t_ll = BASE_LL_US * 1e-6 + LL_STEP_RATIO * up_lat + ll_out_lat +
                (tu > to ? tu : to) * INV_LL_BW_SHARE;
  return t_ll < t ? t_ll : t;
}

/* plan_time with S at NCCL's rated algbw `rate` (bytes/s), no fills. */
HOT_INLINE double rated_time(const rates *q, const plan *p, double S,
                             double rate) {
  double up = p->up_steps * q->a_up, out = p->out_steps * q->a_out;
  double t = p->fixed_us * 1e-6 + up + out + S / rate;
  if (p->simple_only) return t;
  double t_ll = BASE_LL_US * 1e-6 + LL_STEP_RATIO * up + p->ll_out_ratio * out +
                S * INV_LL_BW_SHARE / rate;
  t += BASE_SIMPLE_US * 1e-6;
  return t_ll < t ? t_ll : t;
}

/* The algorithms `auto` tries for each op, in order (ties keep the
** first): NCCL's own set (tuning.cc), never podsim's hierarchical. */
static const pod_coll_algo AUTO_AR[] = {
    POD_ALGO_RING,      POD_ALGO_TREE,    POD_ALGO_NVLS,
    POD_ALGO_NVLS_TREE, POD_ALGO_COLLNET, POD_ALGO_COLLNET_CHAIN};
static const pod_coll_algo AUTO_RING[] = {POD_ALGO_RING};
static const pod_coll_algo AUTO_DIRECT[] = {POD_ALGO_DIRECT};
static const struct {
  const pod_coll_algo *algos;
  int n;
} AUTO[POD_COLL_NOPS] = {{AUTO_AR, 6},     {AUTO_RING, 1}, {AUTO_RING, 1},
                         {AUTO_DIRECT, 1}, {AUTO_RING, 1}, {AUTO_DIRECT, 1}};

/* The part of setup that reads the system only (pod_coll_sys_rates,
** pod_coll.h): achievable rates, bytes/s: U on the scale-up link, G on
** one GPU's NICs; the network channels per domain and their cap (a
** ring/tree collective runs net_channels channels per domain, each
** through the NICs of one GPU, each at most net_channel_GBps: hw.c,
** NCCL's search); the fill sizes and the latencies. */
HOT_INLINE void setup_sys(const pod_system *sys, pod_coll_sys_rates *sr) {
  sr->U = sys->up_GBps * 1e9 * sys->up_eff;
  sr->G = sys->nics_per_gpu * sys->nic_gbps * 1e9 / 8.0 * sys->out_eff;
  sr->ch = (double)sys->net_channels;
  sr->cap = sr->ch * sys->net_channel_GBps * 1e9;
  sr->row_up = (double)sys->up_channels * sys->up_fill_KiB * 1024.0;
  sr->half_out = sys->out_half_MB * MIB;
  sr->buf_dom = (double)sys->net_channels * NCCL_BUFFSIZE;
  sr->a_up = sys->up_latency_us * 1e-6;
  sr->a_out = sys->out_latency_us * 1e-6;
  sr->msg_s = sys->msg_overhead_us * 1e-6;
}

/* Fill the placement of n ranks, r per domain (d = n / r domains), and
** the rates of one evaluation from the system's part sr (setup_sys). */
HOT_INLINE void setup_place_d(const pod_system *sys,
                              const pod_coll_sys_rates *sr, int n, int r, int d,
                              place *pl, rates *q) {
  /* D on one domain's network channels */
  const double U = sr->U, G = sr->G, ch = sr->ch;
  double used = r < sys->net_channels ? (double)r : ch;
  double D = used * G, cap = sr->cap;
  if (cap < D) D = cap;
  pl->dom_nic = used * G;
  pl->gpu_nic = G;
  pl->dom_cap = cap;
  pl->n = n;
  pl->r = r;
  pl->d = d;
  pl->nn = n;
  pl->rr = r;
  pl->dd = d;
  pl->spans = n > sys->leaf_gpus;
  /* domains per leaf and the leaf's use (below): read by LEAF_MULT only,
  ** so only when the group spans leaves and oversub > 1 */
  pl->m = 1;
  pl->leaf_use = 1.0;
  pl->ecmp_div = 0.0;
  if (pl->spans && sys->oversub > 1.0) {
    if (sys->leaf_gpus > r) pl->m = sys->leaf_gpus / r;
    /* A ring or tree collective drives its domains' channels (D each),
    ** not every NIC: the m domains of a leaf load its uplinks, sized for
    ** leaf_gpus x G / oversub, with m D of the leaf's leaf_gpus x G.  An
    ** 8-GPU node's 8 channels use all 8 NICs (share 1); a GB200 NVL72
    ** rack's 16 channels at 24 GB/s use 384 of its 72 x 47 GB/s. */
    double use = (double)pl->m * D / ((double)sys->leaf_gpus * G);
    if (use < 1.0) pl->leaf_use = use;
  }
  /* The four inverses (1/n, 1/U, 1/G, 1/D) from one division: this runs
  ** millions of times a second. */
  double UG = U * G, prod = UG * D * pl->nn;
  if (prod > 1e-300 && prod < 1e300) {
    double inv = 1.0 / prod;
    pl->in = UG * D * inv;
    q->inv_up = G * D * pl->nn * inv;
    q->inv_gpu = U * D * pl->nn * inv;
    q->inv_dom = UG * pl->nn * inv;
  } else { /* extreme rates: the product under- or overflows */
    pl->in = 1.0 / pl->nn;
    q->inv_up = 1.0 / U;
    q->inv_gpu = 1.0 / G;
    q->inv_dom = 1.0 / D;
  }
  pl->ir = pl->dd * pl->in; /* 1/r = d/n and 1/d = r/n */
  pl->id = pl->rr * pl->in;
  q->row_up = sr->row_up;
  q->half_out = sr->half_out;
  q->buf_dom = sr->buf_dom;
  q->a_up = sr->a_up;
  q->a_out = sr->a_out;
  q->msg_s = sr->msg_s;
  q->p2p.nch = 0.0; /* place_p2p sets them for an all-to-all */
}

/* setup_place_d of n ranks over n / r domains. */
HOT_INLINE void setup_place(const pod_system *sys, const pod_coll_sys_rates *sr,
                            int n, int r, place *pl, rates *q) {
  setup_place_d(sys, sr, n, r, n / r, pl, q);
}

/* An all-to-all of more than 8 + 1 ranks: NCCL's p2p channels into the
** evaluation's rates (coll_tune.c; g the kept ring graph of nodes of r
** GPUs, or NULL); fewer peers are always in flight at once. */
static inline void place_p2p(const pod_system *sys, pod_coll_op op,
                             const pod_coll_graph *g, const place *pl,
                             rates *q) {
  if (op == POD_COLL_ALL_TO_ALL && pl->n > 1 + (int)P2P_OPS_PER_BATCH) {
    pod_coll__p2p_channels(sys, pl->n, pl->r, g, &q->p2p);
    p2p_inverses(&q->p2p, &q->p2pk);
  }
}

/* Fill the placement and the rates of one evaluation. */
HOT_INLINE void setup(const pod_system *sys, int n, int r, place *pl,
                      rates *q) {
  pod_coll_sys_rates sr;
  setup_sys(sys, &sr);
  setup_place(sys, &sr, n, r, pl, q);
}

#endif
