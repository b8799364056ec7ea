/*
** test_dist_rng.c: pod_dist_sample's inline MT19937 draw (dist.c
** uniform01) against GSL's own generator: the same uniforms, bit for bit,
** over many regenerations of the generator's words, for several seeds,
** interleaved with the library's own draws (the ziggurat of a lognormal),
** and the generic path for another generator; pod_dist_sample_rows
** against pod_dist_sample draw by draw over every kind.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "pod_dist.h"

/* n draws of d on a generator of type t seeded s, against the same draws
** through GSL on another generator seeded alike (uniform: u itself; a
** lognormal's ziggurat runs in GSL on both) */
static void compare_stream(const gsl_rng_type *t, unsigned long seed, int n) {
  gsl_rng *a = gsl_rng_alloc(t), *b = gsl_rng_alloc(t);
  assert_non_null(a);
  assert_non_null(b);
  gsl_rng_set(a, seed);
  gsl_rng_set(b, seed);
  pod_dist u = pod_dist_uniform(0.0, 1.0);
  pod_dist ln;
  assert_int_equal(pod_dist_lognormal_median_p90(3.0, 6.0, &ln, NULL), POD_OK);
  for (int i = 0; i < n; i++) {
    double x = pod_dist_sample(&u, a), y = gsl_rng_uniform(b);
    assert_memory_equal(&x, &y, sizeof x);
    if (i % 7 == 3) { /* the library's draws between the inline ones */
      double l1 = pod_dist_sample(&ln, a);
      double l2 = exp(ln.p[0] + gsl_ran_gaussian_ziggurat(b, ln.p[1]));
      assert_memory_equal(&l1, &l2, sizeof l1);
    }
  }
  gsl_rng_free(a);
  gsl_rng_free(b);
}

static void test_mt19937_stream(void **state) {
  (void)state;
  const unsigned long seeds[] = {1, 4357, 12345, 4294967295ul};
  for (size_t i = 0; i < sizeof seeds / sizeof seeds[0]; i++)
    compare_stream(gsl_rng_mt19937, seeds[i], 5000); /* 8+ regenerations */
}

static void test_other_generator(void **state) {
  (void)state;
  compare_stream(gsl_rng_ranlxd1, 7, 1000);
  compare_stream(gsl_rng_taus2, 7, 1000);
}

static void test_sample_rows(void **state) {
  (void)state;
  enum { P = 13, N = 300 };
  pod_dist d[P];
  d[0] = pod_dist_fixed(2.5);
  d[1] = pod_dist_uniform(0.7, 0.9);
  d[2] = pod_dist_loguniform(1.0, 4294967296.0);
  d[3] = pod_dist_normal(1.0, 0.2);
  d[4] = pod_dist_truncnormal(0.0, 1.0, -0.5, 2.0);
  d[5] = pod_dist_lognormal(1.0, 0.5);
  d[6] = pod_dist_triangular(0.8, 0.92, 0.96);
  d[7] = pod_dist_beta(2.0, 5.0, 0.0, 10.0);
  d[8] = pod_dist_gamma(2.0, 3.0);
  d[9] = pod_dist_weibull(1.5, 2.0);
  d[10] = pod_dist_exponential(4.0);
  const double vals[] = {1.0, 2.0, 8.0};
  assert_int_equal(pod_dist_discrete(vals, NULL, 3, &d[11], NULL), POD_OK);
  assert_int_equal(pod_dist_empirical(vals, 3, &d[12], NULL), POD_OK);
  for (int i = 0; i < P; i++) assert_int_equal(pod_dist_check(&d[i], NULL), 0);
  static double rows[N * P];
  gsl_rng *a = gsl_rng_alloc(gsl_rng_mt19937),
          *b = gsl_rng_alloc(gsl_rng_mt19937);
  assert_non_null(a);
  assert_non_null(b);
  gsl_rng_set(a, 42);
  gsl_rng_set(b, 42);
  pod_dist_sample_rows(d, P, a, N, rows);
  for (int j = 0; j < N; j++)
    for (int i = 0; i < P; i++) {
      double v = pod_dist_sample(&d[i], b);
      assert_memory_equal(&rows[j * P + i], &v, sizeof v);
    }
  /* the generators stand at the same place */
  assert_true(gsl_rng_get(a) == gsl_rng_get(b));
  /* draw by draw against GSL's own calls on a third generator: a
  ** discrete draw is its quantile at gsl_rng_uniform_pos */
  gsl_rng *c = gsl_rng_alloc(gsl_rng_mt19937);
  assert_non_null(c);
  gsl_rng_set(c, 42);
  gsl_rng_set(a, 42);
  for (int j = 0; j < N; j++) {
    double v = pod_dist_quantile(&d[11], gsl_rng_uniform_pos(c));
    double w = pod_dist_sample(&d[11], a);
    assert_memory_equal(&w, &v, sizeof v);
    v = gsl_rng_uniform(c);
    w = pod_dist_sample(&d[1], a); /* uniform(0.7, 0.9): gsl_ran_flat */
    double f = 0.7 * (1 - v) + 0.9 * v;
    assert_memory_equal(&w, &f, sizeof f);
  }
  gsl_rng_free(c);
  gsl_rng_free(a);
  gsl_rng_free(b);
  pod_dist_free(&d[11]);
  pod_dist_free(&d[12]);
}

/* pod_dist_sample_rows of n rows of the P dists d against pod_dist_sample
** value by value on a generator of type t seeded alike: the same values
** bit for bit, and both generators at the same place after. */
static void compare_rows(const pod_dist *d, int P, int n, const gsl_rng_type *t,
                         unsigned long seed) {
  double *rows = malloc(sizeof(double) * (size_t)P * (size_t)n);
  gsl_rng *a = gsl_rng_alloc(t), *b = gsl_rng_alloc(t);
  assert_non_null(rows);
  assert_non_null(a);
  assert_non_null(b);
  gsl_rng_set(a, seed);
  gsl_rng_set(b, seed);
  pod_dist_sample_rows(d, P, a, n, rows);
  for (int j = 0; j < n; j++)
    for (int i = 0; i < P; i++) {
      double v = pod_dist_sample(&d[i], b);
      assert_memory_equal(&rows[(size_t)j * (size_t)P + (size_t)i], &v,
                          sizeof v);
    }
  assert_true(gsl_rng_get(a) == gsl_rng_get(b));
  gsl_rng_free(a);
  gsl_rng_free(b);
  free(rows);
}

/* The block sampler's column transforms (uniform, loguniform,
** triangular kept as uniforms, then transformed a column at a time):
** blocks of those kinds only, with a fixed value between them, blocks
** that regenerate MT19937's words part-way through a row (3 columns,
** 624 words), the kernel study's mix with a lognormal's ziggurat, other
** generators, and more than 64 columns (per value). */
static void test_sample_rows_columns(void **state) {
  (void)state;
  pod_dist d[70];
  d[0] = pod_dist_uniform(0.7, 0.9);
  d[1] = pod_dist_triangular(0.8, 0.92, 0.96);
  d[2] = pod_dist_loguniform(1048576.0, 4294967296.0);
  d[3] = pod_dist_fixed(2.5);
  d[4] = pod_dist_triangular(0.0, 0.0, 1.0); /* mode at the low end */
  d[5] = pod_dist_triangular(0.0, 1.0, 1.0); /* mode at the high end */
  d[6] = pod_dist_uniform(-1e300, 1e300);
  for (int i = 0; i < 7; i++) assert_int_equal(pod_dist_check(&d[i], NULL), 0);
  compare_rows(d, 3, 1000, gsl_rng_mt19937, 5);  /* 3000 words: 4 regens */
  compare_rows(d, 7, 64, gsl_rng_mt19937, 1);    /* one block */
  compare_rows(d, 7, 1000, gsl_rng_mt19937, 99); /* regens mid-row */
  compare_rows(d, 7, 300, gsl_rng_ranlxd1, 7);   /* get_double */
  compare_rows(d, 7, 300, gsl_rng_taus2, 7);
  pod_dist ln;
  assert_int_equal(pod_dist_lognormal_median_p90(3.0, 6.0, &ln, NULL), POD_OK);
  pod_dist k[4] = {d[0], d[1], ln, d[2]}; /* kernel_a2a.lua's params */
  compare_rows(k, 4, 2000, gsl_rng_mt19937, 1);
  compare_rows(k, 4, 500, gsl_rng_taus2, 3);
  for (int i = 0; i < 70; i++) d[i] = i % 3 ? k[i % 4] : d[i % 7];
  compare_rows(d, 70, 50, gsl_rng_mt19937, 11); /* per value */
  compare_rows(d, 64, 50, gsl_rng_mt19937, 12); /* columns, widest */
  compare_rows(d, 1, 700, gsl_rng_mt19937, 13);
  compare_rows(d, 5, 0, gsl_rng_mt19937, 14); /* no rows: no draw */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mt19937_stream),
      cmocka_unit_test(test_other_generator),
      cmocka_unit_test(test_sample_rows),
      cmocka_unit_test(test_sample_rows_columns),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
