/*
** test_stats_rank.c: ranks, quantiles and Spearman from pod_ranks
** (core/stats_rank.c) against references computed here by other means:
** average ranks from GSL's index sort, quantiles from gsl_sort and
** gsl_stats_quantile_from_sorted_data, and gsl_stats_spearman.  Data
** shapes chosen to reach every path of the radix sort: insertion-sort
** sizes, spread values, ties, two values, all equal, a narrow cluster
** with far outliers, zeros of both signs, subnormals, sorted and
** reversed input, and sizes whose exact sums pass 2^64.  Ranks taken
** from another column's order (pod_ranks_reuse) against a sort.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pod_err.h"
#include "pod_stats.h"
#include "stats_int.h"
#include "near.h"

/* average 1-based ranks by GSL's index sort, ties by == (-0 == +0) */
static void ref_ranks(const double *x, size_t n, double *r) {
  size_t *p = malloc((n ? n : 1) * sizeof *p);
  gsl_sort_index(p, x, 1, n);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && x[p[j]] == x[p[i]]) j++;
    for (size_t t = i; t < j; t++) r[p[t]] = 0.5 * (double)(i + 1 + j);
    i = j;
  }
  free(p);
}

enum { KINDS = 14 };

static void fill(double *x, size_t n, int kind, gsl_rng *g) {
  for (size_t i = 0; i < n; i++) {
    double u = gsl_rng_uniform(g);
    switch (kind) {
      case 0:
        x[i] = gsl_ran_lognormal(g, 0, 2) - 1;
        break; /* spread */
      case 1:
        x[i] = floor(u * 5);
        break; /* many ties */
      case 2:
        x[i] = u < 0.5 ? 0 : 1;
        break; /* a choice */
      case 3:
        x[i] = 2.5;
        break; /* all equal */
      case 4:  /* a narrow cluster and far outliers */
        x[i] = i % 997 == 5 ? (i % 2 ? 1e300 : -1e300) : 1 + 1e-12 * u;
        break;
      case 5: /* zeros of both signs among negatives and positives */
        x[i] = i % 3 == 0 ? (i % 2 ? 0.0 : -0.0) : u - 0.5;
        break;
      case 6:
        x[i] = u * 4.9e-320;
        break; /* subnormals */
      case 7:
        x[i] = (double)i;
        break; /* sorted */
      case 8:
        x[i] = -(double)i * 0.25;
        break;
      case 9: { /* keys 2048 apart: the lowest radix digit is shared */
        uint64_t k = 0x3ff0000000000000ULL + 2048 * (uint64_t)(u * 4096);
        memcpy(&x[i], &k, sizeof k);
        break;
      }
      case 10: { /* keys 1 ulp apart, thousands sharing the upper radix
                  ** digits: the counting sort of the lowest digit */
        uint64_t k = 0x3ff0000000000000ULL + (uint64_t)(u * 8192);
        memcpy(&x[i], &k, sizeof k);
        break;
      }
      case 12: { /* the extremes of the doubles, finite, and both zeros */
        static const double ext[] = {-DBL_MAX,     DBL_MAX, -DBL_TRUE_MIN,
                                     DBL_TRUE_MIN, DBL_MIN, -DBL_MIN,
                                     -0.0,         0.0,     1.0};
        x[i] = ext[(size_t)(u * 9)];
        break;
      }
      case 13: /* a thousand integer levels: runs whose prefixes drop bits */
        x[i] = floor(u * 1000);
        break;
      default:
        x[i] = u * u;
        break;
    }
  }
}

static void test_ranks_vs_reference(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  /* 150001: past SCATTER_PF_MIN (stats_rank.c), the scatters prefetch */
  const size_t sizes[] = {1,   2,    3,    24,   25,     33,
                          100, 1000, 2049, 5000, 100003, 150001};
  for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
    size_t n = sizes[si];
    double *x = malloc(n * sizeof *x), *want = malloc(n * sizeof *want);
    double *got = malloc(n * sizeof *got);
    for (int kind = 0; kind < KINDS; kind++) {
      fill(x, n, kind, g);
      ref_ranks(x, n, want);
      assert_int_equal(pod_stats_ranks(x, n, got), POD_OK);
      for (size_t i = 0; i < n; i++) assert_true(got[i] == want[i]);
      /* r2 is twice the rank, the sum of squares is exact */
      pod_ranks r;
      double q[POD_STATS_NQ];
      assert_int_equal(
          pod_ranks_init(&r, x, n, pod_stats_qprobs, POD_STATS_NQ, q), POD_OK);
      double ss = 0;
      for (size_t i = 0; i < n; i++) {
        assert_true(r.r2[i] == 2 * want[i]);
        ss += 4 * want[i] * want[i];
      }
      assert_true(r.ss_hi == 0 && (double)r.ss_lo == ss);
      /* the quantiles: those of pod_stats_quantiles and of GSL's formula
      ** on the sorted data (which may differ in the sign of a zero) */
      double *s = malloc(n * sizeof *s), want_q[POD_STATS_NQ];
      memcpy(s, x, n * sizeof *s);
      pod_stats_quantiles(s, n, pod_stats_qprobs, POD_STATS_NQ, want_q);
      for (int t = 0; t < POD_STATS_NQ; t++) assert_true(q[t] == want_q[t]);
      if (n >= 4096) /* the radix path: the same order, the same bytes */
        assert_memory_equal(q, want_q, sizeof q);
      memcpy(s, x, n * sizeof *s);
      gsl_sort(s, 1, n);
      for (int t = 0; t < POD_STATS_NQ; t++)
        assert_true(q[t] == gsl_stats_quantile_from_sorted_data(
                                s, 1, n, pod_stats_qprobs[t]));
      free(s);
      pod_ranks_free(&r);
      /* with bounds: exact ones, loose ones and wrong ones (detected)
      ** give the same ranks and quantiles */
      double lo = x[0], hi = x[0];
      for (size_t i = 1; i < n; i++) {
        lo = x[i] < lo ? x[i] : lo;
        hi = x[i] > hi ? x[i] : hi;
      }
      const double bset[4][2] = {
          {lo, hi}, {-1e308, 1e308}, {lo + 0.5 * (hi - lo), hi}, {0, 0}};
      pod_ranks_work *wk = pod_ranks_work_new();
      assert_non_null(wk);
      for (int bi = 0; bi < 4; bi++) {
        double qb[POD_STATS_NQ];
        assert_int_equal(
            pod_ranks_init_with(&r, x, n, bset[bi], pod_stats_qprobs,
                                POD_STATS_NQ, qb, bi % 2, wk),
            POD_OK);
        for (size_t i = 0; i < n; i++) assert_true(r.r2[i] == 2 * want[i]);
        assert_memory_equal(qb, q, sizeof q);
        pod_ranks_recycle(&r, wk);
        assert_null(r.r2);
      }
      pod_ranks_work_free(wk);
      /* the kept order sorts x (runs of equal 32-bit prefixes with
      ** different keys, case 4, are sorted by their full keys) */
      assert_int_equal(pod_ranks_init_ordered(&r, x, n, NULL, 0, NULL), POD_OK);
      for (size_t t = 0; t < n; t++) {
        assert_true(r.r2[r.order[t]] == 2 * want[r.order[t]]);
        if (t > 0) assert_true(x[r.order[t - 1]] <= x[r.order[t]]);
      }
      pod_ranks_free(&r);
    }
    free(x);
    free(want);
    free(got);
  }
  gsl_rng_free(g);
}

static void test_spearman_vs_gsl(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  const size_t n = 20011;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double *work = malloc(2 * n * sizeof *work);
  for (int ka = 0; ka < KINDS; ka++) {
    for (int kb = 0; kb < KINDS; kb++) {
      fill(a, n, ka, g);
      fill(b, n, kb, g);
      for (size_t i = 0; i < n; i++) b[i] += 0.3 * a[i]; /* some relation */
      double rho;
      assert_int_equal(pod_stats_spearman(a, b, n, &rho), POD_OK);
      double want = gsl_stats_spearman(a, 1, b, 1, n, work);
      if (isnan(want) || !isfinite(want))
        assert_true(isnan(rho));
      else
        assert_near(rho, want, 1e-12);
    }
  }
  /* many rank sets against one in a pass: the pairwise values, bit for
  ** bit (more sets than one group, one of another size, constant sets) */
  {
    enum { NS = 11 };
    pod_ranks set[NS], y;
    double rho[NS];
    fill(b, n, 0, g);
    assert_int_equal(pod_ranks_init(&y, b, n, NULL, 0, NULL), POD_OK);
    for (int k = 0; k < NS; k++) {
      fill(a, n, k % KINDS, g);
      for (size_t i = 0; i < n && k != 3; i++) a[i] += k * 0.1 * b[i];
      assert_int_equal(
          pod_ranks_init(&set[k], a, k == 4 ? n - 1 : n, NULL, 0, NULL),
          POD_OK);
    }
    pod_ranks_spearman_n(set, NS, &y, rho);
    for (int k = 0; k < NS; k++) {
      double want = pod_ranks_spearman(&set[k], &y);
      assert_memory_equal(&rho[k], &want, sizeof want);
      pod_ranks_free(&set[k]);
    }
    assert_true(isnan(rho[4]) && isnan(rho[3])); /* size; constant */
    pod_ranks_free(&y);
  }
  /* identical and reversed orders give exactly 1 and -1 */
  fill(a, n, 0, g);
  for (size_t i = 0; i < n; i++) b[i] = -3 * a[i];
  pod_ranks ra, rb;
  assert_int_equal(pod_ranks_init(&ra, a, n, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&rb, b, n, NULL, 0, NULL), POD_OK);
  assert_true(pod_ranks_spearman(&ra, &ra) == 1.0);
  assert_true(pod_ranks_spearman(&ra, &rb) == -1.0);
  /* sizes differ, n < 2: NaN */
  pod_ranks rc;
  assert_int_equal(pod_ranks_init(&rc, a, n - 1, NULL, 0, NULL), POD_OK);
  assert_true(isnan(pod_ranks_spearman(&ra, &rc)));
  pod_ranks_free(&rc);
  assert_int_equal(pod_ranks_init(&rc, a, 1, NULL, 0, NULL), POD_OK);
  assert_true(isnan(pod_ranks_spearman(&rc, &rc)));
  pod_ranks_free(&rc);
  assert_int_equal(pod_ranks_init(&rc, a, 0, NULL, 0, NULL), POD_OK);
  assert_true(rc.n == 0 && isnan(pod_ranks_spearman(&rc, &rc)));
  pod_ranks_free(&rc);
  pod_ranks_free(&ra);
  pod_ranks_free(&rb);
  pod_ranks_free(NULL);
  /* too many values: refused before touching them */
  double q[2] = {0, 0}, p[2] = {0.5, 0.9};
  assert_int_equal(pod_ranks_init(&rc, a, POD_RANKS_MAX + 1, p, 2, q),
                   POD_ENOMEM);
  assert_true(rc.r2 == NULL && isnan(q[0]) && isnan(q[1]));
  free(a);
  free(b);
  free(work);
  gsl_rng_free(g);
}

/* The sums of rank products (four at a time in two lanes where SSE2 is
** there, the rest one by one) are exact: for every length 2..70 (every
** remainder of the 4-wide steps) and one past a 2,048-row block, each
** entry's coefficient is pod_ranks__rho of the one-by-one sum, bit for
** bit (pairs, many against one, and a column against many). */
static void test_spearman_lengths(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  enum { NMAX = 2051, NS = 3 };
  double *a = malloc(NMAX * sizeof *a), *b = malloc(NMAX * sizeof *b);
  pod_ranks_work *w = pod_ranks_work_new();
  assert_non_null(w);
  for (size_t n = 2; n <= NMAX; n = n < 70 ? n + 1 : NMAX + 1) {
    pod_ranks ra, rb[NS];
    for (size_t i = 0; i < n; i++) a[i] = gsl_rng_uniform(g);
    assert_int_equal(pod_ranks_init(&ra, a, n, NULL, 0, NULL), POD_OK);
    double want[NS];
    for (int k = 0; k < NS; k++) {
      for (size_t i = 0; i < n; i++)
        b[i] = (k == 1 ? -a[i] : a[i]) + gsl_ran_gaussian(g, 0.2 * k + 0.1);
      assert_int_equal(pod_ranks_init(&rb[k], b, n, NULL, 0, NULL), POD_OK);
      u128 sab = {0, 0};
      for (size_t i = 0; i < n; i++)
        sab = u128_add(sab, (uint64_t)ra.r2[i] * rb[k].r2[i]);
      want[k] = pod_ranks__rho(sab, &ra, &rb[k], n);
      double got = pod_ranks_spearman(&ra, &rb[k]);
      assert_memory_equal(&got, &want[k], sizeof got);
    }
    double rho[NS];
    pod_ranks_spearman_n(rb, NS, &ra, rho);
    assert_memory_equal(rho, want, sizeof rho);
    assert_int_equal(pod_ranks_spearman_col(a, n, NULL, rb, NS, rho, w),
                     POD_OK);
    assert_memory_equal(rho, want, sizeof rho);
    pod_ranks_free(&ra);
    for (int k = 0; k < NS; k++) pod_ranks_free(&rb[k]);
  }
  pod_ranks_work_free(w);
  free(a);
  free(b);
  gsl_rng_free(g);
}

/* n = 2.6 M: the sums of squares and products pass 2^64, so the block
** sums and the 128-bit carries are exercised; the coefficient must still
** agree with the double-precision Pearson coefficient of the ranks. */
static void test_spearman_past_2_64(void **st) {
  (void)st;
  const size_t n = 2600000;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
  double *ra = malloc(n * sizeof *ra), *rb = malloc(n * sizeof *rb);
  for (size_t i = 0; i < n; i++) {
    a[i] = gsl_rng_uniform(g);
    b[i] = a[i] + gsl_ran_gaussian(g, 0.3);
  }
  pod_ranks pa, pb;
  assert_int_equal(pod_ranks_init(&pa, a, n, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&pb, b, n, NULL, 0, NULL), POD_OK);
  assert_true(pa.ss_hi > 0);
  ref_ranks(a, n, ra);
  ref_ranks(b, n, rb);
  /* the sums of squares past 2^64, exact (a has ties: 32-bit uniforms) */
  const pod_ranks *pr[2] = {&pa, &pb};
  const double *rr[2] = {ra, rb};
  for (int k = 0; k < 2; k++) {
    uint64_t hi = 0, lo = 0;
    for (size_t i = 0; i < n; i++) {
      uint64_t v = (uint64_t)(2 * rr[k][i]);
      assert_true(pr[k]->r2[i] == v);
      lo += v * v;
      hi += lo < v * v;
    }
    assert_true(pr[k]->ss_hi == hi && pr[k]->ss_lo == lo);
  }
  double want = pod_stats_pearson(ra, rb, n);
  assert_near(pod_ranks_spearman(&pa, &pb), want, 1e-12);
  assert_true(want > 0.5);
  assert_true(pod_ranks_spearman(&pa, &pa) == 1.0);
  pod_ranks_free(&pa);
  pod_ranks_free(&pb);
  free(a);
  free(b);
  free(ra);
  free(rb);
  gsl_rng_free(g);
}

/* ranks from another column's order: the same ranks, sums and quantile
** bytes as a sort when y is monotone along it; refused otherwise */
static void test_reuse_order(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  const size_t n = 30011;
  double *x = malloc(n * sizeof *x), *y = malloc(n * sizeof *y);
  for (int kind = 0; kind < KINDS; kind++) {
    fill(x, n, kind, g);
    pod_ranks rx;
    double qx[POD_STATS_NQ];
    assert_int_equal(
        pod_ranks_init_ordered(&rx, x, n, pod_stats_qprobs, POD_STATS_NQ, qx),
        POD_OK);
    assert_non_null(rx.order);
    for (size_t t = 1; t < n; t++)
      assert_true(x[rx.order[t - 1]] <= x[rx.order[t]]);
    for (int f = 0; f < 5; f++) {
      int monotone = 1;
      for (size_t i = 0; i < n; i++) {
        double v = x[i];
        y[i] = f == 0   ? 2 * v + 1           /* increasing */
               : f == 1 ? 1 / (fabs(v) + 0.5) /* down for v > 0, up for v < 0 */
               : f == 2 ? floor(v * 3) * 0.25 /* new ties */
               : f == 3 ? 7.0                 /* constant */
                        : gsl_rng_uniform(g); /* unrelated */
      }
      if (f == 1) { /* monotone unless x has both signs */
        int neg = 0, pos = 0;
        for (size_t i = 0; i < n; i++) {
          neg |= x[i] < 0;
          pos |= x[i] > 0;
        }
        monotone = !(neg && pos);
      }
      if (f == 4) monotone = 0;      /* unrelated */
      for (size_t i = 0; i < n; i++) /* a -0 is refused */
        monotone &= !(y[i] == 0 && signbit(y[i]));
      pod_ranks a, b;
      double qa[POD_STATS_NQ], qb[POD_STATS_NQ];
      int rc =
          pod_ranks_reuse(&a, y, n, &rx, pod_stats_qprobs, POD_STATS_NQ, qa);
      if (!monotone) {
        assert_int_equal(rc, POD_ERANGE);
        assert_true(a.r2 == NULL && isnan(qa[0]));
        continue;
      }
      assert_int_equal(rc, POD_OK);
      assert_int_equal(
          pod_ranks_init(&b, y, n, pod_stats_qprobs, POD_STATS_NQ, qb), POD_OK);
      assert_memory_equal(a.r2, b.r2, n * sizeof *a.r2);
      assert_true(a.ss_hi == b.ss_hi && a.ss_lo == b.ss_lo);
      assert_memory_equal(qa, qb, sizeof qa);
      assert_null(a.order);
      pod_ranks_free(&a);
      pod_ranks_free(&b);
    }
    pod_ranks_free(&rx);
  }
  /* a -0 in y, no order, another n: refused */
  fill(x, n, 0, g);
  pod_ranks rx, a;
  assert_int_equal(pod_ranks_init_ordered(&rx, x, n, NULL, 0, NULL), POD_OK);
  for (size_t i = 0; i < n; i++) y[i] = x[i] > 1 ? -0.0 : x[i];
  assert_int_equal(pod_ranks_reuse(&a, y, n, &rx, NULL, 0, NULL), POD_ERANGE);
  pod_ranks_free(&rx);
  fill(x, n, 9, g); /* x >= 0 */
  assert_int_equal(pod_ranks_init_ordered(&rx, x, n, NULL, 0, NULL), POD_OK);
  for (int end = 0; end < 2; end++) { /* a -0 first or last, else monotone */
    for (size_t i = 0; i < n; i++) y[i] = end ? -x[i] - 1 : x[i] + 1;
    assert_int_equal(pod_ranks_reuse(&a, y, n, &rx, NULL, 0, NULL), POD_OK);
    pod_ranks_free(&a);
    y[rx.order[0]] = -0.0;
    assert_int_equal(pod_ranks_reuse(&a, y, n, &rx, NULL, 0, NULL), POD_ERANGE);
    assert_null(a.r2);
  }
  assert_int_equal(pod_ranks_reuse(&a, x, n - 1, &rx, NULL, 0, NULL),
                   POD_EINVAL);
  pod_ranks plain;
  assert_int_equal(pod_ranks_init(&plain, x, n, NULL, 0, NULL), POD_OK);
  assert_null(plain.order);
  assert_int_equal(pod_ranks_reuse(&a, x, n, &plain, NULL, 0, NULL),
                   POD_EINVAL);
  pod_ranks_free(&plain);
  pod_ranks_free(&rx);
  free(x);
  free(y);
  gsl_rng_free(g);
}

/* Ranks by counting the levels of a discrete column: the same r2 and sums
** as the sort, for levels with a repeated value, -0 beside +0, negatives,
** one level, and sizes 0, 1, 2 and larger; the refusals. */
static void assert_same_ranks(const pod_ranks *a, const pod_ranks *b) {
  assert_int_equal(a->n, b->n);
  assert_true(a->ss_hi == b->ss_hi && a->ss_lo == b->ss_lo);
  for (size_t i = 0; i < a->n; i++) assert_int_equal(a->r2[i], b->r2[i]);
}

static void test_ranks_levels(void **st) {
  (void)st;
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  static const double lv[] = {-2.5, -0.0, 0.0, 1.0, 1.0, 3.0, 1e300};
  const int nlv = (int)(sizeof lv / sizeof lv[0]);
  static const size_t sizes[] = {0, 1, 2, 17, 40009};
  double *x = malloc(40009 * sizeof *x);
  pod_ranks_work *wk = pod_ranks_work_new();
  assert_non_null(wk);
  for (int use = 1; use <= nlv; use++) /* the first `use` levels */
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
      size_t n = sizes[s];
      for (size_t i = 0; i < n; i++)
        x[i] = lv[gsl_rng_uniform_int(g, (unsigned long)use)];
      pod_ranks a, b;
      assert_int_equal(pod_ranks_init(&a, x, n, NULL, 0, NULL), POD_OK);
      assert_int_equal(pod_ranks_init_levels(&b, x, n, lv, use, wk), POD_OK);
      assert_null(b.order);
      assert_same_ranks(&a, &b);
      if (n >= 2) /* Spearman against a column ranked by sorting */
        assert_true(pod_ranks_spearman(&a, &a) == pod_ranks_spearman(&a, &b) ||
                    isnan(pod_ranks_spearman(&a, &a)));
      pod_ranks_free(&a);
      pod_ranks_recycle(&b, wk);
    }
  /* a value that is not a level: POD_ERANGE, r empty */
  for (size_t i = 0; i < 100; i++) x[i] = lv[i % 3];
  x[57] = 2.0;
  pod_ranks b;
  assert_int_equal(pod_ranks_init_levels(&b, x, 100, lv, nlv, wk), POD_ERANGE);
  assert_null(b.r2);
  assert_int_equal(b.n, 0);
  x[57] = NAN;
  assert_int_equal(pod_ranks_init_levels(&b, x, 100, lv, nlv, NULL),
                   POD_ERANGE);
  /* bad levels: none, too many, descending */
  static const double down[] = {2.0, 1.0};
  double many[POD_RANKS_LEVELS_MAX + 1];
  for (int j = 0; j <= POD_RANKS_LEVELS_MAX; j++) many[j] = j;
  assert_int_equal(pod_ranks_init_levels(&b, x, 10, lv, 0, wk), POD_EINVAL);
  assert_int_equal(
      pod_ranks_init_levels(&b, x, 10, many, POD_RANKS_LEVELS_MAX + 1, wk),
      POD_EINVAL);
  assert_int_equal(pod_ranks_init_levels(&b, x, 10, down, 2, wk), POD_EINVAL);
  assert_null(b.r2);
  pod_ranks_work_free(wk);
  free(x);
  gsl_rng_free(g);
}

/* pod_ranks_spearman_col and pod_ranks_spearman_levels: the coefficients
** of pod_ranks_spearman on ranks kept by pod_ranks_init_with /
** pod_ranks_init_levels, bit for bit, against several rank sets (one of
** another size: NaN), with a recycled rank buffer; their errors. */
static void test_spearman_col(void **st) {
  (void)st;
  enum { N = 3000 };
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *z = malloc(N * sizeof *z), *c = malloc(N * sizeof *c);
  for (size_t i = 0; i < N; i++) {
    x[i] = gsl_ran_lognormal(g, 1.0, 0.7);
    c[i] = (double)(gsl_rng_uniform_int(g, 3));
    y[i] = x[i] * gsl_ran_flat(g, 0.5, 1.5) + c[i];
    z[i] = i % 7 == 0 ? 1.0 : -x[i]; /* ties */
  }
  pod_ranks b[3];
  assert_int_equal(pod_ranks_init(&b[0], y, N, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&b[1], z, N, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&b[2], z, N - 1, NULL, 0, NULL), POD_OK);
  pod_ranks_work *w = pod_ranks_work_new();
  assert_non_null(w);
  double bounds[2] = {0, INFINITY}, wrong[2] = {2.0, 3.0}, rho[3], ref[3],
         xref = NAN;
  const double *bnd[3] = {NULL, bounds, wrong};
  for (int t = 0; t < 3; t++) { /* no bounds, open bounds, wrong bounds */
    for (int rep = 0; rep < 2; rep++) { /* fresh, then recycled buffers */
      assert_int_equal(pod_ranks_spearman_col(x, N, bnd[t], b, 3, rho, w),
                       POD_OK);
      pod_ranks a;
      assert_int_equal(pod_ranks_init(&a, x, N, NULL, 0, NULL), POD_OK);
      for (int k = 0; k < 3; k++) ref[k] = pod_ranks_spearman(&a, &b[k]);
      pod_ranks_free(&a);
      assert_memory_equal(rho, ref, 2 * sizeof *rho);
      assert_true(isnan(rho[2]) && isnan(ref[2]));
      assert_true(rho[0] > 0.3 && rho[1] < -0.5);
      xref = ref[0];
    }
  }
  static const double lv[] = {0.0, 1.0, 2.0};
  assert_int_equal(pod_ranks_spearman_levels(c, N, lv, 3, b, 3, rho, w),
                   POD_OK);
  pod_ranks a;
  assert_int_equal(pod_ranks_init(&a, c, N, NULL, 0, NULL), POD_OK);
  for (int k = 0; k < 3; k++) ref[k] = pod_ranks_spearman(&a, &b[k]);
  pod_ranks_free(&a);
  assert_memory_equal(rho, ref, 2 * sizeof *rho);
  assert_true(isnan(rho[2]));
  /* errors: a value that is no level, levels out of order, nb < 0; the
  ** coefficients are NaN after each; NULL work and n < 2 are fine */
  assert_int_equal(pod_ranks_spearman_levels(x, N, lv, 3, b, 1, rho, w),
                   POD_ERANGE);
  assert_true(isnan(rho[0]));
  static const double bad[] = {1.0, 0.0};
  assert_int_equal(pod_ranks_spearman_levels(c, N, bad, 2, b, 1, rho, w),
                   POD_EINVAL);
  assert_int_equal(pod_ranks_spearman_levels(c, N, lv, 3, b, -1, rho, w),
                   POD_EINVAL);
  assert_int_equal(pod_ranks_spearman_col(x, N, NULL, b, -1, rho, w),
                   POD_EINVAL);
  assert_int_equal(pod_ranks_spearman_col(x, N, NULL, b, 1, rho, NULL), POD_OK);
  assert_memory_equal(rho, &xref, sizeof *rho);
  assert_int_equal(pod_ranks_spearman_col(x, 1, NULL, b, 1, rho, w), POD_OK);
  assert_true(isnan(rho[0]));
  assert_int_equal(
      pod_ranks_spearman_col(x, POD_RANKS_MAX + (size_t)1, NULL, b, 1, rho, w),
      POD_ENOMEM);
  for (int k = 0; k < 3; k++) pod_ranks_free(&b[k]);
  pod_ranks_work_free(w);
  free(x);
  free(y);
  free(z);
  free(c);
  gsl_rng_free(g);
}

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_ranks_vs_reference),
      cmocka_unit_test(test_spearman_vs_gsl),
      cmocka_unit_test(test_spearman_past_2_64),
      cmocka_unit_test(test_spearman_lengths),
      cmocka_unit_test(test_reuse_order),
      cmocka_unit_test(test_ranks_levels),
      cmocka_unit_test(test_spearman_col),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
