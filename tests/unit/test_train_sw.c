/*
** test_train_sw.c: the software features, recompute modules, sustained
** clocks and GEMM-shape terms of the training-step model (core/train.c):
** release presets, the exposed host time of eager experts by hand, the
** direction of every feature, recompute-module memory by hand, fp8
** primary weights by hand, and every check of the new fields.
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

/* The tiny model made MoE: 8 routed experts, top-2, every layer. */
static pod_train_cfg tiny_moe_cfg(int gpus, int ep) {
  pod_train_cfg c = tiny_h100_cfg();
  c.model.experts = 8;
  c.model.top_k = 2;
  c.model.expert_ffn = 32;
  c.gpus = gpus;
  c.global_batch = 2 * gpus;
  c.parallel.ep = ep;
  return c;
}

/* MLA's element-wise traffic beyond the per-hidden count by hand
** (train_sw.c, pod_train__mla_ew_bytes) at DeepSeek-V3's attention
** dimensions: rotary in place on the query's 64 rope dims (8 B per rope
** element, forward and backward), the key/value split (4 B x (2 nope + 2 v
** + rope) per head), less the Llama count's rotary (9 B per hidden
** element), the latent norms (10 B per element), and the fp8 casts: 60,608
** operand elements with unfused amax and 2,048 fused ones at the recipe's
** bytes.  Other attention kinds: none. */
static void test_mla_ew_by_hand(void **state) {
  (void)state;
  pod_train_cfg c = tiny_moe_cfg(8, 8);
  near(pod_train__mla_ew_bytes(&c), 0.0); /* GQA */
  c.model.attn = POD_ATTN_MLA;
  c.model.hidden = 7168;
  c.model.heads = 128;
  c.model.qk_nope = 128;
  c.model.qk_rope = 64;
  c.model.v_head = 128;
  c.model.q_lora = 1536;
  c.model.kv_lora = 512;
  double split = 8.0 * 128 * 64 + 4.0 * 128 * (2 * 128 + 2 * 128 + 64);
  near(split, 360448.0);
  double bf16 = split - 9.0 * 7168 + 10.0 * (1536 + 512);
  c.dtype = POD_DTYPE_BF16;
  near(pod_train__mla_ew_bytes(&c), bf16);
  /* unfused: proj input 128 x 128 - h; up-projection output gradients
  ** 128 x 192 + 128 x 256, down-projection 1536 + 512 + 64, less 1.125 h */
  double unf =
      (128.0 * 128 - 7168) + (128.0 * 192 + 128.0 * 256 + 2112 - 1.125 * 7168);
  near(unf, 60608.0);
  c.dtype = POD_DTYPE_FP8;
  c.fp8_recipe = POD_FP8_DELAYED; /* Hopper per-tensor: 4 B per element */
  near(pod_train__mla_ew_bytes(&c), bf16 + 4.0 * (unf + 2048));
  c.fp8_recipe = POD_FP8_CURRENT; /* + the amax pass (2 B) where unfused */
  near(pod_train__mla_ew_bytes(&c), bf16 + 6.0 * unf + 4.0 * 2048);
  /* mla_up_proj reruns the forward half of the rotary and split */
  near(pod_train__mla_rerun_bytes(&c), split / 2.0 + 4.0 * 2048);
  double fp8 = pod_train__mla_ew_bytes(&c);
  c.parallel.recompute_modules.mla_up_proj = 1; /* counted in the layer */
  near(pod_train__mla_ew_bytes(&c), fp8 + split / 2.0 + 4.0 * 2048);
  c.parallel.recompute = POD_RECOMPUTE_SELECTIVE; /* x 4/3 there instead */
  near(pod_train__mla_ew_bytes(&c), fp8);
  c.dtype = POD_DTYPE_BF16;
  near(pod_train__mla_rerun_bytes(&c), split / 2.0);
  c.model.attn = POD_ATTN_GQA;
  near(pod_train__mla_rerun_bytes(&c), 0.0);
}

static void test_presets(void **state) {
  (void)state;
  pod_train_sw sw;
  assert_int_equal(pod_train_sw_preset("megatron_bridge_26_06", &sw), POD_OK);
  assert_int_equal(sw.cuda_graphs, POD_GRAPHS_FULL);
  assert_true(sw.a2a_overlap && sw.fused_grouped_mlp && sw.fp8_params);
  assert_false(sw.fp8_attention);
  assert_int_equal(sw.dispatcher, POD_DISPATCH_HYBRIDEP);
  assert_int_equal(pod_train_sw_preset("megatron_bridge_26_04", &sw), POD_OK);
  assert_int_equal(sw.cuda_graphs, POD_GRAPHS_NONE);
  assert_false(sw.a2a_overlap || sw.fused_grouped_mlp);
  assert_int_equal(pod_train_sw_preset("none", &sw), POD_OK);
  pod_train_sw zero;
  memset(&zero, 0, sizeof zero);
  zero.tp_comm_overlap = 1; /* every preset keeps TP overlap on */
  assert_memory_equal(&sw, &zero, sizeof sw);
  pod_train_cfg init;
  pod_train_cfg_init(&init);
  assert_memory_equal(&sw, &init.software, sizeof sw); /* the default */
  assert_int_equal(pod_train_sw_preset("nemo_1999", &sw), POD_ENOENT);
  assert_int_equal(pod_train_sw_preset(NULL, &sw), POD_ENOENT);
  int n = 0;
  const char *src = NULL;
  while (pod_train_sw_at(n, &src)) {
    assert_non_null(src);
    n++;
  }
  assert_int_equal(n, 4);
  assert_null(pod_train_sw_at(-1, NULL));
  assert_string_equal(pod_train_graphs_name(POD_GRAPHS_PARTIAL), "partial");
  assert_string_equal(pod_train_dispatcher_name(POD_DISPATCH_DEEPEP), "deepep");
  assert_string_equal(pod_train_graphs_name(7), "?");
  assert_string_equal(pod_train_dispatcher_name(-1), "?");
}

/* Host time by hand: m micro-batches x layers x (2 passes x local experts
** x host_expert_us + the router and preprocess launches without graphs,
** 13 forward + 8 backward, at host_expert_us / 5 each); 3 expert passes and
** a second router forward under full recompute. */
static void test_host_by_hand(void **state) {
  (void)state;
  pod_train_cfg c = tiny_moe_cfg(2, 2); /* dp 2, m = 2, 4 local experts */
  c.host_expert_us = 10.0;
  double mb_layers = 2 * 2, t = 10e-6 / 5.0;
  pod_train_result r = train_eval_ok(&c);
  near(r.breakdown.host, mb_layers * (2 * 4 * 10e-6 + (13 + 8) * t));
  c.parallel.recompute = POD_RECOMPUTE_FULL;
  r = train_eval_ok(&c);
  near(r.breakdown.host, mb_layers * (3 * 4 * 10e-6 + (2 * 13 + 8) * t));
  c.parallel.recompute = POD_RECOMPUTE_NONE;
  /* partial graphs capture the router and preprocess; experts stay eager */
  c.software.cuda_graphs = POD_GRAPHS_PARTIAL;
  near(train_eval_ok(&c).breakdown.host, mb_layers * 2 * 4 * 10e-6);
  c.software.cuda_graphs = POD_GRAPHS_FULL;
  assert_true(train_eval_ok(&c).breakdown.host == 0.0);
  c.software.cuda_graphs = POD_GRAPHS_NONE;
  c.software.fused_grouped_mlp = 1; /* one expert kernel; router eager */
  near(train_eval_ok(&c).breakdown.host, mb_layers * (13 + 8) * t);
  c.software.cuda_graphs = POD_GRAPHS_PARTIAL;
  assert_true(train_eval_ok(&c).breakdown.host == 0.0);
  /* dense models have no token-count sync */
  pod_train_cfg d = tiny_h100_cfg();
  assert_true(train_eval_ok(&d).breakdown.host == 0.0);
  /* the default is the table's, positive */
  c = tiny_moe_cfg(2, 2);
  assert_true(train_eval_ok(&c).breakdown.host > 0.0);
  /* the parts still add up to the step */
  r = train_eval_ok(&c);
  const pod_train_breakdown *b = &r.breakdown;
  near(r.step_s, b->compute + b->tp + b->cp + b->ep + b->host + b->pp + b->dp +
                     b->bubble + b->optimizer + b->straggler);
}

/* The dispatcher's staging copies by hand (bytes per routed hidden
** element, train_sw.c): source side 2b + 8, the all-to-all buffers 2b + 12
** with EP > 1, the expert-order permutes 2b + 12 unless NCCL's dispatcher
** has one local expert; b = 2 (bf16) under Megatron's dispatchers
** whatever the dtype, 1 for an fp8 step under dualpipe.  The router's 44 B per
** token per expert.  In a step, the NCCL dispatcher with one local expert
** skips the expert-side copies: compute falls by exactly their HBM time. */
static void test_moe_staging_by_hand(void **state) {
  (void)state;
  pod_train_cfg c = tiny_moe_cfg(8, 8); /* 8 experts on 8 ranks: 1 local */
  c.software.dispatcher = POD_DISPATCH_HYBRIDEP;
  near(pod_train__moe_stage_bytes(&c), 12 + 16 + 16);
  c.dtype = POD_DTYPE_FP8; /* the payload stays bf16 */
  near(pod_train__dispatch_bytes(&c), 2.0);
  near(pod_train__moe_stage_bytes(&c), 12 + 16 + 16);
  c.software.schedule = POD_SCHED_DUALPIPE; /* DeepSeek's fp8 dispatch */
  near(pod_train__dispatch_bytes(&c), 1.0);
  near(pod_train__moe_stage_bytes(&c), 10 + 14 + 14);
  c.software.dispatcher = POD_DISPATCH_ALLTOALL;
  near(pod_train__moe_stage_bytes(&c), 10 + 14);
  c.parallel.ep = 1; /* no all-to-all; all 8 experts local: sorted */
  near(pod_train__moe_stage_bytes(&c), 10 + 14);
  c.dtype = POD_DTYPE_BF16;
  near(pod_train__dispatch_bytes(&c), 2.0);
  near(pod_train__router_bytes(), 44.0);
  c = tiny_moe_cfg(8, 8);
  c.software.dispatcher = POD_DISPATCH_ALLTOALL;
  pod_train_result a = train_eval_ok(&c);
  c.software.dispatcher = POD_DISPATCH_HYBRIDEP;
  pod_train_result hy = train_eval_ok(&c);
  /* m = 16 / 8 = 2 micro-batches, 2 layers, 32 tokens, top-2, h 64 */
  double hbm = c.system.gpu.hbm_TBps * 1e12 * c.eff_hbm;
  near(hy.breakdown.compute - a.breakdown.compute,
       2 * 2 * 32 * 2 * 64 * (2 * 2 + 12.0) / hbm);
}

/* Each feature moves its part of the step the way it should. */
static void test_feature_directions(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("gb200_nvl72", "deepseek_v3", 256, 4096, 1024, POD_DTYPE_FP8);
  c.fp8_recipe = POD_FP8_BLOCK;
  c.parallel.pp = 4;
  c.parallel.vp = 4;
  c.parallel.ep = 64;
  c.parallel.uneven = 1;
  pod_train_result base = train_eval_ok(&c);
  assert_true(base.breakdown.ep > 0.0);
  pod_train_cfg f = c;
  f.software.a2a_overlap = 1;
  pod_train_result r = train_eval_ok(&f);
  assert_true(r.breakdown.ep < base.breakdown.ep);
  assert_true(r.breakdown.ep == 0.0); /* hidden under the other compute */
  f = c;
  f.software.fused_grouped_mlp = 1;
  assert_true(train_eval_ok(&f).breakdown.compute < base.breakdown.compute);
  f = c;
  f.software.fp8_attention = 1;
  assert_true(train_eval_ok(&f).breakdown.compute < base.breakdown.compute);
  f.dtype = POD_DTYPE_BF16; /* fp8 attention needs an fp8 dtype */
  pod_train_cfg g = f;
  g.software.fp8_attention = 0;
  near(train_eval_ok(&f).step_s, train_eval_ok(&g).step_s);
  /* narrow expert GEMMs: the table has no roll-off; a study's w_half
  ** slows the experts */
  f = c;
  f.gemm_w_half = 0.0;
  near(train_eval_ok(&f).step_s, base.step_s);
  f.gemm_w_half = 1590.0;
  assert_true(train_eval_ok(&f).breakdown.compute > base.breakdown.compute);
}

/* The fixed time per MoE layer per micro-batch: compute grows by exactly
** micro-batches x MoE layer slots x moe_layer_us (PP 1, no recompute);
** 4/3 of it under full recompute; none for a dense model. */
static void test_moe_layer_fixed(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("gb300_nvl72", "qwen3_30b_a3b", 8, 4096, 64, POD_DTYPE_FP8);
  c.fp8_recipe = POD_FP8_BLOCK;
  c.parallel.ep = 8;
  c.parallel.microbatch = 2;
  c.software.cuda_graphs = POD_GRAPHS_FULL;
  c.moe_layer_us = 0.0;
  pod_train_result r0 = train_eval_ok(&c);
  c.moe_layer_us = 1000.0;
  pod_train_result r1 = train_eval_ok(&c);
  /* 64 sequences / (8 ranks x 2) = 4 micro-batches, 48 MoE layers */
  assert_int_equal(r1.microbatches, 4);
  near(r1.breakdown.compute - r0.breakdown.compute, 4 * 48 * 1e-3);
  c.parallel.recompute = POD_RECOMPUTE_FULL;
  pod_train_result f1 = train_eval_ok(&c);
  c.moe_layer_us = 0.0;
  pod_train_result f0 = train_eval_ok(&c);
  near(f1.breakdown.compute - f0.breakdown.compute, 4 * 48 * 1e-3 * 4.0 / 3.0);
  /* the default (< 0) is the table's, not zero */
  c.moe_layer_us = -1.0;
  assert_true(train_eval_ok(&c).breakdown.compute > f0.breakdown.compute);
  pod_train_cfg d =
      train_cfg("gb300_nvl72", "llama3_70b", 8, 4096, 64, POD_DTYPE_FP8);
  d.parallel.tp = 8;
  d.moe_layer_us = 0.0;
  double t0 = train_eval_ok(&d).step_s;
  d.moe_layer_us = 1000.0;
  near(train_eval_ok(&d).step_s, t0);
}

/* The routed experts' grouped GEMMs roll off with their own half size
** (table 330 for fp8/fp4 from DeepGEMM's grouped GEMMs, none for bf16):
** at the dense fit's 4,096 a Qwen3-30B step is slower; the explicit
** table value is the default; bf16 and dense models do not see it. */
static void test_expert_k_half(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("gb300_nvl72", "qwen3_30b_a3b", 8, 4096, 64, POD_DTYPE_FP8);
  c.fp8_recipe = POD_FP8_BLOCK;
  c.parallel.ep = 8;
  c.parallel.microbatch = 2;
  c.software.cuda_graphs = POD_GRAPHS_FULL;
  c.moe_layer_us = 0.0;                    /* the GEMMs alone */
  assert_true(c.gemm_k_half_expert < 0.0); /* default: the table */
  pod_train_result r = train_eval_ok(&c);
  pod_train_cfg d = c;
  d.gemm_k_half_expert = 330.0;
  near(train_eval_ok(&d).step_s, r.step_s);
  d.gemm_k_half_expert = 4096.0; /* the dense GEMMs' roll-off */
  pod_train_result s4 = train_eval_ok(&d);
  assert_true(s4.breakdown.compute > 1.2 * r.breakdown.compute);
  near(s4.eff_gemm, r.eff_gemm); /* the dense efficiency is untouched */
  d = c;
  d.gemm_k_half = 0.0; /* the dense roll-off alone leaves the experts */
  pod_train_cfg e = d;
  e.gemm_k_half_expert = 330.0;
  near(train_eval_ok(&d).step_s, train_eval_ok(&e).step_s);
  c.dtype = POD_DTYPE_BF16;
  r = train_eval_ok(&c);
  d = c;
  d.gemm_k_half_expert = 0.0;
  near(train_eval_ok(&d).step_s, r.step_s);
  pod_train_cfg m =
      train_cfg("gb300_nvl72", "llama3_70b", 8, 4096, 64, POD_DTYPE_FP8);
  m.parallel.tp = 8;
  double t0 = train_eval_ok(&m).step_s;
  m.gemm_k_half_expert = 4096.0;
  near(train_eval_ok(&m).step_s, t0);
}

/* A hierarchical dispatcher sends each token once per destination domain:
** less EP time when the EP group spans domains, the same inside one. */
static void test_dispatcher(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("hgx_h100", "deepseek_v3", 256, 4096, 1024, POD_DTYPE_FP8);
  c.parallel.pp = 16;
  c.parallel.ep = 16; /* two 8-GPU nodes */
  c.parallel.uneven = 1;
  c.parallel.recompute = POD_RECOMPUTE_FULL;
  double a2a = train_eval_ok(&c).breakdown.ep;
  c.software.dispatcher = POD_DISPATCH_DEEPEP;
  double deep = train_eval_ok(&c).breakdown.ep;
  /* top-8 over 2 domains: 2 (1 - 1/2^8) distinct domains of 8 copies */
  near(deep / a2a, 2.0 * (1.0 - pow(0.5, 8)) / 8.0);
  c.software.dispatcher = POD_DISPATCH_HYBRIDEP;
  near(train_eval_ok(&c).breakdown.ep, deep);
  c.software.max_domains = 1; /* node-limited to one domain */
  near(train_eval_ok(&c).breakdown.ep / a2a, 1.0 / 8.0);
  c.parallel.ep = 8; /* inside one node: no change */
  c.software.dispatcher = POD_DISPATCH_ALLTOALL;
  double in_node = train_eval_ok(&c).breakdown.ep;
  c.software.dispatcher = POD_DISPATCH_DEEPEP;
  near(train_eval_ok(&c).breakdown.ep, in_node);
}

/* The EP wire dtype: Megatron-Core's dispatchers send bf16 whatever the
** recipe, so an fp8 step pays the same EP time as a bf16 one; DeepSeek's
** framework (dualpipe) casts the forward dispatch, one of the four
** all-to-alls, to fp8: less EP time, but more than 3/4 of bf16's (the
** three bf16 passes). */
static void test_ep_wire_dtype(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("hgx_h100", "qwen3_235b_a22b", 256, 4096, 1024, POD_DTYPE_BF16);
  c.parallel.pp = 2;
  c.parallel.ep = 16; /* two 8-GPU nodes */
  c.overlap_ep = 0.0; /* all of it exposed */
  for (int d = POD_DISPATCH_ALLTOALL; d <= POD_DISPATCH_HYBRIDEP; d++) {
    c.software.dispatcher = d;
    c.dtype = POD_DTYPE_BF16;
    double bf = train_eval_ok(&c).breakdown.ep;
    c.dtype = POD_DTYPE_FP8;
    pod_train_result r = train_eval_ok(&c);
    assert_true(bf > 0.0);
    near(r.breakdown.ep / r.microbatches, bf / r.microbatches);
  }
  c.software.dispatcher = POD_DISPATCH_ALLTOALL;
  c.software.schedule = POD_SCHED_DUALPIPE; /* hides EP under compute: */
  c.system.nic_gbps = 10.0; /* a slow network leaves most of it exposed */
  c.dtype = POD_DTYPE_BF16;
  double bf = train_eval_ok(&c).breakdown.ep;
  c.dtype = POD_DTYPE_FP8;
  double f8 = train_eval_ok(&c).breakdown.ep;
  assert_true(f8 < bf && f8 > 0.75 * bf);
}

/* Recompute modules by hand on the tiny model (Tt = 32 tokens, 2 layers,
** bf16): layernorm drops the two norm outputs (64 + 64 elements per
** token), core_attn the attention output (4 heads x 16), mlp the dense
** MLP's stored tensors but its input (256 gate+up + 64 norm + 128 SwiGLU).
** mla_up_proj and moe_act have nothing to drop here. */
static void test_recompute_modules(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  pod_train_result none = train_eval_ok(&c);
  struct {
    pod_recompute_set set;
    double drop; /* bytes of activations */
  } cases[] = {
      {{0, 1, 0, 0, 0}, 2.0 * 32 * 128 * 2},
      {{1, 0, 0, 0, 0}, 2.0 * 32 * 64 * 2},
      {{0, 0, 0, 0, 1}, 2.0 * 32 * 448 * 2},
      {{0, 0, 1, 1, 0}, 0.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_cfg m = c;
    m.parallel.recompute_modules = cases[i].set;
    pod_train_result r = train_eval_ok(&m);
    near(none.memory.activations_gb - r.memory.activations_gb,
         cases[i].drop / 1e9);
    /* the rerun adds time (the tiny model's MLP GEMMs are bound by their
    ** weight traffic, so rerunning them is free here: >= for mlp) */
    assert_true(r.breakdown.compute >= none.breakdown.compute);
    if (i < 2 && !(r.breakdown.compute > none.breakdown.compute)) {
      print_error("case %zu: compute %.9g <= %.9g\n", i, r.breakdown.compute,
                  none.breakdown.compute);
      fail();
    }
  }
  /* On DeepSeek-V3, mla_up_proj saves memory for the up-projection GEMMs
  ** and moe_act for the SwiGLU pass. */
  pod_train_cfg d =
      train_cfg("gb200_nvl72", "deepseek_v3", 256, 4096, 1024, POD_DTYPE_FP8);
  d.parallel.pp = 4;
  d.parallel.vp = 4;
  d.parallel.ep = 64;
  d.parallel.uneven = 1;
  pod_train_result dn = train_eval_ok(&d);
  d.parallel.recompute_modules.mla_up_proj = 1;
  pod_train_result du = train_eval_ok(&d);
  assert_true(du.memory.activations_gb < dn.memory.activations_gb);
  assert_true(du.breakdown.compute > dn.breakdown.compute);
  d.parallel.recompute_modules.moe_act = 1;
  assert_true(train_eval_ok(&d).memory.activations_gb <
              du.memory.activations_gb);
  /* modules add nothing to selective or full recompute */
  d.parallel.recompute = POD_RECOMPUTE_SELECTIVE;
  pod_train_result ds = train_eval_ok(&d);
  d.parallel.recompute_modules = (pod_recompute_set){0, 0, 0, 0, 0};
  near(train_eval_ok(&d).step_s, ds.step_s);
}

/* fp8 primary weights: 1 B per weight instead of bf16 + fp8 (3 B); 2 B
** for block scaling (rowwise and columnwise copies). */
static void test_fp8_params(void **state) {
  (void)state;
  const double P = 86784.0; /* local parameters of the tiny model */
  pod_train_cfg c = tiny_h100_cfg();
  c.dtype = POD_DTYPE_FP8;
  near(train_eval_ok(&c).memory.weights_gb, 3 * P / 1e9);
  c.software.fp8_params = 1;
  near(train_eval_ok(&c).memory.weights_gb, 1 * P / 1e9);
  c.fp8_recipe = POD_FP8_BLOCK;
  near(train_eval_ok(&c).memory.weights_gb, 2 * P / 1e9);
  c.dtype = POD_DTYPE_BF16; /* ignored for bf16 */
  near(train_eval_ok(&c).memory.weights_gb, 2 * P / 1e9);
}

static void expect_field(const pod_train_cfg *c, const char *field);

/* TP communication without userbuffers (tp_comm_overlap = 0): of the four
** sequence-parallel collectives counted per Linear pair, TE's Linear
** issues only the column-parallel dgrad reduce-scatter async (under the
** wgrad GEMM), so a quarter hides where overlap_tp (0.7) hid before.  On
** Llama 3.1 405B at 8K tokens the GEMM window does not bind: by hand
** against the raw TP time (overlap_tp = 0). */
static void test_tp_comm_overlap(void **state) {
  (void)state;
  pod_layout l = {.tp = 4,
                  .pp = 8,
                  .vp = 4,
                  .cp = 1,
                  .ep = 1,
                  .etp = 1,
                  .microbatch = 1,
                  .zero = 1,
                  .uneven = 1};
  pod_train_cfg c = preset_cfg("gb300_nvl72", "llama3_405b", 256, 8192, 1536,
                               POD_DTYPE_FP8, l);
  c.fp8_recipe = POD_FP8_CURRENT;
  double on = train_eval_ok(&c).breakdown.tp;
  c.overlap_tp = 0.0;
  double raw = train_eval_ok(&c).breakdown.tp;
  assert_true(raw > 0.0);
  near(on, 0.3 * raw);
  c.software.tp_comm_overlap = 0; /* overlap_tp no longer applies */
  near(train_eval_ok(&c).breakdown.tp, 0.75 * raw);
  c.overlap_tp = 0.7;
  pod_train_result off = train_eval_ok(&c);
  near(off.breakdown.tp, 0.75 * raw);
  c.software.tp_comm_overlap = 1;
  assert_true(train_eval_ok(&c).step_s < off.step_s);
  /* tp 1: nothing to overlap, the flag moves nothing */
  pod_train_cfg t = tiny_h100_cfg();
  double s1 = train_eval_ok(&t).step_s;
  t.software.tp_comm_overlap = 0;
  near(train_eval_ok(&t).step_s, s1);
  /* the tiny model's GEMMs are short: the wgrad window (a third of the
  ** GEMM time) bounds what hides, so between a quarter and none */
  t.parallel.tp = 2;
  t.software.tp_comm_overlap = 1;
  t.overlap_tp = 0.0;
  double traw = train_eval_ok(&t).breakdown.tp;
  t.software.tp_comm_overlap = 0;
  double toff = train_eval_ok(&t).breakdown.tp;
  assert_true(toff >= 0.75 * traw - 1e-15 && toff <= traw);
}

/* Sustained clocks: GB300 is the reference; the board power is 300 W of
** static power (BLACKWELL_STATIC_W) plus a dynamic part linear in the
** clock, 1,100 W at GB300's boost scaled by the fp8 peak: B300 and B200
** (4.5 PF) need 990 W of it and have 800 and 700; GB200 (5 PF) needs
** 1,100 and has 900; Hopper keeps 1.  The old rule (no static power)
** gave GB200 1200 / 1400 and B200 1000 / 1260: the GB300-over-GB200
** clock ratio is now 1100 / 900, above the 1,400 / 1,200 power ratio. */
static void test_sustained_clock(void **state) {
  (void)state;
  struct {
    const char *sys;
    double clock;
  } cases[] = {{"gb300_nvl72", 1.0},
               {"hgx_b300", 800.0 / 990.0},
               {"hgx_b200", 700.0 / 990.0},
               {"gb200_nvl72", 900.0 / 1100.0},
               {"hgx_h100", 1.0}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_cfg c =
        train_cfg(cases[i].sys, "llama3_8b", 8, 4096, 8, POD_DTYPE_BF16);
    near(train_eval_ok(&c).clock, cases[i].clock);
  }
  /* the clock scales the tensor-core rates: a GPU with twice the power
  ** limit of its need runs at 1 */
  pod_train_cfg c =
      train_cfg("hgx_b200", "llama3_8b", 8, 4096, 8, POD_DTYPE_BF16);
  c.system.gpu.power_w = 4000.0;
  near(train_eval_ok(&c).clock, 1.0);
  /* a power limit at or below the static power sustains no clock: an
  ** error naming the field, not a zero rate */
  c.system.gpu.power_w = 300.0;
  expect_field(&c, "system.gpu.power_w");
  c.system.gpu.power_w = 301.0;
  near(train_eval_ok(&c).clock, 1.0 / 990.0);
}

/* A published layout that ran fits: Llama 3 405B, seq 8192, bf16, TP8
** PP16 DP128 on 16,384 H100 without recompute (Dubey et al. 2024, The
** Llama 3 Herd of Models, Table 4 and sec. 3.3.2: one layer fewer on the
** first and the last stage, the embedding's and the loss's slots). */
static void test_llama3_layout_fits(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("hgx_h100", "llama3_405b", 16384, 8192, 2048, POD_DTYPE_BF16);
  c.parallel.tp = 8;
  c.parallel.pp = 16;
  c.parallel.uneven = 1;
  pod_train_result r = train_eval_ok(&c);
  assert_true(r.fits);
  /* the first stage holds 7 of the 126 layers; a stage of 9 layers (PP14,
  ** even) holds more than 80 GB: the memory model is not loose */
  pod_train_cfg e = c;
  e.parallel.uneven = 0;
  e.parallel.pp = 14; /* 9 layers per stage, evenly */
  e.parallel.dp = 0;
  e.gpus = 8 * 14 * 128;
  assert_false(train_eval_ok(&e).fits);
}

#define expect_field_fn expect_field

/* DualPipe against 1F1B on the tiny dense model made 4 layers deep, PP4
** on 4 GPUs, 8 micro-batches: the bubble (pp/2 - 1) 2/3 stage_mb against
** (pp - 1) stage_mb, the same compute, (pp + 1) / pp the first stage's
** activations (2 layers x 5 micro-batches against 1 x 4) and its layer
** parameters doubled. */
static void test_dualpipe(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.model.layers = 4;
  c.gpus = 4;
  c.global_batch = 8;
  c.parallel.pp = 4;
  pod_train_result a = train_eval_ok(&c);
  pod_train_cfg d = c;
  d.software.schedule = POD_SCHED_DUALPIPE;
  pod_train_result r = train_eval_ok(&d);
  near(r.breakdown.compute, a.breakdown.compute);
  near(a.breakdown.bubble / a.breakdown.compute * a.microbatches, 3.0);
  near(r.breakdown.bubble / r.breakdown.compute * r.microbatches, 2.0 / 3.0);
  double act_a = a.memory.activations_gb, act_d = r.memory.activations_gb;
  double logits = 32 * 100 * 8.0 / 1e9; /* rank 0 also holds the loss */
  near(act_d - logits, act_a * 5.0 / 4.0);
  assert_true(r.memory.weights_gb > a.memory.weights_gb);
  assert_string_equal(pod_train_schedule_name(POD_SCHED_DUALPIPE), "dualpipe");
  assert_string_equal(pod_train_schedule_name(5), "?");
  /* constraints: even pp, no vp, even micro-batches */
  pod_train_result x;
  pod_err e;
  d.parallel.pp = 1;
  d.gpus = 1;
  assert_int_equal(pod_train_eval(&d, &x, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.pp");
  d = c;
  d.software.schedule = POD_SCHED_DUALPIPE;
  d.parallel.vp = 2;
  d.model.layers = 8;
  assert_int_equal(pod_train_eval(&d, &x, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.vp");
  d = c;
  d.software.schedule = POD_SCHED_DUALPIPE;
  d.global_batch = 3;
  assert_int_equal(pod_train_eval(&d, &x, &e), POD_EINVAL);
  assert_string_equal(e.field, "global_batch");
  d = c;
  d.software.schedule = 2;
  expect_field_fn(&d, "software.schedule");
}

static void expect_field(const pod_train_cfg *c, const char *field) {
  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_train_eval(c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, field);
}

static void test_errors(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.software.cuda_graphs = 3;
  expect_field(&c, "software.cuda_graphs");
  c = tiny_h100_cfg();
  c.software.dispatcher = -1;
  expect_field(&c, "software.dispatcher");
  c = tiny_h100_cfg();
  c.software.a2a_overlap = 2;
  expect_field(&c, "software.a2a_overlap");
  c = tiny_h100_cfg();
  c.software.fp8_params = -1;
  expect_field(&c, "software.fp8_params");
  c = tiny_h100_cfg();
  c.software.tp_comm_overlap = 2;
  expect_field(&c, "software.tp_comm_overlap");
  c = tiny_h100_cfg();
  c.software.max_domains = -1;
  expect_field(&c, "software.max_domains");
  c = tiny_h100_cfg();
  c.host_expert_us = NAN;
  expect_field(&c, "host_expert_us");
  c = tiny_h100_cfg();
  c.gemm_w_half = INFINITY;
  expect_field(&c, "gemm_w_half");
  c = tiny_h100_cfg();
  c.moe_layer_us = NAN;
  expect_field(&c, "moe_layer_us");
  c = tiny_h100_cfg();
  c.moe_layer_us = 2e6;
  expect_field(&c, "moe_layer_us");
  c = tiny_h100_cfg();
  c.gemm_k_half_expert = NAN;
  expect_field(&c, "gemm_k_half_expert");
  c = tiny_h100_cfg();
  c.gemm_k_half_expert = 2e9;
  expect_field(&c, "gemm_k_half_expert");
  c = tiny_h100_cfg();
  c.parallel.recompute_modules.moe_act = 2;
  expect_field(&c, "parallel.recompute_modules.moe_act");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_presets),
      cmocka_unit_test(test_host_by_hand),
      cmocka_unit_test(test_moe_staging_by_hand),
      cmocka_unit_test(test_feature_directions),
      cmocka_unit_test(test_moe_layer_fixed),
      cmocka_unit_test(test_expert_k_half),
      cmocka_unit_test(test_dispatcher),
      cmocka_unit_test(test_recompute_modules),
      cmocka_unit_test(test_fp8_params),
      cmocka_unit_test(test_tp_comm_overlap),
      cmocka_unit_test(test_sustained_clock),
      cmocka_unit_test(test_llama3_layout_fits),
      cmocka_unit_test(test_dualpipe),
      cmocka_unit_test(test_ep_wire_dtype),
      cmocka_unit_test(test_mla_ew_by_hand),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
