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
  int32_t first = 0, last = b->len - 1; /* of the non-empty buckets */
  while (first <= last && !b->c[first]) first++;
  if (first > last) return POD_OK;
  while (!b->c[last]) last--;
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

/* A walk up the buckets in value order: the negative store downwards,
** the zero bucket, the positive store upwards.  seg: 0 negative, 1 zero,
** 2 positive, 3 past the end; at: the place within the segment in walk
** order; cum: the values in the buckets before it. */
typedef struct {
  int seg;
  int32_t at;
  int64_t cum;
} walk;

#define WALK_BLOCK 64 /* buckets summed at a time to skip empty ranges */

static int32_t seg_len(const pod_sketch *s, int seg) {
  return seg == 0 ? s->neg.len : seg == 1 ? 1 : seg == 2 ? s->pos.len : 0;
}

static int64_t seg_count(const pod_sketch *s, int seg, int32_t at) {
  if (seg == 0) return s->neg.c[s->neg.len - 1 - at];
  if (seg == 1) return s->zero;
  return s->pos.c[at];
}

/* The sum of the next WALK_BLOCK buckets of the segment from `at` (all
** there: at + WALK_BLOCK <= its length). */
static int64_t block_sum(const pod_sketch *s, int seg, int32_t at) {
  const int64_t *c =
      seg == 0 ? s->neg.c + (s->neg.len - at - WALK_BLOCK) : s->pos.c + at;
  int64_t t = 0;
  for (int k = 0; k < WALK_BLOCK; k++) t += c[k];
  return t;
}

/* Move w to the first bucket whose values reach past rank r (cum + count
** > r), skipping whole blocks that stay at or below it; 0 when there is
** none (w past the end). */
static int walk_to(const pod_sketch *s, walk *w, int64_t r) {
  for (; w->seg < 3; w->seg++, w->at = 0) {
    int32_t len = seg_len(s, w->seg);
    while (w->at < len) {
      int32_t end = w->at + 1; /* one bucket, or a block from its start */
      if (w->seg != 1 && w->at % WALK_BLOCK == 0 && len - w->at >= WALK_BLOCK) {
        int64_t t = block_sum(s, w->seg, w->at);
        if (w->cum + t <= r) {
          w->cum += t;
          w->at += WALK_BLOCK;
          continue;
        }
        end = w->at + WALK_BLOCK; /* the bucket is in this block */
      }
      for (; w->at < end; w->at++) {
        int64_t c = seg_count(s, w->seg, w->at);
        if (w->cum + c > r) return 1;
        w->cum += c;
      }
    }
  }
  return 0;
}

/* The value of w's bucket, clamped to [min, max]. */
static double walk_value(const pod_sketch *s, const walk *w) {
  if (w->seg == 0)
    return clampv(s, -rep(s, s->neg.off + s->neg.len - 1 - w->at));
  if (w->seg == 1) return clampv(s, 0.0);
  return clampv(s, rep(s, s->pos.off + w->at));
}

void pod_sketch_quantiles(const pod_sketch *s, const double *probs, int np,
                          double *out) {
  int64_t rk[POD_SKETCH_QMAX];
  int ord[POD_SKETCH_QMAX], m = 0;
  for (int k = 0; k < np; k++) {
    double p = probs[k];
    if (s->n == 0) {
      out[k] = NAN;
    } else if (p <= 0) {
      out[k] = s->min;
    } else if (p >= 1) {
      out[k] = s->max;
    } else if (!(p == p) || m == POD_SKETCH_QMAX) {
      out[k] = pod_sketch_quantile(s, p); /* NaN p; or past the batch */
    } else { /* 0-based rank, into the batch in ascending order */
      int64_t r = (int64_t)floor(p * (double)(s->n - 1));
      int j = m++;
      while (j > 0 && rk[j - 1] > r) {
        rk[j] = rk[j - 1];
        ord[j] = ord[j - 1];
        j--;
      }
      rk[j] = r;
      ord[j] = k;
    }
  }
  walk w = {0, 0, 0};
  for (int j = 0; j < m; j++)
    out[ord[j]] = walk_to(s, &w, rk[j]) ? walk_value(s, &w) : s->max;
}

double pod_sketch_quantile(const pod_sketch *s, double p) {
  if (s->n == 0) return NAN;
  if (p <= 0) return s->min;
  if (p >= 1) return s->max;
  int64_t r = (int64_t)floor(p * (double)(s->n - 1)); /* 0-based rank */
  walk w = {0, 0, 0};
  return walk_to(s, &w, r) ? walk_value(s, &w) : s->max;
}
