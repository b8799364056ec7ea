/*
** test_dist.c: distributions (pod_dist.h): sample moments of every kind for
** a fixed seed, quantile functions, lognormal conversions, every
** invalid-parameter error.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "pod_err.h"
#include "pod_dist.h"
#include "near.h"

static const double dvals[] = {1.0, 2.5, -3.0, 7.0};
static const double dweights[] = {0.1, 0.0, 0.6, 0.3};
static const double evals[] = {3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0};

/* Every kind, valid, with exact mean/variance available. */
static int make_all(pod_dist *d) {
  int n = 0;
  d[n++] = pod_dist_fixed(3.25);
  d[n++] = pod_dist_uniform(-1, 3);
  d[n++] = pod_dist_loguniform(0.1, 100);
  d[n++] = pod_dist_normal(5, 2);
  d[n++] = pod_dist_truncnormal(1, 2, 0, 3);
  d[n++] = pod_dist_truncnormal(0, 1, 2, INFINITY); /* one-sided tail */
  d[n++] = pod_dist_truncnormal(0, 1, 6, 7); /* far tail: inverse CDF path */
  d[n++] = pod_dist_lognormal(0.5, 0.4);
  d[n++] = pod_dist_triangular(1, 2, 5);
  d[n++] = pod_dist_beta(2, 5, 0.3, 0.6);
  d[n++] = pod_dist_gamma(3, 1.5);
  d[n++] = pod_dist_weibull(1.5, 2);
  d[n++] = pod_dist_exponential(4);
  assert_int_equal(pod_dist_discrete(dvals, dweights, 4, &d[n++], NULL),
                   POD_OK);
  assert_int_equal(pod_dist_empirical(evals, 8, &d[n++], NULL), POD_OK);
  assert_int_equal(pod_dist_lognormal_median_p90(10, 20, &d[n++], NULL),
                   POD_OK);
  assert_int_equal(pod_dist_lognormal_p5_p95(2, 8, &d[n++], NULL), POD_OK);
  return n;
}

static void test_sample_moments(void **st) {
  (void)st;
  pod_dist d[32];
  int n = make_all(d);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  const int N = 200000;
  int seen[POD_DIST_NKINDS] = {0};
  for (int i = 0; i < n; i++) {
    assert_int_equal(pod_dist_check(&d[i], NULL), POD_OK);
    seen[d[i].kind] = 1;
    gsl_rng_set(r, 12345 + (unsigned long)i);
    double s = 0, s2 = 0, mu = pod_dist_mean(&d[i]),
           var = pod_dist_variance(&d[i]);
    double lo = INFINITY, hi = -INFINITY;
    for (int j = 0; j < N; j++) {
      double x = pod_dist_sample(&d[i], r);
      assert_true(isfinite(x));
      s += x;
      s2 += (x - mu) * (x - mu);
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
    double m = s / N, v = s2 / N;
    /* mean within 5 standard errors; variance within 5% (+ tiny abs) */
    assert_near(m, mu, 5 * sqrt(var / N) + 1e-12);
    assert_near(v, var, 0.05 * var + 1e-12);
    /* support */
    if (d[i].kind == POD_DIST_TRUNCNORMAL)
      assert_true(lo >= d[i].p[2] && hi <= d[i].p[3]);
    if (d[i].kind == POD_DIST_UNIFORM) assert_true(lo >= -1 && hi <= 3);
    if (d[i].kind == POD_DIST_BETA) assert_true(lo >= 0.3 && hi <= 0.6);
    if (d[i].kind == POD_DIST_DISCRETE) assert_true(lo == -3.0 && hi == 7.0);
  }
  for (int k = 0; k < POD_DIST_NKINDS; k++) assert_true(seen[k]);
  gsl_rng_free(r);
  for (int i = 0; i < n; i++) pod_dist_free(&d[i]);
}

/* The quantile function integrates to the mean (midpoint rule in u) and
** is monotone; spot values against GSL / closed forms. */
/* The inline samplers of the common kinds draw what GSL's own calls draw
** from the same stream, bit for bit (studies keep their numbers). */
static double clampd(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

static void test_sample_stream(void **st) {
  (void)st;
  pod_dist d[5];
  d[0] = pod_dist_uniform(0.70, 0.90);
  d[1] = pod_dist_loguniform(1 << 20, 4294967296.0);
  d[2] = pod_dist_triangular(0.80, 0.92, 0.96);
  d[3] = pod_dist_lognormal(log(3.0), 0.54);
  d[4] = pod_dist_uniform(-1e-300, 1e-300);
  gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng *b = gsl_rng_alloc(gsl_rng_mt19937);
  for (int k = 0; k < 5; k++) {
    assert_int_equal(pod_dist_check(&d[k], NULL), POD_OK);
    gsl_rng_set(a, 11 + (unsigned long)k);
    gsl_rng_set(b, 11 + (unsigned long)k);
    const double *p = d[k].p;
    for (int i = 0; i < 200000; i++) {
      double got = pod_dist_sample(&d[k], a), want;
      switch (d[k].kind) {
        case POD_DIST_UNIFORM:
          want = clampd(gsl_ran_flat(b, p[0], p[1]), p[0], p[1]);
          break;
        case POD_DIST_LOGUNIFORM:
          want = clampd(exp(gsl_ran_flat(b, log(p[0]), log(p[1]))), p[0], p[1]);
          break;
        case POD_DIST_TRIANGULAR:
          want = pod_dist_quantile(&d[k], gsl_rng_uniform(b));
          break;
        default:
          want = exp(p[0] + gsl_ran_gaussian_ziggurat(b, p[1]));
          break;
      }
      assert_memory_equal(&got, &want, sizeof got);
    }
  }
  /* a loguniform whose bounds change after construction (or that was
  ** built by hand) samples with its current bounds */
  pod_dist lu = pod_dist_loguniform(1, 10), hand;
  lu.p[1] = 1000;
  memset(&hand, 0, sizeof hand);
  hand.kind = POD_DIST_LOGUNIFORM;
  hand.p[0] = 1;
  hand.p[1] = 1000;
  gsl_rng_set(a, 5);
  gsl_rng_set(b, 5);
  for (int i = 0; i < 1000; i++) {
    double got = pod_dist_sample(&lu, a), got2 = pod_dist_sample(&hand, b);
    assert_memory_equal(&got, &got2, sizeof got);
  }
  gsl_rng_set(b, 5);
  gsl_rng_set(a, 5);
  for (int i = 0; i < 1000; i++) {
    double got = pod_dist_sample(&lu, a);
    double want = clampd(exp(gsl_ran_flat(b, 0.0, log(1000.0))), 1, 1000);
    assert_memory_equal(&got, &want, sizeof got);
  }
  assert_true(pod_dist_quantile(&lu, 0.5) == exp(0.5 * log(1000.0)));
  assert_true(pod_dist_quantile(&hand, 0.5) == exp(0.5 * log(1000.0)));
  gsl_rng_free(a);
  gsl_rng_free(b);
}

/* pod_dist_support: the bounded kinds' support holds every sample and
** the extreme quantiles; unbounded kinds have none. */
static void test_support(void **st) {
  (void)st;
  const double vals[] = {3, -2, 7.5};
  pod_dist d[9];
  int n = 0;
  d[n++] = pod_dist_fixed(1.5);
  d[n++] = pod_dist_uniform(0.7, 0.9);
  d[n++] = pod_dist_loguniform(1e-3, 1e3);
  d[n++] = pod_dist_triangular(0.8, 0.92, 0.96);
  d[n++] = pod_dist_beta(2, 5, 10, 20);
  d[n++] = pod_dist_truncnormal(0, 1, -0.5, 2);
  assert_int_equal(pod_dist_discrete(vals, NULL, 3, &d[n++], NULL), POD_OK);
  assert_int_equal(pod_dist_empirical(vals, 3, &d[n++], NULL), POD_OK);
  d[n++] = pod_dist_truncnormal(0, 1, -INFINITY, 2);
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  for (int k = 0; k < n; k++) {
    double lo, hi;
    assert_int_equal(pod_dist_check(&d[k], NULL), POD_OK);
    int have = pod_dist_support(&d[k], &lo, &hi);
    assert_int_equal(have, k < n - 1); /* the last: infinite lo */
    if (!have) continue;
    assert_true(lo <= hi);
    if (d[k].kind == POD_DIST_DISCRETE || d[k].kind == POD_DIST_EMPIRICAL)
      assert_true(lo == -2 && hi == 7.5);
    for (int i = 0; i < 20000; i++) {
      double x = pod_dist_sample(&d[k], r);
      assert_true(x >= lo && x <= hi);
    }
    assert_true(pod_dist_quantile(&d[k], 0) >= lo);
    assert_true(pod_dist_quantile(&d[k], 1) <= hi);
  }
  double lo, hi;
  pod_dist u = pod_dist_lognormal(0, 1), e = pod_dist_exponential(2);
  assert_int_equal(pod_dist_support(&u, &lo, &hi), 0);
  assert_int_equal(pod_dist_support(&e, &lo, &hi), 0);
  for (int k = 0; k < n; k++) pod_dist_free(&d[k]);
  gsl_rng_free(r);
}

static void test_quantiles(void **st) {
  (void)st;
  pod_dist d[32];
  int n = make_all(d);
  const int K = 200000;
  for (int i = 0; i < n; i++) {
    double s = 0, prev = -INFINITY;
    for (int j = 0; j < K; j++) {
      double x = pod_dist_quantile(&d[i], (j + 0.5) / K);
      if (!(x >= prev))
        fail_msg("dist %d (%s) u=%.17g: %.17g < %.17g", i,
                 pod_dist_kind_name(d[i].kind), (j + 0.5) / K, x, prev);
      prev = x;
      s += x;
    }
    double mu = pod_dist_mean(&d[i]), sd = sqrt(pod_dist_variance(&d[i]));
    assert_near(s / K, mu, 2e-3 * (sd + fabs(mu)) + 1e-12);
  }
  pod_dist x = pod_dist_normal(5, 2);
  assert_near(pod_dist_quantile(&x, 0.975), 5 + 2 * 1.959963984540054, 1e-9);
  x = pod_dist_triangular(0, 0, 1); /* CDF 1-(1-x)^2 */
  assert_near(pod_dist_quantile(&x, 0.75), 0.5, 1e-12);
  x = pod_dist_exponential(2);
  assert_near(pod_dist_quantile(&x, 0.5), 2 * log(2), 1e-12);
  x = pod_dist_weibull(2, 3);
  assert_near(pod_dist_quantile(&x, 0.5), 3 * sqrt(log(2)), 1e-9);
  x = pod_dist_truncnormal(0, 1, 0,
                           INFINITY); /* half-normal: median = z_0.75 */
  assert_near(pod_dist_quantile(&x, 0.5), gsl_cdf_ugaussian_Pinv(0.75), 1e-9);
  x = pod_dist_truncnormal(0, 1, 30, 31); /* far tail stays inside */
  double q = pod_dist_quantile(&x, 0.5);
  assert_true(q >= 30 && q <= 31);
  /* clamping at the ends: still finite */
  x = pod_dist_normal(0, 1);
  assert_true(isfinite(pod_dist_quantile(&x, 0)) &&
              isfinite(pod_dist_quantile(&x, 1)));
  /* discrete: left-continuous inverse; weight-0 value never chosen */
  pod_dist dd;
  assert_int_equal(pod_dist_discrete(dvals, dweights, 4, &dd, NULL), POD_OK);
  /* sorted: -3 (0.6), 1 (0.1), 2.5 (0), 7 (0.3) */
  assert_true(pod_dist_quantile(&dd, 0.05) == -3.0);
  assert_true(pod_dist_quantile(&dd, 0.6) == -3.0);
  assert_true(pod_dist_quantile(&dd, 0.65) == 1.0);
  assert_true(pod_dist_quantile(&dd, 0.7) == 1.0);
  assert_true(pod_dist_quantile(&dd, 0.71) == 7.0);
  assert_true(pod_dist_quantile(&dd, 0.95) == 7.0);
  pod_dist_free(&dd);
  /* empirical: sorted, resampled */
  assert_int_equal(pod_dist_empirical(evals, 8, &dd, NULL), POD_OK);
  assert_true(pod_dist_quantile(&dd, 0.01) == 1.0);
  assert_true(pod_dist_quantile(&dd, 0.99) == 9.0);
  pod_dist_free(&dd);
  for (int i = 0; i < n; i++) pod_dist_free(&d[i]);
}

static void test_lognormal_conversions(void **st) {
  (void)st;
  pod_dist d;
  assert_int_equal(pod_dist_lognormal_median_p90(10, 20, &d, NULL), POD_OK);
  assert_near(pod_dist_quantile(&d, 0.5), 10, 1e-9);
  assert_near(pod_dist_quantile(&d, 0.9), 20, 1e-9);
  assert_int_equal(pod_dist_lognormal_p5_p95(2, 8, &d, NULL), POD_OK);
  assert_near(pod_dist_quantile(&d, 0.05), 2, 1e-9);
  assert_near(pod_dist_quantile(&d, 0.95), 8, 1e-9);
  assert_near(pod_dist_quantile(&d, 0.5), 4, 1e-9);
  pod_err e;
  assert_int_equal(pod_dist_lognormal_median_p90(0, 20, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "median");
  assert_int_equal(pod_dist_lognormal_median_p90(10, 10, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "p90");
  assert_int_equal(pod_dist_lognormal_p5_p95(-1, 8, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "p5");
  assert_int_equal(pod_dist_lognormal_p5_p95(2, NAN, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "p95");
}

typedef struct bad_case {
  pod_dist d;
  const char *field;
} bad_case;

static void test_invalid(void **st) {
  (void)st;
  const bad_case cases[] = {
      {pod_dist_fixed(NAN), "value"},
      {pod_dist_uniform(INFINITY, 1), "lo"},
      {pod_dist_uniform(0, NAN), "hi"},
      {pod_dist_uniform(2, 1), "hi"},
      {pod_dist_loguniform(0, 1), "lo"},
      {pod_dist_loguniform(1, INFINITY), "hi"},
      {pod_dist_loguniform(2, 1), "hi"},
      {pod_dist_normal(NAN, 1), "mean"},
      {pod_dist_normal(0, 0), "sd"},
      {pod_dist_truncnormal(NAN, 1, 0, 1), "mean"},
      {pod_dist_truncnormal(0, -1, 0, 1), "sd"},
      {pod_dist_truncnormal(0, 1, NAN, 1), "lo"},
      {pod_dist_truncnormal(0, 1, 0, -INFINITY), "hi"},
      {pod_dist_truncnormal(0, 1, 1, 1), "hi"},
      {pod_dist_truncnormal(0, 1, 40, 41), "lo"}, /* mass underflows */
      {pod_dist_lognormal(INFINITY, 1), "mu"},
      {pod_dist_lognormal(0, 0), "sigma"},
      {pod_dist_triangular(NAN, 1, 2), "lo"},
      {pod_dist_triangular(0, 1, NAN), "hi"},
      {pod_dist_triangular(2, 2, 2), "hi"},
      {pod_dist_triangular(0, 3, 2), "mode"},
      {pod_dist_beta(0, 1, 0, 1), "a"},
      {pod_dist_beta(1, -1, 0, 1), "b"},
      {pod_dist_beta(1, 1, NAN, 1), "lo"},
      {pod_dist_beta(1, 1, 0, INFINITY), "hi"},
      {pod_dist_beta(1, 1, 1, 0), "hi"},
      {pod_dist_gamma(0, 1), "shape"},
      {pod_dist_gamma(1, NAN), "scale"},
      {pod_dist_gamma(0.05, 3.2e-319), "scale"}, /* subnormal: fuzz_dist */
      {pod_dist_weibull(-2, 1), "shape"},
      {pod_dist_weibull(2, 0), "scale"},
      {pod_dist_exponential(0), "mean"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_err e;
    pod_err_clear(&e);
    int rc = pod_dist_check(&cases[i].d, &e);
    if (rc != POD_EINVAL) fail_msg("case %zu (%s) accepted", i, cases[i].field);
    if (strcmp(e.field, cases[i].field) != 0)
      fail_msg("case %zu: field %s, expected %s", i, e.field, cases[i].field);
    assert_true(e.msg[0] != '\0');
  }
  pod_dist k = pod_dist_fixed(0);
  k.kind = POD_DIST_NKINDS;
  pod_err e;
  assert_int_equal(pod_dist_check(&k, &e), POD_EINVAL);
  assert_string_equal(e.field, "kind");
  assert_string_equal(pod_dist_kind_name(POD_DIST_NKINDS), "?");
  assert_string_equal(pod_dist_kind_name(POD_DIST_TRUNCNORMAL), "truncnormal");

  /* discrete and empirical arrays */
  pod_dist d;
  const double v[] = {1, 2, NAN};
  const double w[] = {1, -1, 1};
  const double w0[] = {0, 0, 0};
  const double winf[] = {1, INFINITY, 1};
  assert_int_equal(pod_dist_discrete(v, NULL, 0, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "values");
  assert_int_equal(pod_dist_discrete(v, NULL, 3, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "values[3]");
  assert_int_equal(pod_dist_discrete(v, w, 2, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "weights[2]");
  assert_int_equal(pod_dist_discrete(v, w0, 2, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "weights");
  assert_int_equal(pod_dist_discrete(v, winf, 2, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "weights[2]");
  assert_int_equal(pod_dist_empirical(v, 0, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "values");
  assert_int_equal(pod_dist_empirical(v, 3, &d, &e), POD_EINVAL);
  assert_string_equal(e.field, "values[3]");
  /* hand-made discrete/empirical without arrays */
  pod_dist h = pod_dist_fixed(0);
  h.kind = POD_DIST_DISCRETE;
  assert_int_equal(pod_dist_check(&h, &e), POD_EINVAL);
  assert_string_equal(e.field, "values");
  h.kind = POD_DIST_EMPIRICAL;
  assert_int_equal(pod_dist_check(&h, &e), POD_EINVAL);
  assert_string_equal(e.field, "values");
}

static void test_copy_free(void **st) {
  (void)st;
  pod_dist a, b, c, f = pod_dist_normal(1, 2), g;
  assert_int_equal(pod_dist_discrete(dvals, dweights, 4, &a, NULL), POD_OK);
  assert_int_equal(pod_dist_copy(&b, &a, NULL), POD_OK);
  assert_true(b.values != a.values && b.cum != a.cum);
  pod_dist_free(&a); /* b stays valid */
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  for (int i = 0; i < 100; i++) {
    double x = pod_dist_sample(&b, r);
    assert_true(x == 1.0 || x == -3.0 || x == 7.0);
  }
  assert_near(pod_dist_mean(&b), (0.1 * 1 - 0.6 * 3 + 0.3 * 7), 1e-12);
  assert_int_equal(pod_dist_empirical(evals, 8, &c, NULL), POD_OK);
  assert_int_equal(pod_dist_copy(&g, &c, NULL), POD_OK);
  pod_dist_free(&c);
  assert_near(pod_dist_mean(&g), 31.0 / 8, 1e-12);
  pod_dist_free(&g);
  pod_dist_free(&b);
  assert_int_equal(pod_dist_copy(&g, &f, NULL), POD_OK);
  assert_true(g.p[1] == 2 && g.values == NULL);
  pod_dist_free(&g);
  pod_dist_free(NULL);
  gsl_rng_free(r);
}

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_sample_moments),
      cmocka_unit_test(test_sample_stream),
      cmocka_unit_test(test_support),
      cmocka_unit_test(test_quantiles),
      cmocka_unit_test(test_lognormal_conversions),
      cmocka_unit_test(test_invalid),
      cmocka_unit_test(test_copy_free),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
