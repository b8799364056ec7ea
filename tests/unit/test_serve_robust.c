/*
** test_serve_robust.c: findings of the serving fuzz target (tests/fuzz/
** fuzz_serve.c), each a config that crashed or was accepted with a result
** that is not finite: layout products that wrapped an int, a peak or an
** efficiency at the edge of its bound overflowing a time.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_serve.h"
#include "serve_fixture.h"

/* A positive denormal bf16 peak is within system.gpu.bf16_tflops' bound
** (0, 1e6] but makes the prefill pass infinite: the evaluation returned
** POD_OK with prefill_pass_s = inf; now POD_ERANGE naming the figure. */
static void test_denormal_peak(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("hgx_b200", "llama3_8b", 1);
  c.dtype = POD_DTYPE_BF16;
  c.system.gpu.bf16_tflops = 1.3906712444574614e-309;
  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval(&c, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "prefill_pass_s");
  assert_non_null(strstr(e.msg, "inf"));
  pod_err_clear(&e);
  assert_int_equal(pod_serve_kernel.fn(&c, (double[64]){0}, &e), POD_ERANGE);
  /* the same config at its preset peak evaluates, every figure finite */
  c = serve_cfg("hgx_b200", "llama3_8b", 1);
  c.dtype = POD_DTYPE_BF16;
  r = serve_ok(&c);
  assert_true(isfinite(r.prefill_pass_s) && r.prefill_pass_s > 0);
}

/* A model of 2^16 heads and layers: tp 2^16 and pp 2^16, each in its
** bound, multiplied to 2^32 in int, a zero divisor (SIGFPE); dp_attn 2^20
** times tp 2^16 wrapped too.  Both products are now bounded by the GPUs
** first, the error naming the field. */
static void test_layout_products(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("gb200_nvl72", "llama3_8b", 72);
  c.model.heads = c.model.kv_heads = 1 << 16;
  c.model.hidden = 1 << 22;
  c.model.head_dim = 64;
  c.model.layers = 1 << 16;
  c.parallel.tp = 1 << 16;
  c.parallel.pp = 1 << 16;
  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.pp");
  assert_non_null(strstr(e.msg, "4294967296"));
  /* tp 2^16 on 2^16 GPUs, dp_attn 2^20: tp x dp_attn = 2^36 */
  c.gpus = 1 << 16;
  c.parallel.pp = 1;
  c.parallel.dp_attn = 1 << 20;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.dp_attn");
  assert_non_null(strstr(e.msg, "68719476736"));
  /* the same on the prefill pool */
  c.parallel.dp_attn = 0;
  c.disaggregated = 1;
  c.prefill.gpus = 72;
  c.prefill.parallel.tp = 1 << 16;
  c.prefill.parallel.pp = 1 << 16;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "prefill.parallel.pp");
}

/* A denormal scale-up efficiency passes the system's check (up_eff in
** (0, 1]) but the dispatch time of 1e9 tokens of 1e9 bytes (within their
** bounds) was inf with POD_OK; now POD_ERANGE on
** time_s, for DeepEP's low-latency and normal kernels. */
static void test_ep_time_overflow(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &s), POD_OK);
  double t = -1.0;
  assert_int_equal(
      pod_serve_ep_time(&s, 16, 8, 128, 7168, 0, 0, 10, 5, 256, 0, &t, NULL),
      POD_OK);
  assert_true(isfinite(t) && t > 0);
  s.up_eff = 1.6296664341314234e-310;
  for (int normal = 0; normal <= 1; normal++) {
    pod_err e;
    pod_err_clear(&e);
    assert_int_equal(pod_serve_ep_time(&s, 16, 8, 1e9, 1e9, 0, normal, 10, 5,
                                       256, 0, &t, &e),
                     POD_ERANGE);
    assert_string_equal(e.field, "time_s");
    assert_true(t == 0.0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_denormal_peak),
      cmocka_unit_test(test_layout_products),
      cmocka_unit_test(test_ep_time_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
