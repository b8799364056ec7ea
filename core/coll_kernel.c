/*
** coll_kernel.c: the collective's names (ops and algorithms, with their
** parse functions) and the collective model as a built-in evaluator
** (pod_coll_kernel, pod_coll.h), with its prepared block form
** (pod_coll_kernel_block: pod_coll_prepare's collective per grid point,
** each sample screening only its sampled fields).
*/
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "coll_int.h"

const char *const pod_coll_op_names[POD_COLL_NOPS + 1] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
    "send_recv",  NULL};
const char *const pod_coll_algo_names[POD_ALGO_N + 1] = {
    "auto",         "ring",      "tree",    "nvls",          "direct",
    "hierarchical", "nvls_tree", "collnet", "collnet_chain", NULL};

const char *pod_coll_op_name(pod_coll_op op) {
  if ((int)op < 0 || op >= POD_COLL_NOPS) return NULL;
  return pod_coll_op_names[op];
}

const char *pod_coll_algo_name(pod_coll_algo algo) {
  if ((int)algo < 0 || algo >= POD_ALGO_N) return NULL;
  return pod_coll_algo_names[algo];
}

int pod_coll_op_parse(const char *name, pod_coll_op *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_COLL_NOPS; i++)
    if (strcmp(name, pod_coll_op_names[i]) == 0) {
      if (out != NULL) *out = (pod_coll_op)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

int pod_coll_algo_parse(const char *name, pod_coll_algo *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_ALGO_N; i++)
    if (strcmp(name, pod_coll_algo_names[i]) == 0) {
      if (out != NULL) *out = (pod_coll_algo)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

/* ---- argument bounds (POD_COLL__ARGS, coll_int.h) ------------------- */
#define ARGS_ENTRY(m, type, lo, hi, unit) \
  {#m, offsetof(pod_coll_args, m), type, lo, hi, 0, unit},
#define CFG_ENTRY(m, type, lo, hi, unit) \
  {#m, offsetof(pod_coll_cfg, args.m), type, lo, hi, 0, unit},
const pod_field pod_coll_args_fields[] = {POD_COLL__ARGS(ARGS_ENTRY)
                                              POD_FIELD_END};
const pod_field pod_coll_cfg_fields[] = {POD_COLL__ARGS(CFG_ENTRY)
                                             POD_FIELD_END};
#undef ARGS_ENTRY
#undef CFG_ENTRY

/* ---- entry points: checks, then pod_coll__time (coll.c) ------------- */

/* the inline screen of the arguments' bounds (COLL_ARGS, coll_int.h) */
#define ARGS_SCREEN(m, type, lo, hi, unit) &pod_field_in(a->m, lo, hi, 0)
static int args_ok(const pod_coll_args *a) {
  return 1 POD_COLL__ARGS(ARGS_SCREEN);
}
#undef ARGS_SCREEN

/* The checks of one evaluation past its pointers: op, algo, bounds,
** send_recv's 2 ranks, the system (unless checked) and *r, the ranks per
** domain (0 resolved: packed). */
static inline int check_eval(const pod_system *sys, pod_coll_op op,
                             const pod_coll_args *args, int sys_checked, int *r,
                             pod_err *err) {
  if ((int)op < 0 || op >= POD_COLL_NOPS)
    return pod_err_set(err, POD_EINVAL, "op", "unknown operation %d", (int)op);
  if ((int)args->algo < 0 || args->algo >= POD_ALGO_N)
    return pod_err_set(err, POD_EINVAL, "algo", "unknown algorithm %d",
                       (int)args->algo);
  int rc = args_ok(args)
               ? POD_OK
               : pod_field_check_all(pod_coll_args_fields, args, "", err);
  if (rc != POD_OK) return rc;
  int n = args->ranks;
  if (op == POD_COLL_SEND_RECV && n != 2)
    return pod_err_set(err, POD_EINVAL, "ranks",
                       "send_recv needs 2 ranks, got %d", n);
  if (!sys_checked) {
    rc = pod_hw_system_check(sys, err);
    if (rc != POD_OK) return rc;
  }
  *r = args->ranks_per_domain;
  if (*r == 0) *r = n < sys->domain_gpus ? n : sys->domain_gpus;
  if (*r > sys->domain_gpus)
    return pod_err_set(err, POD_EINVAL, "ranks_per_domain",
                       "%d exceeds the domain's %d GPUs", *r, sys->domain_gpus);
  if (*r > n || n % *r != 0)
    return pod_err_set(err, POD_EINVAL, "ranks_per_domain",
                       "%d per domain does not divide %d ranks", *r, n);
  return POD_OK;
}

static int coll_eval(const pod_system *sys, pod_coll_op op,
                     const pod_coll_args *args, pod_coll_result *out,
                     pod_err *err, int sys_checked) {
  if (sys == NULL) return pod_err_set(err, POD_EINVAL, "system", "is NULL");
  if (args == NULL) return pod_err_set(err, POD_EINVAL, "args", "is NULL");
  if (out == NULL) return pod_err_set(err, POD_EINVAL, "out", "is NULL");
  int r = 0, n = args->ranks;
  int rc = check_eval(sys, op, args, sys_checked, &r, err);
  if (rc != POD_OK) return rc;
  double S = args->bytes, t, factor;
  pod_coll_algo best;
  rc = pod_coll__time(sys, op, args->algo, n, r, S, NULL, &t, &best, &factor,
                      err);
  if (rc != POD_OK) return rc;
  out->time_s = t;
  out->algbw_GBps = t > 0.0 ? S / t * 1e-9 : 0.0;
  out->busbw_GBps =
      n == 1 ? 0.0 : out->algbw_GBps * factor; /* no plan for 1 rank */
  out->algo = best;
  return POD_OK;
}

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

int pod_coll_time_checked(const pod_system *sys, pod_coll_op op, int n, int r,
                          double bytes, pod_coll_graphs *graphs, double *time_s,
                          pod_err *err) {
  pod_coll_args a = {n, r, bytes, POD_ALGO_AUTO};
  int rr = 0;
  int rc = check_eval(sys, op, &a, 1, &rr, err);
  if (rc != POD_OK) return rc;
  pod_coll_algo best;
  double factor;
  return pod_coll__time(sys, op, POD_ALGO_AUTO, n, rr, bytes, graphs, time_s,
                        &best, &factor, err);
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

/* ---- prepared block form (pod_kernel_block) ---------------------------- */

/* A grid point's collective prepared for samples of its binds: where each
** sampled value goes in the config and the bounds pod_coll_eval's checks
** hold it to (the system's field table, the arguments' bytes) as closed
** finite bounds: v passes pod_field_in(v, min, max, open) exactly when
** lo <= v <= hi (NaN never).  At most the fields a prep lets vary, and
** bytes. */
typedef struct coll_block_prep {
  pod_coll_prep prep;
  pod_coll__rows rows;
} coll_block_prep;

/* pod_field_in's bounds closed: an open end moves to the next double
** inward, an infinite one to the largest finite (values must be
** finite). */
static void closed_bounds(const pod_field *f, double *lo, double *hi) {
  *lo = f->min < -DBL_MAX ? -DBL_MAX : f->min;
  *hi = f->max > DBL_MAX ? DBL_MAX : f->max;
  if ((f->open & POD_F_MIN_OPEN) && f->min >= -DBL_MAX)
    *lo = nextafter(f->min, INFINITY);
  if ((f->open & POD_F_MAX_OPEN) && f->max <= DBL_MAX)
    *hi = nextafter(f->max, -INFINITY);
}

/* The double field of table t at byte `offset`, or NULL. */
static const pod_field *field_at(const pod_field *t, size_t offset) {
  for (; t->name != NULL; t++)
    if (t->offset == offset && t->type == POD_F_DOUBLE) return t;
  return NULL;
}

/* Only what pod_coll_eval of an auto collective would accept (a valid
** system and arguments, pod_coll_prepare's checks), and only binds that
** the prep lets vary: the efficiencies, and with no candidate chosen by
** NCCL's ratings the latencies, fills, oversubscription and bytes. */
static int coll_block_prepare(const void *cfg, const pod_bind *binds, int nb,
                              void *out) {
  const pod_coll_cfg *c = cfg;
  coll_block_prep *bp = out;
  memset(bp, 0, sizeof *bp);
  if (nb < 0 || nb > POD_COLL__ROWS_MAX || c->args.algo != POD_ALGO_AUTO)
    return POD_ENOTSUP;
  if (pod_hw_system_check(&c->system, NULL) != POD_OK ||
      pod_coll_prepare(&c->system, c->op, c->args.ranks,
                       c->args.ranks_per_domain, c->args.bytes, &bp->prep,
                       NULL) != POD_OK)
    return POD_ENOTSUP;
  const size_t sys0 = offsetof(pod_coll_cfg, system);
  const size_t bytes = offsetof(pod_coll_cfg, args.bytes);
  for (int i = 0; i < nb; i++) {
    size_t off = binds[i].offset;
    const pod_field *f = NULL;
    if (binds[i].type != POD_BIND_DOUBLE) return POD_ENOTSUP;
    if (off == bytes && pod_coll_prep_any_bytes(&bp->prep))
      f = field_at(pod_coll_cfg_fields, off);
    else if (off >= sys0 && off - sys0 < sizeof(pod_system) &&
             pod_coll_prep_varies(&bp->prep, off - sys0))
      f = field_at(pod_hw_system_fields, off - sys0);
    if (f == NULL) return POD_ENOTSUP;
    bp->rows.off[i] = off;
    closed_bounds(f, &bp->rows.lo[i], &bp->rows.hi[i]);
  }
  bp->rows.nb = nb;
  return POD_OK;
}

/* The samples pod_coll__eval_prepared_rows takes; the kernel's fn gives
** the next one's error. */
static int coll_block_eval(const void *prep, void *cfg, int n, const double *x,
                           double *y) {
  const coll_block_prep *bp = prep;
  pod_coll_cfg *c = cfg;
  return pod_coll__eval_prepared_rows(&bp->prep, &bp->rows, cfg, &c->system,
                                      &c->args.bytes, n, x, y);
}

const pod_kernel_block pod_coll_kernel_block = {
    &pod_coll_kernel, sizeof(coll_block_prep), coll_block_prepare,
    coll_block_eval};
