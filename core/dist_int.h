/*
** dist_int.h: internals shared by core/dist*.c (dist.c, dist_quantile.c,
** dist_moments.c);
** callers use pod_dist.h only.
*/
#ifndef POD_DIST_INT_H
#define POD_DIST_INT_H

#include "pod_dist.h"

#include <math.h>

/* Normal CDF mass between standardized bounds a < b, computed in the tail
** that keeps precision (upper tail through Q when a > 0). */
double pod_dist__tn_mass(double a, double b);

/* The quantile at u of d before any clamp (core/dist_quantile.c). */
double pod_dist__quantile_raw(const pod_dist *d, double u);
/* x clamped into a bounded kind's support: exp/log and interpolation can
** round a few ulps outside [lo, hi] (core/dist_quantile.c). */
double pod_dist__clamp_support(const pod_dist *d, double x);

/* The truncated normal{mean, sd, lo, hi} quantile at u
** (core/dist_quantile.c). */
double pod_dist__truncnormal_q(const double *p, double u);

/* log(p[i]) of a loguniform: the constructor's, while p[i] is still what
** it was computed from, else computed (the same value either way). */
static inline double pod_dist__lg(const pod_dist *d, int i) {
  return d->lg_of[i] == d->p[i] ? d->lg[i] : log(d->p[i]);
}

/* The triangular{a, c, b} quantile at u. */
static inline double pod_dist__triangular_q(const double *p, double u) {
  double a = p[0], c = p[1], b = p[2];
  /* (b-a) sqrt(u (c-a)/(b-a)) = sqrt(u (b-a)(c-a)) without overflowing */
  double w = b - a;
  if (u < (c - a) / w) return a + w * sqrt(u * ((c - a) / w));
  return b - w * sqrt((1 - u) * ((b - c) / w));
}

#endif
