/*
** test_calib.c: the least-squares fit of collective parameters
** (pod_calib.h): rows computed from a system with known parameters are
** fitted back from another starting point.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_calib.h"

static void make_rows(const pod_system *truth, pod_calib_row *rows, int *n) {
  *n = 0;
  for (int k = 16; k <= 33; k++) {
    pod_coll_op ops[2] = {POD_COLL_ALL_GATHER, POD_COLL_REDUCE_SCATTER};
    for (int o = 0; o < 2; o++) {
      pod_calib_row *r = &rows[(*n)++];
      memset(r, 0, sizeof *r);
      r->op = ops[o];
      r->ranks = 8;
      r->bytes = ldexp(1.0, k);
      r->algo = POD_ALGO_RING;
      pod_coll_args a = {8, 0, r->bytes, POD_ALGO_RING};
      pod_coll_result res;
      pod_err e;
      assert_int_equal(pod_coll_eval(truth, r->op, &a, &res, &e), POD_OK);
      r->time_s = res.time_s;
    }
  }
}

static void test_recovers_parameters(void **st) {
  (void)st;
  pod_system base, truth, out;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &base), POD_OK);
  truth = base;
  truth.up_eff = 0.71;
  truth.up_latency_us = 6.0;
  pod_calib_row rows[64];
  int n;
  make_rows(&truth, rows, &n);
  const char *params[] = {"up_eff", "up_latency_us"};
  double pred[64];
  pod_calib_fit fit;
  pod_err e;
  assert_int_equal(
      pod_calib_run(&base, rows, n, params, 2, &out, pred, &fit, &e), POD_OK);
  assert_true(fabs(out.up_eff - 0.71) < 1e-4 * 0.71);
  assert_true(fabs(out.up_latency_us - 6.0) < 1e-3 * 6.0);
  assert_true(fit.rms_rel < 1e-6 && fit.max_rel < 1e-6);
  assert_true(fabs(pred[n - 1] / rows[n - 1].time_s - 1) < 1e-6);
  assert_true(out.up_GBps == base.up_GBps); /* others unchanged */
}

static void test_errors(void **st) {
  (void)st;
  pod_system base, out;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &base), POD_OK);
  pod_calib_row rows[64];
  int n;
  make_rows(&base, rows, &n);
  pod_err e;
  const char *bad[] = {"up_speed"};
  assert_int_equal(pod_calib_run(&base, rows, n, bad, 1, &out, NULL, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "params[1]");
  const char *ok[] = {"up_eff"};
  rows[3].time_s = -1;
  assert_int_equal(pod_calib_run(&base, rows, n, ok, 1, &out, NULL, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "rows[4].time_s");
  rows[3].time_s = 1e-3;
  const char *three[] = {"up_eff", "up_latency_us", "up_fill_KiB"};
  assert_int_equal(
      pod_calib_run(&base, rows, 2, three, 3, &out, NULL, NULL, &e),
      POD_EINVAL);
  assert_non_null(pod_calib_param_find("out_half_MB"));
  assert_null(pod_calib_param_find("nope"));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_recovers_parameters),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
