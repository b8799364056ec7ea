/*
** test_train_recipe.c: the fp8 recipe terms of the training-step model
** (core/train_sw.c): bytes per quantised operand element per recipe and
** GPU generation, MXFP8's GEMM kernel speed against per-tensor fp8, and
** the step's weight cast, each worked by hand on the tiny dense model.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"
#include "train_int.h"

static void near(double got, double want) {
  if (fabs(got - want) > 1e-12 + 1e-9 * fabs(want)) {
    print_error("got %.12g, want %.12g\n", got, want);
    fail();
  }
}

/* The tiny dense model on 2 GPUs of a system, fp8 with a recipe. */
static pod_train_cfg tiny_fp8(const char *sys, int recipe) {
  pod_train_cfg c = tiny_h100_cfg();
  assert_int_equal(pod_hw_system_preset(sys, &c.system), POD_OK);
  c.dtype = POD_DTYPE_FP8;
  c.fp8_recipe = recipe;
  return c;
}

/* Bytes per operand element over the 4 B reference, by hand, with a
** quarter of the elements lacking a fusing producer: per-tensor read 2 +
** write 1 (+ 1 transpose on Hopper), current + 2 x 1/4 (the amax passes
** not fused), MXFP8 2 + 2 + 2/32 + 4/32, Hopper blocks 2 + 2 + 8/128;
** with none unfused current scaling costs what delayed scaling does,
** with all unfused 2 B more. */
static void test_quant_bytes(void **state) {
  (void)state;
  struct {
    const char *sys;
    int recipe;
    double bytes;
  } rows[] = {
      {"hgx_h100", POD_FP8_DELAYED, 4.0},
      {"hgx_h100", POD_FP8_DELAYED_TP, 4.0},
      {"hgx_h100", POD_FP8_CURRENT, 4.5},
      {"hgx_h100", POD_FP8_BLOCK, 4.0625},
      {"gb300_nvl72", POD_FP8_DELAYED, 3.0},
      {"gb300_nvl72", POD_FP8_CURRENT, 3.5},
      {"gb300_nvl72", POD_FP8_BLOCK, 4.1875},
      {"hgx_b200", POD_FP8_BLOCK, 4.1875},
  };
  for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
    pod_train_cfg c = tiny_fp8(rows[i].sys, rows[i].recipe);
    near(pod_train__quant_scale(&c, 0.25), rows[i].bytes / 4.0);
    double cur = rows[i].recipe == POD_FP8_CURRENT ? 0.5 : 0.0;
    near(pod_train__quant_scale(&c, 0.0), (rows[i].bytes - cur) / 4.0);
    near(pod_train__quant_scale(&c, 1.0), (rows[i].bytes + 3.0 * cur) / 4.0);
    c.dtype = POD_DTYPE_BF16;
    near(pod_train__quant_scale(&c, 1.0), 0.0);
    near(pod_train__weight_cast_bytes(&c), 0.0);
    near(pod_train__recipe_gemm_rel(&c), 1.0);
  }
}

/* fp4 is NVFP4 whatever the fp8 recipe: its casts at (6.453 - 3.764) /
** (9.147 - 6.812) of current scaling's at the same operands, its GEMMs
** at the fp8 fraction of peak x min(1, (6.812 / 3.764) x fp8 peak / fp4
** peak): 5 / 15 on GB300, 5 / 10 on GB200 (TE GEMM profiling, B300). */
static void test_nvfp4(void **state) {
  (void)state;
  double cast = (6.453 - 3.764) / (9.147 - 6.812), speed = 6.812 / 3.764;
  int recipes[] = {POD_FP8_DELAYED, POD_FP8_CURRENT, POD_FP8_BLOCK};
  for (int i = 0; i < 3; i++) {
    pod_train_cfg c = tiny_fp8("gb300_nvl72", recipes[i]);
    c.dtype = POD_DTYPE_FP4;
    near(pod_train__quant_scale(&c, 0.25), cast * (3.0 + 0.5) / 4.0);
    near(pod_train__quant_scale(&c, 1.0), cast * 5.0 / 4.0);
    near(pod_train__recipe_gemm_rel(&c), speed * 5000.0 / 15000.0);
    pod_train_cfg g2 = tiny_fp8("gb200_nvl72", recipes[i]);
    g2.dtype = POD_DTYPE_FP4;
    near(pod_train__recipe_gemm_rel(&g2), speed * 5000.0 / 10000.0);
    /* a part whose fp4 peak is under 1.81x its fp8 one: no cap */
    g2.system.gpu.fp4_tflops = 8000.0;
    near(pod_train__recipe_gemm_rel(&g2), 1.0);
  }
  /* through the step: fp4 GEMMs at that share of the fp8 fit's fraction */
  pod_train_cfg c8 = tiny_fp8("gb300_nvl72", POD_FP8_CURRENT);
  pod_train_cfg c4 = c8;
  c4.dtype = POD_DTYPE_FP4;
  near(train_eval_ok(&c4).eff_gemm, train_eval_ok(&c8).eff_gemm * speed / 3.0);
  assert_true(train_eval_ok(&c4).step_s < train_eval_ok(&c8).step_s);
}

/* Current against delayed scaling on Blackwell: the same GEMM rates, so
** the compute differs by the amax passes alone: per layer and micro-
** batch Tt x 2 x (4.125 / 6.125) / 4 x 27 h bytes (train.c EW_FP8_HIDDEN
** and the unfused share of its operands; the FFN-side operands all have
** fusing producers), 2 layers x 2 micro-batches, over HBM x eff_hbm. */
static void test_cast_traffic_by_hand(void **state) {
  (void)state;
  pod_train_cfg d = tiny_fp8("gb300_nvl72", POD_FP8_DELAYED);
  pod_train_cfg cs = tiny_fp8("gb300_nvl72", POD_FP8_CURRENT);
  pod_train_result rd = train_eval_ok(&d), rc = train_eval_ok(&cs);
  near(rc.eff_gemm, rd.eff_gemm);
  double Tt = 32.0, h = 64.0;
  double bytes = Tt * 2.0 * (4.125 / 6.125) / 4.0 * 27.0 * h;
  double hbm = d.system.gpu.hbm_TBps * 1e12 * d.eff_hbm;
  near(rc.breakdown.compute - rd.breakdown.compute, 2.0 * 2.0 * bytes / hbm);
}

/* MXFP8 GEMMs at 6.812 / 7.161 of per-tensor fp8 on Blackwell (the TE
** GEMM profiling figures); Hopper's 128-blocks at 16.785 / (22.882 -
** 3.500 x 4.0625 / 6) = 0.818 (its autocast times less the casts at the
** byte ratio); a set eff_gemm is scaled the same way. */
static void test_mxfp8_gemm_rel(void **state) {
  (void)state;
  pod_train_cfg mx = tiny_fp8("gb300_nvl72", POD_FP8_BLOCK);
  pod_train_cfg cs = tiny_fp8("gb300_nvl72", POD_FP8_CURRENT);
  near(pod_train__recipe_gemm_rel(&mx), 6.812 / 7.161);
  near(pod_train__recipe_gemm_rel(&cs), 1.0);
  near(train_eval_ok(&mx).eff_gemm,
       train_eval_ok(&cs).eff_gemm * 6.812 / 7.161);
  mx.eff_gemm = cs.eff_gemm = 0.5;
  near(train_eval_ok(&mx).eff_gemm,
       train_eval_ok(&cs).eff_gemm * 6.812 / 7.161);
  double hopper_rel = 16.785 / (22.882 - 3.5 * 4.0625 / 6.0);
  pod_train_cfg hb = tiny_fp8("hgx_h100", POD_FP8_BLOCK);
  pod_train_cfg hc = tiny_fp8("hgx_h100", POD_FP8_CURRENT);
  near(pod_train__recipe_gemm_rel(&hb), hopper_rel);
  near(train_eval_ok(&hb).eff_gemm, train_eval_ok(&hc).eff_gemm * hopper_rel);
  near(pod_train__recipe_gemm_rel(&hc), 1.0);
  hb.fp8_recipe = POD_FP8_DELAYED;
  near(pod_train__recipe_gemm_rel(&hb), 1.0);
  /* slower GEMMs, slower step */
  assert_true(train_eval_ok(&mx).step_s > train_eval_ok(&cs).step_s);
}

/* The step's weight cast: none for per-tensor recipes with fp8 primary
** weights; otherwise the recipe's bytes per element over every local
** weight, in breakdown.optimizer.  MXFP8 casts with fp8_params too (the
** weights arrive in bf16).  A weight has no fusing producer: current
** scaling pays its amax pass, 3 + 2 B on Blackwell.  The differences of
** the optimizer terms stand in the recipes' byte ratio whatever the local
** parameter count. */
static void test_weight_cast(void **state) {
  (void)state;
  pod_train_cfg cs = tiny_fp8("gb300_nvl72", POD_FP8_CURRENT);
  pod_train_cfg mx = tiny_fp8("gb300_nvl72", POD_FP8_BLOCK);
  near(pod_train__weight_cast_bytes(&cs), 5.0);
  near(pod_train__weight_cast_bytes(&mx), 4.1875);
  double opt_cs = train_eval_ok(&cs).breakdown.optimizer;
  cs.software.fp8_params = 1;
  mx.software.fp8_params = 1;
  near(pod_train__weight_cast_bytes(&cs), 0.0);
  near(pod_train__weight_cast_bytes(&mx), 4.1875);
  double opt_cs8 = train_eval_ok(&cs).breakdown.optimizer;
  double opt_mx8 = train_eval_ok(&mx).breakdown.optimizer;
  assert_true(opt_cs > opt_cs8);
  near((opt_mx8 - opt_cs8) / (opt_cs - opt_cs8), 4.1875 / 5.0);
  /* by hand: 2 layers of the tiny model plus embedding and head, all on
  ** one GPU (tp = pp = 1), at 5 B over HBM x eff_hbm */
  pod_model_params mp;
  pod_model_params_count(&cs.model, &mp);
  double hbm = cs.system.gpu.hbm_TBps * 1e12 * cs.eff_hbm;
  near(opt_cs - opt_cs8,
       (mp.layers_dense + mp.embedding + mp.head) * 5.0 / hbm);
  pod_train_cfg hd = tiny_fp8("hgx_h100", POD_FP8_DELAYED);
  near(pod_train__weight_cast_bytes(&hd), 4.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_quant_bytes),
      cmocka_unit_test(test_nvfp4),
      cmocka_unit_test(test_cast_traffic_by_hand),
      cmocka_unit_test(test_mxfp8_gemm_rel),
      cmocka_unit_test(test_weight_cast),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
