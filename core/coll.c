/*
** coll.c: collective-communication kernels (see pod_coll.h, DESIGN 4.2).
**
** Model.  Every (op, algorithm) pair reduces to a plan: latency steps on
** the scale-up fabric and on the scale-out fabric, and the bytes each GPU
** moves per direction on its scale-up link and on its own NICs, as
** multiples k of the buffer size S.  The fabrics run concurrently (NCCL
** pipelines chunks through both), so
**
**   t = latency + max(k_up S / B_up(S), k_out S / B_out(S))
**
** with B_up(S) = eta_up(S) up_GBps and B_out(S) = eta_out(S) x the GPU's
** NIC line rate / oversub, eta(S) = eff S / (S + half) (DESIGN 4.2).  This
** reproduces the closed forms of DESIGN 4.2: one domain, ring all-reduce,
** t = 2(n-1) a_up + 2(n-1)/n S / (eta_up B_up); several domains, one ring
** per rail: busbw = min(eta_up B_up r/(r-1), r eta_out B_out / oversub).
**
** Protocols.  Each plan is timed with NCCL's two extreme protocols and
** the faster wins, as NCCL's tuner does:
**   Simple: NCCL baseLat 8.4 us + steps x per-step latency (system
**           fields), bandwidth eta(S) (pipeline fill: the `half` term);
**   LL:     NCCL baseLat 6.6 us + steps x 0.18 x per-step latency (NCCL
**           hwLat LL/Simple: NVLink 0.6/3.4, network 2.7/14; the tree's
**           network steps 5.0/14), bandwidth
**           0.38 of eff x line rate (NCCL's LL cap, llMaxBws) with no
**           fill term (flags travel with the data: no handshake).
** NVLS runs Simple only, with its own fixed latency (system field).
** (NCCL src/graph/tuning.cc: baseLat, hwLat.)
**
** All-to-all.  NCCL runs it as grouped send/recv, one operation per
** peer, 8 peers in flight, so it pays one latency step per round of 8
** peers (network steps for peers in other domains).  Per rank (r-1)/n S moves
*on NVLink and (n-r)/n S on
** the rank's NICs, concurrently.  With d domains each NIC exchanges with
** one rail peer in each of the k = d-1 other domains (NCCL's PXN first
** moves data over NVLink to the GPU on the destination's rail).  Those k
** flows are routed independently (static routing or ECMP hashing), so
** they collide on shared links: with k flows over k equal paths the
** expected share of paths in use is 1 - (1 - 1/k)^k (balls into bins:
** 1 at k = 1, 0.66 at k = 7, 1 - 1/e for large k; the ECMP hash-collision
** loss described by Al-Fares et al., Hedera, NSDI 2010).  The NIC's
** achievable rate is scaled by 1 - c (1 - 1/k)^k, c = out_collision (1:
** static routing, 0: perfect adaptive routing).  This is what makes
** all-to-all busbw fall as the node count grows, from 2x the NIC rate at
** two nodes (NCCL maintainers, NVIDIA/nccl-tests issue 130: busbw is
** N/(N-1) x the per-GPU network rate) towards 0.63x at many nodes.
**
** Hierarchical (several domains): reduce-scatter inside the domain, the
** inter-domain phase on S/r per GPU over its own NIC, all-gather inside
** the domain, pipelined by chunks so the two fabrics overlap (NCCL's
** NVLS-tree and CollNet chains work this way).
**
** Everything is pure arithmetic on the arguments: no allocation, no
** globals written, reentrant and thread-safe.
*/
#include "pod_coll.h"

#include <math.h>
#include <string.h>

#define MIB 1048576.0

/* NCCL src/graph/tuning.cc, baseLat (ring): LL 6.6 us, Simple 8.4 us. */
#define BASE_SIMPLE_US 8.4
#define BASE_LL_US 6.6
/* NCCL hwLat, LL per-step latency over Simple: ring and point-to-point
** NVLink 0.6/3.4 = 0.176, network 2.7/14 = 0.193; the tree's network
** step 5.0/14 = 0.357. */
#define LL_STEP_RATIO 0.18
#define LL_TREE_NET_RATIO (5.0 / 14.0)
/* NCCL groups point-to-point work by rounds of 8 peers in flight
** (p2pGroupSize = NCCL_MAX_WORK_ELEMENTS_P2P / 2 = 16 / 2, channel.h), so
** an all-to-all pays one latency step per round of 8 peers. */
#define P2P_PEERS_IN_FLIGHT 8.0
/* LL protocol: each 8-byte store carries 4 bytes of data and a 4-byte
** flag, so at most half the link's achievable rate; NCCL caps it lower
** still (src/graph/tuning.cc, llMaxBws for one node: Hopper 141 GB/s,
** Blackwell 282 GB/s busbw, 0.313 of the 450/900 GB/s line rate, i.e.
** 0.38 of NCCL's achievable NVLink rate 370.8/721.8). */
#define LL_BW_SHARE 0.38

typedef struct plan {
  double up_steps, out_steps; /* latency steps on each fabric */
  double k_up, k_out;         /* bytes per GPU per direction, x S */
  double up_div, out_div;     /* inverse bandwidth multipliers (NVLS,
                              ** collisions); 1 when none */
  double fixed_us;            /* fixed latency besides the steps (NVLS) */
  double ll_out_ratio;        /* LL over Simple latency of a network step */
  int simple_only;            /* 1 for NVLS */
} plan;

static const double BUSBW_FACTOR_NUM[POD_COLL_NOPS] = {2, 1, 1, 1, 0, 0};

double pod_coll_busbw_factor(pod_coll_op op, int n) {
  if (n < 1 || (int)op < 0 || op >= POD_COLL_NOPS) return 0.0;
  if (op == POD_COLL_BROADCAST || op == POD_COLL_SEND_RECV) return 1.0;
  return BUSBW_FACTOR_NUM[op] * (double)(n - 1) / (double)n;
}

static double ceil_log2(int x) {
  double s = 0.0;
  for (long long v = 1; v < x; v <<= 1) s += 1.0; /* x up to INT_MAX */
  return s;
}

/* Share of a NIC's rate left when its k concurrent flows collide on
** randomly chosen paths (see the file comment). */
static double collision_mult(double c, int k) {
  if (k <= 1 || c <= 0.0) return 1.0;
  /* (1 - 1/k)^k by repeated squaring: exact to rounding, and cheaper
  ** than exp(k log1p(-1/k)) on this hot path. */
  double base = 1.0 - 1.0 / (double)k, miss = 1.0;
  for (int e = k; e > 0; e >>= 1) {
    if (e & 1) miss *= base;
    base *= base;
  }
  return 1.0 - c * miss;
}

/* A communicator's placement: n ranks, r per domain, d domains, with
** the inverses computed once per evaluation. */
typedef struct place {
  int n, r, d;
  double nn, rr, dd, in, ir, id;
} place;

/* Build the plan of `algo` (never AUTO) for `op`; POD_ENOTSUP when the
** algorithm cannot run the op on this placement or system:
**   all_reduce       ring, tree, nvls (sys->nvls, 2+ ranks per domain),
**                    hierarchical (2+ domains)
**   all_gather,
**   reduce_scatter   ring, hierarchical (2+ domains)
**   all_to_all       direct
**   broadcast        ring
**   send_recv        direct */
static inline int make_plan(const pod_system *s, pod_coll_op op,
                            pod_coll_algo algo, const place *pl, plan *p) {
  const int n = pl->n, r = pl->r, d = pl->d;
  const double nn = pl->nn, rr = pl->rr, dd = pl->dd;
  const double in = pl->in, ir = pl->ir, id = pl->id;
  *p = (plan){.up_div = 1.0, .out_div = 1.0, .ll_out_ratio = LL_STEP_RATIO};
  switch (op) {
    case POD_COLL_ALL_REDUCE:
      if (algo == POD_ALGO_RING) {
        double f = 2.0 * (nn - 1.0) * in;
        p->up_steps = 2.0 * (nn - dd);
        p->out_steps = 2.0 * (dd - 1.0);
        p->k_up = f * (rr - 1.0) * ir;
        p->k_out = d > 1 ? f * ir : 0.0;
        if (d == 1) p->k_up = f;
        return POD_OK;
      }
      if (algo == POD_ALGO_TREE) {
        /* NCCL's tree: a chain inside each domain, a double binary tree
        ** across domains, one tree per rail so a domain's tree traffic
        ** spreads over its r NICs.  A rank receives and sends S on the way
        ** up and on the way down (NCCL: tree algbw = busBw / 2).  Latency
        ** as NCCL's tuner: 2((r-1) a_up + log2(d) a_out).  On one domain
        ** it is a chain and never beats the ring; it exists for small
        ** messages across many domains. */
        p->up_steps = 2.0 * (rr - 1.0);
        p->out_steps = 2.0 * ceil_log2(d);
        p->ll_out_ratio = LL_TREE_NET_RATIO;
        p->k_up = r > 1 ? 2.0 : 0.0;
        p->k_out = d > 1 ? 2.0 * ir : 0.0;
        return POD_OK;
      }
      if (algo == POD_ALGO_NVLS) {
        /* the switch must reduce, and a domain must hold 2+ ranks */
        if (!s->nvls || (r < 2 && n > 1)) return POD_ENOTSUP;
        /* In-switch reduction: busbw = nvls_eff x up_GBps x eta_rel(S)
        ** inside the domain; across domains the NVLS phase pipelines
        ** with a ring over each GPU's NIC on S/r (NCCL NVLS with
        ** inter-node chains). */
        p->simple_only = 1;
        p->fixed_us = s->nvls_latency_us;
        p->up_div = s->up_eff / s->nvls_eff;
        if (d == 1) {
          p->k_up = 2.0 * (nn - 1.0) * in;
        } else {
          p->k_up = 2.0 * (rr - 1.0) * ir;
          p->out_steps = 2.0 * (dd - 1.0);
          p->k_out = 2.0 * (dd - 1.0) * id * ir;
        }
        return POD_OK;
      }
      if (algo == POD_ALGO_HIERARCHICAL) {
        if (d == 1) return POD_ENOTSUP;
        p->up_steps = 2.0 * (rr - 1.0);
        p->out_steps = 2.0 * (dd - 1.0);
        p->k_up = 2.0 * (rr - 1.0) * ir;
        p->k_out = 2.0 * (dd - 1.0) * id * ir;
        return POD_OK;
      }
      return POD_ENOTSUP;
    case POD_COLL_ALL_GATHER:
    case POD_COLL_REDUCE_SCATTER:
      if (algo == POD_ALGO_RING) {
        double f = (nn - 1.0) * in;
        p->up_steps = nn - dd;
        p->out_steps = dd - 1.0;
        p->k_up = d == 1 ? f : f * (rr - 1.0) * ir;
        p->k_out = d > 1 ? f * ir : 0.0;
        return POD_OK;
      }
      if (algo == POD_ALGO_HIERARCHICAL) {
        if (d == 1) return POD_ENOTSUP;
        p->up_steps = rr - 1.0;
        p->out_steps = dd - 1.0;
        p->k_up = (rr - 1.0) * ir;
        p->k_out = (dd - 1.0) * id * ir;
        return POD_OK;
      }
      return POD_ENOTSUP;
    case POD_COLL_ALL_TO_ALL:
      if (algo != POD_ALGO_DIRECT) return POD_ENOTSUP;
      /* NCCL runs all-to-all as grouped send/recv, one operation per
      ** peer, 8 peers in flight: one latency step per round of 8 peers
      ** (DESIGN 4.2 writes (n-1) a_up for one domain: one step per peer;
      ** NCCL's grouping divides it by 8).  Peers in other domains cost
      ** the network step (proxy thread, RDMA post). */
      p->up_steps = ceil((rr - 1.0) / P2P_PEERS_IN_FLIGHT);
      p->out_steps = ceil((nn - rr) / P2P_PEERS_IN_FLIGHT);
      p->k_up = (rr - 1.0) * in;
      p->k_out = (nn - rr) * in;
      if (d > 2 && s->out_collision > 0.0)
        p->out_div = 1.0 / collision_mult(s->out_collision, d - 1);
      return POD_OK;
    case POD_COLL_BROADCAST:
      if (algo != POD_ALGO_RING) return POD_ENOTSUP;
      /* Pipelined chain, one per rail across domains. */
      p->up_steps = nn - dd;
      p->out_steps = dd - 1.0;
      p->k_up = n == 1 ? 0.0 : (d == 1 ? 1.0 : (rr - 1.0) * ir);
      p->k_out = d > 1 ? ir : 0.0;
      return POD_OK;
    case POD_COLL_SEND_RECV:
      if (algo != POD_ALGO_DIRECT) return POD_ENOTSUP;
      if (d == 1) {
        p->up_steps = 1.0;
        p->k_up = 1.0;
      } else {
        p->out_steps = 1.0;
        p->k_out = 1.0;
      }
      return POD_OK;
    default:
      return POD_ENOTSUP;
  }
}

/* Per-call constants of the system: inverse achievable rates (s/byte)
** and the pipeline half sizes in bytes. */
typedef struct rates {
  double inv_up, inv_out;   /* 1 / (eff x line rate), s per byte */
  double half_up, half_out; /* bytes */
  double a_up, a_out;       /* per-step latency, s */
} rates;

/* Time of a plan with the faster of the two protocols. */
static inline double plan_time(const rates *q, const plan *p, double S) {
  double iu = q->inv_up * p->up_div, io = q->inv_out * p->out_div;
  double up_lat = p->up_steps * q->a_up, out_lat = p->out_steps * q->a_out;
  double steps = up_lat + out_lat;

  /* Simple: eta(S) = eff S / (S + half): k S / (eta B) = k (S+half)/(eff B). */
  double bw = 0.0;
  if (S > 0.0) {
    double tu = p->k_up * (S + q->half_up) * iu;
    double to = p->k_out * (S + q->half_out) * io;
    bw = tu > to ? tu : to;
  }
  if (p->simple_only) return p->fixed_us * 1e-6 + steps + bw;
  double t = (BASE_SIMPLE_US + p->fixed_us) * 1e-6 + steps + bw;

  /* LL: LL_BW_SHARE of the achievable rate, no fill term, shorter steps. */
  double tu = p->k_up * S * iu, to = p->k_out * S * io;
  double t_ll = BASE_LL_US * 1e-6 + LL_STEP_RATIO * up_lat +
                p->ll_out_ratio * out_lat + (tu > to ? tu : to) / LL_BW_SHARE;
  return t_ll < t ? t_ll : t;
}

/* The algorithms `auto` tries for each op, in order (ties keep the first). */
static const pod_coll_algo AUTO_AR[] = {POD_ALGO_RING, POD_ALGO_TREE,
                                        POD_ALGO_NVLS, POD_ALGO_HIERARCHICAL};
static const pod_coll_algo AUTO_AG[] = {POD_ALGO_RING, POD_ALGO_HIERARCHICAL};
static const pod_coll_algo AUTO_DIRECT[] = {POD_ALGO_DIRECT};
static const pod_coll_algo AUTO_RING[] = {POD_ALGO_RING};
static const struct {
  const pod_coll_algo *algos;
  int n;
} AUTO[POD_COLL_NOPS] = {{AUTO_AR, 4},     {AUTO_AG, 2},   {AUTO_AG, 2},
                         {AUTO_DIRECT, 1}, {AUTO_RING, 1}, {AUTO_DIRECT, 1}};

static int coll_eval(const pod_system *sys, pod_coll_op op,
                     const pod_coll_args *args, pod_coll_result *out,
                     pod_err *err, int sys_checked) {
  if (sys == NULL) return pod_err_set(err, POD_EINVAL, "system", "is NULL");
  if (args == NULL) return pod_err_set(err, POD_EINVAL, "args", "is NULL");
  if (out == NULL) return pod_err_set(err, POD_EINVAL, "out", "is NULL");
  if ((int)op < 0 || op >= POD_COLL_NOPS)
    return pod_err_set(err, POD_EINVAL, "op", "unknown operation %d", (int)op);
  if ((int)args->algo < 0 || args->algo >= POD_ALGO_N)
    return pod_err_set(err, POD_EINVAL, "algo", "unknown algorithm %d",
                       (int)args->algo);
  if (!isfinite(args->bytes) || args->bytes < 0.0)
    return pod_err_set(err, POD_EINVAL, "bytes",
                       "must be finite and >= 0, got %g", args->bytes);
  int n = args->ranks;
  if (n < 1)
    return pod_err_set(err, POD_EINVAL, "ranks", "must be >= 1, got %d", n);
  if (op == POD_COLL_SEND_RECV && n != 2)
    return pod_err_set(err, POD_EINVAL, "ranks",
                       "send_recv needs 2 ranks, got %d", n);
  if (!sys_checked) {
    int rc = pod_hw_system_check(sys, err);
    if (rc != POD_OK) return rc;
  }
  int r = args->ranks_per_domain;
  if (r < 0)
    return pod_err_set(err, POD_EINVAL, "ranks_per_domain",
                       "must be >= 0, got %d", r);
  if (r == 0) r = n < sys->domain_gpus ? n : sys->domain_gpus;
  if (r > sys->domain_gpus)
    return pod_err_set(err, POD_EINVAL, "ranks_per_domain",
                       "%d exceeds the domain's %d GPUs", r, sys->domain_gpus);
  if (r > n || n % r != 0)
    return pod_err_set(err, POD_EINVAL, "ranks_per_domain",
                       "%d per domain does not divide %d ranks", r, n);

  double S = args->bytes;
  /* Achievable rates, bytes/s: U on the scale-up link, O on the GPU's
  ** NICs after oversubscription.  The three inverses below (1/n, 1/U,
  ** 1/O) come from one division: this runs millions of times a second. */
  double U = sys->up_GBps * 1e9 * sys->up_eff;
  double O = sys->nics_per_gpu * sys->nic_gbps * 1e9 / 8.0 * sys->out_eff /
             sys->oversub;
  place pl;
  pl.n = n;
  pl.r = r;
  pl.d = n / r;
  pl.nn = n;
  pl.rr = r;
  pl.dd = pl.d;
  double inv = 1.0 / (U * O * pl.nn);
  pl.in = U * O * inv;
  pl.ir = pl.dd * pl.in; /* 1/r = d/n and 1/d = r/n */
  pl.id = pl.rr * pl.in;
  rates q;
  q.inv_up = O * pl.nn * inv;
  q.inv_out = U * pl.nn * inv;
  q.half_up = sys->up_half_MB * MIB;
  q.half_out = sys->out_half_MB * MIB;
  q.a_up = sys->up_latency_us * 1e-6;
  q.a_out = sys->out_latency_us * 1e-6;
  pod_coll_algo best = args->algo;
  double t;
  plan p;
  if (args->algo == POD_ALGO_AUTO) {
    t = INFINITY;
    best = POD_ALGO_AUTO;
    for (int i = 0; i < AUTO[op].n; i++) {
      pod_coll_algo a = AUTO[op].algos[i];
      if (make_plan(sys, op, a, &pl, &p) != POD_OK) continue;
      double ti = plan_time(&q, &p, S);
      if (ti < t) {
        t = ti;
        best = a;
      }
    }
    if (best == POD_ALGO_AUTO) /* every op has at least one algorithm */
      return pod_err_set(err, POD_ENOTSUP, "algo", "no algorithm for %s",
                         pod_coll_op_name(op));
  } else {
    if (make_plan(sys, op, args->algo, &pl, &p) != POD_OK)
      return pod_err_set(err, POD_ENOTSUP, "algo",
                         "%s cannot run %s on %s with %d ranks, %d per domain",
                         pod_coll_algo_name(args->algo), pod_coll_op_name(op),
                         sys->name, n, r);
    t = plan_time(&q, &p, S);
  }
  if (n == 1) t = 0.0; /* nothing moves between ranks */
  if (!isfinite(t))
    return pod_err_set(err, POD_ERANGE, "bytes", "time is not finite");
  out->time_s = t;
  out->algbw_GBps = t > 0.0 ? S / t * 1e-9 : 0.0;
  /* nccl-tests bus factor (pod_coll_busbw_factor), without a division */
  double factor = (op == POD_COLL_BROADCAST || op == POD_COLL_SEND_RECV)
                      ? 1.0
                      : BUSBW_FACTOR_NUM[op] * (pl.nn - 1.0) * pl.in;
  out->busbw_GBps = out->algbw_GBps * factor;
  out->algo = best;
  return POD_OK;
}

/* ---- names ------------------------------------------------------------- */

int pod_coll_eval(const pod_system *sys, pod_coll_op op,
                  const pod_coll_args *args, pod_coll_result *out,
                  pod_err *err) {
  return coll_eval(sys, op, args, out, err, 0);
}

int pod_coll_eval_checked(const pod_system *sys, pod_coll_op op,
                          const pod_coll_args *args, pod_coll_result *out,
                          pod_err *err) {
  return coll_eval(sys, op, args, out, err, 1);
}

static const char *const OP_NAMES[POD_COLL_NOPS] = {
    "all_reduce", "all_gather", "reduce_scatter",
    "all_to_all", "broadcast",  "send_recv"};
static const char *const ALGO_NAMES[POD_ALGO_N] = {
    "auto", "ring", "tree", "nvls", "direct", "hierarchical"};

const char *pod_coll_op_name(pod_coll_op op) {
  if ((int)op < 0 || op >= POD_COLL_NOPS) return NULL;
  return OP_NAMES[op];
}

const char *pod_coll_algo_name(pod_coll_algo algo) {
  if ((int)algo < 0 || algo >= POD_ALGO_N) return NULL;
  return ALGO_NAMES[algo];
}

int pod_coll_op_parse(const char *name, pod_coll_op *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_COLL_NOPS; i++)
    if (strcmp(name, OP_NAMES[i]) == 0) {
      if (out != NULL) *out = (pod_coll_op)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

int pod_coll_algo_parse(const char *name, pod_coll_algo *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_ALGO_N; i++)
    if (strcmp(name, ALGO_NAMES[i]) == 0) {
      if (out != NULL) *out = (pod_coll_algo)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

/* ---- built-in evaluator ------------------------------------------------ */

static const char *const COLL_METRICS[] = {"time_s", "algbw_GBps",
                                           "busbw_GBps"};

static int coll_kernel_fn(const void *cfg, double *metrics, pod_err *err) {
  const pod_coll_cfg *c = cfg;
  pod_coll_result res;
  int rc = pod_coll_eval(&c->system, c->op, &c->args, &res, err);
  if (rc != POD_OK) return rc;
  metrics[0] = res.time_s;
  metrics[1] = res.algbw_GBps;
  metrics[2] = res.busbw_GBps;
  return POD_OK;
}

const pod_kernel pod_coll_kernel = {"collective", sizeof(pod_coll_cfg), 3,
                                    COLL_METRICS, coll_kernel_fn};
