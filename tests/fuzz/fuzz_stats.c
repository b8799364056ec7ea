/*
** fuzz_stats.c: the mergeable statistics on arbitrary data: moments
** (add, merge in any split, against one pass), the quantile sketch (add,
** merge, quantiles: bounds, order, relative error against the exact
** quantile, merge equal to one pass), quantiles of sorted data,
** histograms (nothing dropped), and ranks, their reuse and Spearman
** without kept ranks (pod_ranks_spearman_col) against the kept ones.
** Non-finite values must be refused by the sketch and counted by the
** histogram.
*/
#include <gsl/gsl_errno.h>
#include <gsl/gsl_statistics_double.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_stats.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NMAX 512

static int cmpd(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static void check_moments(const double *x, int n, int k) {
  pod_moments a, b, all, empty;
  pod_moments_init(&a);
  pod_moments_init(&b);
  pod_moments_init(&all);
  pod_moments_init(&empty);
  double maxabs = 0;
  for (int i = 0; i < n; i++) {
    if (i < k)
      pod_moments_add(&a, x[i]);
    else
      pod_moments_add(&b, x[i]);
    pod_moments_add(&all, x[i]);
    if (fabs(x[i]) > maxabs) maxabs = fabs(x[i]);
  }
  pod_moments_merge(&a, &empty);
  pod_moments_merge(&empty, &b); /* empty <- b */
  pod_moments_merge(&a, &empty); /* a <- a + b */
  if (a.n != all.n)
    FZ_FAIL("moments merge: n %lld vs %lld", (long long)a.n, (long long)all.n);
  if (n == 0) {
    if (!isnan(pod_moments_mean(&a))) FZ_FAIL("mean of nothing is not NaN");
    return;
  }
  if (a.min != all.min || a.max != all.max)
    FZ_FAIL("moments merge: min/max differ");
  if (maxabs > 1e100) return; /* fourth powers overflow: nothing to compare */
  double m = pod_moments_mean(&a), m1 = pod_moments_mean(&all);
  if (!isfinite(m) || fabs(m - m1) > 1e-9 * maxabs + 1e-300) /* denormals */
    FZ_FAIL("moments merge: mean %.17g vs %.17g", m, m1);
  if (m < all.min - 1e-9 * maxabs - 1e-300 ||
      m > all.max + 1e-9 * maxabs + 1e-300)
    FZ_FAIL("mean outside [min, max]");
  if (n >= 2) {
    double v = pod_moments_variance(&a), v1 = pod_moments_variance(&all);
    if (!isfinite(v) || v < 0) FZ_FAIL("variance %g", v);
    if (fabs(v - v1) > 1e-6 * maxabs * maxabs + 1e-6 * v1)
      FZ_FAIL("moments merge: variance %.17g vs %.17g", v, v1);
    double lo, hi;
    if (pod_moments_ci95(&a, &lo, &hi) == POD_OK && (!(lo <= hi) || isnan(lo)))
      FZ_FAIL("ci95 [%g, %g]", lo, hi);
  }
}

static void check_sketch(const double *x, int n, int k, double alpha,
                         const double *sorted) {
  pod_sketch a, b, all;
  pod_err e;
  if (pod_sketch_init(&a, alpha, &e) != POD_OK) {
    if (alpha >= 1e-4 && alpha < 0.5)
      FZ_FAIL("sketch init refused alpha %g", alpha);
    return;
  }
  pod_sketch_init(&b, alpha, NULL);
  pod_sketch_init(&all, alpha, NULL);
  int nf = 0;
  for (int i = 0; i < n; i++) {
    int finite = isfinite(x[i]);
    int64_t before = all.n;
    int rc = pod_sketch_add(i < k ? &a : &b, x[i]);
    int rc2 = pod_sketch_add(&all, x[i]);
    if (rc != rc2) FZ_FAIL("sketch add: status differs");
    if (!finite && (rc2 == POD_OK || all.n != before))
      FZ_FAIL("sketch accepted non-finite %g", x[i]);
    if (finite && rc2 != POD_OK)
      FZ_FAIL("sketch refused finite %g (alpha %g)", x[i], alpha);
    nf += finite;
  }
  if (pod_sketch_merge(&a, &b, &e) != POD_OK)
    FZ_FAIL("sketch merge failed: %s", e.msg);
  if (a.n != all.n || a.n != nf)
    FZ_FAIL("sketch n %lld, want %d", (long long)a.n, nf);
  double prev = -INFINITY, ps[21], qa[21], qall[21];
  for (int j = 0; j <= 20; j++) ps[(j * 8) % 21] = j / 20.0; /* shuffled */
  pod_sketch_quantiles(&a, ps, 21, qa);
  pod_sketch_quantiles(&all, ps, 21, qall);
  for (int j = 0; j <= 20; j++) {
    double p = j / 20.0;
    double q = qa[(j * 8) % 21], q1 = qall[(j * 8) % 21];
    if (j % 5 == 2) { /* a few one by one: the same values */
      double one = pod_sketch_quantile(&a, p);
      if (memcmp(&q, &one, sizeof q))
        FZ_FAIL("sketch quantiles(%g) %.17g vs quantile %.17g", p, q, one);
    }
    if (nf == 0) {
      if (!isnan(q)) FZ_FAIL("quantile of an empty sketch is %g", q);
      continue;
    }
    if (!(q == q1))
      FZ_FAIL("sketch merge: quantile(%g) %.17g vs one pass %.17g", p, q, q1);
    if (!isfinite(q) || q < a.min || q > a.max)
      FZ_FAIL("sketch quantile(%g) = %g outside [%g, %g]", p, q, a.min, a.max);
    if (q < prev) FZ_FAIL("sketch quantile not monotone at p=%g", p);
    prev = q;
    /* documented bound: relative error <= alpha against the value of rank
    ** floor(p (n-1)) of the finite data */
    int64_t r = (int64_t)floor(p * (double)(nf - 1));
    double want = sorted[r];
    if (fabs(want) >= POD_SKETCH_TINY &&
        fabs(q - want) > alpha * fabs(want) * (1 + 1e-9))
      FZ_FAIL("sketch quantile(%g) = %.17g, exact %.17g, alpha %g", p, q, want,
              alpha);
  }
  pod_sketch_free(&a);
  pod_sketch_free(&b);
  pod_sketch_free(&all);
}

/* ranks of the finite values against counting: twice the average rank
** of x[i] is 2 #{x_j < x_i} + #{x_j == x_i} + 1 (-0 == +0), the counts
** found in `sorted` (the same values sorted by qsort) */
static void check_ranks(const double *x, int n, const double *sorted) {
  pod_ranks r, u, w;
  double q[POD_STATS_NQ], qw[POD_STATS_NQ], y[NMAX];
  if (pod_ranks_init_ordered(&r, x, (size_t)n, pod_stats_qprobs, POD_STATS_NQ,
                             q))
    FZ_FAIL("pod_ranks_init failed");
  for (int i = 0; i < n; i++) { /* counts by bisection of the sorted data */
    int a = 0, b = n, c = 0, d = n;
    while (a < b) {
      int m = (a + b) / 2;
      if (sorted[m] < x[i])
        a = m + 1;
      else
        b = m;
    }
    while (c < d) {
      int m = (c + d) / 2;
      if (sorted[m] <= x[i])
        c = m + 1;
      else
        d = m;
    }
    uint32_t less = (uint32_t)a, eq = (uint32_t)(c - a);
    if (r.r2[i] != 2 * less + eq + 1)
      FZ_FAIL("rank of %.17g: %u, want %u", x[i], r.r2[i], 2 * less + eq + 1);
  }
  for (int t = 0; t < POD_STATS_NQ && n > 0; t++)
    if (!(q[t] == pod_stats_quantile_sorted(sorted, (size_t)n,
                                            pod_stats_qprobs[t]) ||
          q[t] == gsl_stats_quantile_from_sorted_data(sorted, 1, (size_t)n,
                                                      pod_stats_qprobs[t])))
      FZ_FAIL("ranked quantile %d = %.17g", t, q[t]);
  /* a monotone function of x (ties may appear): the order serves */
  for (int i = 0; i < n; i++) y[i] = 0.5 * x[i] + 3;
  if (n > 0) {
    if (pod_ranks_reuse(&u, y, (size_t)n, &r, pod_stats_qprobs, POD_STATS_NQ,
                        q))
      FZ_FAIL("reuse refused a monotone function");
    if (pod_ranks_init(&w, y, (size_t)n, pod_stats_qprobs, POD_STATS_NQ, qw))
      FZ_FAIL("pod_ranks_init failed");
    if (memcmp(u.r2, w.r2, (size_t)n * sizeof *u.r2) ||
        memcmp(q, qw, sizeof q) || u.ss_hi != w.ss_hi || u.ss_lo != w.ss_lo)
      FZ_FAIL("reused ranks differ from sorted ones");
    /* a column's coefficients without its ranks kept: those of the kept
    ** ranks, bit for bit, without and with its bounds */
    pod_ranks b2[2] = {w, r};
    double rho[2],
        want[2] = {pod_ranks_spearman(&r, &w), pod_ranks_spearman(&r, &r)};
    double bd[2] = {sorted[0], sorted[n - 1]};
    for (int t = 0; t < 2; t++) {
      if (pod_ranks_spearman_col(x, (size_t)n, t ? bd : NULL, b2, 2, rho, NULL))
        FZ_FAIL("pod_ranks_spearman_col failed");
      if (memcmp(rho, want, sizeof rho))
        FZ_FAIL("spearman_col %.17g %.17g, want %.17g %.17g", rho[0], rho[1],
                want[0], want[1]);
    }
    pod_ranks_free(&u);
    pod_ranks_free(&w);
  }
  pod_ranks_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int init;
  if (!init) {
    pod_init();
    init = 1;
  }
  fz f = {data, size};
  static const double alphas[] = {POD_SKETCH_ALPHA, 0.01, 0.1, 0.49, 1e-3};
  uint8_t ab = fz_u8(&f);
  double alpha = ab < 200 ? alphas[ab % 5] : fz_double(&f, 1e-4, 0.5);
  double range = ldexp(1.0, fz_u8(&f) % 64);
  int n = fz_u8(&f) * 2 % NMAX;
  int k = n ? fz_u8(&f) % (n + 1) : 0;
  double x[NMAX], fin[NMAX], sorted[NMAX];
  int nf = 0, nn = 0;
  for (int i = 0; i < n && f.n > 0; i++, nn++) {
    x[i] = fz_double(&f, -range, range);
    if (isfinite(x[i])) fin[nf++] = x[i];
  }
  n = nn;
  if (k > n) k = n;
  memcpy(sorted, fin, (size_t)nf * sizeof(double));
  qsort(sorted, (size_t)nf, sizeof(double), cmpd);
  check_moments(fin, nf, k < nf ? k : nf);
  check_sketch(x, n, k, alpha, sorted);
  check_ranks(fin, nf, sorted);
  /* quantiles of sorted data */
  if (nf > 0) {
    double prev = -INFINITY;
    for (int j = 0; j <= 10; j++) {
      double q = pod_stats_quantile_sorted(sorted, (size_t)nf, j / 10.0);
      /* GSL's interpolation (1-d) a + d b is kept (tests compare with it
      ** exactly); between two neighbours it may step back by rounding:
      ** relative among normal numbers, a few units of DBL_TRUE_MIN among
      ** subnormal ones (their spacing is absolute) */
      if (isnan(q) || q < sorted[0] || q > sorted[nf - 1] ||
          (q < prev && prev - q > 1e-15 * fabs(prev) + 4 * DBL_TRUE_MIN))
        FZ_FAIL("quantile_sorted(%g) = %g", j / 10.0, q);
      prev = q;
    }
    double y[NMAX];
    memcpy(y, fin, (size_t)nf * sizeof(double));
    pod_stats_sort(y, (size_t)nf);
    if (memcmp(y, sorted, (size_t)nf * sizeof(double)) != 0) {
      for (int i = 0; i < nf; i++)
        if (y[i] != sorted[i]) FZ_FAIL("pod_stats_sort differs from qsort");
    }
  }
  /* histogram */
  pod_hist h;
  int nbins = 1 + fz_u8(&f) * 16;
  double lo = fz_double(&f, -range, range), hi = fz_double(&f, -range, range);
  int logb = fz_u8(&f) & 1;
  if (pod_hist_init(&h, nbins, lo, hi, logb, NULL) == POD_OK) {
    if (!isfinite(lo) || !isfinite(hi) || hi < lo || (logb && lo <= 0))
      FZ_FAIL("hist accepted lo=%g hi=%g", lo, hi);
    for (int i = 0; i < n; i++) pod_hist_add(&h, x[i], 1);
    int64_t sum = h.under + h.over;
    for (int i = 0; i < h.nbins; i++) sum += h.counts[i];
    if (sum != h.total || h.total != n)
      FZ_FAIL("hist dropped values: %lld of %d", (long long)sum, n);
    for (int i = 0; i <= h.nbins; i++)
      if (!isfinite(pod_hist_edge(&h, i)))
        FZ_FAIL("hist edge %d not finite", i);
    pod_hist_free(&h);
  }
  return 0;
}
