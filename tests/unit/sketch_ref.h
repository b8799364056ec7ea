/*
** sketch_ref.h: the reference quantile of a pod_sketch for tests and
** benchmarks (include after pod_stats.h and <math.h>).
**   sketch_scan(s, p)  the bucket-by-bucket scan, the definition: the
**                      first bucket in value order whose cumulative count
**                      passes the rank floor(p (n - 1)), its
**                      representative gamma^k x 2 / (gamma + 1) clamped to
**                      [min, max]; pod_sketch_quantile and
**                      pod_sketch_quantiles must equal it bit for bit.
*/
#ifndef POD_TEST_SKETCH_REF_H
#define POD_TEST_SKETCH_REF_H

static inline double sketch_scan(const pod_sketch *s, double p) {
  if (s->n == 0) return NAN;
  if (p <= 0) return s->min;
  if (p >= 1) return s->max;
  int64_t r = (int64_t)floor(p * (double)(s->n - 1)), cum = 0;
  double g = s->gamma, f = 2.0 / (g + 1.0), v = s->max;
  for (int32_t i = s->neg.len - 1; i >= 0 && cum <= r; i--)
    if ((cum += s->neg.c[i]) > r) v = -pow(g, s->neg.off + i) * f;
  if (cum <= r && (cum += s->zero) > r) v = 0.0;
  for (int32_t i = 0; i < s->pos.len && cum <= r; i++)
    if ((cum += s->pos.c[i]) > r) v = pow(g, s->pos.off + i) * f;
  return v < s->min ? s->min : v > s->max ? s->max : v;
}

#endif
