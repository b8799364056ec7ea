/*
** test_stats_moments.c: pod_moments_add_rows (stats.c) against
** pod_moments_add value by value, every field bit for bit: 1 to 19
** moments (one and several SSE2 groups, odd counts), blocks of 1 to 70
** rows, from empty and from earlier values, with a value that needs a
** rescale, a NaN or an infinity (the value-by-value path), moments that
** count different values, and signed zeros at the extremes.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "pod_stats.h"

#define MAXM 19
#define MAXN 70

/* Row j's value k: a mix of scales and signs, zeros of both signs. */
static double value(gsl_rng *r, int k) {
  double u = gsl_rng_uniform(r);
  if (u < 0.02) return u < 0.01 ? 0.0 : -0.0;
  switch (k % 4) {
    case 0:
      return gsl_ran_lognormal(r, 0.0, 2.0);
    case 1:
      return gsl_ran_gaussian(r, 3.0) - 1.0;
    case 2:
      return 1e-9 * gsl_rng_uniform(r);
    default:
      return 1e12 * gsl_ran_exponential(r, 1.0);
  }
}

/* rows added both ways onto copies of m; every field equal */
static void check(const pod_moments *m, int M, int n, const double *y) {
  pod_moments a[MAXM], b[MAXM];
  memcpy(a, m, sizeof(pod_moments) * (size_t)M);
  memcpy(b, m, sizeof(pod_moments) * (size_t)M);
  pod_moments_add_rows(a, M, n, y);
  for (int j = 0; j < n; j++)
    for (int k = 0; k < M; k++) pod_moments_add(&b[k], y[j * M + k]);
  for (int k = 0; k < M; k++) {
    assert_true(a[k].n == b[k].n);
    assert_memory_equal(&a[k], &b[k], sizeof(pod_moments));
  }
}

static void test_rows_match_adds(void **state) {
  (void)state;
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_rng_set(r, 5);
  static double y[MAXN * MAXM];
  static const int NS[] = {1, 2, 3, 7, 64, 70};
  for (int M = 1; M <= MAXM; M++)
    for (size_t t = 0; t < sizeof NS / sizeof NS[0]; t++)
      for (int pre = 0; pre < 3; pre++) {
        int n = NS[t];
        pod_moments m[MAXM];
        for (int k = 0; k < M; k++) {
          pod_moments_init(&m[k]);
          for (int i = 0; i < pre * 5; i++) pod_moments_add(&m[k], value(r, k));
        }
        for (int i = 0; i < n * M; i++) y[i] = value(r, i % M);
        check(m, M, n, y);
        /* a value past the scale's limit: a rescale within the rows */
        y[(n - 1) * M + (M - 1)] = pre == 2 ? -3e25 : 7e30;
        check(m, M, n, y);
        /* a NaN, an infinity */
        y[(n / 2) * M] = NAN;
        check(m, M, n, y);
        y[(n / 2) * M] = -INFINITY;
        check(m, M, n, y);
        /* moments that count different values */
        if (M > 1) {
          for (int i = 0; i < n * M; i++) y[i] = value(r, i % M);
          pod_moments_add(&m[M / 2], 1.5);
          check(m, M, n, y);
        }
      }
  /* nothing to add */
  pod_moments m[2];
  pod_moments_init(&m[0]);
  pod_moments_init(&m[1]);
  check(m, 2, 0, y);
  pod_moments_add_rows(m, 0, 4, y);
  assert_true(m[0].n == 0);
  gsl_rng_free(r);
}

/* The extremes keep the first of equal values as pod_moments_add does:
** -0.0 after 0.0 is not below it, 0.0 after -0.0 not above it. */
static void test_rows_signed_zeros(void **state) {
  (void)state;
  const double y[] = {0.0, -0.0, 0.0, -0.0, -0.0, 0.0, 1.0, -1.0};
  for (int start = 0; start < 2; start++) {
    pod_moments m[2];
    pod_moments_init(&m[0]);
    pod_moments_init(&m[1]);
    if (start) {
      pod_moments_add(&m[0], -0.0);
      pod_moments_add(&m[1], 0.0);
    }
    check(m, 2, 3, y);
    check(m, 1, 8, y);
    check(m, 2, 4, y);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_rows_match_adds),
      cmocka_unit_test(test_rows_signed_zeros),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
