/*
** test_train.c: the training-step model (core/train.c): memory by hand
** for every ZeRO stage and recompute policy, breakdown parts that vanish
** with their parallel dimension, monotonicity in bandwidth, every
** constraint error, the built-in evaluator.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"

static pod_train_cfg tiny_cfg(int gpus) {
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  c.model = tiny_model();
  c.gpus = gpus;
  c.seq = 32;
  c.global_batch = 4;
  return c;
}

static void near(double got, double want) {
  if (fabs(got - want) > 1e-12 + 1e-9 * fabs(want)) {
    print_error("got %.12g, want %.12g\n", got, want);
    fail();
  }
}

/* Hand-computed memory of the tiny model on 2 GPUs (dp 2), bf16:
** local params P = layers 2 x (12352 + 24640) + embedding 6400 + head
** 6400 = 86784; weights 2P, bf16 gradient buffer 2P, Adam 12P (/dp when
** sharded).  Activations per layer per micro-batch (Tt = 32 tokens, bf16):
** kept 576 elements per token (residual 64, q/k/v 128, attention out 64,
** MLP residual 64, gate+up 256), recomputable 256 (two norm outputs 64+64,
** SwiGLU out 128): 2 B x 32 x 832 = 53248 B; logits 32 x 100 x 8 B. */
static void test_memory_by_hand(void **state) {
  (void)state;
  const double P = 86784.0, act_none = 2 * 53248.0, logits = 25600.0;
  const double act_sel = 2 * (2.0 * 32 * 576);
  const double act_full = 2 * (2.0 * 32 * 64) + 53248.0;
  struct {
    int zero, rec;
    double w, g, o, a;
  } cases[] = {
      {0, POD_RECOMPUTE_NONE, 2 * P, 2 * P, 12 * P, act_none},
      {1, POD_RECOMPUTE_NONE, 2 * P, 2 * P, 6 * P, act_none},
      {2, POD_RECOMPUTE_NONE, 2 * P, P, 6 * P, act_none},
      {3, POD_RECOMPUTE_NONE, P, P, 6 * P, act_none},
      {1, POD_RECOMPUTE_SELECTIVE, 2 * P, 2 * P, 6 * P, act_sel},
      {1, POD_RECOMPUTE_FULL, 2 * P, 2 * P, 6 * P, act_full},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_cfg c = tiny_cfg(2);
    c.parallel.zero = cases[i].zero;
    c.parallel.recompute = cases[i].rec;
    pod_train_result r;
    pod_err e;
    assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
    near(r.memory.weights_gb, cases[i].w / 1e9);
    near(r.memory.grads_gb, cases[i].g / 1e9);
    near(r.memory.optimizer_gb, cases[i].o / 1e9);
    near(r.memory.activations_gb, (cases[i].a + logits) / 1e9);
    near(r.memory.total_gb,
         (cases[i].w + cases[i].g + cases[i].o + cases[i].a + logits) / 1e9 +
             4.0);
    assert_true(r.fits);
    assert_int_equal(r.dp, 2);
    assert_int_equal(r.microbatches, 2);
  }
  /* fp32 gradient buffers double the gradients. */
  pod_train_cfg c = tiny_cfg(2);
  c.grad_reduce_bytes = 4.0;
  pod_train_result r;
  assert_int_equal(pod_train_eval(&c, &r, NULL), POD_OK);
  near(r.memory.grads_gb, 4 * P / 1e9);
  /* Too little HBM: does not fit. */
  c.system.gpu.hbm_gb = 4.0;
  assert_int_equal(pod_train_eval(&c, &r, NULL), POD_OK);
  assert_false(r.fits);
}

static void test_throughput_identities(void **state) {
  (void)state;
  pod_train_cfg c = preset_cfg(
      "hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_BF16,
      (pod_layout){4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  pod_train_result r;
  pod_err e;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  const pod_train_breakdown *b = &r.breakdown;
  near(r.step_s, b->compute + b->tp + b->cp + b->ep + b->pp + b->dp +
                     b->bubble + b->optimizer + b->straggler);
  near(r.tokens_per_s, 128.0 * 8192 / r.step_s);
  near(r.tokens_per_s_per_gpu, r.tokens_per_s / 64);
  near(r.tflops_per_gpu, r.flops_per_token * r.tokens_per_s_per_gpu / 1e12);
  near(r.mfu, r.tflops_per_gpu / 989.0);
  near(r.peak_tflops, 989.0);
  assert_true(r.mfu > 0.3 && r.mfu < 0.8);
  /* Bubble (p-1)/(v m + p-1) of the pipelined time: m = 64, p 4, v 5. */
  double piped = b->compute + b->tp + b->cp + b->ep + b->bubble;
  near(b->bubble / piped, 3.0 / (5.0 * 64 + 3.0));
  /* Straggler: jitter x (step without it) x sqrt(2 ln N), N = 64 GPUs. */
  near(b->straggler,
       c.jitter * (r.step_s - b->straggler) * sqrt(2.0 * log(64.0)));
  pod_train_cfg cj = c;
  cj.jitter = 0.0;
  pod_train_result rj;
  assert_int_equal(pod_train_eval(&cj, &rj, NULL), POD_OK);
  assert_true(rj.breakdown.straggler == 0.0);
  near(rj.step_s, r.step_s - b->straggler);
  /* The full-attention MFU convention counts more FLOPs, same time. */
  c.mfu_full_attn = 1;
  pod_train_result r2;
  assert_int_equal(pod_train_eval(&c, &r2, NULL), POD_OK);
  near(r2.step_s, r.step_s);
  assert_true(r2.mfu > r.mfu);
  /* fp8 is faster but gains less than 2x. */
  c.dtype = POD_DTYPE_FP8;
  assert_int_equal(pod_train_eval(&c, &r2, NULL), POD_OK);
  assert_true(r2.step_s < r.step_s && r2.step_s > r.step_s / 2);
}

/* Each breakdown part vanishes when its parallel dimension is 1. */
static void test_breakdown_zero_dims(void **state) {
  (void)state;
  pod_train_result r;
  pod_err e;
  pod_train_cfg c = tiny_cfg(1);
  c.global_batch = 2;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  const pod_train_breakdown *b = &r.breakdown;
  assert_true(b->compute > 0 && b->optimizer > 0);
  assert_true(b->tp == 0 && b->cp == 0 && b->ep == 0 && b->pp == 0 &&
              b->dp == 0 && b->bubble == 0 && b->straggler == 0);
  struct {
    pod_layout l;
    int gpus;
  } one[] = {
      {{2, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}, 2}, /* tp */
      {{1, 1, 1, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}, 2}, /* cp */
      {{1, 2, 1, 0, 1, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}, 2}, /* pp */
      {{1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}, 2}, /* dp */
  };
  for (int i = 0; i < 4; i++) {
    c = tiny_cfg(one[i].gpus);
    c.parallel = one[i].l;
    assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
    b = &r.breakdown;
    assert_true((b->tp > 0) == (i == 0));
    assert_true((b->cp > 0) == (i == 1));
    assert_true((b->pp > 0) == (i == 2));
    assert_true((b->bubble > 0) == (i == 2));
    assert_true((b->dp > 0) ==
                (i == 3 || i == 1)); /* cp joins the grad group */
    assert_true(b->ep == 0);
    assert_true(b->straggler > 0);
  }
  /* EP: a tiny MoE on 2 GPUs, dp 2. */
  c = tiny_cfg(2);
  c.model.experts = 4;
  c.model.top_k = 2;
  c.model.expert_ffn = 32;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  assert_true(r.breakdown.ep == 0);
  c.parallel.ep = 2;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  assert_true(r.breakdown.ep > 0 && r.breakdown.tp == 0);
  double ep1 = r.breakdown.ep;
  c.model.imbalance = 1.5; /* the busiest rank moves more */
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  assert_true(r.breakdown.ep > ep1);
  c.model.capacity_factor = 1.0; /* dropping caps the imbalance */
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  near(r.breakdown.ep, ep1);
}

/* Step time never falls when a bandwidth falls. */
static void test_monotone_bandwidth(void **state) {
  (void)state;
  pod_train_cfg cs[3] = {
      preset_cfg(
          "hgx_h100", "llama3_70b", 2048, 8192, 4096, POD_DTYPE_FP8,
          (pod_layout){4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}),
      preset_cfg("hgx_h100", "llama4_maverick", 512, 8192, 1024, POD_DTYPE_FP8,
                 (pod_layout){
                     4, 1, 1, 0, 128, 4, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}}),
      preset_cfg(
          "gb300_nvl72", "deepseek_v3", 256, 4096, 4096, POD_DTYPE_FP8,
          (pod_layout){1, 2, 8, 0, 32, 1, 1, 1, 1, 0, 1, {0, 0, 0, 0, 0}, {0}}),
  };
  for (int k = 0; k < 3; k++) {
    for (int which = 0; which < 3; which++) {
      pod_train_cfg c = cs[k];
      double prev = 0.0;
      for (int i = 0; i < 8; i++) {
        pod_train_result r;
        pod_err e;
        assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
        assert_true(r.step_s >= prev * (1 - 1e-12));
        prev = r.step_s;
        if (which == 0) c.system.up_GBps *= 0.7;
        if (which == 1) c.system.nic_gbps *= 0.7;
        if (which == 2) c.system.gpu.hbm_TBps *= 0.7;
      }
    }
  }
}

/* Megatron's account_for_embedding/loss_in_pipeline_split: with uneven
** a layout may hold pp*vp = layers + 2 virtual stages, an embedding-only
** first and a loss-only last one (Llama 3.1 405B, 126 layers, PP16 VP8 in
** the Megatron-Bridge MXFP8 recipe); without uneven, or beyond + 2, the
** layout is rejected on parallel.vp. */
static void test_embedding_loss_stages(void **state) {
  (void)state;
  pod_layout l8 = {4, 16, 8, 0, 1, 1, 1, 1, 1, 0, 1, {0, 0, 0, 0, 0}, {0}};
  pod_train_cfg c = preset_cfg("gb200_nvl72", "llama3_405b", 256, 8192, 1536,
                               POD_DTYPE_FP8, l8);
  c.fp8_recipe = POD_FP8_BLOCK;
  pod_train_result r8, r4;
  pod_err e;
  assert_int_equal(pod_train_eval(&c, &r8, &e), POD_OK);
  /* one layer per virtual stage: the busiest rank holds 8 layers, the
  ** first and the last 7 and the embedding or the loss */
  pod_train_cfg d = c;
  d.parallel.vp = 4; /* 64 stages of 2 layers: the same 8 per rank */
  assert_int_equal(pod_train_eval(&d, &r4, &e), POD_OK);
  near(r8.breakdown.compute, r4.breakdown.compute);
  /* the bubble is (pp - 1) / vp stage micro-batches */
  near(r8.breakdown.bubble, 0.5 * r4.breakdown.bubble);
  assert_true(r8.tokens_per_s_per_gpu > r4.tokens_per_s_per_gpu);
  /* first stage: 7 layers and the embedding */
  assert_true(r8.memory.weights_gb < r4.memory.weights_gb * 1.001);
  d = c;
  d.parallel.uneven = 0;
  pod_err_clear(&e);
  assert_int_equal(pod_train_eval(&d, &r4, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.vp");
  d = c;
  d.model.layers = 125; /* 128 > 125 + 2 */
  pod_err_clear(&e);
  assert_int_equal(pod_train_eval(&d, &r4, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.vp");
}

/* Products of layout dimensions (train_check.c): tp, pp and cp each in
** their bounds multiply to 2^48, and with dp = 2^24 to 2^72, which wrapped
** a 64-bit product (to 0 here: the old error claimed tp*pp*cp*dp = 0).
** The product is bounded by gpus before any integer product; a layout one
** dimension short of the bound still gets the dp rule. */
static void test_layout_product_bound(void **state) {
  (void)state;
  pod_train_cfg c = tiny_cfg(1 << 24);
  c.model.heads = c.model.kv_heads = 1 << 16;
  c.model.hidden = 1 << 22;
  c.model.head_dim = 64;
  c.model.layers = 1 << 16;
  c.seq = 1 << 17;
  c.global_batch = 1 << 24;
  c.parallel.tp = c.parallel.pp = c.parallel.cp = 1 << 16;
  c.parallel.dp = 1 << 24;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_train_check(&c, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel");
  assert_non_null(strstr(e.msg, "tp*pp*cp = 281474976710656"));
  assert_non_null(strstr(e.msg, "exceeds gpus (16777216)"));
  pod_train_result r;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel");
  /* tp*pp*cp = 2^24 = gpus: the product passes; dp 2^24 is then wrong */
  c.parallel.cp = 1 << 8;
  c.parallel.pp = 1;
  c.parallel.tp = 1 << 16;
  pod_err_clear(&e);
  assert_int_equal(pod_train_check(&c, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.dp");
  assert_non_null(strstr(e.msg, "tp*pp*cp*dp = 281474976710656 must equal"));
}

typedef void (*mutate)(pod_train_cfg *);
#define MUT(name, body)                \
  static void name(pod_train_cfg *c) { \
    body;                              \
  }
MUT(x_gpus, c->gpus = 0)
MUT(x_seq, c->seq = 0)
MUT(x_gbs, c->global_batch = 0)
MUT(x_dtype, c->dtype = (pod_dtype)9)
MUT(x_effg, c->eff_gemm = 1.5)
MUT(x_effa, c->eff_attn = NAN)
MUT(x_hbm, c->eff_hbm = 0)
MUT(x_kh, c->gemm_k_half = INFINITY)
MUT(x_scale, c->eff_scale = 0)
MUT(x_otp, c->overlap_tp = 1.2)
MUT(x_ocp, c->overlap_cp = -0.1)
MUT(x_oep, c->overlap_ep = NAN)
MUT(x_opp, c->overlap_pp = 2)
MUT(x_odp, c->overlap_dp = -1)
MUT(x_jit, c->jitter = -1)
MUT(x_grb, c->grad_reduce_bytes = 0)
MUT(x_res, c->mem_reserve_gb = -1)
MUT(x_mfu, c->mfu_full_attn = 2)
MUT(x_f8r, c->fp8_recipe = 4)
MUT(x_f8rn, c->fp8_recipe = -1)
MUT(x_jsync, c->jitter_sync = 1.0)
MUT(x_jsyncn, c->jitter_sync = NAN)
MUT(x_sys, c->system.domain_gpus = 0)
MUT(x_model, c->model.layers = 0)
MUT(x_tp0, c->parallel.tp = -1)
MUT(x_tp_heads, c->parallel.tp = 3)
MUT(x_tp_kv, c->parallel.tp = 16; c->gpus = 16 * 16 * 2; c->global_batch = 64)
MUT(x_pp0, c->parallel.pp = -1)
MUT(x_pp_big, c->parallel.pp = 81)
MUT(x_pp_div, c->parallel.pp = 3; c->parallel.vp = 1; c->gpus = 4 * 3 * 2 * 8)
MUT(x_vp0, c->parallel.vp = -2)
MUT(x_vp_pp1, c->parallel.pp = 1; c->parallel.vp = 2; c->gpus = 8 * 2)
MUT(x_vp_div, c->parallel.vp = 3)
MUT(x_uneven, c->parallel.uneven = 2)
MUT(x_uneven_big, c->parallel.uneven = 1; c->parallel.vp = 21)
MUT(x_uneven_l3, c->parallel.uneven = 1; c->parallel.pp = 2;
    c->parallel.vp = 42; c->gpus = 4 * 2 * 2 * 4)
MUT(x_cp0, c->parallel.cp = -1)
MUT(x_cp_seq, c->parallel.cp = 3; c->gpus = 4 * 4 * 3 * 2)
MUT(x_gpus_mult, c->gpus = 65)
MUT(x_dp_neg, c->parallel.dp = -1)
MUT(x_dp_mis, c->parallel.dp = 3)
MUT(x_ep0, c->parallel.ep = -1)
MUT(x_etp0, c->parallel.etp = -1)
MUT(x_ep_dense, c->parallel.ep = 2)
MUT(x_etp_dense, c->parallel.etp = 2)
MUT(x_mb0, c->parallel.microbatch = -1)
MUT(x_gbs_div, c->global_batch = 129)
MUT(x_zero, c->parallel.zero = 4)
MUT(x_rec, c->parallel.recompute = 3)
MUT(x_vp_huge, c->parallel.vp = 65536)
MUT(x_cp_huge, c->parallel.cp = 1 << 16) /* in its bound, above gpus */

static void test_constraint_errors(void **state) {
  (void)state;
  struct {
    mutate f;
    const char *field;
    int code;
  } cases[] = {
      {x_gpus, "gpus", POD_EINVAL},
      {x_seq, "seq", POD_EINVAL},
      {x_gbs, "global_batch", POD_EINVAL},
      {x_dtype, "dtype", POD_EINVAL},
      {x_effg, "eff_gemm", POD_EINVAL},
      {x_effa, "eff_attn", POD_EINVAL},
      {x_hbm, "eff_hbm", POD_EINVAL},
      {x_kh, "gemm_k_half", POD_EINVAL},
      {x_scale, "eff_scale", POD_EINVAL},
      {x_otp, "overlap_tp", POD_EINVAL},
      {x_ocp, "overlap_cp", POD_EINVAL},
      {x_oep, "overlap_ep", POD_EINVAL},
      {x_opp, "overlap_pp", POD_EINVAL},
      {x_odp, "overlap_dp", POD_EINVAL},
      {x_jit, "jitter", POD_EINVAL},
      {x_grb, "grad_reduce_bytes", POD_EINVAL},
      {x_res, "mem_reserve_gb", POD_EINVAL},
      {x_mfu, "mfu_full_attn", POD_EINVAL},
      {x_f8r, "fp8_recipe", POD_EINVAL},
      {x_f8rn, "fp8_recipe", POD_EINVAL},
      {x_jsync, "jitter_sync", POD_EINVAL},
      {x_jsyncn, "jitter_sync", POD_EINVAL},
      {x_sys, "system.domain_gpus", POD_EINVAL},
      {x_model, "model.layers", POD_EINVAL},
      {x_tp0, "parallel.tp", POD_EINVAL},
      {x_tp_heads, "parallel.tp", POD_EINVAL},
      {x_tp_kv, "parallel.tp", POD_EINVAL},
      {x_pp0, "parallel.pp", POD_EINVAL},
      {x_pp_big, "parallel.pp", POD_EINVAL},
      {x_pp_div, "parallel.pp", POD_EINVAL},
      {x_vp0, "parallel.vp", POD_EINVAL},
      {x_vp_pp1, "parallel.vp", POD_EINVAL},
      {x_vp_div, "parallel.vp", POD_EINVAL},
      {x_vp_huge, "parallel.vp", POD_EINVAL},
      {x_cp_huge, "parallel", POD_EINVAL},
      {x_uneven, "parallel.uneven", POD_EINVAL},
      {x_uneven_big, "parallel.vp", POD_EINVAL},
      {x_uneven_l3, "parallel.vp", POD_EINVAL},
      {x_cp0, "parallel.cp", POD_EINVAL},
      {x_cp_seq, "parallel.cp", POD_EINVAL},
      {x_gpus_mult, "gpus", POD_EINVAL},
      {x_dp_neg, "parallel.dp", POD_EINVAL},
      {x_dp_mis, "parallel.dp", POD_EINVAL},
      {x_ep0, "parallel.ep", POD_EINVAL},
      {x_etp0, "parallel.etp", POD_EINVAL},
      {x_ep_dense, "parallel.ep", POD_EINVAL},
      {x_etp_dense, "parallel.etp", POD_EINVAL},
      {x_mb0, "parallel.microbatch", POD_EINVAL},
      {x_gbs_div, "global_batch", POD_EINVAL},
      {x_zero, "parallel.zero", POD_EINVAL},
      {x_rec, "parallel.recompute", POD_EINVAL},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_cfg c = preset_cfg(
        "hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_BF16,
        (pod_layout){4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
    assert_int_equal(pod_train_check(&c, NULL), POD_OK);
    cases[i].f(&c);
    pod_err e;
    pod_err_clear(&e);
    pod_train_result r;
    int rc = pod_train_eval(&c, &r, &e);
    if (rc != cases[i].code || strcmp(e.field, cases[i].field) != 0) {
      print_error("case %zu: want %s (%d), got '%s' (%d): %s\n", i,
                  cases[i].field, cases[i].code, e.field, rc, e.msg);
      fail();
    }
    assert_true(strlen(e.msg) > 0);
    assert_int_equal(pod_train_check(&c, NULL), cases[i].code);
  }
  /* MoE folding rules on Maverick (128 experts, expert_ffn 8192). */
  struct {
    pod_layout l;
    const char *field;
  } moe[] = {
      {{4, 1, 1, 0, 3, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}},
       "parallel.ep"}, /* 3 !| 128 */
      {{4, 1, 1, 0, 8, 3, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}},
       "parallel.etp"}, /* 3 !| 8192 */
      {{4, 1, 1, 0, 128, 8, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}},
       "parallel.ep"}, /* 1024 !| 512 */
  };
  for (int i = 0; i < 3; i++) {
    pod_train_cfg c = preset_cfg("hgx_h100", "llama4_maverick", 512, 8192, 1024,
                                 POD_DTYPE_FP8, moe[i].l);
    pod_err e;
    assert_int_equal(pod_train_eval(&c, NULL, &e), POD_EINVAL);
    assert_string_equal(e.field, moe[i].field);
  }
  /* No fp4 on H100; no default efficiency for an unknown GPU. */
  pod_train_cfg c = tiny_cfg(1);
  c.global_batch = 1;
  c.dtype = POD_DTYPE_FP4;
  pod_err e;
  assert_int_equal(pod_train_eval(&c, NULL, &e), POD_ENOTSUP);
  assert_string_equal(e.field, "dtype");
  c.dtype = POD_DTYPE_BF16;
  strcpy(c.system.gpu.name, "mi300x");
  assert_int_equal(pod_train_eval(&c, NULL, &e), POD_ENOTSUP);
  assert_string_equal(e.field, "eff_gemm");
  c.eff_gemm = 0.6;
  c.eff_attn = 0.5;
  c.gemm_k_half = 0.0;
  assert_int_equal(pod_train_eval(&c, NULL, &e), POD_OK);
  assert_int_equal(pod_train_eval(NULL, NULL, &e), POD_EINVAL);
}

/* fp8 delayed scaling: amax all-reduces over tp*cp*dp at every block's
** forward and backward end.  The wait for the slowest rank is
** jitter_sync x (pipelined work) x (sqrt(2 ln G) - sqrt(2 ln g)); it grows
** with DP, is absent for bf16, block scaling and TP-only reduction, and
** the all-reduces' latency lands in the DP part. */
/* Interleaved 1F1B needs at least pp micro-batches per pipeline
** (Megatron-Core's schedule groups them pp at a time): 16 H100, pp 4,
** dp 4, micro-batch 1; 8 sequences give 2 micro-batches, 16 give 4. */
static void test_interleave_microbatches(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("hgx_h100", "llama3_8b", 16, 4096, 8, POD_DTYPE_BF16);
  c.parallel.pp = 4;
  c.parallel.vp = 2;
  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.vp");
  assert_non_null(strstr(e.msg, "at least pp (4) micro-batches"));
  c.global_batch = 16; /* 4 micro-batches: allowed */
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  c.global_batch = 8;
  c.parallel.vp = 1; /* plain 1F1B runs any number */
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  /* the search never offers such a layout */
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  o.fix.pp = 4;
  pod_train_search_item it[8];
  int n = 0;
  c.parallel.vp = 2;
  assert_int_equal(pod_train_search(&c, &o, it, 8, &n, NULL, &e), POD_OK);
  assert_true(n > 0);
  for (int i = 0; i < n; i++) {
    long m = c.global_batch / ((long)it[i].layout.dp * it[i].layout.microbatch);
    assert_true(it[i].layout.vp == 1 || m >= it[i].layout.pp);
  }
}

static void test_fp8_amax_sync(void **state) {
  (void)state;
  pod_layout l = {4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}};
  double wait[2], strag[2], dp_s[2];
  int gpus[2] = {64, 2048};
  for (int i = 0; i < 2; i++) {
    pod_train_cfg c = preset_cfg("hgx_h100", "llama3_70b", gpus[i], 8192,
                                 2 * gpus[i], POD_DTYPE_FP8, l);
    pod_train_result r, rb, rt, r0;
    assert_int_equal(pod_train_eval(&c, &r, NULL), POD_OK);
    const pod_train_breakdown *b = &r.breakdown;
    double pre = r.step_s - b->straggler;
    double w = b->straggler - c.jitter * pre * sqrt(2.0 * log(gpus[i]));
    double G = 8.0 * gpus[i] / 32, g = 8.0; /* tp*cp*dp; tp*cp */
    double work = b->compute + b->tp + b->cp + b->ep;
    near(w, c.jitter_sync * work * (sqrt(2 * log(G)) - sqrt(2 * log(g))));
    wait[i] = w;
    strag[i] = b->straggler;
    dp_s[i] = b->dp;
    /* Block scaling: no reduction, no wait, less DP time (its slower
    ** GEMM kernels, test_train_recipe.c, leave the step time aside). */
    c.fp8_recipe = POD_FP8_BLOCK;
    assert_int_equal(pod_train_eval(&c, &rb, NULL), POD_OK);
    near(rb.breakdown.straggler, c.jitter *
                                     (rb.step_s - rb.breakdown.straggler) *
                                     sqrt(2.0 * log(gpus[i])));
    assert_true(rb.breakdown.dp < b->dp);
    /* TP-only reduction: latency inside the node, no wait; the same
    ** kernels as delayed scaling, so faster. */
    c.fp8_recipe = POD_FP8_DELAYED_TP;
    assert_int_equal(pod_train_eval(&c, &rt, NULL), POD_OK);
    near(rt.breakdown.straggler, c.jitter *
                                     (rt.step_s - rt.breakdown.straggler) *
                                     sqrt(2.0 * log(gpus[i])));
    assert_true(rt.breakdown.dp > rb.breakdown.dp && rt.breakdown.dp < b->dp);
    assert_true(rt.step_s < r.step_s);
    /* jitter_sync 0: the latency stays, the wait goes. */
    c.fp8_recipe = POD_FP8_DELAYED;
    c.jitter_sync = 0.0;
    assert_int_equal(pod_train_eval(&c, &r0, NULL), POD_OK);
    near(r0.breakdown.dp, b->dp);
    assert_true(r0.step_s < r.step_s);
    /* bf16 ignores the recipe. */
    pod_train_cfg c16 = c;
    c16.dtype = POD_DTYPE_BF16;
    c16.jitter_sync = 0.5;
    pod_train_result a, bb;
    assert_int_equal(pod_train_eval(&c16, &a, NULL), POD_OK);
    c16.fp8_recipe = POD_FP8_BLOCK;
    assert_int_equal(pod_train_eval(&c16, &bb, NULL), POD_OK);
    near(a.step_s, bb.step_s);
  }
  assert_true(wait[1] > 3.0 * wait[0]);
  assert_true(strag[1] > strag[0]);
  assert_true(dp_s[1] > dp_s[0]);
  /* MoE: the EP group already moves in lockstep; an amax group no larger
  ** than EP adds no wait (Maverick, EP64 = DP64 on 128 GB200). */
  pod_train_cfg m = preset_cfg(
      "gb200_nvl72", "llama4_maverick", 128, 8192, 1024, POD_DTYPE_FP8,
      (pod_layout){1, 2, 12, 0, 64, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  pod_train_result rm;
  assert_int_equal(pod_train_eval(&m, &rm, NULL), POD_OK);
  near(rm.breakdown.straggler, m.jitter * (rm.step_s - rm.breakdown.straggler) *
                                   sqrt(2.0 * log(128.0)));
}

static void test_names_and_defaults(void **state) {
  (void)state;
  pod_dtype d;
  assert_int_equal(pod_train_dtype_parse("fp8", &d), POD_OK);
  assert_int_equal(d, POD_DTYPE_FP8);
  assert_int_equal(pod_train_dtype_parse("fp16", &d), POD_ENOENT);
  assert_string_equal(pod_train_dtype_name(POD_DTYPE_BF16), "bf16");
  int r;
  assert_int_equal(pod_train_recompute_parse("selective", &r), POD_OK);
  assert_int_equal(r, POD_RECOMPUTE_SELECTIVE);
  assert_int_equal(pod_train_recompute_parse("some", &r), POD_ENOENT);
  assert_string_equal(pod_train_recompute_name(POD_RECOMPUTE_FULL), "full");
  assert_int_equal(pod_train_fp8_recipe_parse("delayed_tp", &r), POD_OK);
  assert_int_equal(r, POD_FP8_DELAYED_TP);
  assert_int_equal(pod_train_fp8_recipe_parse("block", &r), POD_OK);
  assert_int_equal(r, POD_FP8_BLOCK);
  assert_int_equal(pod_train_fp8_recipe_parse("mx", &r), POD_ENOENT);
  assert_int_equal(pod_train_fp8_recipe_parse(NULL, &r), POD_ENOENT);
  assert_string_equal(pod_train_fp8_recipe_name(POD_FP8_CURRENT), "current");
  assert_string_equal(pod_train_fp8_recipe_name(7), "?");
  pod_train_cfg dc;
  pod_train_cfg_init(&dc);
  assert_int_equal(dc.fp8_recipe, POD_FP8_DELAYED);
  assert_true(dc.jitter_sync > 0.0 && dc.jitter_sync < 0.1);
  pod_gpu g;
  assert_int_equal(pod_hw_gpu_preset("h100", &g), POD_OK);
  double e16, e8, a, k16, k8;
  assert_int_equal(
      pod_train_default_eff(&g, POD_DTYPE_BF16, &e16, &a, &k16, NULL), POD_OK);
  assert_int_equal(pod_train_default_eff(&g, POD_DTYPE_FP8, &e8, &a, &k8, NULL),
                   POD_OK);
  assert_true(e16 > 0 && e16 <= 1 && e8 > 0 && e8 <= 1 && a > 0 && a <= 1);
  assert_true(k8 > k16);
  assert_int_equal(pod_train_default_eff(&g, POD_DTYPE_FP4, &e8, &a, &k8, NULL),
                   POD_ENOTSUP);
  assert_true(pod_train_peak_tflops(&g, POD_DTYPE_FP8) == 1979.0);
}

static void test_kernel(void **state) {
  (void)state;
  assert_string_equal(pod_train_kernel.name, "train");
  assert_int_equal(pod_train_kernel.cfg_size, sizeof(pod_train_cfg));
  assert_int_equal(pod_train_kernel.nmetrics, 17);
  pod_train_cfg c = preset_cfg(
      "gb200_nvl72", "llama4_maverick", 128, 8192, 1024, POD_DTYPE_FP8,
      (pod_layout){1, 2, 12, 0, 64, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  double v[17];
  pod_err e;
  assert_int_equal(pod_train_kernel.fn(&c, v, &e), POD_OK);
  pod_train_result r;
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_OK);
  assert_string_equal(pod_train_kernel.metric_names[0], "step_s");
  assert_true(v[0] == r.step_s && v[2] == r.tokens_per_s_per_gpu &&
              v[4] == r.mfu && v[5] == r.memory.total_gb && v[6] == r.fits &&
              v[10] == r.breakdown.ep);
  /* A sampled double field, written by offset, changes the result. */
  pod_train_cfg c2 = c;
  *(double *)((char *)&c2 + offsetof(pod_train_cfg, system.up_GBps)) = 100.0;
  double v2[17];
  assert_int_equal(pod_train_kernel.fn(&c2, v2, &e), POD_OK);
  assert_true(v2[0] > v[0]);
  c2.parallel.tp = -1;
  assert_int_equal(pod_train_kernel.fn(&c2, v2, &e), POD_EINVAL);
  /* 0 in a layout dimension means 1. */
  pod_train_cfg c3 = c;
  c3.parallel.tp = c3.parallel.cp = c3.parallel.etp = c3.parallel.microbatch =
      0;
  assert_int_equal(pod_train_kernel.fn(&c3, v2, &e), POD_OK);
  assert_true(v2[0] == v[0]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_memory_by_hand),
      cmocka_unit_test(test_throughput_identities),
      cmocka_unit_test(test_breakdown_zero_dims),
      cmocka_unit_test(test_monotone_bandwidth),
      cmocka_unit_test(test_constraint_errors),
      cmocka_unit_test(test_embedding_loss_stages),
      cmocka_unit_test(test_layout_product_bound),
      cmocka_unit_test(test_interleave_microbatches),
      cmocka_unit_test(test_fp8_amax_sync),
      cmocka_unit_test(test_names_and_defaults),
      cmocka_unit_test(test_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
