/*
** stats_reuse.c: ranks from another column's order (see pod_stats.h):
** pod_ranks_reuse / pod_ranks_reuse_with write the ranks of a column
** monotone along an earlier ranking's order without sorting it, and
** pod_ranks_reuse_shared lets a column strictly monotone along an untied
** ranking share that ranking's ranks outright (no rank buffer).  The sort
** itself lives in stats_rank.c.
*/
#include "pod_stats.h"
#include "stats_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A group of ties at places [i, t) with twice-rank v: its squares into
** *ss, those of the untied ranks of its places into *untied. */
static void ties_sq(u128 *ss, u128 *untied, size_t i, size_t t, uint64_t v) {
  *ss = u128_add_squares(*ss, v, t - i);
  for (size_t u = i; u < t; u++) {
    uint64_t w = 2 * (uint64_t)u + 2;
    *untied = u128_add(*untied, w * w);
  }
}

/* The direction y takes along the order o: +1 up, -1 down (from the
** first unequal pair), 0 constant. */
static int direction(const double *y, const uint32_t *o, size_t n) {
  double a = y[o[0]];
  for (size_t t = 1; t < n; t++) {
    double b = y[o[t]];
    if (b != a) return b > a ? 1 : -1;
  }
  return 0;
}

/* GSL's quantiles of y from its ascending places o[t * st]. */
static void reuse_quantiles(const double *y, const uint32_t *o, ptrdiff_t st,
                            size_t n, const double *probs, int np, double *q) {
  for (int t = 0; t < np; t++) {
    const double index = probs[t] * (double)(n - 1);
    const size_t lhs = (size_t)(int)index;
    const double delta = index - (double)lhs;
    q[t] = lhs >= n - 1 ? y[o[(ptrdiff_t)(n - 1) * st]]
                        : (1 - delta) * y[o[(ptrdiff_t)lhs * st]] +
                              delta * y[o[(ptrdiff_t)(lhs + 1) * st]];
  }
}

int pod_ranks_reuse(pod_ranks *r, const double *y, size_t n,
                    const pod_ranks *like, const double *probs, int np,
                    double *q) {
  return pod_ranks_reuse_with(r, y, n, like, probs, np, q, NULL);
}

int pod_ranks_reuse_with(pod_ranks *r, const double *y, size_t n,
                         const pod_ranks *like, const double *probs, int np,
                         double *q, pod_ranks_work *work) {
  memset(r, 0, sizeof *r);
  for (int t = 0; t < np; t++) q[t] = NAN;
  if (!like->order || like->n != n || n == 0) return POD_EINVAL;
  int dir = direction(y, like->order, n);
  if (!(r->r2 = pod_ranks__take(work, n))) return POD_ENOMEM;
  r->n = n;
  /* ascending place t holds y[o[t * st]] (the order read backwards when
  ** y falls along it); one pass checks the order, groups the ties, writes
  ** twice their average rank and sums its squares */
  const uint32_t *o = dir >= 0 ? like->order : like->order + (n - 1);
  const ptrdiff_t st = dir >= 0 ? 1 : -1;
  uint32_t *r2 = r->r2;
  double prev = y[o[0]];
  u128 ss = {0, 0}, untied = {0, 0};      /* the ties' squares, as they are and
                                           ** as untied ranks */
  int ok = !(prev == 0 && signbit(prev)); /* a -0: refused */
  size_t i = 0;
  for (size_t t = 1; t < n && ok; t++) {
    if (t + POD_STATS_AHEAD < n) {
      POD_STATS_PREFETCH(&y[o[(ptrdiff_t)(t + POD_STATS_AHEAD) * st]]);
      POD_STATS_PREFETCH_W(&r2[o[(ptrdiff_t)(t + POD_STATS_AHEAD) * st]]);
    }
    double b = y[o[(ptrdiff_t)t * st]];
    if (b == 0 && signbit(b)) ok = 0; /* a -0: refused */
    if (!ok || b == prev) continue;
    if (b < prev) { /* not monotone */
      ok = 0;
      break;
    }
    uint64_t v = (uint64_t)(i + 1 + t); /* ranks i+1..t */
    for (size_t u = i; u < t; u++) r2[o[(ptrdiff_t)u * st]] = (uint32_t)v;
    if (t - i > 1) ties_sq(&ss, &untied, i, t, v);
    i = t;
    prev = b;
  }
  if (!ok) {
    pod_ranks_recycle(r, work);
    return POD_ERANGE;
  }
  uint64_t v = (uint64_t)(i + 1 + n);
  for (size_t u = i; u < n; u++) r2[o[(ptrdiff_t)u * st]] = (uint32_t)v;
  if (n - i > 1) ties_sq(&ss, &untied, i, n, v);
  /* as in ranks_build: n untied ranks' squares, corrected by the ties */
  ss = u128_sub(u128_add2(u128_sum_r2sq(n), ss), untied);
  reuse_quantiles(y, o, st, n, probs, np, q);
  r->ss_hi = ss.hi;
  r->ss_lo = ss.lo;
  return POD_OK;
}

/* Along the order o read with step st (ascending places): 1 when y rises
** strictly (no two equal, no -0), 0 when it has ties but never falls,
** -1 when it falls or holds a -0 (not monotone this way: reuse refuses). */
static int strictly_up(const double *y, const uint32_t *o, ptrdiff_t st,
                       size_t n) {
  double prev = y[o[0]];
  if (prev == 0 && signbit(prev)) return -1;
  int ties = 0;
  for (size_t t = 1; t < n; t++) {
    if (t + POD_STATS_AHEAD < n)
      POD_STATS_PREFETCH(&y[o[(ptrdiff_t)(t + POD_STATS_AHEAD) * st]]);
    double b = y[o[(ptrdiff_t)t * st]];
    if (b < prev || (b == 0 && signbit(b))) return -1;
    ties |= b == prev;
    prev = b;
  }
  return !ties;
}

int pod_ranks_reuse_shared(pod_ranks *r, const double *y, size_t n,
                           const pod_ranks *like, const double *probs, int np,
                           double *q, pod_ranks_work *work) {
  u128 un = u128_sum_r2sq(n);
  if (!like->order || like->n != n || n == 0 || like->ss_hi != un.hi ||
      like->ss_lo != un.lo) /* like has ties (or no order): write them */
    return pod_ranks_reuse_with(r, y, n, like, probs, np, q, work);
  memset(r, 0, sizeof *r);
  for (int t = 0; t < np; t++) q[t] = NAN;
  int dir = direction(y, like->order, n);
  const uint32_t *o = dir >= 0 ? like->order : like->order + (n - 1);
  const ptrdiff_t st = dir >= 0 ? 1 : -1;
  int up = strictly_up(y, o, st, n);
  if (up < 0) return POD_ERANGE;
  if (up == 0) /* ties of y's own: its ranks differ from like's */
    return pod_ranks_reuse_with(r, y, n, like, probs, np, q, work);
  /* no ties either side: y's place along the order is like's rank (or
  ** its mirror), and so are the sums of squares */
  r->n = n;
  r->ss_hi = like->ss_hi;
  r->ss_lo = like->ss_lo;
  r->same = like;
  r->flip = dir < 0;
  reuse_quantiles(y, o, st, n, probs, np, q);
  return POD_OK;
}
