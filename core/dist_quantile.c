/*
** dist_quantile.c: quantiles and supports of the distributions (see
** pod_dist.h): pod_dist_quantile, pod_dist_support, and the clamp that
** keeps bounded kinds' values inside their support.  Sampling lives in
** dist.c.
*/
#include "dist_int.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>

static double clamp_u(double u) {
  const double hi = 1.0 - DBL_EPSILON / 2;
  if (!(u >= 1e-300)) return 1e-300; /* also catches NaN */
  if (u > hi) return hi;
  return u;
}

double pod_dist__truncnormal_q(const double *p, double u) {
  double a = (p[2] - p[0]) / p[1], b = (p[3] - p[0]) / p[1], z;
  /* an interval this narrow against sd has a flat density (to 1e-7): the
  ** CDF differences below would round to noise and lose monotonicity */
  if ((b - a) * (fabs(a) + fabs(b) + 1) < 1e-7) return p[2] + u * (p[3] - p[2]);
  if (a > 0) { /* upper tail: work with Q for precision */
    double qa = gsl_cdf_ugaussian_Q(a), qb = gsl_cdf_ugaussian_Q(b);
    z = gsl_cdf_ugaussian_Qinv(qa - u * (qa - qb));
  } else {
    double pa = gsl_cdf_ugaussian_P(a), pb = gsl_cdf_ugaussian_P(b);
    z = gsl_cdf_ugaussian_Pinv(pa + u * (pb - pa));
  }
  if (z < a) z = a;
  if (z > b) z = b;
  return p[0] + p[1] * z;
}

/* Smallest x in [lo, hi] with cdf(x) >= u, by bisection down to adjacent
** doubles (at most ~1100 steps; the CDFs are monotone and reliable). */
static double bisect_cdf(double (*cdf)(double, double, double), double u,
                         double a, double b, double lo, double hi) {
  for (int i = 0; i < 1100; i++) {
    double mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) break;
    if (cdf(mid, a, b) < u)
      lo = mid;
    else
      hi = mid;
  }
  return hi;
}

/* Beta quantile by bisection: GSL's inversion returns NaN for valid
** shapes (a = 10, b = 0.1 at u = 0.5) and never returns for others
** (a = b = 1e6 at u = 0.05). */
static double beta_q(double u, double a, double b) {
  return bisect_cdf(gsl_cdf_beta_P, u, a, b, 0, 1);
}

/* Gamma quantile: GSL's inversion, or bisection where it fails (NaN for
** shape = scale = 12207.7 at u = 1e-12). */
static double gamma_q(double u, double k, double theta) {
  double x = gsl_cdf_gamma_Pinv(u, k, theta);
  if (x >= 0 && isfinite(x)) return x;
  double hi = k * theta > 0 ? k * theta : theta;
  for (int i = 0; i < 2100 && gsl_cdf_gamma_P(hi, k, theta) < u && isfinite(hi);
       i++)
    hi *= 2;
  return bisect_cdf(gsl_cdf_gamma_P, u, k, theta, 0, hi);
}

/* Bounded kinds: exp/log and interpolation can round a few ulps outside
** [lo, hi]; values never leave the support. */
double pod_dist__clamp_support(const pod_dist *d, double x) {
  const double *p = d->p;
  double lo, hi;
  switch (d->kind) {
    case POD_DIST_UNIFORM:
    case POD_DIST_LOGUNIFORM:
      lo = p[0];
      hi = p[1];
      break;
    case POD_DIST_TRUNCNORMAL:
      lo = p[2];
      hi = p[3];
      break;
    case POD_DIST_TRIANGULAR:
      lo = p[0];
      hi = p[2];
      break;
    case POD_DIST_BETA:
      lo = p[2];
      hi = p[3];
      break;
    default:
      return x;
  }
  if (x < lo) return lo;
  if (x > hi) return hi;
  return x;
}

int pod_dist_support(const pod_dist *d, double *lo, double *hi) {
  const double *p = d->p;
  switch (d->kind) {
    case POD_DIST_FIXED:
      *lo = *hi = p[0];
      return 1;
    case POD_DIST_UNIFORM:
    case POD_DIST_LOGUNIFORM:
      *lo = p[0];
      *hi = p[1];
      return 1;
    case POD_DIST_TRIANGULAR:
      *lo = p[0];
      *hi = p[2];
      return 1;
    case POD_DIST_TRUNCNORMAL:
    case POD_DIST_BETA:
      *lo = p[2];
      *hi = p[3];
      return isfinite(p[2]) && isfinite(p[3]);
    case POD_DIST_DISCRETE:
      if (d->n < 1 || !d->svals) return 0;
      *lo = d->svals[0];
      *hi = d->svals[d->n - 1];
      return 1;
    case POD_DIST_EMPIRICAL:
      if (d->n < 1 || !d->values) return 0;
      *lo = d->values[0];
      *hi = d->values[d->n - 1];
      return 1;
    default:
      return 0;
  }
}

double pod_dist_quantile(const pod_dist *d, double u) {
  return pod_dist__clamp_support(d, pod_dist__quantile_raw(d, u));
}

double pod_dist__quantile_raw(const pod_dist *d, double u) {
  const double *p = d->p;
  u = clamp_u(u);
  switch (d->kind) {
    case POD_DIST_FIXED:
      return p[0];
    case POD_DIST_UNIFORM:
      return p[0] + u * (p[1] - p[0]);
    case POD_DIST_LOGUNIFORM:
      return exp(pod_dist__lg(d, 0) +
                 u * (pod_dist__lg(d, 1) - pod_dist__lg(d, 0)));
    case POD_DIST_NORMAL:
      return p[0] + p[1] * gsl_cdf_ugaussian_Pinv(u);
    case POD_DIST_TRUNCNORMAL:
      return pod_dist__truncnormal_q(p, u);
    case POD_DIST_LOGNORMAL:
      return gsl_cdf_lognormal_Pinv(u, p[0], p[1]);
    case POD_DIST_TRIANGULAR:
      return pod_dist__triangular_q(p, u);
    case POD_DIST_BETA:
      return p[2] + (p[3] - p[2]) * beta_q(u, p[0], p[1]);
    case POD_DIST_GAMMA:
      return gamma_q(u, p[0], p[1]);
    case POD_DIST_WEIBULL:
      return gsl_cdf_weibull_Pinv(u, p[1], p[0]);
    case POD_DIST_EXPONENTIAL:
      return gsl_cdf_exponential_Pinv(u, p[0]);
    case POD_DIST_DISCRETE: { /* first i with cum[i] >= u */
      int lo = 0, hi = d->n - 1;
      while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (d->cum[mid] >= u)
          hi = mid;
        else
          lo = mid + 1;
      }
      return d->svals[lo];
    }
    case POD_DIST_EMPIRICAL: {
      int i = (int)floor(u * d->n);
      if (i >= d->n) i = d->n - 1;
      return d->values[i];
    }
    default:
      return NAN;
  }
}
