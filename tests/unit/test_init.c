/*
** test_init.c: core does not abort whatever its caller did about GSL's
** error handler (pod_err.h, pod_init).  This program installs GSL's
** default handler (abort on error) and never calls pod_init, then runs core
** paths whose GSL equivalents report through the handler; with pod_init
** they behave the same.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <gsl/gsl_errno.h>

#include "pod_dist.h"
#include "pod_err.h"

/* Weibull with a tiny shape: the mean needs Gamma(1 + 1/k) beyond the
** double range (gsl_sf_gamma signals overflow through the handler). */
static void test_weibull_moments_no_abort(void **st) {
  (void)st;
  pod_dist d = pod_dist_weibull(0.004, 1.0);
  double m = pod_dist_mean(&d);
  assert_true(isinf(m) && m > 0);
  double v = pod_dist_variance(&d);
  assert_true(isinf(v) || isnan(v));
  /* an ordinary shape: Gamma(1 + 1/2) = sqrt(pi)/2 */
  pod_dist e = pod_dist_weibull(2.0, 3.0);
  assert_true(fabs(pod_dist_mean(&e) - 3.0 * sqrt(M_PI) / 2.0) < 1e-12);
}

static void test_pod_init_idempotent(void **st) {
  (void)st;
  pod_init();
  pod_init();
  pod_dist d = pod_dist_weibull(0.004, 1.0);
  assert_true(isinf(pod_dist_mean(&d)));
}

int main(void) {
  gsl_set_error_handler(NULL); /* GSL's default: abort() on any error */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weibull_moments_no_abort),
      cmocka_unit_test(test_pod_init_idempotent),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
