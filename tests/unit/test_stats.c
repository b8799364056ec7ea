/*
** test_stats.c: statistics (pod_stats.h) against GSL's batch functions on
** the same data; merge in any split; sketch error bound and merge-order
** independence; histogram; Student-t CI; Spearman; Sobol index formula.
*/
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* mincore */
#endif
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pod_err.h"
#include "pod_stats.h"
#include "near.h"
#include "sketch_ref.h"

#define assert_rel(a, b, rel) assert_near(a, b, (rel)*fabs(b))

static double *lognormal_data(size_t n, unsigned long seed, double shift) {
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, seed);
  double *x = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) x[i] = gsl_ran_lognormal(r, 1.0, 1.2) + shift;
  gsl_rng_free(r);
  return x;
}

static void test_moments_vs_gsl(void **st) {
  (void)st;
  const size_t n = 20000;
  double shifts[] = {0.0, 1e6, -50.0};
  for (int s = 0; s < 3; s++) {
    double *x = lognormal_data(n, 11 + (unsigned long)s, shifts[s]);
    pod_moments m;
    pod_moments_init(&m);
    for (size_t i = 0; i < n; i++) pod_moments_add(&m, x[i]);
    assert_int_equal(m.n, (int64_t)n);
    assert_rel(pod_moments_mean(&m), gsl_stats_mean(x, 1, n), 1e-13);
    assert_rel(pod_moments_variance(&m), gsl_stats_variance(x, 1, n), 1e-9);
    assert_rel(pod_moments_skew(&m), gsl_stats_skew(x, 1, n), 1e-7);
    assert_rel(pod_moments_kurtosis(&m), gsl_stats_kurtosis(x, 1, n), 1e-7);
    assert_true(m.min == gsl_stats_min(x, 1, n));
    assert_true(m.max == gsl_stats_max(x, 1, n));
    assert_rel(pod_moments_se(&m), gsl_stats_sd(x, 1, n) / sqrt((double)n),
               1e-9);
    free(x);
  }
  pod_moments e;
  pod_moments_init(&e);
  assert_true(isnan(pod_moments_mean(&e)));
  assert_true(isnan(pod_moments_variance(&e)));
  double lo, hi;
  assert_int_equal(pod_moments_ci95(&e, &lo, &hi), POD_EINVAL);
  assert_true(isnan(lo) && isnan(hi));
}

/* Merging accumulators of any split gives the sequential moments. */
static void test_moments_merge_splits(void **st) {
  (void)st;
  const size_t n = 10007;
  double *x = lognormal_data(n, 5, 100.0);
  pod_moments all;
  pod_moments_init(&all);
  for (size_t i = 0; i < n; i++) pod_moments_add(&all, x[i]);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  for (int trial = 0; trial < 50; trial++) {
    /* random cut points, merged left to right, or as a balanced tree */
    size_t cuts[40];
    int nc = 1 + (int)gsl_rng_uniform_int(r, 38);
    cuts[0] = 0;
    for (int i = 1; i < nc; i++) cuts[i] = gsl_rng_uniform_int(r, n + 1);
    cuts[nc] = n;
    gsl_sort_ulong((unsigned long *)cuts, 1, (size_t)nc + 1);
    pod_moments part[40];
    for (int i = 0; i < nc; i++) {
      pod_moments_init(&part[i]);
      for (size_t j = cuts[i]; j < cuts[i + 1]; j++)
        pod_moments_add(&part[i], x[j]);
    }
    pod_moments acc;
    pod_moments_init(&acc);
    if (trial % 2 == 0) {
      for (int i = 0; i < nc; i++) pod_moments_merge(&acc, &part[i]);
    } else {
      for (int w = 1; w < nc; w *= 2)
        for (int i = 0; i + w < nc; i += 2 * w)
          pod_moments_merge(&part[i], &part[i + w]);
      acc = part[0];
    }
    assert_int_equal(acc.n, all.n);
    assert_rel(acc.mean, all.mean, 1e-12);
    assert_rel(acc.m2, all.m2, 1e-12);
    assert_rel(acc.m3, all.m3, 1e-12);
    assert_rel(acc.m4, all.m4, 1e-12);
    assert_true(acc.min == all.min && acc.max == all.max);
  }
  gsl_rng_free(r);
  free(x);
}

/* Finite inputs near the double limit: the sums are rescaled, so the
** mean, sd, skew and kurtosis stay finite and equal c times (or, for the
** shape measures, exactly) those of the unscaled data; the variance
** itself is beyond the double range and is +inf.  Merging a small-valued
** part with a huge-valued one matches the sequential pass. */
static void test_moments_near_double_limit(void **st) {
  (void)st;
  const size_t n = 20000;
  const double c = 1e305;
  double *y = lognormal_data(n, 21, 0.0);
  double *x = malloc(n * sizeof(double));
  for (size_t i = 0; i < n; i++) x[i] = (i % 2 ? -c : c) * y[i];
  for (size_t i = 0; i < n; i++) y[i] = (i % 2 ? -1 : 1) * y[i];
  pod_moments m;
  pod_moments_init(&m);
  for (size_t i = 0; i < n; i++) pod_moments_add(&m, x[i]);
  assert_rel(pod_moments_mean(&m), c * gsl_stats_mean(y, 1, n), 1e-9);
  assert_rel(pod_moments_sd(&m), c * gsl_stats_sd(y, 1, n), 1e-9);
  assert_rel(pod_moments_skew(&m), gsl_stats_skew(y, 1, n), 1e-7);
  assert_rel(pod_moments_kurtosis(&m), gsl_stats_kurtosis(y, 1, n), 1e-7);
  assert_true(isinf(pod_moments_variance(&m)));
  double lo, hi;
  assert_int_equal(pod_moments_ci95(&m, &lo, &hi), POD_OK);
  assert_true(isfinite(lo) && isfinite(hi) && lo < hi);
  /* the first half small, the second huge: merged = sequential */
  for (size_t i = 0; i < n / 2; i++) x[i] = y[i];
  pod_moments all, a, b;
  pod_moments_init(&all);
  pod_moments_init(&a);
  pod_moments_init(&b);
  for (size_t i = 0; i < n; i++) pod_moments_add(&all, x[i]);
  for (size_t i = 0; i < n / 2; i++) pod_moments_add(&a, x[i]);
  for (size_t i = n / 2; i < n; i++) pod_moments_add(&b, x[i]);
  pod_moments_merge(&a, &b);
  assert_int_equal(a.n, all.n);
  assert_rel(pod_moments_mean(&a), pod_moments_mean(&all), 1e-12);
  assert_rel(pod_moments_sd(&a), pod_moments_sd(&all), 1e-12);
  assert_rel(pod_moments_skew(&a), pod_moments_skew(&all), 1e-9);
  assert_true(a.min == all.min && a.max == all.max);
  free(x);
  free(y);
}

static void test_ci95(void **st) {
  (void)st;
  const double x[] = {1, 2, 3, 4, 10};
  pod_moments m;
  pod_moments_init(&m);
  for (int i = 0; i < 5; i++) pod_moments_add(&m, x[i]);
  double lo, hi;
  assert_int_equal(pod_moments_ci95(&m, &lo, &hi), POD_OK);
  double h = gsl_cdf_tdist_Pinv(0.975, 4) * gsl_stats_sd(x, 1, 5) / sqrt(5.0);
  assert_near(lo, 4 - h, 1e-12);
  assert_near(hi, 4 + h, 1e-12);
  assert_near(h, 2.7764451051977987 * sqrt(12.5) / sqrt(5.0),
              1e-9); /* t_{0.975,4} */
}

static void test_exact_quantiles(void **st) {
  (void)st;
  const size_t n = 1001;
  double *x = lognormal_data(n, 3, -5.0);
  double *y = malloc(n * sizeof(double));
  memcpy(y, x, n * sizeof(double));
  pod_stats_sort(x, n);
  gsl_sort(y, 1, n);
  assert_memory_equal(x, y, n * sizeof(double));
  for (int q = 0; q <= 100; q++) {
    double p = q / 100.0;
    assert_true(pod_stats_quantile_sorted(x, n, p) ==
                gsl_stats_quantile_from_sorted_data(y, 1, n, p));
  }
  /* the radix path (n >= 4096): negatives, zeros of both signs, huge and tiny
   */
  const size_t big = 50000;
  double *u = lognormal_data(big, 21, -3.0), *w = malloc(big * sizeof(double));
  for (size_t i = 0; i < big; i += 13) u[i] = (i % 2) ? 0.0 : -0.0;
  u[5] = 1e300;
  u[6] = -1e300;
  u[7] = 4.9e-324;
  memcpy(w, u, big * sizeof(double));
  pod_stats_sort(u, big);
  gsl_sort(w, 1, big);
  for (size_t i = 0; i < big; i++) assert_true(u[i] == w[i]);
  for (size_t i = 1; i < big; i++) assert_true(u[i - 1] <= u[i]);
  free(u);
  free(w);
  /* multi-selection gives GSL's sorted-data quantiles, bit for bit */
  gsl_rng *rg = gsl_rng_alloc(gsl_rng_mt19937);
  const size_t sizes[] = {1, 2, 3, 17, 33, 100, 1000, 4097, 100003};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t m = sizes[si];
    for (int kind = 0; kind < 5; kind++) {
      double *a = malloc(m * sizeof(double)), *b = malloc(m * sizeof(double));
      for (size_t i = 0; i < m; i++) {
        if (kind == 0)
          a[i] = gsl_ran_lognormal(rg, 0, 2) - 1; /* distinct */
        else if (kind == 1)
          a[i] = floor(gsl_rng_uniform(rg) * 5); /* many ties */
        else if (kind == 2)
          a[i] = (double)(m - i); /* descending */
        else if (kind == 3)
          a[i] = 2.5; /* constant */
        else
          a[i] = (i % 3 ? 1.0 : -1.0) *
                 gsl_ran_exponential(rg, 1e-3); /* both signs */
      }
      memcpy(b, a, m * sizeof(double));
      gsl_sort(b, 1, m);
      const double ps[] = {0, 0.01, 0.05, 0.25, 0.5, 0.75, 0.95, 0.99};
      double got[8];
      pod_stats_quantiles(a, m, ps, 8, got);
      for (int q = 0; q < 8; q++) {
        double want = gsl_stats_quantile_from_sorted_data(b, 1, m, ps[q]);
        if (memcmp(&got[q], &want, sizeof want) != 0)
          fail_msg("n=%zu kind=%d p=%g: %.17g != %.17g", m, kind, ps[q], got[q],
                   want);
      }
      free(a);
      free(b);
    }
  }
  double many[20], mp[20], mo[20];
  for (int i = 0; i < 20; i++) {
    many[i] = 20 - i;
    mp[i] = i / 19.0;
  }
  pod_stats_quantiles(many, 20, mp, 20, mo); /* more probs: full sort path */
  for (int i = 0; i < 20; i++) assert_near(mo[i], 1 + i, 1e-12);
  pod_stats_quantiles(many, 0, mp, 2, mo);
  assert_true(isnan(mo[0]) && isnan(mo[1]));
  gsl_rng_free(rg);
  /* convention: rank p*(n-1), linear interpolation */
  const double s[] = {1, 2, 4, 8};
  assert_near(pod_stats_quantile_sorted(s, 4, 0.5), 3.0, 1e-15);
  assert_near(pod_stats_quantile_sorted(s, 4, 0.25), 1.75, 1e-15);
  assert_true(isnan(pod_stats_quantile_sorted(s, 0, 0.5)));
  free(x);
  free(y);
}

/* Lognormal data, plus negatives and zeros: every quantile of the sketch is
** within alpha (relative) of the order statistic x_(floor(p(n-1))). */
static void check_sketch_bound(const pod_sketch *s, const double *sorted,
                               size_t n) {
  for (int q = 0; q <= 1000; q++) {
    double p = q / 1000.0;
    size_t r = (size_t)floor(p * (double)(n - 1));
    double v = pod_sketch_quantile(s, p), x = sorted[r];
    double tol = s->alpha * fabs(x) * (1 + 1e-9) +
                 (fabs(x) < POD_SKETCH_TINY ? POD_SKETCH_TINY : 0);
    if (!(fabs(v - x) <= tol))
      fail_msg("p=%g: sketch %.17g, exact %.17g", p, v, x);
  }
  for (int q = 0; q < POD_STATS_NQ; q++) {
    size_t r = (size_t)floor(pod_stats_qprobs[q] * (double)(n - 1));
    assert_near(pod_sketch_quantile(s, pod_stats_qprobs[q]), sorted[r],
                s->alpha * fabs(sorted[r]) * (1 + 1e-9));
  }
}

static void test_sketch_bound_and_merge(void **st) {
  (void)st;
  const size_t n = 100000;
  double *x = lognormal_data(n, 9, 0.0);
  for (size_t i = 0; i < n; i += 7) x[i] = -x[i] * 1e-3; /* negatives */
  for (size_t i = 3; i < n; i += 101) x[i] = 0.0;        /* exact zeros */
  pod_sketch all;
  assert_int_equal(pod_sketch_init(&all, POD_SKETCH_ALPHA, NULL), POD_OK);
  for (size_t i = 0; i < n; i++)
    assert_int_equal(pod_sketch_add(&all, x[i]), POD_OK);
  double *sorted = malloc(n * sizeof(double));
  memcpy(sorted, x, n * sizeof(double));
  gsl_sort(sorted, 1, n);
  assert_int_equal(all.n, (int64_t)n);
  assert_true(pod_sketch_quantile(&all, 0) == sorted[0]);
  assert_true(pod_sketch_quantile(&all, 1) == sorted[n - 1]);
  check_sketch_bound(&all, sorted, n);

  /* 9 parts merged in three different orders: identical to one sketch */
  enum { K = 9 };
  pod_sketch part[K];
  for (int k = 0; k < K; k++) {
    pod_sketch_init(&part[k], POD_SKETCH_ALPHA, NULL);
    for (size_t i = (size_t)k * n / K; i < (size_t)(k + 1) * n / K; i++)
      pod_sketch_add(&part[k], x[i]);
  }
  const int orders[3][K] = {{0, 1, 2, 3, 4, 5, 6, 7, 8},
                            {8, 7, 6, 5, 4, 3, 2, 1, 0},
                            {4, 0, 8, 2, 6, 1, 3, 7, 5}};
  for (int o = 0; o < 3; o++) {
    pod_sketch m;
    pod_sketch_init(&m, POD_SKETCH_ALPHA, NULL);
    for (int k = 0; k < K; k++)
      assert_int_equal(pod_sketch_merge(&m, &part[orders[o][k]], NULL), POD_OK);
    assert_int_equal(m.n, all.n);
    assert_int_equal(m.zero, all.zero);
    for (int q = 0; q <= 1000; q++) {
      double a = pod_sketch_quantile(&m, q / 1000.0),
             b = pod_sketch_quantile(&all, q / 1000.0);
      assert_memory_equal(&a, &b, sizeof a);
    }
    pod_sketch_free(&m);
  }
  for (int k = 0; k < K; k++) pod_sketch_free(&part[k]);

  /* errors */
  pod_sketch b;
  pod_err e;
  assert_int_equal(pod_sketch_init(&b, 0.6, &e), POD_EINVAL);
  assert_string_equal(e.field, "alpha");
  assert_int_equal(pod_sketch_init(&b, 0.01, NULL), POD_OK);
  pod_sketch_add(&b, 1.0);
  assert_int_equal(pod_sketch_merge(&all, &b, &e), POD_EINVAL);
  pod_sketch_free(&b);
  pod_sketch empty;
  pod_sketch_init(&empty, POD_SKETCH_ALPHA, NULL);
  assert_true(isnan(pod_sketch_quantile(&empty, 0.5)));
  assert_int_equal(pod_sketch_merge(&empty, &all, NULL),
                   POD_OK); /* into empty */
  assert_true(pod_sketch_quantile(&empty, 0.37) ==
              pod_sketch_quantile(&all, 0.37));
  pod_sketch_free(&empty);
  pod_sketch_free(&all);
  free(x);
  free(sorted);
}

static void count_cb(double v, int64_t c, void *ud) {
  (void)v;
  *(int64_t *)ud += c;
}

static void test_sketch_wide_range(void **st) {
  (void)st;
  /* values spanning 1e-250 .. 1e250 grow the stores both ways */
  pod_sketch s;
  pod_sketch_init(&s, POD_SKETCH_ALPHA, NULL);
  double v[] = {1e250,  1e-250,  3.0,
                -1e200, -1e-200, 1e-310 /* counts as zero */};
  for (int i = 0; i < 6; i++)
    assert_int_equal(pod_sketch_add(&s, v[i]), POD_OK);
  assert_int_equal(s.zero, 1);
  assert_int_equal(pod_sketch_add(&s, NAN), POD_EINVAL);
  assert_int_equal(pod_sketch_add(&s, -INFINITY), POD_EINVAL);
  assert_int_equal(s.n, 6);
  int64_t tot = 0;
  pod_sketch_foreach(&s, count_cb, &tot);
  assert_int_equal(tot, 6);
  assert_rel(pod_sketch_quantile(&s, 0.0), -1e200, 1e-15);
  assert_rel(pod_sketch_quantile(&s, 0.2), -1e-200, POD_SKETCH_ALPHA);
  assert_rel(pod_sketch_quantile(&s, 0.6), 1e-250, POD_SKETCH_ALPHA);
  assert_rel(pod_sketch_quantile(&s, 0.8), 3.0, POD_SKETCH_ALPHA);
  assert_true(pod_sketch_quantile(&s, 1.0) == 1e250);
  pod_sketch_free(&s);
  /* within a factor 2 of DBL_MAX the representative stays finite and
  ** within alpha (fuzz_stats found 2 gamma^k overflowing to DBL_MAX) */
  pod_sketch t;
  pod_sketch_init(&t, 1e-3, NULL);
  double big[] = {1.4516094930382844e+308, 1.7e308, 1e308};
  for (int i = 0; i < 3; i++) assert_int_equal(pod_sketch_add(&t, big[i]), 0);
  assert_rel(pod_sketch_quantile(&t, 0.5), big[0], 1e-3);
  assert_rel(pod_sketch_quantile(&t, 0.0), 1e308, 1e-15);
  pod_sketch_free(&t);
}

/* pod_sketch_quantile (empty ranges skipped by blocks) and
** pod_sketch_quantiles (one walk for many probabilities, in any order,
** repeated, 0 and 1, more than a batch) against the scan, bit for bit, on
** stores with long empty ranges, dense ones and one-sided ones. */
static void test_sketch_quantiles_walk(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  enum { NP = 150 };
  double probs[NP], got[NP];
  for (int shape = 0; shape < 4; shape++) {
    pod_sketch s;
    pod_sketch_init(&s, shape == 3 ? 0.3 : 1e-3, NULL);
    double q0[3];
    pod_sketch_quantiles(&s, pod_stats_qprobs, 3, q0); /* empty: NaN */
    assert_true(isnan(q0[0]) && isnan(q0[2]));
    for (int i = 0; i < 5000; i++) {
      double u = gsl_rng_uniform(g), x;
      if (shape == 0) /* far apart clusters of both signs and zeros */
        x = i % 7 == 0
                ? 0.0
                : (i % 3 ? 1 : -1) * pow(10, -200 + 40 * (i % 11)) * (1 + u);
      else if (shape == 1) /* dense, positive */
        x = 1 + u;
      else /* negative only (shape 2), or coarse buckets (shape 3) */
        x = shape == 2 ? -exp(20 * u) : exp(40 * u - 20);
      assert_int_equal(pod_sketch_add(&s, x), POD_OK);
    }
    for (int k = 0; k < NP; k++)
      probs[k] = k % 10 == 0 ? (k % 20 ? 0.0 : 1.0) : gsl_rng_uniform(g);
    probs[5] = probs[6]; /* a repeat */
    pod_sketch_quantiles(&s, probs, NP, got);
    for (int k = 0; k < NP; k++) {
      double want = sketch_scan(&s, probs[k]),
             one = pod_sketch_quantile(&s, probs[k]);
      assert_memory_equal(&got[k], &want, sizeof want);
      assert_memory_equal(&one, &want, sizeof want);
    }
    for (int j = 0; j <= 1000; j++) { /* every rank region, in order */
      double p = j / 1000.0, want = sketch_scan(&s, p);
      double one = pod_sketch_quantile(&s, p);
      assert_memory_equal(&one, &want, sizeof want);
    }
    pod_sketch_free(&s);
  }
  gsl_rng_free(g);
}

/* Column memory: small blocks as malloc's, large ones 2 MB-aligned with
** their whole size usable, all released by free(). */
/* Resident 4 kB pages of [p, p + n) (p 4 kB-aligned), -1 when that cannot
** be told (not Linux); the populated ones under MADV_POPULATE_WRITE (a
** kernel before 5.14 refuses it: then nothing is resident, and the
** counts below say so by failing, as they should on this project's
** kernels). */
static long resident_pages(const void *p, size_t n) {
#if defined(__linux__)
  size_t np = (n + 4095) / 4096;
  unsigned char *v = malloc(np);
  if (!v || mincore((void *)p, n, v)) {
    free(v);
    return -2;
  }
  long k = 0;
  for (size_t i = 0; i < np; i++) k += v[i] & 1;
  free(v);
  return k;
#else
  (void)p;
  (void)n;
  return -1;
#endif
}

static void test_column_alloc(void **st) {
  (void)st;
  const size_t sizes[] = {0, 8, 4u << 20, 8000000, (4u << 20) + 1};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char *p = pod_stats_column_alloc(sizes[i]);
    assert_non_null(p);
    if (sizes[i] >= (4u << 20)) assert_int_equal((uintptr_t)p % (2u << 20), 0);
    if (sizes[i]) {
      memset(p, 0xab, sizes[i]);
      assert_int_equal(p[sizes[i] - 1], 0xab);
    }
    free(p);
  }
  assert_null(pod_stats_column_alloc(SIZE_MAX - 16)); /* no room: NULL */
  assert_null(pod_stats_column_alloc_full(SIZE_MAX - 16));
  /* populated buffers: usable at every size, and (Linux) their whole pages
  ** resident at once (malloc may have touched one more for its own use) */
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
    unsigned char *p = pod_stats_column_alloc_full(sizes[i]);
    assert_non_null(p);
    if (sizes[i] >= (4u << 20)) {
      assert_int_equal((uintptr_t)p % (2u << 20), 0);
      long k = resident_pages(p, sizes[i]);
      assert_true(k == -1 || k >= (long)(sizes[i] / 4096));
    }
    if (sizes[i]) {
      memset(p, 0xcd, sizes[i]);
      assert_int_equal(p[sizes[i] - 1], 0xcd);
    }
    free(p);
  }
#if defined(__linux__)
  /* pod_stats_column_touch: the 2 MB blocks a range starts, only those
  ** (a fresh mapping of four blocks and a half, nothing resident) */
  size_t cap = 9u << 20;
  unsigned char *c = mmap(NULL, cap, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  assert_true(c != MAP_FAILED);
  pod_stats_column_touch(c, cap, 100, 100); /* empty: nothing */
  pod_stats_column_touch(c, cap, 1, 4096);  /* starts no block */
  assert_int_equal(resident_pages(c, cap), 0);
  pod_stats_column_touch(c, cap, 0, 8);                           /* block 0 */
  pod_stats_column_touch(c, cap, (4u << 20) - 8, (4u << 20) + 8); /* block 2 */
  pod_stats_column_touch(c, cap, (8u << 20) + 1, cap); /* in block 4: none */
  assert_int_equal(resident_pages(c, cap), 2 * 512);
  assert_int_equal(resident_pages(c, 2u << 20), 512);
  assert_int_equal(resident_pages(c + (4u << 20), 2u << 20), 512);
  pod_stats_column_touch(c, cap, (8u << 20) - 8, cap); /* block 4: to the end */
  assert_int_equal(resident_pages(c, cap), 2 * 512 + 256);
  memset(c, 0x5a, cap);
  assert_int_equal(c[cap - 1], 0x5a);
  munmap(c, cap);
#endif
  unsigned char small[64];
  pod_stats_column_touch(small, sizeof small, 0, sizeof small); /* < 4 MB */
}

static void test_hist(void **st) {
  (void)st;
  pod_hist h;
  pod_err e;
  assert_int_equal(pod_hist_init(&h, 0, 0, 1, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "bins");
  assert_int_equal(pod_hist_init(&h, 4, NAN, 1, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "lo");
  assert_int_equal(pod_hist_init(&h, 4, 0, 1, 1, &e), POD_EINVAL);
  assert_string_equal(e.field, "lo");
  assert_int_equal(pod_hist_init(&h, 4, 2, 1, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "hi");

  assert_int_equal(pod_hist_init(&h, 4, 0, 4, 0, NULL), POD_OK);
  double xs[] = {-1, 0, 0.5, 1, 2.999, 3, 4, 4.0001, NAN};
  for (int i = 0; i < 9; i++) pod_hist_add(&h, xs[i], 1);
  assert_int_equal(h.under, 2); /* -1 and NaN: counted, never dropped */
  assert_int_equal(h.over, 1);
  assert_int_equal(h.counts[0], 2);
  assert_int_equal(h.counts[1], 1);
  assert_int_equal(h.counts[2], 1);
  assert_int_equal(h.counts[3], 2); /* 3 and the closed upper edge 4 */
  assert_int_equal(h.total, 9);
  assert_near(pod_hist_edge(&h, 1), 1.0, 1e-15);
  assert_near(pod_hist_edge(&h, 4), 4.0, 0);
  pod_hist_free(&h);

  assert_int_equal(pod_hist_init(&h, 3, 1, 1000, 1, NULL),
                   POD_OK); /* log bins */
  pod_hist_add(&h, 5, 2);
  pod_hist_add(&h, 50, 3);
  pod_hist_add(&h, 999, 1);
  assert_int_equal(h.counts[0], 2);
  assert_int_equal(h.counts[1], 3);
  assert_int_equal(h.counts[2], 1);
  assert_near(pod_hist_edge(&h, 1), 10.0, 1e-12);
  pod_hist_free(&h);

  assert_int_equal(pod_hist_init(&h, 5, 2, 2, 0, NULL), POD_OK); /* one point */
  pod_hist_add(&h, 2, 7);
  pod_hist_add(&h, 2.5, 1);
  assert_int_equal(h.counts[0], 7);
  assert_int_equal(h.over, 1);
  pod_hist_free(&h);
  pod_hist_free(NULL);

  /* pod_hist_add_n: the counts of pod_hist_add, value by value (linear,
  ** log and one-point bins; edges, outside values, NaN, infinities, -0,
  ** long runs in one bin; sizes that leave a tail after the lanes of
  ** four and sizes below the lanes' threshold) */
  enum { NV = 5000 };
  double *v = malloc(NV * sizeof *v);
  for (int i = 0; i < NV; i++)
    v[i] = i % 97 == 0    ? NAN
           : i % 89 == 0  ? 2.0
           : i % 83 == 0  ? 1000.0
           : i % 211 == 0 ? (i % 2 ? INFINITY : -INFINITY)
           : i % 223 == 0 ? -0.0
           : i > 4000     ? 3.0 + (i % 3) * 1e-9 /* a run in one bin */
                          : 0.5 + 1200.0 * ((i * 7919) % NV) / NV;
  const double cfg[4][3] = {
      {2, 1000, 0}, {2, 1000, 1}, {2, 2, 0}, {-1, 1000, 0}};
  const int sizes[] = {NV, NV - 1, NV - 2, NV - 3, 65, 63, 3};
  for (size_t z = 0; z < sizeof sizes / sizeof *sizes; z++)
    for (int c = 0; c < 4; c++) {
      int nv = sizes[z];
      pod_hist a, b;
      assert_int_equal(
          pod_hist_init(&a, 37, cfg[c][0], cfg[c][1], (int)cfg[c][2], NULL),
          POD_OK);
      assert_int_equal(
          pod_hist_init(&b, 37, cfg[c][0], cfg[c][1], (int)cfg[c][2], NULL),
          POD_OK);
      for (int i = 0; i < nv; i++) pod_hist_add(&a, v[i], 1);
      pod_hist_add_n(&b, v, (size_t)nv);
      assert_memory_equal(a.counts, b.counts, 37 * sizeof *a.counts);
      assert_true(a.under == b.under && a.over == b.over && a.total == b.total);
      /* the whole column reaches both sides of every range but the last */
      if (nv == NV && c < 3) assert_true(a.under > 0 && a.over > 0);
      pod_hist_free(&a);
      pod_hist_free(&b);
    }
  free(v);
}

/* qsort of indices by value (the order pod_hist_add_sorted takes) */
static const double *sort_x;
static int by_value(const void *a, const void *b) {
  double u = sort_x[*(const uint32_t *)a], v = sort_x[*(const uint32_t *)b];
  return (u > v) - (u < v);
}

static void test_hist_sorted(void **st) {
  (void)st;
  /* pod_hist_add_sorted against pod_hist_add_n: linear, log and one-point
  ** bins; ties, -0 and +0 mixed, values on the edges and outside [lo, hi],
  ** a bin boundary hit exactly, empty bins, 1 to 300 bins; the order
  ** ascending and read backwards (a descending column) */
  enum { NV = 3001 };
  double *x = malloc(NV * sizeof *x), *y = malloc(NV * sizeof *y);
  uint32_t *o = malloc(NV * sizeof *o);
  assert_true(x && y && o);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  const double cfg[][3] = {{0, 10, 0},   {0, 10, 1e-300}, {-3, 7, 0},
                           {2, 2, 0},    {0.5, 10, 1},    {1e-9, 1e9, 1},
                           {-0.0, 0, 0}, {0, 1e-300, 0}};
  const int bins[] = {1, 2, 7, 40, 300};
  for (size_t c = 0; c < sizeof cfg / sizeof *cfg; c++)
    for (size_t b = 0; b < sizeof bins / sizeof *bins; b++)
      for (int kind = 0; kind < 3; kind++) {
        double lo = cfg[c][0], hi = cfg[c][1];
        for (int i = 0; i < NV; i++) {
          double u = gsl_rng_uniform(r);
          x[i] = kind == 0   ? lo - 1 + (hi - lo + 2) * u /* spread */
                 : kind == 1 ? lo + (hi - lo) * (double)(int)(u * 9) / 8
                             : (u < 0.3   ? -0.0
                                : u < 0.6 ? 0.0
                                          : lo);
          if (i % 101 == 0) x[i] = hi;
          if (i % 103 == 0) x[i] = lo;
          if (i % 107 == 0) x[i] = lo + (hi - lo) / bins[b]; /* an edge */
          y[i] = -x[i];
        }
        for (int dir = 0; dir < 2; dir++) {
          const double *v = dir ? y : x;
          for (uint32_t i = 0; i < NV; i++) o[i] = i;
          sort_x = x; /* ascending in x: descending in y = -x */
          qsort(o, NV, sizeof *o, by_value);
          double l = dir ? -hi : lo, h = dir ? -lo : hi;
          int logb = cfg[c][2] != 0 && l > 0;
          pod_hist a, s2;
          assert_int_equal(pod_hist_init(&a, bins[b], l, h, logb, NULL),
                           POD_OK);
          assert_int_equal(pod_hist_init(&s2, bins[b], l, h, logb, NULL),
                           POD_OK);
          pod_hist_add_n(&a, v, NV);
          pod_hist_add_sorted(&s2, v, o, dir, NV);
          assert_memory_equal(a.counts, s2.counts,
                              (size_t)bins[b] * sizeof *a.counts);
          assert_true(a.under == s2.under && a.over == s2.over &&
                      a.total == s2.total);
          pod_hist_free(&a);
          pod_hist_free(&s2);
        }
      }
  /* n = 0 and one value */
  pod_hist h;
  assert_int_equal(pod_hist_init(&h, 4, 0, 1, 0, NULL), POD_OK);
  pod_hist_add_sorted(&h, x, o, 0, 0);
  assert_true(h.total == 0 && h.under == 0 && h.over == 0);
  double one = 0.6;
  uint32_t z = 0;
  pod_hist_add_sorted(&h, &one, &z, 1, 1);
  assert_true(h.counts[2] == 1 && h.total == 1);
  pod_hist_free(&h);
  gsl_rng_free(r);
  free(x);
  free(y);
  free(o);
}

static void test_spearman(void **st) {
  (void)st;
  /* hand-computed: ranks y = 1 2 3.5 5 3.5; rho = 8 / sqrt(10 * 9.5) */
  const double x[] = {1, 2, 3, 4, 5}, y[] = {5, 6, 7, 8, 7};
  double rho, ry[5];
  assert_int_equal(pod_stats_ranks(y, 5, ry), POD_OK);
  assert_true(ry[0] == 1 && ry[1] == 2 && ry[2] == 3.5 && ry[3] == 5 &&
              ry[4] == 3.5);
  assert_int_equal(pod_stats_spearman(x, y, 5, &rho), POD_OK);
  assert_near(rho, 8 / sqrt(95.0), 1e-15);
  /* against gsl_stats_spearman on data with ties */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  const size_t n = 5000;
  double *a = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double));
  double *work = malloc(2 * n * sizeof(double));
  for (size_t i = 0; i < n; i++) {
    a[i] = floor(gsl_rng_uniform(r) * 50);
    b[i] = a[i] * a[i] + gsl_ran_gaussian(r, 300);
  }
  assert_int_equal(pod_stats_spearman(a, b, n, &rho), POD_OK);
  assert_near(rho, gsl_stats_spearman(a, 1, b, 1, n, work), 1e-12);
  assert_true(rho > 0.5);
  /* constant input: undefined */
  for (size_t i = 0; i < n; i++) a[i] = 1.0;
  assert_int_equal(pod_stats_spearman(a, b, n, &rho), POD_OK);
  assert_true(isnan(rho));
  assert_true(isnan(pod_stats_pearson(a, b, 1)));
  free(a);
  free(b);
  free(work);
  gsl_rng_free(r);
}

static void test_sobol_formula(void **st) {
  (void)st;
  pod_sobol_acc a = {0, 0, 0};
  double s1, stt;
  pod_sobol_indices(&a, 1.0, &s1, &stt);
  assert_true(isnan(s1) && isnan(stt));
  a = (pod_sobol_acc){10, 5.0, 8.0};
  pod_sobol_indices(&a, 2.0, &s1, &stt);
  assert_near(s1, 0.25, 1e-15);
  assert_near(stt, 0.2, 1e-15);
  pod_sobol_indices(&a, 0.0, &s1, &stt);
  assert_true(isnan(s1));
}

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_moments_vs_gsl),
      cmocka_unit_test(test_moments_merge_splits),
      cmocka_unit_test(test_moments_near_double_limit),
      cmocka_unit_test(test_ci95),
      cmocka_unit_test(test_exact_quantiles),
      cmocka_unit_test(test_sketch_bound_and_merge),
      cmocka_unit_test(test_sketch_wide_range),
      cmocka_unit_test(test_sketch_quantiles_walk),
      cmocka_unit_test(test_column_alloc),
      cmocka_unit_test(test_hist),
      cmocka_unit_test(test_hist_sorted),
      cmocka_unit_test(test_spearman),
      cmocka_unit_test(test_sobol_formula),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
