/*
** coll_prep.c: an `auto` collective prepared once and timed per sample
** (pod_coll_prepare, pod_coll_time_prepared; pod_coll.h).
**
** What of pod_coll__time (coll.c) reads the link efficiencies up_eff and
** out_eff: the achievable rates and the inverses of setup (and with them
** the placement's 1/n, 1/r, 1/d, which setup takes from one division of
** the rates), the ring's network rate (its line rate x out_eff), every
** plan's bytes and bandwidth multipliers, NCCL's NVLS rating
** (pod_coll__nvls_tuner_div: the NVLink rate x up_eff) and the plans'
** times.  What does not: the checks, the ring graph and NCCL 2.28.9's
** ratings of ring, tree and NVLS-tree across domains (line rates and
** generation only, coll_tune.c), which algorithms can run (placement and
** the system's nvls and sharp), and a rated candidate's time (latency
** steps and S over the rating).  So across domains without SHARP the
** choice is made here and a sample builds and times one plan; elsewhere
** a sample times the candidates as auto_time does, the rated ones from
** their prepared times.  Both run the same inline code as coll.c
** (coll_plan.h) in the same order: the times are pod_coll_time_checked's
** bit for bit (tests/unit/test_coll_prep.c).  A block of samples whose
** candidate is fixed here (pod_coll__eval_prepared_rows, the kernel's
** block form) runs that inline code with the op and the algorithm
** constant, so that each sample builds and times its plan without the
** branches on them (tests/unit/test_kernel_coll.c).
*/
#include "coll_plan.h"
#include "pod_coll.h"

#include <math.h>
#include <stddef.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

static const pod_coll_prep PREP_ZERO;

/* the inline screen of the arguments' bounds (POD_COLL__ARGS) */
#define ARGS_SCREEN(m, type, lo, hi, unit) &&pod_field_in(a.m, lo, hi, 0)

int pod_coll_prepare(const pod_system *sys, pod_coll_op op, int n, int r,
                     double bytes, pod_coll_prep *prep, pod_err *err) {
  if (prep == NULL) return pod_err_set(err, POD_EINVAL, "prep", "is NULL");
  *prep = PREP_ZERO;
  if (sys == NULL) return pod_err_set(err, POD_EINVAL, "system", "is NULL");
  double t;
  /* its checks and errors, and the time's (a sample's errors can differ:
  ** pod_coll_time_prepared returns each sample's own) */
  int rc = pod_coll_time_checked(sys, op, n, r, bytes, NULL, &t, err);
  if (rc != POD_OK) return rc;
  if (r == 0) r = n < sys->domain_gpus ? n : sys->domain_gpus;
  prep->op = (signed char)op;
  prep->n = n;
  prep->r = r;
  prep->S = bytes;
  int d = n / r;
  prep->d = d;
  /* make_plan's all-to-all collision divisor: it reads d and the routing */
  if (op == POD_COLL_ALL_TO_ALL && d > 2 &&
      sys->routing == POD_ROUTING_STATIC_ECMP)
    prep->ecmp_div = 1.0 / collision_mult(d - 1);
  prep->net_ar = op == POD_COLL_ALL_REDUCE && d > 1;
  prep->ring = prep->net_ar || (d > 1 && op <= POD_COLL_REDUCE_SCATTER);
  pod_coll__tune tu = {0};
  if (prep->ring) {
    pod_coll_graph g;
    pod_coll__net_graph(sys, r, &g);
    if (prep->net_ar) pod_coll__graph_tune(sys, n, &g, &tu);
    prep->ring_line = pod_coll__graph_line_GBps(sys, &g);
  }
  place pl;
  rates q;
  setup(sys, n, r, &pl, &q);
  pl.ring_net = prep->ring_line * sys->out_eff * 1e9;
  place_p2p(sys, op, NULL, &pl, &q); /* line rates only: kept per sample */
  prep->p2p = q.p2p;
  p2p_inverses(&prep->p2p, &prep->p2pk); /* once, not per sample */
  int all_rated = 1;
  for (int i = 0; i < AUTO[op].n; i++) {
    pod_coll_algo a = AUTO[op].algos[i];
    plan p;
    if (make_plan(sys, op, a, &pl, &p) != POD_OK) continue;
    int k = prep->ncand++;
    prep->cand[k] = (unsigned char)a;
    double rate = !prep->net_ar             ? 0.0
                  : a == POD_ALGO_RING      ? tu.ring_GBps
                  : a == POD_ALGO_TREE      ? tu.tree_GBps
                  : a == POD_ALGO_NVLS_TREE ? tu.nvlstree_GBps
                                            : 0.0;
    /* as auto_time: a rated time reads latencies and S only */
    prep->rated[k] = rate > 0.0 ? 1 : 0;
    if (prep->rated[k])
      prep->sel[k] = rated_time(&q, &p, bytes, rate * 1e9);
    else
      all_rated = 0;
  }
  prep->any_bytes = 1;
  for (int k = 0; k < prep->ncand; k++)
    if (prep->rated[k]) prep->any_bytes = 0;
  prep->fixed = -1;
  if (prep->net_ar && all_rated) {
    double t_sel = INFINITY;
    for (int k = 0; k < prep->ncand; k++)
      if (prep->sel[k] < t_sel)
        t_sel = prep->sel[k], prep->fixed = (signed char)k;
  }
  /* one candidate timed at its real rate (every op but all-reduce):
  ** auto_time's choice is that one unless its time is not below infinity */
  prep->single = prep->ncand == 1 && !prep->rated[0] && !prep->net_ar;
  if (prep->single) prep->fixed = 0;
  prep->ok = 1;
  return POD_OK;
}

/* auto_time (coll.c) on the prepared candidates: the rated ones' times
** from prep; *best -1 when none runs. */
static double replay_auto(const pod_coll_prep *P, const pod_system *sys,
                          const place *pl, const rates *q, double S,
                          int *best) {
  double t_sel = INFINITY;
  plan p = {0}, chosen = {0};
  *best = -1;
  for (int k = 0; k < P->ncand; k++) {
    pod_coll_algo a = (pod_coll_algo)P->cand[k];
    pod_coll_op op = (pod_coll_op)P->op;
    double sel;
    if (P->rated[k]) {
      sel = P->sel[k];
    } else {
      make_plan(sys, op, a, pl, &p);
      if (a == POD_ALGO_NVLS)
        p.tune_up_div = pod_coll__nvls_tuner_div(sys, pl->n);
      double up_div = p.up_div;
      if (p.tune_up_div > 0.0) p.up_div = p.tune_up_div;
      sel = plan_time(q, &p, S);
      p.up_div = up_div;
    }
    if (sel < t_sel) {
      t_sel = sel;
      *best = k;
      if (!P->rated[k]) chosen = p;
    }
  }
  if (*best < 0) return INFINITY;
  if (P->rated[*best]) /* auto_time keeps the plan it built */
    make_plan(sys, (pod_coll_op)P->op, (pod_coll_algo)P->cand[*best], pl,
              &chosen);
  return chosen.tune_up_div > 0.0 || P->net_ar ? plan_time(q, &chosen, S)
                                               : t_sel;
}

/* The time of P's candidate `algo` for `op` on the system's figures sr
** and the placement's 1/n (*in, as pod_coll__time's bus factor reads it):
** prepared_time's plan, inline so that a block of samples of one prepared
** candidate (eval_rows) builds it with op and algo known. */
HOT_INLINE double prepared_plan_time(const pod_coll_prep *P,
                                     const pod_system *sys,
                                     const pod_coll_sys_rates *sr, double S,
                                     pod_coll_op op, pod_coll_algo algo,
                                     const p2p_inv *pk, double *in) {
  place pl;
  rates q;
  setup_place_d(sys, sr, P->n, P->r, P->d, &pl, &q); /* d: n / r, prepared */
  /* pod_coll__time: ring_net_GBps x 1e9, the GB/s as ring_rate makes it */
  pl.ring_net = P->ring ? P->ring_line * sys->out_eff * 1e9 : 0.0;
  q.p2p = P->p2p;
  q.p2pk = *pk;
  pl.ecmp_div = P->ecmp_div;
  plan p = {0};
  make_plan(sys, op, algo, &pl, &p);
  *in = pl.in;
  return plan_time(&q, &p, S);
}

/* The bytes screen of prepared_time: 0 when S differs from the prepared
** bytes and the prep cannot time other bytes, or S is out of bounds. */
static inline int bytes_ok(const pod_coll_prep *P, double S) {
  if (S == P->S) return 1;
  pod_coll_args a = {P->n, P->r, S, POD_ALGO_AUTO};
  return P->any_bytes && (1 POD_COLL__ARGS(ARGS_SCREEN));
}

/* pod_coll_time_prepared's time on the system's figures sr, with the
** placement's 1/n (*in, as pod_coll__time's bus factor reads it) and the
** candidate that ran (*best). */
static int prepared_time(const pod_coll_prep *P, const pod_system *sys,
                         const pod_coll_sys_rates *sr, double S, double *time_s,
                         double *in, int *best, pod_err *err) {
  if (P == NULL || !P->ok)
    return pod_err_set(err, POD_EINVAL, "prep",
                       "is not prepared (pod_coll_prepare)");
  if (S != P->S) {
    if (!P->any_bytes)
      return pod_err_set(err, POD_EINVAL, "bytes",
                         "%g differs from the prepared %g, which NCCL's "
                         "ratings chose by",
                         S, P->S);
    /* other bytes: screened as pod_coll_time_checked screens them (the
    ** ranks passed at prepare), and out of bounds its error */
    if (!bytes_ok(P, S)) { /* the same screen fails there */
      int rc = pod_coll_time_checked(sys, (pod_coll_op)P->op, P->n, P->r, S,
                                     NULL, time_s, err);
      return rc != POD_OK ? rc : pod_err_set(err, POD_EINVAL, "bytes", NULL);
    }
  }
  double t;
  if (P->fixed >= 0) {
    t = prepared_plan_time(P, sys, sr, S, (pod_coll_op)P->op,
                           (pod_coll_algo)P->cand[P->fixed], &P->p2pk, in);
    *best = P->fixed;
    if (P->single && !(t < INFINITY)) /* auto_time found none */
      return pod_err_set(err, POD_ENOTSUP, "algo", "no algorithm for %s",
                         pod_coll_op_name((pod_coll_op)P->op));
  } else {
    place pl;
    rates q;
    setup_place_d(sys, sr, P->n, P->r, P->d, &pl, &q);
    pl.ring_net = P->ring ? P->ring_line * sys->out_eff * 1e9 : 0.0;
    q.p2p = P->p2p;
    q.p2pk = P->p2pk;
    pl.ecmp_div = P->ecmp_div;
    t = replay_auto(P, sys, &pl, &q, S, best);
    if (*best < 0)
      return pod_err_set(err, POD_ENOTSUP, "algo", "no algorithm for %s",
                         pod_coll_op_name((pod_coll_op)P->op));
    *in = pl.in;
  }
  if (P->n == 1) t = 0.0; /* nothing moves between ranks */
  if (!isfinite(t))
    return pod_err_set(err, POD_ERANGE, "bytes", "time is not finite");
  *time_s = t;
  return POD_OK;
}

void pod_coll_sys_rates_of(const pod_system *sys, pod_coll_sys_rates *sr) {
  setup_sys(sys, sr);
}

int pod_coll_time_prepared(const pod_coll_prep *P, const pod_system *sys,
                           double S, double *time_s, pod_err *err) {
  pod_coll_sys_rates sr;
  double in;
  int best;
  setup_sys(sys, &sr);
  return prepared_time(P, sys, &sr, S, time_s, &in, &best, err);
}

int pod_coll_time_prepared_sr(const pod_coll_prep *P, const pod_system *sys,
                              const pod_coll_sys_rates *sr, double S,
                              double *time_s, pod_err *err) {
  double in;
  int best;
  return prepared_time(P, sys, sr, S, time_s, &in, &best, err);
}

/* coll_eval's algbw and busbw (y[1], y[2]) from a time t (y[0]) of S
** bytes and the placement's 1/n. */
HOT_INLINE void eval_metrics(const pod_coll_prep *P, pod_coll_op op, double S,
                             double t, double in, double *y) {
  /* as coll_eval from pod_coll__time's t and factor */
  double factor = (op == POD_COLL_BROADCAST || op == POD_COLL_SEND_RECV)
                      ? 1.0
                      : BUSBW_FACTOR_NUM[op] * ((double)P->n - 1.0) * in;
  double algbw = t > 0.0 ? S / t * 1e-9 : 0.0;
  y[0] = t;
  y[1] = algbw;
  y[2] = P->n == 1 ? 0.0 : algbw * factor;
}

int pod_coll_eval_prepared(const pod_coll_prep *P, const pod_system *sys,
                           double S, pod_coll_result *out, pod_err *err) {
  double t = 0.0, in = 0.0;
  int best = -1;
  if (out == NULL) return pod_err_set(err, POD_EINVAL, "out", "is NULL");
  pod_coll_sys_rates sr;
  setup_sys(sys, &sr);
  int rc = prepared_time(P, sys, &sr, S, &t, &in, &best, err);
  if (rc != POD_OK) return rc;
  double y[3];
  eval_metrics(P, (pod_coll_op)P->op, S, t, in, y);
  out->time_s = y[0];
  out->algbw_GBps = y[1];
  out->busbw_GBps = y[2];
  out->algo = (pod_coll_algo)P->cand[best];
  return POD_OK;
}

/* Row j's values into the config at cfg; 1 when each is in its bounds. */
static inline int rows_put(const pod_coll__rows *R, unsigned char *cfg,
                           const double *xj) {
  int ok = 1;
  for (int i = 0; i < R->nb; i++) {
    ok &= (xj[i] >= R->lo[i]) & (xj[i] <= R->hi[i]);
    memcpy(cfg + R->off[i], &xj[i], sizeof(double));
  }
  return ok;
}

/* Row j's values into the config at cfg (screened), in order (a field
** bound twice takes the later value): four a step. */
static inline void rows_store(const pod_coll__rows *R, unsigned char *cfg,
                              const double *xj) {
  int i = 0;
  for (; i + 4 <= R->nb; i += 4) {
    memcpy(cfg + R->off[i], &xj[i], sizeof(double));
    memcpy(cfg + R->off[i + 1], &xj[i + 1], sizeof(double));
    memcpy(cfg + R->off[i + 2], &xj[i + 2], sizeof(double));
    memcpy(cfg + R->off[i + 3], &xj[i + 3], sizeof(double));
  }
  for (; i < R->nb; i++) memcpy(cfg + R->off[i], &xj[i], sizeof(double));
}

/* 1 when every value of the n rows x is within its bounds (rows_put's
** screen; with SSE2 two values of a row a step: not >= lo or not <= hi,
** as NaN is, fails). */
static int rows_in(const pod_coll__rows *R, int n, const double *x) {
  const size_t nb = (size_t)R->nb;
  int ok = 1;
  size_t i0 = 0;
#ifdef __SSE2__
  __m128d bad = _mm_setzero_pd();
  for (; i0 + 2 <= nb; i0 += 2) {
    const __m128d lo = _mm_loadu_pd(R->lo + i0), hi = _mm_loadu_pd(R->hi + i0);
    for (size_t j = 0; j < (size_t)n; j++) {
      __m128d v = _mm_loadu_pd(x + j * nb + i0);
      bad =
          _mm_or_pd(bad, _mm_or_pd(_mm_cmpnge_pd(v, lo), _mm_cmpnle_pd(v, hi)));
    }
  }
  ok = _mm_movemask_pd(bad) == 0;
#endif
  for (size_t i = i0; i < nb; i++) {
    const double lo = R->lo[i], hi = R->hi[i];
    for (size_t j = 0; j < (size_t)n; j++)
      ok &= (x[j * nb + i] >= lo) & (x[j * nb + i] <= hi);
  }
  return ok;
}

/* the bytes' own bound among the arguments' (POD_COLL__ARGS) on S */
#define BYTES_SCREEN(m, type, lo, hi, unit)                          \
  &&(offsetof(pod_coll_args, m) != offsetof(pod_coll_args, bytes) || \
     pod_field_in(S, lo, hi, 0))

/* pod_coll__eval_prepared_rows of a prep with its candidate fixed, `op`
** and `algo` its op and candidate: prepared_time's fixed branch and
** pod_coll_eval_prepared's metrics, a sample at a time, without the
** errors (a failing sample ends the rows).  The prep and the rows are
** copied here, so that nothing written into the config can change them:
** what they hold is loaded once for the block.  A block within bounds
** (the common case) is screened once; bytes other than the prepared ones
** pass bytes_ok's screen when the ranks do (the same for every sample)
** and they are within their own bound. */
HOT_INLINE int rows_fixed(const pod_coll_prep *P0, const pod_coll__rows *R0,
                          void *cfg, const pod_system *sys, const double *bytes,
                          int n, const double *x, double *y, pod_coll_op op,
                          pod_coll_algo algo) {
  const pod_coll_prep Pc = *P0, *P = &Pc;
  const pod_coll__rows Rc = *R0, *R = &Rc;
  const int in_bounds = rows_in(R, n, x);
  pod_coll_args a = {P->n, P->r, P->S, POD_ALGO_AUTO};
  const int other_bytes = P->any_bytes && (1 POD_COLL__ARGS(ARGS_SCREEN));
  const p2p_inv pk = P->p2pk;
  for (int j = 0; j < n; j++) {
    const double *xj = x + (size_t)j * (size_t)R->nb;
    if (in_bounds)
      rows_store(R, cfg, xj);
    else if (!rows_put(R, cfg, xj))
      return j;
    double S = *bytes, in, *yj = y + 3 * (size_t)j;
    if (S != P->S && !(other_bytes && (1 POD_COLL__ARGS(BYTES_SCREEN))))
      return j; /* as !bytes_ok(P, S) */
    pod_coll_sys_rates sr;
    setup_sys(sys, &sr);
    double t = prepared_plan_time(P, sys, &sr, S, op, algo, &pk, &in);
    if (P->single && !(t < INFINITY)) return j;
    if (P->n == 1) t = 0.0;
    if (!isfinite(t)) return j;
    eval_metrics(P, op, S, t, in, yj);
  }
  return n;
}
#undef BYTES_SCREEN

/* A fixed candidate of every op (all-reduce: the ones NCCL's ratings can
** fix across domains): rows_fixed with op and algo constants. */
#define ROWS_FIXED(o, a)        \
  if (op == (o) && algo == (a)) \
    return rows_fixed(P, R, cfg, sys, bytes, n, x, y, o, a);

int pod_coll__eval_prepared_rows(const pod_coll_prep *P,
                                 const pod_coll__rows *R, void *cfg,
                                 const pod_system *sys, const double *bytes,
                                 int n, const double *x, double *y) {
  if (P == NULL || !P->ok) return 0;
  if (P->fixed >= 0) {
    pod_coll_op op = (pod_coll_op)P->op;
    pod_coll_algo algo = (pod_coll_algo)P->cand[P->fixed];
    ROWS_FIXED(POD_COLL_ALL_TO_ALL, POD_ALGO_DIRECT)
    ROWS_FIXED(POD_COLL_ALL_GATHER, POD_ALGO_RING)
    ROWS_FIXED(POD_COLL_REDUCE_SCATTER, POD_ALGO_RING)
    ROWS_FIXED(POD_COLL_BROADCAST, POD_ALGO_RING)
    ROWS_FIXED(POD_COLL_SEND_RECV, POD_ALGO_DIRECT)
    ROWS_FIXED(POD_COLL_ALL_REDUCE, POD_ALGO_RING)
    ROWS_FIXED(POD_COLL_ALL_REDUCE, POD_ALGO_TREE)
    ROWS_FIXED(POD_COLL_ALL_REDUCE, POD_ALGO_NVLS_TREE)
    ROWS_FIXED(POD_COLL_ALL_REDUCE, POD_ALGO_COLLNET)
    ROWS_FIXED(POD_COLL_ALL_REDUCE, POD_ALGO_COLLNET_CHAIN)
  }
  /* the rest a sample at a time through pod_coll_eval_prepared */
  for (int j = 0; j < n; j++) {
    pod_coll_result res;
    if (!rows_put(R, cfg, x + (size_t)j * (size_t)R->nb) ||
        pod_coll_eval_prepared(P, sys, *bytes, &res, NULL) != POD_OK)
      return j;
    y[3 * j] = res.time_s;
    y[3 * j + 1] = res.algbw_GBps;
    y[3 * j + 2] = res.busbw_GBps;
  }
  return n;
}
#undef ROWS_FIXED

/* The system fields a sample may change (see pod_coll_prep_varies). */
static const size_t EFF_FIELDS[] = {offsetof(pod_system, up_eff),
                                    offsetof(pod_system, out_eff)};
static const size_t FREE_FIELDS[] = {offsetof(pod_system, up_latency_us),
                                     offsetof(pod_system, out_latency_us),
                                     offsetof(pod_system, msg_overhead_us),
                                     offsetof(pod_system, nvls_latency_us),
                                     offsetof(pod_system, up_fill_KiB),
                                     offsetof(pod_system, out_half_MB),
                                     offsetof(pod_system, oversub)};

int pod_coll_prep_varies(const pod_coll_prep *P, size_t offset) {
  if (P == NULL || !P->ok) return 0;
  for (size_t i = 0; i < sizeof EFF_FIELDS / sizeof EFF_FIELDS[0]; i++)
    if (offset == EFF_FIELDS[i]) return 1;
  /* without a rated candidate nothing prepared read them: setup, the plans
  ** and their times read them per sample */
  if (!P->any_bytes) return 0;
  for (size_t i = 0; i < sizeof FREE_FIELDS / sizeof FREE_FIELDS[0]; i++)
    if (offset == FREE_FIELDS[i]) return 1;
  return 0;
}

int pod_coll_prep_any_bytes(const pod_coll_prep *P) {
  return P != NULL && P->ok && P->any_bytes;
}

/* All-gather and reduce-scatter share their plans (make_plan) and their
** auto set (a ring): the same time for the same arguments. */
static int op_class(int op) {
  return op == POD_COLL_REDUCE_SCATTER ? POD_COLL_ALL_GATHER : op;
}

int pod_coll_prep_same(const pod_coll_prep *a, const pod_coll_prep *b) {
  if (a == NULL || b == NULL || !a->ok || !b->ok) return 0;
  if (op_class(a->op) != op_class(b->op) || a->n != b->n || a->r != b->r)
    return 0;
  /* the rest of a prep follows from the system, the op's class, n, r and,
  ** when NCCL's ratings choose, the bytes */
  return a->any_bytes && b->any_bytes ? 1 : a->S == b->S;
}
