/*
** test_rl.c: the RL step (core/rl.c): order statistics against closed
** forms, step composition, placements, sync paths, the best split, the
** paired comparison and every error path.  Validation against published
** figures lives in tests/validation/l*.lua.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "near.h"
#include "pod_rl.h"

static pod_rl_cfg mk(const char *sys, const char *model, int gpus, int inst) {
  pod_rl_cfg c;
  pod_rl_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset(sys, &c.rollout.system), POD_OK);
  assert_int_equal(pod_model_preset(model, &c.rollout.model), POD_OK);
  c.train.system = c.rollout.system;
  c.train.model = c.rollout.model;
  c.rollout.gpus = inst;
  c.rollout.parallel.tp = inst;
  c.train.gpus = gpus;
  c.train.parallel.tp = 8;
  c.train.dtype = POD_DTYPE_FP8;
  c.prompts = 2 * gpus;
  c.samples = 16;
  return c;
}

static pod_rl_result ok(const pod_rl_cfg *c) {
  pod_rl_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rl_eval(c, &r, &e) != POD_OK)
    fail_msg("eval failed: %s: %s", e.field, e.msg);
  return r;
}

static void expect_err(const pod_rl_cfg *c, const char *field) {
  pod_rl_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_rl_eval(c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, field);
  assert_true(strlen(e.msg) > 0);
}

static void test_expected_max(void **state) {
  (void)state;
  /* exponential(1): E[max of n] = H_n */
  pod_rl_length ex = {POD_DIST_EXPONENTIAL, {1.0, 0, 0, 0}};
  double h = 0.0;
  for (int n = 1; n <= 1000; n++) {
    h += 1.0 / n;
    if (n == 1 || n == 10 || n == 1000)
      near_rel(pod_rl_expected_max(&ex, n, HUGE_VAL), h, 2e-4);
  }
  /* uniform(a, b): a + (b - a) n / (n + 1) */
  pod_rl_length un = {POD_DIST_UNIFORM, {100, 200, 0, 0}};
  near_rel(pod_rl_expected_max(&un, 9, HUGE_VAL), 190.0, 1e-3);
  /* a cap below the support: the cap */
  near_rel(pod_rl_expected_max(&un, 9, 50), 50.0, 1e-7);
  /* capped lognormal mean in closed form against the quadrature */
  pod_rl_length ln = {POD_DIST_LOGNORMAL, {log(2000.0), 0.8, 0, 0}};
  pod_rl_length ln_g = ln;
  double closed = pod_rl_expected_max(&ln, 1, 8000);
  ln_g.kind = POD_DIST_LOGNORMAL; /* n slightly above 1 takes quadrature */
  near_rel(pod_rl_expected_max(&ln_g, 1.0000001, 8000), closed, 2e-3);
  assert_true(closed < 2000.0 * exp(0.32));
  /* monotone in n, bounded by the cap */
  double prev = 0.0;
  for (double n = 1; n < 1e6; n *= 10) {
    double m = pod_rl_expected_max(&ln, n, 32768);
    assert_true(m >= prev && m <= 32768.0);
    prev = m;
  }
}

static void test_step_parts(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_b200", "llama3_70b", 64, 8);
  pod_rl_result r = ok(&c);
  assert_near(r.step_s, r.rollout_s + r.score_s + r.train_s + r.sync_s,
              1e-9 * r.step_s);
  assert_true(r.tail_s > 0.0 && r.tail_s < r.rollout_s);
  assert_near(r.sequences, 2.0 * 64 * 16, 0.0);
  assert_near(r.generated_tokens, r.sequences * r.mean_response, 1e-6);
  assert_int_equal(r.instances, 8);
  assert_int_equal(r.total_gpus, 64);
  assert_near(r.goodput, 1.0, 1e-12); /* no failures listed */
  assert_near(r.usd_per_step, 64 * 2.36 * r.step_s / 3600.0, 1e-9);
  assert_near(r.usd_per_m_tokens_charged, r.usd_per_m_tokens, 1e-12);
  /* scoring: two forward passes of a third of the training compute */
  assert_near(r.score_s, 2.0 * r.train.breakdown.compute / 3.0, 1e-9);
  c.ref_model = 0;
  c.old_logprob = 0;
  assert_near(ok(&c).score_s, 0.0, 0.0);
  /* PPO: a critic forward and a critic training step; a reward model */
  c.critic = 1;
  c.reward_model = 1;
  c.reward_s = 5.0;
  pod_rl_result pp = ok(&c);
  assert_near(pp.train_s, 2.0 * r.train_s, 1e-9 * r.train_s);
  assert_near(pp.score_s, 2.0 * r.train.breakdown.compute / 3.0 + 5.0, 1e-9);
  c.critic = c.reward_model = 0;
  c.reward_s = 0.0;
  c.ref_model = c.old_logprob = 1;
  /* partial rollouts: no tail, shorter rollout */
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.partial = 1;
  pod_rl_result p = ok(&c);
  assert_near(p.tail_s, 0.0, 0.0);
  assert_true(p.rollout_s < r.rollout_s);
  /* a higher generation cap lets the longest run longer: more tail */
  c.partial = 0;
  c.max_response = 32768;
  assert_true(ok(&c).tail_s > r.tail_s);
}

/* Static split: the slowest of I instances does E[max of I normals] x
** cv / sqrt(n) more work than the mean one (Blom); none with one
** instance, fixed lengths or partial rollouts.  Token-weighted context:
** a wider length spread at the same mean costs more decode per token. */
static void test_split_and_context(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.response.kind = POD_DIST_FIXED;
  c.response.p[0] = 3000.0;
  pod_rl_result f = ok(&c);
  assert_near(f.split_s, 0.0, 0.0);
  /* exponential, mean 3000, uncapped: cv 1 */
  c.response.kind = POD_DIST_EXPONENTIAL;
  c.max_response = 4e6;
  pod_rl_result e = ok(&c);
  double n = e.sequences / e.instances;
  /* Blom for I = 8: Phi^-1((8 - 0.375) / 8.25) = 1.4236 */
  double z = 1.42363;
  /* the extra work is z cv / sqrt(n) of the mean instance's
  ** batch-proportional decode, a part of what is left of the rollout
  ** after the split and the tail */
  double rest = e.rollout_s - e.split_s - e.tail_s;
  assert_true(e.split_s > 0.0);
  assert_true(e.split_s / rest <= z / sqrt(n) * (1.0 + 1e-9));
  /* one instance: no split */
  pod_rl_cfg one = c;
  one.train.gpus = 8;
  one.prompts = 16;
  assert_near(ok(&one).split_s, 0.0, 0.0);
  c.partial = 1;
  assert_near(ok(&c).split_s, 0.0, 0.0);
  c.partial = 0;
  /* the same mean, a wider spread (lognormal with cv > 1) reads more KV
  ** per generated token than fixed lengths */
  pod_rl_cfg g = mk("hgx_b200", "llama3_70b", 64, 8);
  g.response.kind = POD_DIST_FIXED;
  g.response.p[0] = 3000.0;
  pod_rl_result a = ok(&g);
  g.response.kind = POD_DIST_LOGNORMAL;
  g.response.p[1] = 1.2;
  g.response.p[0] = log(3000.0) - 0.5 * 1.2 * 1.2; /* mean 3000 */
  g.max_response = 4e6;
  pod_rl_result b = ok(&g);
  assert_near(b.mean_response, 3000.0, 1e-6 * 3000.0);
  assert_true(b.serve.step.attn > a.serve.step.attn);
}

static void test_placements(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.placement = POD_RL_DISAGGREGATED;
  c.rollout_gpus = 64;
  pod_rl_result s = ok(&c);
  assert_int_equal(s.total_gpus, 128);
  assert_true(s.idle_s > 0.0);
  assert_near(s.step_s, s.rollout_s + s.score_s + s.train_s + s.sync_s,
              1e-9 * s.step_s);
  c.async = 1;
  pod_rl_result a = ok(&c);
  double busy = a.score_s + a.train_s, roll = a.rollout_s + a.sync_s;
  assert_near(a.step_s, roll > busy ? roll : busy, 1e-12);
  assert_true(a.step_s < s.step_s);
  /* best split of 128 GPUs: at least as fast as 64/64 */
  int rg = 0;
  pod_rl_result b;
  c.async = 0;
  assert_int_equal(pod_rl_best_split(&c, 128, &rg, &b, NULL), POD_OK);
  assert_true(rg > 0 && rg < 128 && rg % 8 == 0);
  assert_true(b.step_s <= s.step_s + 1e-9);
  assert_int_equal(pod_rl_best_split(&c, 1, &rg, &b, NULL), POD_EINVAL);
}

static void test_sync(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_h100", "llama3_70b", 64, 8);
  c.sync_method = POD_RL_SYNC_BROADCAST;
  c.offload = 0;
  c.sync_fixed_s = 0.0;
  double t = 0, bytes = 0;
  assert_int_equal(pod_rl_sync_eval(&c, &t, &bytes, NULL), POD_OK);
  pod_model_params p;
  pod_model_params_count(&c.train.model, &p);
  assert_near(bytes, 2.0 * p.total, 1.0);
  /* the host copy bounds it: one bucket copy in flight at 64 GB/s */
  assert_true(t >= bytes / 64e9 - 1e-9);
  c.host_GBps = 1e4; /* then the broadcast over 64 GPUs bounds it */
  double t2 = 0;
  assert_int_equal(pod_rl_sync_eval(&c, &t2, &bytes, NULL), POD_OK);
  assert_true(t2 < t && t2 > 0.0);
  /* colocated offload adds the training state both ways */
  c = mk("hgx_h100", "llama3_70b", 64, 8);
  pod_rl_result with = ok(&c);
  c.offload = 0;
  pod_rl_result without = ok(&c);
  const pod_train_memory *m = &with.train.memory;
  assert_near(
      with.sync_s - without.sync_s,
      2.0 * (m->weights_gb + m->grads_gb + m->optimizer_gb) * 1e9 / 64e9, 1e-9);
}

static void test_reliability(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_h100", "llama3_70b", 64, 8);
  assert_int_equal(pod_rel_failures_preset("llama3_h100", &c.rel.failures),
                   POD_OK);
  c.rel.pool_units = 2;
  pod_rl_result r = ok(&c);
  assert_true(r.goodput < 1.0 && r.goodput > 0.5);
  assert_int_equal(r.spare_gpus, 16);
  near_rel(r.usd_per_m_tokens_charged,
           r.usd_per_m_tokens / r.goodput * (64.0 + 16) / 64, 1e-12);
}

static void test_pair(void **state) {
  (void)state;
  pod_rl_pair_cfg p;
  pod_rl_pair_cfg_init(&p);
  p.a = mk("gb200_nvl72", "llama3_70b", 64, 8);
  p.b = mk("hgx_b200", "llama3_70b", 64, 8);
  pod_rl_pair_result r;
  assert_int_equal(pod_rl_pair_eval(&p, &r, NULL), POD_OK);
  near_rel(r.ratio, r.cost_a / r.cost_b, 1e-12);
  pod_rl_result ra = ok(&p.a);
  near_rel(r.cost_a, ra.usd_per_m_tokens_charged, 1e-12);
  /* a price override scales that side's cost */
  p.price_a = 2 * p.a.train.system.usd_per_gpu_hour;
  pod_rl_pair_result r2;
  assert_int_equal(pod_rl_pair_eval(&p, &r2, NULL), POD_OK);
  near_rel(r2.cost_a, 2 * r.cost_a, 1e-9);
  /* pre-training side: cost per trained token */
  p.price_a = 0;
  p.pretrain = 1;
  p.a.train.seq = p.b.train.seq = 8192;
  p.a.train.global_batch = p.b.train.global_batch = 64;
  assert_int_equal(pod_rl_pair_eval(&p, &r, NULL), POD_OK);
  pod_train_result t;
  assert_int_equal(pod_train_eval(&p.a.train, &t, NULL), POD_OK);
  near_rel(r.cost_a, 2.36 * 64 / 3600.0 / t.tokens_per_s * 1e6, 1e-9);
  double x[16];
  assert_int_equal(pod_rl_pair_kernel.fn(&p, x, NULL), POD_OK);
  assert_near(x[3], r.cost_a < r.cost_b ? 1.0 : 0.0, 0.0);
  pod_err e;
  p.a.train.global_batch = 63;
  assert_int_equal(pod_rl_pair_eval(&p, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "a.train.global_batch");
}

/* fuzz_rl's finding on the pair: each side's figures finite, but a price
** of 6e-275 on side b (within usd_per_gpu_hour's bound [0, 1e6]) against a
** slow side a made cost_a / cost_b = inf with POD_OK; now POD_ERANGE on
** the ratio.  A zero price (cost 0, ratio inf) is refused alike. */
static void test_pair_overflow(void **state) {
  (void)state;
  pod_rl_pair_cfg p;
  pod_rl_pair_cfg_init(&p);
  p.a = mk("hgx_b200", "llama3_70b", 64, 8);
  p.b = p.a;
  p.a.train.system.gpu.fp8_tflops = 1e-6; /* a slow trainer on side a */
  p.price_a = 1e6;
  p.price_b = 1e-300;
  pod_rl_pair_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_rl_pair_eval(&p, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "ratio");
  assert_non_null(strstr(e.msg, "inf"));
  double x[16];
  assert_int_equal(pod_rl_pair_kernel.fn(&p, x, NULL), POD_ERANGE);
  p.price_b = 0;
  p.b.train.system.usd_per_gpu_hour = p.b.rollout.system.usd_per_gpu_hour = 0;
  pod_err_clear(&e);
  assert_int_equal(pod_rl_pair_eval(&p, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "cost_b");
  /* ordinary prices and peaks: the ratio of the two costs */
  p.a = p.b = mk("hgx_b200", "llama3_70b", 64, 8);
  p.price_a = p.price_b = 2.0;
  assert_int_equal(pod_rl_pair_eval(&p, &r, &e), POD_OK);
  near_rel(r.ratio, 1.0, 1e-12);
}

static void test_errors(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.response.kind = POD_DIST_NORMAL;
  c.response.p[0] = 2000;
  c.response.p[1] = 500;
  expect_err(&c, "response"); /* normal reaches below zero */
  c.response.kind = POD_DIST_UNIFORM;
  c.response.p[0] = 0;
  c.response.p[1] = 4000;
  expect_err(&c, "response");
  c.response.kind = POD_DIST_DISCRETE;
  expect_err(&c, "response");
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.samples = 0;
  expect_err(&c, "samples");
  c.samples = 16;
  c.async = 1;
  expect_err(&c, "async");
  c.async = 0;
  c.rollout.gpus = 48;
  c.rollout.parallel.tp = 8;
  expect_err(&c, "rollout.gpus");
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  assert_int_equal(pod_model_preset("llama3_8b", &c.rollout.model), POD_OK);
  expect_err(&c, "rollout.model");
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.rollout.parallel.tp = 16; /* above the 8 KV heads */
  c.rollout.gpus = 16;
  expect_err(&c, "rollout.parallel.tp");
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.placement = POD_RL_DISAGGREGATED;
  expect_err(&c, "rollout_gpus");
  c = mk("hgx_b200", "llama3_70b", 64, 8);
  c.max_response = 0;
  expect_err(&c, "max_response");
  c.max_response = 1e4;
  c.host_GBps = 0;
  expect_err(&c, "host_GBps");
  double x[16];
  c.host_GBps = 64;
  assert_int_equal(pod_rl_kernel.fn(&c, x, NULL), POD_OK);
  pod_rl_result r = ok(&c);
  assert_near(x[0], r.step_s, 0.0);
  assert_near(x[15], r.max_response, 0.0);
}

/* pod_rl_expected_max_checked: the plain value when the arguments hold,
** and each argument just outside its bound fails naming it. */
static void test_expected_max_checked(void **state) {
  (void)state;
  pod_rl_cfg c;
  pod_rl_cfg_init(&c);
  double v = -1.0;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_rl_expected_max_checked(&c.response, 8, 4000, &v, &e),
                   POD_OK);
  assert_true(v == pod_rl_expected_max(&c.response, 8, 4000));
  assert_int_equal(
      pod_rl_expected_max_checked(&c.response, 8, HUGE_VAL, &v, &e), POD_OK);
  const double bad_n[] = {nextafter(1.0, 0.0), nextafter(1e12, INFINITY), NAN};
  for (int i = 0; i < 3; i++) {
    pod_err_clear(&e);
    assert_int_equal(
        pod_rl_expected_max_checked(&c.response, bad_n[i], 10, &v, &e),
        POD_EINVAL);
    assert_string_equal(e.field, "n");
  }
  const double bad_cap[] = {0.0, -1.0, NAN, -HUGE_VAL};
  for (int i = 0; i < 4; i++) {
    pod_err_clear(&e);
    assert_int_equal(
        pod_rl_expected_max_checked(&c.response, 8, bad_cap[i], &v, &e),
        POD_EINVAL);
    assert_string_equal(e.field, "cap");
  }
  pod_rl_length neg = {POD_DIST_NORMAL, {0.0, 1.0, 0.0, 0.0}};
  pod_err_clear(&e);
  assert_int_equal(pod_rl_expected_max_checked(&neg, 8, 10, &v, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "response");
}

/* fuzz_rl's finding: a denormal bf16 peak on the trainer's GPU, within
** system.gpu.bf16_tflops' bound (0, 1e6], makes a training step of ~1e300
** s, finite, whose cost (price x GPUs x step) overflowed: POD_OK with
** usd_per_step = inf.  Now POD_ERANGE naming the figure. */
static void test_result_overflow(void **state) {
  (void)state;
  pod_rl_cfg c = mk("hgx_h100", "llama3_8b", 8, 1);
  c.train.dtype = POD_DTYPE_BF16;
  c.train.parallel.tp = 1;
  c.train.system.gpu.bf16_tflops = 7.2911201725710919e-304;
  pod_rl_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_rl_eval(&c, &r, &e);
  if (rc != POD_ERANGE) print_error("%d %s: %s\n", rc, e.field, e.msg);
  assert_int_equal(rc, POD_ERANGE);
  assert_string_equal(e.field, "usd_per_step");
  assert_non_null(strstr(e.msg, "inf"));
  pod_err_clear(&e);
  assert_int_equal(pod_rl_kernel.fn(&c, (double[64]){0}, &e), POD_ERANGE);
  /* at the preset peak every figure is finite */
  c.train.system.gpu.bf16_tflops = c.rollout.system.gpu.bf16_tflops;
  r = ok(&c);
  assert_true(isfinite(r.usd_per_step) && r.usd_per_step > 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_expected_max),
      cmocka_unit_test(test_step_parts),
      cmocka_unit_test(test_placements),
      cmocka_unit_test(test_sync),
      cmocka_unit_test(test_reliability),
      cmocka_unit_test(test_pair),
      cmocka_unit_test(test_errors),
      cmocka_unit_test(test_split_and_context),
      cmocka_unit_test(test_expected_max_checked),
      cmocka_unit_test(test_result_overflow),
      cmocka_unit_test(test_pair_overflow),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
