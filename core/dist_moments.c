/*
** dist_moments.c: exact means and variances of the distributions
** (pod_dist_mean, pod_dist_variance; see pod_dist.h).
*/
#include "dist_int.h"

#include <math.h>

#include <gsl/gsl_randist.h>

/* Truncated-normal mean and variance from the standard formulas
** (Johnson, Kotz & Balakrishnan, Continuous Univariate Distributions 1, 13.10).
*/
static void tn_moments(const double *p, double *mean, double *var) {
  double a = (p[2] - p[0]) / p[1], b = (p[3] - p[0]) / p[1];
  double z = pod_dist__tn_mass(a, b);
  double pa = isinf(a) ? 0 : gsl_ran_ugaussian_pdf(a);
  double pb = isinf(b) ? 0 : gsl_ran_ugaussian_pdf(b);
  double apa = isinf(a) ? 0 : a * pa, bpb = isinf(b) ? 0 : b * pb;
  double r = (pa - pb) / z;
  *mean = p[0] + p[1] * r;
  *var = p[1] * p[1] * (1 + (apa - bpb) / z - r * r);
}

double pod_dist_mean(const pod_dist *d) {
  const double *p = d->p;
  double m, v;
  switch (d->kind) {
    case POD_DIST_FIXED:
      return p[0];
    case POD_DIST_UNIFORM:
      return 0.5 * (p[0] + p[1]);
    case POD_DIST_LOGUNIFORM:
      return (p[1] - p[0]) / log(p[1] / p[0]);
    case POD_DIST_NORMAL:
      return p[0];
    case POD_DIST_TRUNCNORMAL:
      tn_moments(p, &m, &v);
      return m;
    case POD_DIST_LOGNORMAL:
      return exp(p[0] + 0.5 * p[1] * p[1]);
    case POD_DIST_TRIANGULAR:
      return (p[0] + p[1] + p[2]) / 3.0;
    case POD_DIST_BETA:
      return p[2] + (p[3] - p[2]) * p[0] / (p[0] + p[1]);
    case POD_DIST_GAMMA:
      return p[0] * p[1];
    case POD_DIST_WEIBULL:
      return p[1] * tgamma(1 + 1 / p[0]);
    case POD_DIST_EXPONENTIAL:
      return p[0];
    case POD_DIST_DISCRETE: {
      double s = 0, w = 0;
      for (int i = 0; i < d->n; i++) {
        s += d->weights[i] * d->values[i];
        w += d->weights[i];
      }
      return s / w;
    }
    case POD_DIST_EMPIRICAL: {
      double s = 0;
      for (int i = 0; i < d->n; i++) s += d->values[i];
      return s / d->n;
    }
    default:
      return NAN;
  }
}

static double variance_raw(const pod_dist *d);

/* Rounding can leave a tiny negative variance (loguniform over a range of
** a few ulps); a variance is never below 0. */
double pod_dist_variance(const pod_dist *d) {
  double v = variance_raw(d);
  return v < 0 ? 0 : v;
}

static double variance_raw(const pod_dist *d) {
  const double *p = d->p;
  double m, v;
  switch (d->kind) {
    case POD_DIST_FIXED:
      return 0;
    case POD_DIST_UNIFORM:
      return (p[1] - p[0]) * (p[1] - p[0]) / 12.0;
    case POD_DIST_LOGUNIFORM: {
      double l = log(p[1] / p[0]);
      double mean = (p[1] - p[0]) / l;
      return (p[1] * p[1] - p[0] * p[0]) / (2 * l) - mean * mean;
    }
    case POD_DIST_NORMAL:
      return p[1] * p[1];
    case POD_DIST_TRUNCNORMAL:
      tn_moments(p, &m, &v);
      return v;
    case POD_DIST_LOGNORMAL: {
      double s2 = p[1] * p[1];
      return expm1(s2) * exp(2 * p[0] + s2);
    }
    case POD_DIST_TRIANGULAR: {
      double a = p[0], c = p[1], b = p[2];
      return (a * a + b * b + c * c - a * b - a * c - b * c) / 18.0;
    }
    case POD_DIST_BETA: {
      double s = p[0] + p[1], w = p[3] - p[2];
      return w * w * p[0] * p[1] / (s * s * (s + 1));
    }
    case POD_DIST_GAMMA:
      return p[0] * p[1] * p[1];
    case POD_DIST_WEIBULL: {
      double g1 = tgamma(1 + 1 / p[0]), g2 = tgamma(1 + 2 / p[0]);
      return p[1] * p[1] * (g2 - g1 * g1);
    }
    case POD_DIST_EXPONENTIAL:
      return p[0] * p[0];
    case POD_DIST_DISCRETE: {
      double mean = pod_dist_mean(d), s = 0, w = 0;
      for (int i = 0; i < d->n; i++) {
        if (d->weights[i] == 0) continue; /* 0 * inf would be NaN */
        double e = d->values[i] - mean;
        s += d->weights[i] * e * e;
        w += d->weights[i];
      }
      return s / w;
    }
    case POD_DIST_EMPIRICAL: {
      double mean = pod_dist_mean(d), s = 0;
      for (int i = 0; i < d->n; i++) {
        double e = d->values[i] - mean;
        s += e * e;
      }
      return s / d->n;
    }
    default:
      return NAN;
  }
}
