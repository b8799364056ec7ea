/*
** test_train_offload.c: the host-link fields of the systems (core/hw.c)
** and fine-grained activation offload in the training step
** (core/train_act.c): offloaded bytes by hand per module on the tiny
** model, HBM and host memory, the exposed copy time by hand, the
** interplay with recompute, the search carrying the base's modules, and
** every error path.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"

static void near(double got, double want) {
  if (fabs(got - want) > 1e-15 + 1e-9 * fabs(want)) {
    print_error("got %.12g, want %.12g\n", got, want);
    fail();
  }
}

static void expect_field(const pod_train_cfg *c, const char *field) {
  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_train_eval(c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, field);
}

/* Every system preset has a host link and host memory; a Grace superchip
** GPU reaches host memory at several times an 8-GPU node's PCIe rate. */
static void test_presets(void **state) {
  (void)state;
  const pod_system *s;
  for (int i = 0; (s = pod_hw_system_at(i, NULL)) != NULL; i++) {
    assert_true(s->host_link_GBps > 0.0);
    assert_true(s->host_link_eff > 0.0 && s->host_link_eff <= 1.0);
    assert_true(s->host_mem_gb > 0.0);
  }
  pod_system hgx, nvl;
  assert_int_equal(pod_hw_system_preset("hgx_b200", &hgx), POD_OK);
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &nvl), POD_OK);
  assert_true(nvl.host_link_GBps * nvl.host_link_eff >
              3.0 * hgx.host_link_GBps * hgx.host_link_eff);
}

static void expect_sys_field(const pod_system *s, const char *field) {
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_hw_system_check(s, &e), POD_EINVAL);
  assert_string_equal(e.field, field);
}

static void test_system_checks(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &s), POD_OK);
  pod_system b = s;
  b.host_link_GBps = -1.0;
  expect_sys_field(&b, "host_link_GBps");
  b = s;
  b.host_link_eff = 1.5;
  expect_sys_field(&b, "host_link_eff");
  b = s;
  b.host_mem_gb = NAN;
  expect_sys_field(&b, "host_mem_gb");
  /* 0 means unknown: a valid system, only offload needs them */
  b = s;
  b.host_link_GBps = b.host_link_eff = b.host_mem_gb = 0.0;
  pod_err e;
  assert_int_equal(pod_hw_system_check(&b, &e), POD_OK);
}

/* Offloaded bytes per layer by hand (Tt = 32 tokens, h = 64, bf16): the
** norms' inputs are h elements each, q, k, v 4 x 16 + 2 x 2 x 16 = 128,
** the attention output 4 x 16 = 64; the expert modules have nothing on a
** dense model.  HBM loses L x B but keeps one layer's B (the reloaded
** layer); host memory holds L x B. */
static void test_memory_by_hand(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  pod_train_result none = train_eval_ok(&c);
  near(none.memory.host_gb, 0.0);
  struct {
    pod_offload_set set;
    double elems;
  } cases[] = {
      {{1, 0, 0, 0, 0, 0}, 64},  {{0, 0, 0, 1, 0, 0}, 64},
      {{0, 1, 0, 0, 0, 0}, 128}, {{0, 0, 1, 0, 0, 0}, 64},
      {{1, 1, 1, 1, 0, 0}, 320}, {{0, 0, 0, 0, 1, 1}, 0},
  };
  double L = 2.0, Tt = 32.0;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_cfg m = c;
    m.parallel.offload_modules = cases[i].set;
    pod_train_result r = train_eval_ok(&m);
    double B = 2.0 * Tt * cases[i].elems;
    near(r.memory.host_gb, L * B / 1e9);
    near(none.memory.activations_gb - r.memory.activations_gb,
         (L - 1.0) * B / 1e9);
    assert_true(r.fits);
  }
}

/* The MoE modules on the tiny model made MoE (8 experts, top-2, expert
** FFN 32, gated): the fc1 input is 2 x 64 dispatched elements per token,
** the fc1 output 2 x 2 x 32. */
static void test_moe_modules(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.model.experts = 8;
  c.model.top_k = 2;
  c.model.expert_ffn = 32;
  c.parallel.ep = 2;
  pod_train_cfg m = c;
  m.parallel.offload_modules.expert_fc1 = 1;
  near(train_eval_ok(&m).memory.host_gb, 2.0 * 2.0 * 32 * 128 / 1e9);
  m = c;
  m.parallel.offload_modules.moe_act = 1;
  near(train_eval_ok(&m).memory.host_gb, 2.0 * 2.0 * 32 * 128 / 1e9);
}

/* Time by hand with nothing hidden (overlap_offload 0): each layer of
** each micro-batch copies B out and B back at R = host_link_GBps x
** host_link_eff, into breakdown.host; the other parts do not move. */
static void test_time_by_hand(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.overlap_offload = 0.0;
  pod_train_result none = train_eval_ok(&c);
  pod_train_cfg m = c;
  m.parallel.offload_modules.mlp_norm = 1;
  pod_train_result r = train_eval_ok(&m);
  double B = 2.0 * 32 * 64;
  double R = c.system.host_link_GBps * c.system.host_link_eff * 1e9;
  double mb = 2.0, L = 2.0;
  near(r.breakdown.host - none.breakdown.host, mb * L * 2.0 * B / R);
  near(r.breakdown.compute, none.breakdown.compute);
  near(r.breakdown.tp, none.breakdown.tp);
  /* (dp may shrink: the exposed copies lengthen its overlap window) */
  assert_true(r.breakdown.dp <= none.breakdown.dp);
  /* hiding under compute never costs more; with everything hidden and a
  ** link so fast the copy fits in the forward, nothing is exposed */
  m.overlap_offload = 1.0;
  pod_train_result hid = train_eval_ok(&m);
  assert_true(hid.breakdown.host <= r.breakdown.host);
  m.system.host_link_GBps = 1e5;
  near(train_eval_ok(&m).breakdown.host, none.breakdown.host);
}

/* A large model: the same offload is exposed over PCIe on an 8-GPU B200
** node and hidden over NVLink-C2C on GB200 NVL72 (Llama 3 70B, TP4 PP4
** VP5, 8K sequence, every module).  The B200 runs at its boost clock
** (power_w 1,290 W: 300 W static + 990 W dynamic, train_sw.c
** BLACKWELL_STATIC_W); at its 1,000 W sustained clock (0.707) the longer
** forward hides these copies over PCIe too. */
static void test_pcie_against_c2c(void **state) {
  (void)state;
  pod_layout l = {
      4, 4, 5, 0, 1, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {1, 1, 1, 1, 0, 0}};
  pod_train_cfg h =
      preset_cfg("hgx_b200", "llama3_70b", 64, 8192, 128, POD_DTYPE_FP8, l);
  h.system.gpu.power_w = 1290.0;
  pod_train_cfg g =
      preset_cfg("gb200_nvl72", "llama3_70b", 64, 8192, 128, POD_DTYPE_FP8, l);
  pod_train_result rh = train_eval_ok(&h), rg = train_eval_ok(&g);
  h.parallel.offload_modules = (pod_offload_set){0, 0, 0, 0, 0, 0};
  g.parallel.offload_modules = h.parallel.offload_modules;
  pod_train_result nh = train_eval_ok(&h), ng = train_eval_ok(&g);
  assert_true(rh.breakdown.host > nh.breakdown.host);
  near(rg.breakdown.host, ng.breakdown.host);
  assert_true(rh.memory.total_gb < nh.memory.total_gb);
}

/* Recompute first: tensors a recompute drops are not offloaded.  Full
** recompute keeps only the layer input (attn_norm's); core_attn then has
** nothing; core_attn recompute takes the attention output from
** attn_proj. */
static void test_with_recompute(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.parallel.recompute = POD_RECOMPUTE_FULL;
  c.parallel.offload_modules.core_attn = 1;
  near(train_eval_ok(&c).memory.host_gb, 0.0);
  c.parallel.offload_modules.attn_norm = 1;
  near(train_eval_ok(&c).memory.host_gb, 2.0 * 2.0 * 32 * 64 / 1e9);
  c = tiny_h100_cfg();
  c.parallel.recompute_modules.core_attn = 1;
  c.parallel.offload_modules.attn_proj = 1;
  near(train_eval_ok(&c).memory.host_gb, 0.0);
}

/* The search keeps the base's offload modules; without them (the
** default) it never offloads. */
static void test_search(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.parallel.offload_modules.mlp_norm = 1;
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  pod_train_search_item items[4];
  int n = 0;
  pod_err e;
  assert_int_equal(pod_train_search(&c, &o, items, 4, &n, NULL, &e), POD_OK);
  assert_true(n > 0);
  for (int i = 0; i < n; i++)
    assert_int_equal(items[i].layout.offload_modules.mlp_norm, 1);
  c.parallel.offload_modules.mlp_norm = 0;
  assert_int_equal(pod_train_search(&c, &o, items, 4, &n, NULL, &e), POD_OK);
  for (int i = 0; i < n; i++)
    assert_int_equal(items[i].layout.offload_modules.mlp_norm, 0);
}

static void test_errors(void **state) {
  (void)state;
  pod_train_cfg c = tiny_h100_cfg();
  c.parallel.offload_modules.moe_act = 2;
  expect_field(&c, "parallel.offload_modules.moe_act");
  /* offload without a host link or host memory */
  c = tiny_h100_cfg();
  c.parallel.offload_modules.core_attn = 1;
  c.system.host_link_GBps = 0.0;
  expect_field(&c, "parallel.offload_modules");
  c = tiny_h100_cfg();
  c.parallel.offload_modules.core_attn = 1;
  c.system.host_link_eff = 0.0;
  expect_field(&c, "parallel.offload_modules");
  c = tiny_h100_cfg();
  c.parallel.offload_modules.core_attn = 1;
  c.system.host_mem_gb = 0.0;
  expect_field(&c, "parallel.offload_modules");
  /* without offload, an unknown host link is fine */
  c = tiny_h100_cfg();
  c.system.host_link_GBps = c.system.host_mem_gb = 0.0;
  train_eval_ok(&c);
  c = tiny_h100_cfg();
  c.overlap_offload = 1.5;
  expect_field(&c, "overlap_offload");
  /* more offloaded than the host holds: the layout does not fit */
  c = tiny_h100_cfg();
  c.parallel.offload_modules.core_attn = 1;
  c.system.host_mem_gb = 1e-6; /* 16 KB offloaded */
  pod_train_result r = train_eval_ok(&c);
  assert_false(r.fits);
  assert_true(r.memory.total_gb <= c.system.gpu.hbm_gb);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_presets),
      cmocka_unit_test(test_system_checks),
      cmocka_unit_test(test_memory_by_hand),
      cmocka_unit_test(test_moe_modules),
      cmocka_unit_test(test_time_by_hand),
      cmocka_unit_test(test_pcie_against_c2c),
      cmocka_unit_test(test_with_recompute),
      cmocka_unit_test(test_search),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
