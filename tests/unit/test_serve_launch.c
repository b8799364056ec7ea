/*
** test_serve_launch.c: the fixed GPU time of a pass's kernel boundaries
** (core/serve_launch.c): the kernel counts per layer, the decode step's
** and the prefill pass's overhead from them, the layer_us override, and
** the error paths of layer_us and kernel_us.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "near.h"
#include "pod_serve.h"
#include "serve_fixture.h"
#include "serve_int.h"

/* Counted kernels: DeepSeek-V3 (MLA, MoE with a shared expert) with fp8
** dense GEMMs 2 norms + (3 + 5 x 2) MLA + 7 routed + (1 + 2 x 2) shared =
** 27 per MoE layer and 2 + 13 + 5 = 20 per dense one; in bf16 no
** quantisation: 2 + 8 + 7 + 3 = 20.  A bf16 Llama block 2 + 4 + 3 = 9. */
static void test_counts(void **state) {
  (void)state;
  pod_model d, l;
  assert_int_equal(pod_model_preset("deepseek_v3", &d), POD_OK);
  assert_int_equal(pod_model_preset("llama3_70b", &l), POD_OK);
  assert_near(pod_serve__layer_kernels(&d, POD_DTYPE_FP8, 1), 27.0, 0.0);
  assert_near(pod_serve__layer_kernels(&d, POD_DTYPE_FP8, 0), 20.0, 0.0);
  assert_near(pod_serve__layer_kernels(&d, POD_DTYPE_FP4, 1), 27.0, 0.0);
  assert_near(pod_serve__layer_kernels(&d, POD_DTYPE_BF16, 1), 20.0, 0.0);
  assert_near(pod_serve__layer_kernels(&l, POD_DTYPE_BF16, 0), 9.0, 0.0);
  assert_near(pod_serve__layer_kernels(&l, POD_DTYPE_FP8, 0), 13.0, 0.0);
  /* no shared expert: the routed seven alone */
  pod_model n = d;
  n.shared_experts = 0;
  assert_near(pod_serve__layer_kernels(&n, POD_DTYPE_FP8, 1), 22.0, 0.0);
  /* 58 MoE + 3 dense layers + 5 per step */
  assert_near(pod_serve__pass_kernels(&d, POD_DTYPE_FP8, 61, 58, 1), 1631.0,
              0.0);
  /* two micro-batches: every layer's kernels twice, the step's five once */
  assert_near(pod_serve__pass_kernels(&d, POD_DTYPE_FP8, 61, 58, 2), 3257.0,
              0.0);
}

/* S4's fp4 decode (dense GEMMs fp8): the step's overhead is 1,631
** kernels x kernel_us whatever the batch; the old per-layer constant
** (61 x 8 us) comes back with layer_us = 8.  The prefill pass counts the
** same layers. */
static void test_decode_overhead(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("gb200_nvl72", "deepseek_v3", 48);
  c.parallel.tp = 1;
  c.parallel.ep = 48;
  c.redundant_experts = 32;
  c.dtype = POD_DTYPE_FP4;
  c.dense_dtype = POD_DTYPE_FP8;
  c.kv_dtype = POD_DTYPE_FP8;
  c.input_tokens = 2000;
  c.output_tokens = 100;
  c.batch = 768 * 48;
  assert_true(c.layer_us < 0.0);
  assert_near(c.kernel_us, 0.8, 0.0);
  pod_serve_result a = serve_ok(&c);
  assert_near(a.step.overhead, 1631 * 0.8e-6, 1e-12);
  assert_near(a.pass.overhead, 1631 * 0.8e-6, 1e-12);
  c.batch = 1408 * 48;
  pod_serve_result b = serve_ok(&c);
  assert_near(b.step.overhead, a.step.overhead, 0.0);
  /* linear in kernel_us, and the step grows by exactly that */
  c.kernel_us = 1.8;
  pod_serve_result b2 = serve_ok(&c);
  assert_near(b2.step.overhead, 1631 * 1.8e-6, 1e-12);
  assert_near(b2.step.total - b.step.total, 1631 * 1.0e-6, 1e-9);
  /* layer_us >= 0 overrides the count: 61 layers x 8 us */
  c.layer_us = 8.0;
  pod_serve_result o = serve_ok(&c);
  assert_near(o.step.overhead, 61 * 8e-6, 1e-12);
  assert_near(o.pass.overhead, 61 * 8e-6, 1e-12);
  c.layer_us = 0.0;
  assert_near(serve_ok(&c).step.overhead, 0.0, 0.0);
  /* two-batch overlap: both micro-batches' kernels, 2 x 1,626 + 5 */
  c.layer_us = -1.0;
  c.kernel_us = 0.8;
  c.two_batch_overlap = 1;
  assert_near(serve_ok(&c).step.overhead, 3257 * 0.8e-6, 1e-12);
  assert_near(serve_ok(&c).pass.overhead, 3257 * 0.8e-6, 1e-12);
  c.two_batch_overlap = 0;
  /* the fixed part makes the small batch slower per sequence: the
  ** 768-over-1,408 throughput ratio falls as kernel_us grows */
  c.layer_us = -1.0;
  double ratio[2];
  for (int i = 0; i < 2; i++) {
    c.kernel_us = i ? 0.8 : 0.0;
    c.batch = 768 * 48;
    double lo = serve_ok(&c).decode_tokens_per_s_per_gpu;
    c.batch = 1408 * 48;
    ratio[i] = lo / serve_ok(&c).decode_tokens_per_s_per_gpu;
  }
  assert_true(ratio[1] < ratio[0] - 1e-3);
}

/* A pipeline stage counts its own layers: with PP 2 the stage holds
** ceil(80 / 2) = 40 of Llama 3 70B's 80 bf16 blocks (9 kernels each) and
** the step's five. */
static void test_pipeline_stage(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("hgx_h100", "llama3_70b", 16);
  c.dtype = POD_DTYPE_BF16;
  c.parallel.tp = 8;
  c.parallel.pp = 2;
  c.batch = 64;
  assert_near(serve_ok(&c).step.overhead, (40 * 9 + 5) * 0.8e-6, 1e-12);
}

static void test_errors(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("hgx_h100", "llama3_70b", 8);
  c.parallel.tp = 8;
  c.batch = 8;
  c.kernel_us = NAN;
  serve_expect_err(&c, "kernel_us");
  c.kernel_us = -0.1;
  serve_expect_err(&c, "kernel_us");
  c.kernel_us = 2e3;
  serve_expect_err(&c, "kernel_us");
  c.kernel_us = 0.8;
  c.layer_us = -1.5;
  serve_expect_err(&c, "layer_us");
  c.layer_us = INFINITY;
  serve_expect_err(&c, "layer_us");
  c.layer_us = -1.0;
  serve_ok(&c);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_counts),
      cmocka_unit_test(test_decode_overhead),
      cmocka_unit_test(test_pipeline_stage),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
