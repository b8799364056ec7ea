/*
** test_serve.c: the serving model (core/serve.c): closed forms, model
** properties and every error path.  Validation against published figures
** lives in tests/validation/s*.lua.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "near.h"
#include "pod_dist.h"
#include "pod_serve.h"
#include "serve_fixture.h"
#include "serve_int.h"

static pod_serve_cfg mk(const char *sys, const char *model, int gpus) {
  pod_serve_cfg c;
  pod_serve_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset(sys, &c.system), POD_OK);
  assert_int_equal(pod_model_preset(model, &c.model), POD_OK);
  c.gpus = gpus;
  /* 256 + 32 redundant = 288 experts: EP 32, 48, 72, 144 divide it */
  if (c.model.experts == 256 && gpus % 9 == 0) c.redundant_experts = 32;
  return c;
}

static void test_experts_touched(void **state) {
  (void)state;
  /* 4 experts, top-1, 2 on this GPU, one token: 2 x (1 - 3/4) */
  assert_near(pod_serve_experts_touched(4, 1, 2, 1), 0.5, 1e-12);
  assert_near(pod_serve_experts_touched(256, 8, 4, 1e6), 4.0, 1e-9);
  assert_near(pod_serve_experts_touched(256, 8, 4, 0), 0.0, 0.0);
  double prev = 0.0;
  for (double t = 1; t < 4096; t *= 2) {
    double x = pod_serve_experts_touched(256, 8, 4, t);
    assert_true(x > prev && x <= 4.0);
    prev = x;
  }
}

static void test_kv_bytes(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 72);
  c.batch = 72;
  pod_serve_result r = serve_ok(&c);
  /* MLA caches kv_lora + qk_rope = 576 bf16 elements per layer */
  assert_near(r.kv_bytes_per_token, 576.0 * 61 * 2, 1e-6);
  c.kv_dtype = POD_DTYPE_FP8;
  assert_near(serve_ok(&c).kv_bytes_per_token, 576.0 * 61, 1e-6);
  pod_serve_cfg d = mk("hgx_h100", "llama3_70b", 8);
  d.parallel.tp = 8;
  d.batch = 8;
  r = serve_ok(&d);
  assert_near(r.kv_bytes_per_token, 2.0 * 8 * 128 * 80 * 2, 1e-6);
  assert_near(r.kv_gb_per_seq, r.kv_bytes_per_token * 2000 / 1e9, 1e-12);
}

/* Batch 1 on a dense model is bound by reading the weights once. */
static void test_decode_memory_bound(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "llama3_70b", 8);
  c.parallel.tp = 8;
  c.batch = 1;
  c.gemm_w_overlap = 1.0; /* the roofline (test_serve_gemm.c: below 1) */
  pod_serve_result r = serve_ok(&c);
  pod_model_params p;
  pod_model_params_count(&c.model, &p);
  double bytes = (p.layers_dense + p.embedding + p.head) * 1.0 / 8;
  assert_near(r.step.dense, bytes / (3.35e12 * c.eff_hbm), 1e-9);
  assert_near(r.memory.weights_gb, bytes / 1e9, 1e-9);
  assert_true(r.step.tp > 0.0);
  assert_near(r.step.total,
              r.step.attn + r.step.dense + r.step.expert + r.step.tp +
                  r.step.ep + r.step.pp + r.step.overhead + r.step.act +
                  r.step.draft,
              1e-12);
  assert_near(r.tpot_s, r.step.total, 1e-15);
  assert_near(r.decode_tokens_per_s, 1.0 / r.tpot_s, 1e-9);
}

/* Two pipeline stages: a token passes both; throughput counts the batch
** over the cycle. */
static void test_pipeline(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "llama3_405b", 16);
  c.parallel.tp = 8;
  c.parallel.pp = 2;
  c.batch = 64;
  pod_serve_result r = serve_ok(&c);
  assert_true(r.step.pp > 0.0);
  assert_near(r.tpot_s, 2.0 * r.step.total, 1e-15);
  assert_near(r.decode_tokens_per_s, 64.0 / r.tpot_s, 1e-9);
  c.batch = 1; /* fewer sequences than stages */
  serve_expect_err(&c, "batch");
}

static void test_batch_monotone(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 72);
  c.redundant_experts = 32;
  double tput = 0.0, tpot = 0.0, touched = 0.0;
  for (int b = 72; b <= 72 * 256; b *= 2) {
    c.batch = b;
    pod_serve_result r = serve_ok(&c);
    assert_true(r.decode_tokens_per_s > tput);
    assert_true(r.tpot_s > tpot);
    assert_true(r.experts_touched >= touched);
    tput = r.decode_tokens_per_s;
    tpot = r.tpot_s;
    touched = r.experts_touched;
  }
  /* batch 0 takes the largest that fits, which fits */
  c.batch = 0;
  pod_serve_result r = serve_ok(&c);
  assert_int_equal(r.batch, r.max_batch);
  assert_true(r.memory.total_gb <= c.system.gpu.hbm_gb);
  c.batch = r.max_batch + 1;
  serve_expect_err(&c, "batch");
}

/* Expert dispatch on one NVLink domain costs less than over the NICs. */
static void test_nvl72_ep(void **state) {
  (void)state;
  pod_serve_cfg a = mk("gb200_nvl72", "deepseek_v3", 64);
  pod_serve_cfg b = mk("hgx_b200", "deepseek_v3", 64);
  a.batch = b.batch = 64 * 128;
  pod_serve_result ra = serve_ok(&a), rb = serve_ok(&b);
  assert_true(ra.step.ep < 0.5 * rb.step.ep);
  assert_near(ra.step.overhead, rb.step.overhead, 1e-15);
  assert_true(ra.decode_tokens_per_s_per_gpu > rb.decode_tokens_per_s_per_gpu);
}

static void test_spec_and_prefix(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h800", "deepseek_v3", 144);
  c.batch = 144 * 32;
  pod_serve_result base = serve_ok(&c);
  c.spec_tokens = 1;
  c.spec_accept = 0.85;
  pod_serve_result r = serve_ok(&c);
  assert_near(r.tokens_per_step, 1.85, 1e-12);
  assert_true(r.step.draft > 0.0);
  assert_true(r.tpot_s < base.tpot_s);
  c.spec_accept = 1.0;
  c.spec_tokens = 2;
  assert_near(serve_ok(&c).tokens_per_step, 3.0, 1e-12);
  c.spec_tokens = 0;
  c.prefix_hit = 0.5;
  r = serve_ok(&c);
  assert_true(r.prefill_tokens_per_s_per_gpu >
              base.prefill_tokens_per_s_per_gpu);
}

static void test_disaggregated(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 72);
  c.batch = 72 * 64;
  pod_serve_result colo = serve_ok(&c);
  assert_near(colo.kv_transfer_s, 0.0, 0.0);
  c.disaggregated = 1;
  c.prefill.gpus = 32;
  pod_serve_result r = serve_ok(&c);
  assert_true(r.kv_transfer_s > 0.0);
  assert_near(r.ttft_s, r.prefill_pass_s + r.kv_transfer_s, 1e-12);
  assert_near(r.prefill_tokens_per_s, r.prefill_tokens_per_s_per_gpu * 32,
              1e-6);
  double share = (c.input_tokens / r.prefill_tokens_per_s_per_gpu) /
                 (c.input_tokens / r.prefill_tokens_per_s_per_gpu +
                  c.output_tokens / r.decode_tokens_per_s_per_gpu);
  assert_near(r.prefill_gpu_share, share, 1e-12);
  c.prefill.gpus = 0;
  serve_expect_err(&c, "prefill.gpus");
  c.prefill.gpus = 32;
  c.prefill.parallel.ep = 7;
  serve_expect_err(&c, "prefill.parallel.ep");
}

static void test_ep_time(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("hgx_h800", &s), POD_OK);
  double t = -1.0;
  assert_int_equal(
      pod_serve_ep_time(&s, 1, 8, 128, 7168, 0, 0, 34, 19, 288, 0, &t, NULL),
      POD_OK);
  assert_near(t, 0.0, 0.0);
  /* EP16 on 8-GPU nodes: half the copies leave the node on the NIC */
  assert_int_equal(
      pod_serve_ep_time(&s, 16, 8, 128, 7168.0, 0, 0, 34, 19, 288, 0, &t, NULL),
      POD_OK);
  double bytes = 128.0 * 8 * 7168;
  double nic = 400.0 / 8 * 1e9 * s.out_eff;
  assert_near(t, 34e-6 + bytes * 0.5 / nic, 1e-12);
  pod_err e;
  assert_int_equal(
      pod_serve_ep_time(&s, 0, 8, 1, 1, 0, 0, 34, 19, 288, 0, &t, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "ranks");
  assert_int_equal(
      pod_serve_ep_time(&s, 8, 8, -1, 1, 0, 0, 34, 19, 288, 0, &t, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "tokens");
  assert_int_equal(
      pod_serve_ep_time(&s, 8, 8, 1, 1, 7, 0, 34, 19, 288, 0, &t, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "kernel");
  assert_int_equal(
      pod_serve_ep_time(&s, 8, 8, 1, 1, 0, 0, 34, 19, 288, -1, &t, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "cast_us");
  assert_int_equal(
      pod_serve_ep_time(&s, 8, 8, 1, 1, 0, 0, 34, 19, 0, 0, &t, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "experts");
}

/* Wave quantisation of the NVFP4 masked grouped GEMMs: DeepSeek-V3's
** experts (h 7168, f 2048), 6 local experts of 1537 rows: 13 row tiles
** each, fc1 78 x 32 = 2496 tiles in 17 waves of 148, fc2 78 x 56 = 4368
** in 30; fp8 and Hopper unquantised; whole waves of full tiles exact. */
static void test_masked_waves(void **state) {
  (void)state;
  pod_system b, h;
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &b), POD_OK);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &h), POD_OK);
  double q =
      pod_serve__masked_waves(&b.gpu, POD_DTYPE_FP4, 7168, 2048, 6, 1537);
  double want = 148.0 * 128 * 128 * (17.0 * 7168 + 30.0 * 2048) /
                (1537.0 * 6 * 3 * 2048 * 7168);
  assert_near(q, want, 1e-12);
  assert_true(q > 1.09 && q < 1.10);
  assert_near(
      pod_serve__masked_waves(&b.gpu, POD_DTYPE_FP8, 7168, 2048, 6, 1537), 1.0,
      0.0);
  assert_near(
      pod_serve__masked_waves(&h.gpu, POD_DTYPE_FP4, 7168, 2048, 6, 1537), 1.0,
      0.0);
  assert_near(
      pod_serve__masked_waves(&b.gpu, POD_DTYPE_FP4, 7168, 2048, 6, 0.0), 1.0,
      0.0);
  /* 37 experts of 128 rows x 4 column tiles (N 512) = 148 tiles: one full
  ** wave for fc1 (2f = 512, f 256) and fc2 (h 512, 4 column tiles) */
  assert_near(pod_serve__masked_waves(&b.gpu, POD_DTYPE_FP4, 512, 256, 37, 128),
              1.0, 1e-12);
  /* one row more per expert: a second row tile, two waves each */
  assert_near(pod_serve__masked_waves(&b.gpu, POD_DTYPE_FP4, 512, 256, 37, 129),
              2.0 * 128 / 129, 1e-12);
}

/* The NVFP4 dispatch: DeepEP's low-latency kernel launches
** ceil(E / ceil(E / SMs)) blocks, each casting its tokens one after
** another, so cast_us per token on an SM adds ceil(tokens / blocks)
** times (GB200: 148 SMs, 288 experts -> 2 warp groups, 144 blocks). */
static void test_ep_time_cast(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &s), POD_OK);
  assert_int_equal(pod_serve__ep_ll_sms(&s.gpu, 288), 144);
  assert_int_equal(pod_serve__ep_ll_sms(&s.gpu, 256), 128);
  assert_int_equal(pod_serve__ep_ll_sms(&s.gpu, 100), 100);
  assert_int_equal(pod_serve__ep_ll_sms(&s.gpu, 600), 120);
  double row = 7168 * (0.5 + 1.0 / 16), t0, t1, t6;
  for (int tok = 128; tok <= 768; tok += 640) {
    assert_int_equal(
        pod_serve_ep_time(&s, 48, 8, tok, row, 0, 0, 34, 19, 288, 0, &t0, NULL),
        POD_OK);
    double *t = tok == 128 ? &t1 : &t6;
    assert_int_equal(
        pod_serve_ep_time(&s, 48, 8, tok, row, 0, 0, 34, 19, 288, 10, t, NULL),
        POD_OK);
    /* 128 tokens: one per block; 768: ceil(768 / 144) = 6 */
    assert_near(*t - t0, (tok == 128 ? 1 : 6) * 10e-6, 1e-12);
  }
  /* 145 tokens: two on the first block */
  assert_int_equal(
      pod_serve_ep_time(&s, 48, 8, 145, row, 0, 0, 34, 19, 288, 0, &t0, NULL),
      POD_OK);
  assert_int_equal(
      pod_serve_ep_time(&s, 48, 8, 145, row, 0, 0, 34, 19, 288, 10, &t1, NULL),
      POD_OK);
  assert_near(t1 - t0, 20e-6, 1e-12);
}

static void test_errors(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "llama3_70b", 16);
  c.parallel.tp = 16; /* 8 KV heads */
  serve_expect_err(&c, "parallel.tp");
  c = mk("hgx_h100", "llama3_70b", 8);
  c.parallel.tp = 8;
  c.parallel.ep = 2;
  serve_expect_err(&c, "parallel.ep");
  c.parallel.ep = 0;
  c.parallel.dp_attn = 2;
  serve_expect_err(&c, "parallel.dp_attn");
  c.parallel.dp_attn = 0;
  c.parallel.pp = 3;
  serve_expect_err(&c, "parallel.pp");
  c.parallel.pp = 0;
  c.prefix_hit = 1.0;
  serve_expect_err(&c, "prefix_hit");
  c.prefix_hit = 0.0;
  c.kv_dtype = POD_DTYPE_FP4;
  serve_expect_err(&c, "kv_dtype");
  c.kv_dtype = POD_DTYPE_BF16;
  c.spec_tokens = 17;
  serve_expect_err(&c, "spec_tokens");
  c.spec_tokens = 0;
  c.input_tokens = NAN;
  serve_expect_err(&c, "input_tokens");
  c.input_tokens = 1000;
  c.redundant_experts = 8;
  serve_expect_err(&c, "redundant_experts");
  c.redundant_experts = 0;
  c.input_tokens = 1e6; /* one sequence's KV does not fit */
  c.output_tokens = 1e6;
  serve_expect_err(&c, "batch");
  c = mk("hgx_h100", "deepseek_v3", 8); /* 671B fp8 on 8 x 80 GB */
  serve_expect_err(&c, "gpus");
  c = mk("hgx_h100", "deepseek_v3", 72);
  c.parallel.ep = 48; /* does not divide 72 */
  serve_expect_err(&c, "parallel.ep");
  c = mk("dgx_a100", "llama3_8b", 1); /* A100 has no fp8 */
  serve_expect_err(&c, "dtype");
}

/* Blackwell runs GEMMs at its sustained clock, the training model's rule
** (pod_train_sustained_clock): GB200 (5 PF fp8 at 1,200 W, 300 W of it
** static) (1200 - 300) / (1400 - 300) of the boost clock; Hopper keeps 1.
** A dense compute-bound decode part scales with it exactly; a power limit
** at the static power is an error. */
static void test_clock(void **state) {
  (void)state;
  pod_serve_cfg a = mk("gb200_nvl72", "deepseek_v3", 48);
  a.redundant_experts = 32; /* 288 experts over EP48 */
  a.batch = 48 * 512;
  pod_serve_result r = serve_ok(&a);
  assert_near(r.clock, 900.0 / 1100.0, 1e-12);
  pod_serve_cfg h = mk("hgx_h100", "deepseek_v3", 72);
  h.batch = 72 * 64;
  assert_near(serve_ok(&h).clock, 1.0, 0.0);
  /* with eff_gemm set, the compute-bound dense part is FLOPs / (peak x
  ** eff x clock) under the roofline (its weight read hidden) */
  a.eff_gemm = 0.5;
  a.gemm_w_overlap = 1.0;
  pod_serve_result q = serve_ok(&a);
  pod_model_params p;
  pod_model_params_count(&a.model, &p);
  double flops =
      2.0 * 512 * (p.layers_dense + (double)a.model.vocab * a.model.hidden);
  assert_near(q.step.dense, flops / (5000e12 * 0.5 * q.clock), 1e-9);
  a.system.gpu.power_w = 300.0;
  serve_expect_err(&a, "system.gpu.power_w");
}

/* NVFP4 experts with fp8 dense GEMMs: the dense part is slower and its
** weights larger than all-fp4, the experts unchanged. */
static void test_dense_dtype(void **state) {
  (void)state;
  pod_serve_cfg a = mk("gb200_nvl72", "deepseek_v3", 48);
  a.redundant_experts = 32;
  a.batch = 48 * 768;
  a.dtype = POD_DTYPE_FP4;
  pod_serve_cfg b = a;
  b.dense_dtype = POD_DTYPE_FP8;
  pod_serve_result ra = serve_ok(&a), rb = serve_ok(&b);
  assert_near(rb.step.expert, ra.step.expert, 1e-15);
  assert_true(rb.step.dense > 1.5 * ra.step.dense);
  assert_true(rb.memory.weights_gb > ra.memory.weights_gb);
  /* NVFP4 dispatch moves half of fp8's bytes, but casts each token on
  ** its sending SM: 768 tokens per GPU on 144 blocks (288 experts) are 6
  ** casts per block per MoE layer, fp8 none */
  pod_serve_cfg c = a, b0 = b;
  c.dtype = POD_DTYPE_FP8;
  c.dense_dtype = POD_DTYPE_FP8;
  b0.ep_cast_us = 0.0;
  double ep_b0 = serve_ok(&b0).step.ep, ep_b = serve_ok(&b).step.ep;
  assert_true(serve_ok(&c).step.ep > ep_b0);
  pod_model_params p;
  pod_model_params_count(&b.model, &p);
  assert_near(ep_b - ep_b0, p.moe_layers * 6 * b.ep_cast_us * 1e-6, 1e-12);
  pod_serve_cfg c0 = c;
  c0.ep_cast_us = 0.0;
  assert_near(serve_ok(&c0).step.ep, serve_ok(&c).step.ep, 0.0);
  /* an fp8 KV cache runs attention on fp8 tensor cores: twice the rate
  ** in a compute-bound MLA decode (half the bytes too) */
  pod_serve_cfg k = b;
  k.kv_dtype = POD_DTYPE_FP8;
  assert_near(serve_ok(&b).step.attn / serve_ok(&k).step.attn, 2.0, 1e-9);
  pod_serve_cfg bad = mk("hgx_h100", "deepseek_v3", 72);
  bad.dense_dtype = POD_DTYPE_FP4;
  serve_expect_err(&bad, "dense_dtype");
  bad.dense_dtype = 7;
  serve_expect_err(&bad, "dense_dtype");
}

/* Prefill weights beyond HBM stream from host memory: an error without
** host_GBps, a pass of at least offload / host_GBps with it. */
static void test_offload(void **state) {
  (void)state;
  pod_serve_cfg c = mk("gb200_nvl72", "deepseek_v3", 48);
  c.redundant_experts = 32;
  c.batch = 48 * 64;
  c.disaggregated = 1;
  c.prefill.gpus = 2;
  c.prefill.parallel.ep = 2;
  serve_expect_err(&c, "prefill.gpus");
  c.host_GBps = 225.0;
  pod_serve_result r = serve_ok(&c);
  double over =
      r.memory.prefill_weights_gb + c.mem_reserve_gb - c.system.gpu.hbm_gb;
  assert_near(r.offload_gb, over, 1e-9);
  double pass = c.prefill_tokens / r.prefill_tokens_per_s_per_gpu;
  assert_true(pass >= over / c.host_GBps - 1e-12);
  c.host_GBps = 5.0; /* a slow link bounds the pass */
  r = serve_ok(&c);
  assert_near(c.prefill_tokens / r.prefill_tokens_per_s_per_gpu, over / 5.0,
              1e-9);
  assert_true(r.pass.offload > 0.0);
  c.host_GBps = -1.0;
  serve_expect_err(&c, "host_GBps");
}

/* Expert imbalance: the busiest of `ep` GPUs sets the MoE time.  With
** expert_cv 0 only the multinomial counts remain (a small excess at
** prefill sizes); the per-batch drift slows prefill by 1 + z_ep cv /
** sqrt(local) on the expert GEMMs and the receives; EP1 has no peer to
** wait for. */
static void test_expert_imbalance(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 32);
  c.redundant_experts = 32;
  c.batch = 32;
  c.input_tokens = 4096;
  c.output_tokens = 1;
  c.expert_cv = 0.0;
  pod_serve_result p0 = serve_ok(&c);
  c.expert_cv = 0.55;
  pod_serve_result p1 = serve_ok(&c);
  /* local = 288 / 32 = 9 experts per GPU; z_32 by Blom */
  double z = pod_serve__normal_max(32.0);
  assert_true(z > 2.0 && z < 2.1);
  double g0 = pod_serve__ep_imbalance(32, 9, 16384.0 * 8, 0.0);
  double g1 = pod_serve__ep_imbalance(32, 9, 16384.0 * 8, 0.55);
  assert_near(g0, 1.0 + z / sqrt(16384.0 * 8), 1e-12);
  assert_near(g1, 1.0 + z * sqrt(1.0 / (16384.0 * 8) + 0.55 * 0.55 / 9), 1e-12);
  assert_true(p1.pass.gemm > p0.pass.gemm * 1.1);
  assert_true(p1.prefill_tokens_per_s_per_gpu <
              p0.prefill_tokens_per_s_per_gpu / 1.1);
  /* decode: more tokens routed to the busiest GPU, more bytes received */
  pod_serve_cfg d = c;
  d.batch = 32 * 512; /* compute-bound experts */
  d.input_tokens = 200;
  d.output_tokens = 100;
  d.expert_cv = 0.0;
  pod_serve_result d0 = serve_ok(&d);
  d.expert_cv = 0.55;
  pod_serve_result d1 = serve_ok(&d);
  assert_true(d1.step.expert > d0.step.expert * 1.1);
  assert_true(d1.step.ep > d0.step.ep);
  assert_near(pod_serve__ep_imbalance(1, 256, 100.0, 0.55), 1.0, 0.0);
  assert_near(pod_serve__normal_max(1.0), 0.0, 0.0);
  /* the fast quantile against the general one, both branches */
  pod_dist nd;
  memset(&nd, 0, sizeof nd);
  nd.kind = POD_DIST_NORMAL;
  nd.p[1] = 1.0;
  for (double n = 2.0; n < 1e5; n *= 1.37) {
    double want = pod_dist_quantile(&nd, (n - 0.375) / (n + 0.25));
    assert_near(pod_serve__normal_max(n), want, 1e-8 * want);
  }
  c.expert_cv = -0.1;
  serve_expect_err(&c, "expert_cv");
  c.expert_cv = 11.0;
  serve_expect_err(&c, "expert_cv");
}

/* Host time per decode step: all of it without host_overlap, only what
** outlasts the GPU step with it. */
static void test_host_step(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 32);
  c.batch = 32 * 64;
  assert_int_equal(c.host_overlap, 1);
  assert_near(c.host_us, 0.29 * 13000.0, 1e-9);
  pod_serve_result a = serve_ok(&c);
  assert_near(a.step.host, 0.0, 0.0); /* a ~20 ms GPU step hides 3.8 ms */
  c.host_overlap = 0;
  pod_serve_result b = serve_ok(&c);
  assert_near(b.step.host, c.host_us * 1e-6, 1e-15);
  assert_near(b.step.total, a.step.total + c.host_us * 1e-6, 1e-12);
  assert_true(b.tpot_s > a.tpot_s);
  c.host_overlap = 1;
  c.host_us = 1e6 * (a.step.total + 0.01); /* outlasts the GPU by 10 ms */
  pod_serve_result d = serve_ok(&c);
  assert_near(d.step.host, 0.01, 1e-9);
  assert_near(d.step.total, a.step.total + 0.01, 1e-9);
  c.host_us = -1.0;
  serve_expect_err(&c, "host_us");
}

/* pod_serve_eval_checked: the same result, the rest still checked. */
static void test_eval_checked(void **state) {
  (void)state;
  pod_serve_cfg c = mk("hgx_h100", "deepseek_v3", 72);
  c.batch = 72 * 64;
  pod_serve_result a = serve_ok(&c), b;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval_checked(&c, &b, &e), POD_OK);
  assert_memory_equal(&a, &b, sizeof a);
  c.batch = -1;
  assert_int_equal(pod_serve_eval_checked(&c, &b, &e), POD_EINVAL);
  assert_string_equal(e.field, "batch");
}

static void test_kernel(void **state) {
  (void)state;
  pod_serve_cfg c = mk("gb200_nvl72", "deepseek_v3", 72);
  c.batch = 72 * 100;
  pod_serve_result r = serve_ok(&c);
  double x[32];
  assert_int_equal(pod_serve_kernel.cfg_size, sizeof c);
  assert_int_equal(pod_serve_kernel.fn(&c, x, NULL), POD_OK);
  assert_near(x[0], r.decode_tokens_per_s_per_gpu, 0.0);
  assert_near(x[3], r.tpot_s, 0.0);
  assert_near(x[10], r.step.total, 0.0);
  assert_string_equal(pod_serve_kernel.metric_names[0],
                      "decode_tokens_per_s_per_gpu");
  c.batch = -1;
  assert_int_equal(pod_serve_kernel.fn(&c, x, NULL), POD_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_experts_touched),
      cmocka_unit_test(test_kv_bytes),
      cmocka_unit_test(test_decode_memory_bound),
      cmocka_unit_test(test_pipeline),
      cmocka_unit_test(test_batch_monotone),
      cmocka_unit_test(test_nvl72_ep),
      cmocka_unit_test(test_spec_and_prefix),
      cmocka_unit_test(test_disaggregated),
      cmocka_unit_test(test_ep_time),
      cmocka_unit_test(test_ep_time_cast),
      cmocka_unit_test(test_masked_waves),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_clock),
      cmocka_unit_test(test_dense_dtype),
      cmocka_unit_test(test_offload),
      cmocka_unit_test(test_eval_checked),
      cmocka_unit_test(test_expert_imbalance),
      cmocka_unit_test(test_host_step),
      cmocka_unit_test(test_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
