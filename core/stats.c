/*
** stats.c: moments, quantiles, histogram, correlation, Sobol sums
** (see pod_stats.h).  The sketch lives in stats_sketch.c.
*/
#include "pod_stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

const double pod_stats_qprobs[POD_STATS_NQ] = {0.01, 0.05, 0.25, 0.50,
                                               0.75, 0.95, 0.99};

void pod_moments_init(pod_moments *m) {
  memset(m, 0, sizeof *m);
  m->min = NAN;
  m->max = NAN;
}

void pod_moments_merge(pod_moments *a, const pod_moments *b) {
  if (b->n == 0) return;
  if (a->n == 0) {
    *a = *b;
    return;
  }
  double na = (double)a->n, nb = (double)b->n, n = na + nb;
  double d = b->mean - a->mean;
  double d2 = d * d, d3 = d2 * d, d4 = d2 * d2;
  double m2 = a->m2 + b->m2 + d2 * na * nb / n;
  double m3 = a->m3 + b->m3 + d3 * na * nb * (na - nb) / (n * n) +
              3 * d * (na * b->m2 - nb * a->m2) / n;
  double m4 = a->m4 + b->m4 +
              d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
              6 * d2 * (na * na * b->m2 + nb * nb * a->m2) / (n * n) +
              4 * d * (na * b->m3 - nb * a->m3) / n;
  a->mean += d * nb / n;
  a->m2 = m2;
  a->m3 = m3;
  a->m4 = m4;
  if (b->min < a->min) a->min = b->min;
  if (b->max > a->max) a->max = b->max;
  a->n += b->n;
}

double pod_moments_mean(const pod_moments *m) { return m->n ? m->mean : NAN; }

double pod_moments_variance(const pod_moments *m) {
  return m->n >= 2 ? m->m2 / (double)(m->n - 1) : NAN;
}

double pod_moments_sd(const pod_moments *m) {
  return sqrt(pod_moments_variance(m));
}

double pod_moments_se(const pod_moments *m) {
  return pod_moments_sd(m) / sqrt((double)m->n);
}

double pod_moments_skew(const pod_moments *m) {
  double sd = pod_moments_sd(m);
  return (m->m3 / (double)m->n) / (sd * sd * sd);
}

double pod_moments_kurtosis(const pod_moments *m) {
  double v = pod_moments_variance(m);
  return (m->m4 / (double)m->n) / (v * v) - 3.0;
}

int pod_moments_ci95(const pod_moments *m, double *lo, double *hi) {
  if (m->n < 2) {
    *lo = *hi = NAN;
    return POD_EINVAL;
  }
  double t = gsl_cdf_tdist_Pinv(0.975, (double)(m->n - 1));
  double h = t * pod_moments_se(m);
  *lo = m->mean - h;
  *hi = m->mean + h;
  return POD_OK;
}

double pod_stats_quantile_sorted(const double *sorted, size_t n, double p) {
  if (n == 0) return NAN;
  if (!(p >= 0)) p = 0; /* also NaN */
  if (p > 1) p = 1;
  double q = gsl_stats_quantile_from_sorted_data(sorted, 1, n, p);
  /* GSL interpolates (1-d) a + d b, which rounds outside [a, b] near the
  ** ends of double range (a = b = DBL_MAX): keep it between its neighbours
  ** so quantiles stay ordered and inside [min, max]. */
  size_t i = (size_t)floor((double)(n - 1) * p);
  if (i > n - 1) i = n - 1;
  double a = sorted[i], b = sorted[i + 1 < n ? i + 1 : i];
  if (q < a) q = a;
  if (q > b) q = b;
  return q;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

void pod_stats_sort(double *x, size_t n) {
  qsort(x, n, sizeof(double), cmp_double);
}

/* ---- histogram ---- */

int pod_hist_init(pod_hist *h, int nbins, double lo, double hi, int logbins,
                  pod_err *err) {
  memset(h, 0, sizeof *h);
  if (nbins < 1)
    return pod_err_set(err, POD_EINVAL, "bins", "must be >= 1 (got %d)", nbins);
  if (!pod_finite(lo) || (logbins && lo <= 0))
    return pod_err_set(err, POD_EINVAL, "lo", "must be finite%s (got %g)",
                       logbins ? " and > 0 for log bins" : "", lo);
  if (!pod_finite(hi) || hi < lo)
    return pod_err_set(err, POD_EINVAL, "hi", "must be finite and >= lo (got %g)", hi);
  /* bin edges come from hi - lo (or hi / lo): they must be finite too */
  if (!pod_finite(hi - lo) || (logbins && !pod_finite(log(hi / lo))))
    return pod_err_set(err, POD_EINVAL, "hi", "range [%g, %g] too wide for bins", lo, hi);
  h->counts = calloc((size_t)nbins, sizeof(int64_t));
  if (!h->counts) return pod_err_set(err, POD_ENOMEM, "bins", NULL);
  h->nbins = nbins;
  h->logbins = logbins;
  h->lo = lo;
  h->hi = hi;
  return POD_OK;
}

void pod_hist_add(pod_hist *h, double x, int64_t count) {
  h->total += count;
  if (!(x >= h->lo)) { /* NaN counts as under: never dropped */
    h->under += count;
    return;
  }
  if (x > h->hi) {
    h->over += count;
    return;
  }
  int i = 0;
  if (h->hi > h->lo) {
    double f = h->logbins ? log(x / h->lo) / log(h->hi / h->lo)
                          : (x - h->lo) / (h->hi - h->lo);
    i = (int)(f * h->nbins);
    if (i >= h->nbins) i = h->nbins - 1;
    if (i < 0) i = 0;
  }
  h->counts[i] += count;
}

double pod_hist_edge(const pod_hist *h, int i) {
  if (i <= 0) return h->lo;
  if (i >= h->nbins) return h->hi;
  double f = (double)i / h->nbins;
  if (h->logbins) return h->lo * pow(h->hi / h->lo, f);
  return h->lo + f * (h->hi - h->lo);
}

void pod_hist_free(pod_hist *h) {
  if (!h) return;
  free(h->counts);
  h->counts = NULL;
  h->nbins = 0;
}

/* ---- correlation ---- */

typedef struct {
  double v;
  size_t i;
} vi;

static int cmp_vi(const void *a, const void *b) {
  const vi *x = a, *y = b;
  if (x->v < y->v) return -1;
  if (x->v > y->v) return 1;
  return (x->i > y->i) - (x->i < y->i);
}

int pod_stats_ranks(const double *x, size_t n, double *ranks) {
  if (n == 0) return POD_OK;
  vi *t = malloc(n * sizeof *t);
  if (!t) return POD_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    t[i].v = x[i];
    t[i].i = i;
  }
  qsort(t, n, sizeof *t, cmp_vi);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && t[j].v == t[i].v) j++;
    double r = 0.5 * (double)(i + 1 + j); /* average of ranks i+1..j */
    for (size_t k = i; k < j; k++) ranks[t[k].i] = r;
    i = j;
  }
  free(t);
  return POD_OK;
}

double pod_stats_pearson(const double *a, const double *b, size_t n) {
  if (n < 2) return NAN;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= (double)n;
  mb /= (double)n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; i++) {
    double da = a[i] - ma, db = b[i] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa <= 0 || sbb <= 0) return NAN;
  return sab / sqrt(saa * sbb);
}

int pod_stats_spearman(const double *x, const double *y, size_t n, double *rho) {
  double *rx = malloc((n ? n : 1) * sizeof(double));
  double *ry = malloc((n ? n : 1) * sizeof(double));
  int rc = POD_ENOMEM;
  if (rx && ry && pod_stats_ranks(x, n, rx) == POD_OK &&
      pod_stats_ranks(y, n, ry) == POD_OK) {
    *rho = pod_stats_pearson(rx, ry, n);
    rc = POD_OK;
  }
  free(rx);
  free(ry);
  return rc;
}

/* ---- Sobol ---- */

void pod_sobol_indices(const pod_sobol_acc *a, double var, double *s1,
                       double *st) {
  if (a->n == 0 || !(var > 0)) {
    *s1 = *st = NAN;
    return;
  }
  *s1 = a->first / (double)a->n / var;
  *st = a->total / (2.0 * (double)a->n) / var;
}
