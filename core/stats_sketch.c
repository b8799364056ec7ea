/*
** stats_sketch.c: DDSketch-style log-bucket quantile sketch (see
** pod_stats.h for the error bound).  Bucket k of a store holds |x| in
** (gamma^(k-1), gamma^k] with gamma = (1+alpha)/(1-alpha); its
** representative 2 gamma^k / (gamma+1) is within alpha (relative) of every
** value in the bucket (Masson, Rim & Lee, "DDSketch", VLDB 2019, sec. 2).
** Stores are dense arrays that grow by doubling toward the side needed.
*/
#include "pod_stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int pod_sketch_init(pod_sketch *s, double alpha, pod_err *err) {
  memset(s, 0, sizeof *s);
  if (!(alpha >= 1e-4 && alpha < 0.5))
    return pod_err_set(err, POD_EINVAL, "alpha",
                       "must be in [1e-4, 0.5) (got %g)", alpha);
  s->alpha = alpha;
  s->gamma = (1 + alpha) / (1 - alpha);
  s->inv_log_gamma = 1.0 / log(s->gamma);
  s->min = NAN;
  s->max = NAN;
  return POD_OK;
}

void pod_sketch_free(pod_sketch *s) {
  if (!s) return;
  free(s->pos.c);
  free(s->neg.c);
  s->pos.c = s->neg.c = NULL;
  s->pos.len = s->neg.len = 0;
}

/* Make bucket k addressable in st. */
static int store_reserve(pod_sketch_store *st, int32_t k) {
  if (st->c && k >= st->off && k < st->off + st->len) return POD_OK;
  int64_t lo, hi; /* new [lo, hi) */
  if (!st->c) {
    lo = (int64_t)k - 64;
    hi = (int64_t)k + 64;
  } else {
    lo = st->off;
    hi = (int64_t)st->off + st->len;
    if (k < lo)
      lo = (k < lo - st->len) ? (int64_t)k - 16 : lo - st->len;
    else
      hi = (k >= hi + st->len) ? (int64_t)k + 16 : hi + st->len;
  }
  int64_t len = hi - lo;
  int64_t *c = calloc((size_t)len, sizeof(int64_t));
  if (!c) return POD_ENOMEM;
  if (st->c) {
    memcpy(c + (st->off - lo), st->c, (size_t)st->len * sizeof(int64_t));
    free(st->c);
  }
  st->c = c;
  st->off = (int32_t)lo;
  st->len = (int32_t)len;
  return POD_OK;
}

static int32_t key_of(const pod_sketch *s, double ax) {
  double l = log(ax) * s->inv_log_gamma;
  int32_t k = (int32_t)l; /* truncation: already the ceiling when l <= 0 */
  return k < l ? k + 1 : k;
}

static int store_add(pod_sketch_store *st, int32_t k, int64_t count) {
  int rc = store_reserve(st, k);
  if (rc) return rc;
  st->c[k - st->off] += count;
  return POD_OK;
}

int pod_sketch_add(pod_sketch *s, double x) {
  double ax = fabs(x);
  if (!(ax <= DBL_MAX)) return POD_EINVAL; /* NaN or infinite */
  if (ax < POD_SKETCH_TINY) {
    s->zero++;
  } else {
    pod_sketch_store *st = x > 0 ? &s->pos : &s->neg;
    int32_t k = key_of(s, ax);
    uint32_t i = (uint32_t)((int64_t)k - st->off); /* wraps when below off */
    if (st->c && i < (uint32_t)st->len)
      st->c[i]++; /* fast path */
    else if (store_add(st, k, 1))
      return POD_ENOMEM;
  }
  if (s->n == 0 || x < s->min) s->min = x;
  if (s->n == 0 || x > s->max) s->max = x;
  s->n++;
  return POD_OK;
}

static int store_merge(pod_sketch_store *a, const pod_sketch_store *b) {
  if (!b->c) return POD_OK;
  int32_t first = -1, last = -1;
  for (int32_t i = 0; i < b->len; i++) {
    if (b->c[i]) {
      if (first < 0) first = i;
      last = i;
    }
  }
  if (first < 0) return POD_OK;
  int rc = store_reserve(a, b->off + first);
  if (!rc) rc = store_reserve(a, b->off + last);
  if (rc) return rc;
  for (int32_t i = first; i <= last; i++) a->c[b->off + i - a->off] += b->c[i];
  return POD_OK;
}

int pod_sketch_merge(pod_sketch *a, const pod_sketch *b, pod_err *err) {
  if (a->alpha != b->alpha)
    return pod_err_set(err, POD_EINVAL, "alpha", "sketches differ in accuracy");
  if (b->n == 0) return POD_OK;
  int rc = store_merge(&a->pos, &b->pos);
  if (!rc) rc = store_merge(&a->neg, &b->neg);
  if (rc) return pod_err_set(err, rc, "sketch", NULL);
  a->zero += b->zero;
  if (a->n == 0 || b->min < a->min) a->min = b->min;
  if (a->n == 0 || b->max > a->max) a->max = b->max;
  a->n += b->n;
  return POD_OK;
}

static double rep(const pod_sketch *s, int32_t k) {
  /* the factor 2 / (gamma + 1) < 1 first: 2 gamma^k overflows for values
  ** within a factor 2 of DBL_MAX */
  return pow(s->gamma, k) * (2.0 / (s->gamma + 1.0));
}

static double clampv(const pod_sketch *s, double v) {
  if (v < s->min) return s->min;
  if (v > s->max) return s->max;
  return v;
}

void pod_sketch_foreach(const pod_sketch *s,
                        void (*fn)(double value, int64_t count, void *ud),
                        void *ud) {
  for (int32_t i = s->neg.len - 1; i >= 0; i--)
    if (s->neg.c[i]) fn(clampv(s, -rep(s, s->neg.off + i)), s->neg.c[i], ud);
  if (s->zero) fn(clampv(s, 0.0), s->zero, ud);
  for (int32_t i = 0; i < s->pos.len; i++)
    if (s->pos.c[i]) fn(clampv(s, rep(s, s->pos.off + i)), s->pos.c[i], ud);
}

double pod_sketch_quantile(const pod_sketch *s, double p) {
  if (s->n == 0) return NAN;
  if (p <= 0) return s->min;
  if (p >= 1) return s->max;
  int64_t r = (int64_t)floor(p * (double)(s->n - 1)); /* 0-based rank */
  int64_t cum = 0;
  for (int32_t i = s->neg.len - 1; i >= 0; i--) {
    cum += s->neg.c[i];
    if (cum > r) return clampv(s, -rep(s, s->neg.off + i));
  }
  cum += s->zero;
  if (cum > r) return clampv(s, 0.0);
  for (int32_t i = 0; i < s->pos.len; i++) {
    cum += s->pos.c[i];
    if (cum > r) return clampv(s, rep(s, s->pos.off + i));
  }
  return s->max;
}
