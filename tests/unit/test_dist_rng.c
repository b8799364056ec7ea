/*
** test_dist_rng.c: pod_dist_sample's inline MT19937 draw (dist.c
** uniform01) against GSL's own generator: the same uniforms, bit for bit,
** over many regenerations of the generator's words, for several seeds,
** interleaved with the library's own draws (the ziggurat of a lognormal),
** and the generic path for another generator.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <math.h>
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

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_mt19937_stream),
      cmocka_unit_test(test_other_generator),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
