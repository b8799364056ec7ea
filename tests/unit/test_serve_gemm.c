/*
** test_serve_gemm.c: the serving model's GEMM weight streaming
** (gemm_w_overlap), single-batch overlap in decode and the precision of
** prefill attention (core/serve.c), with their error paths.
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

/* A dense GEMM takes max(t_mma, t_w) + (1 - gemm_w_overlap) min(...):
** batch 1 on Llama 3 70B (TP8, fp8 weights) is the weight read plus the
** one row's MMA by default, the weight read alone under the roofline. */
static void test_weight_stream(void **state) {
  (void)state;
  pod_serve_cfg c = serve_cfg("hgx_h100", "llama3_70b", 8);
  c.parallel.tp = 8;
  c.batch = 1;
  c.eff_gemm = 0.5;
  assert_near(c.gemm_w_overlap, 0.0, 0.0); /* the default */
  pod_model_params p;
  pod_model_params_count(&c.model, &p);
  double t_w =
      (p.layers_dense + p.embedding + p.head) * 1.0 / 8 / (3.35e12 * c.eff_hbm);
  double t_mma = 2.0 *
                 (p.layers_dense + (double)c.model.vocab * c.model.hidden) / 8 /
                 (1979e12 * 0.5);
  assert_true(t_mma < t_w);
  assert_near(serve_ok(&c).step.dense, t_w + t_mma, 1e-12);
  c.gemm_w_overlap = 0.25;
  assert_near(serve_ok(&c).step.dense, t_w + 0.75 * t_mma, 1e-12);
  c.gemm_w_overlap = 1.0;
  assert_near(serve_ok(&c).step.dense, t_w, 1e-12);
  /* compute-bound (4,096 rows): the weight read adds to the MMA */
  c.batch = 4096;
  c.input_tokens = 64; /* a KV cache that fits */
  c.output_tokens = 8;
  c.gemm_w_overlap = 0.0;
  double big = serve_ok(&c).step.dense;
  c.gemm_w_overlap = 1.0;
  double roof = serve_ok(&c).step.dense;
  assert_near(roof, 4096 * t_mma, 1e-12);
  assert_near(big, roof + t_w, 1e-12);
  /* two micro-batches read the weights once each */
  c.gemm_w_overlap = 0.0;
  c.two_batch_overlap = 1;
  assert_near(serve_ok(&c).step.dense, roof + 2.0 * t_w, 1e-12);
  c.gemm_w_overlap = 1.5;
  serve_expect_err(&c, "gemm_w_overlap");
  c.gemm_w_overlap = -0.1;
  serve_expect_err(&c, "gemm_w_overlap");
}

/* Single-batch overlap hides the combine under the down GEMM (a third of
** the experts' time) and the shared experts (their share of the dense
** GEMMs), `overlap` of the smaller; nothing else moves. */
static void test_single_batch_overlap(void **state) {
  (void)state;
  pod_serve_cfg a = serve_cfg("gb200_nvl72", "deepseek_v3", 48);
  a.redundant_experts = 32;
  a.batch = 48 * 768;
  a.dtype = POD_DTYPE_FP4;
  a.dense_dtype = POD_DTYPE_FP8;
  pod_serve_cfg b = a;
  b.single_batch_overlap = 1;
  pod_serve_result ra = serve_ok(&a), rb = serve_ok(&b);
  pod_model_params p;
  pod_model_params_count(&a.model, &p);
  double shared = p.moe_layers * a.model.shared_experts * p.expert /
                  (p.layers_dense + (double)a.model.vocab * a.model.hidden);
  double under = ra.step.expert / 3.0 + ra.step.dense * shared;
  /* the combine (bf16, 4x the NVFP4 dispatch bytes) outlasts `under` */
  assert_true(under < ra.step.ep / 2.0);
  assert_near(ra.step.ep - rb.step.ep, a.overlap * under, 1e-12);
  assert_near(ra.step.total - rb.step.total, a.overlap * under, 1e-12);
  assert_near(rb.step.expert, ra.step.expert, 0.0);
  assert_near(rb.step.attn, ra.step.attn, 0.0);
  b.overlap = 0.0;
  assert_near(serve_ok(&b).step.total, ra.step.total, 1e-15);
  /* with two-batch overlap it has no effect */
  a.two_batch_overlap = b.two_batch_overlap = 1;
  b.overlap = a.overlap;
  assert_near(serve_ok(&b).step.total, serve_ok(&a).step.total, 1e-15);
  /* a dense model has no combine */
  pod_serve_cfg d = serve_cfg("hgx_h100", "llama3_70b", 8);
  d.parallel.tp = 8;
  d.batch = 64;
  pod_serve_cfg e = d;
  e.single_batch_overlap = 1;
  assert_near(serve_ok(&e).step.total, serve_ok(&d).step.total, 0.0);
}

/* Prefill attention stays on bf16 tensor cores with an fp8 KV cache
** unless fp8_prefill_attn; decode attention uses the cache's. */
static void test_prefill_attn_dtype(void **state) {
  (void)state;
  pod_serve_cfg a = serve_cfg("gb200_nvl72", "deepseek_v3", 48);
  a.redundant_experts = 32;
  a.batch = 48 * 256;
  pod_serve_cfg f = a;
  f.kv_dtype = POD_DTYPE_FP8;
  pod_serve_result ra = serve_ok(&a), rf = serve_ok(&f);
  assert_near(rf.pass.attn, ra.pass.attn, 1e-15);
  assert_true(rf.step.attn < ra.step.attn);
  f.fp8_prefill_attn = 1;
  /* GB200: 5 PF fp8 against 2.5 PF bf16 */
  assert_near(serve_ok(&f).pass.attn, ra.pass.attn / 2.0, 1e-12);
  /* a bf16 cache keeps bf16 whatever the flag */
  a.fp8_prefill_attn = 1;
  assert_near(serve_ok(&a).pass.attn, ra.pass.attn, 0.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_weight_stream),
      cmocka_unit_test(test_single_batch_overlap),
      cmocka_unit_test(test_prefill_attn_dtype),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
