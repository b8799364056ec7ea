/*
** test_train_prep.c: the prepared training step (pod_train_prepare,
** pod_train_eval_prepared, pod_train_prep_sampled) against pod_train_eval,
** bit for bit, over many valid configurations with their sampled fields
** moved, and its error paths.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"

static uint64_t rng = 88172645463325252ull;
static uint64_t next(void) { /* xorshift64 */
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return rng;
}
static int pick(const int *v, int n) {
  return v[next() % (uint64_t)n];
}
static double unit(void) {
  return (double)(next() >> 11) / 9007199254740992.0;
}

/* A random layout, recipe and software release on a random system and
** model; valid or not. */
static pod_train_cfg random_cfg(void) {
  static const char *const sys[] = {"gb200_nvl72", "hgx_h100", "hgx_b200",
                                    "gb300_nvl72", "dgx_a100"};
  static const char *const mod[] = {"llama3_8b",    "llama3_70b",
                                    "deepseek_v3",  "llama4_maverick",
                                    "mixtral_8x7b", "qwen3_30b_a3b"};
  static const char *const sw[] = {"none", "megatron_bridge_26_02",
                                   "megatron_bridge_26_06"};
  static const int gpus[] = {64, 256, 1024, 4096};
  static const int seqs[] = {4096, 8192};
  static const int gbs[] = {256, 1024, 2048};
  static const int p2[] = {1, 2, 4, 8};
  static const int ep[] = {1, 8, 32, 64};
  static const int mb[] = {1, 2, 4};
  pod_train_cfg c =
      train_cfg(sys[next() % 5], mod[next() % 6], pick(gpus, 4), pick(seqs, 2),
                pick(gbs, 3), (pod_dtype)(next() % 3));
  c.fp8_recipe = (int)(next() % 4);
  assert_int_equal(pod_train_sw_preset(sw[next() % 3], &c.software), POD_OK);
  pod_layout *l = &c.parallel;
  l->tp = pick(p2, 4);
  l->pp = pick(p2, 4);
  l->vp = l->pp > 1 && next() % 2 ? 2 : 1;
  l->cp = next() % 3 == 0 ? 2 : 1;
  l->ep = c.model.experts > 0 ? pick(ep, 4) : 1;
  l->etp = c.model.experts > 0 && next() % 3 == 0 ? 2 : 1;
  l->microbatch = pick(mb, 3);
  l->zero = (int)(next() % 4);
  l->recompute = (int)(next() % 3);
  l->uneven = (int)(next() % 2);
  if (next() % 5 == 0) l->tp = 0; /* a default dimension: normalized */
  return c;
}

/* Move every sampled field within its bounds. */
static void sample(pod_train_cfg *c) {
  c->eff_gemm = next() % 4 == 0 ? -1.0 : 0.5 + 0.4 * unit();
  c->eff_attn = next() % 4 == 0 ? 0.0 : 0.4 + 0.5 * unit();
  c->eff_scale = 0.8 + 0.3 * unit();
  c->eff_hbm = 0.6 + 0.35 * unit();
  c->overlap_tp = unit();
  c->overlap_cp = unit();
  c->overlap_ep = unit();
  c->overlap_pp = unit();
  c->overlap_dp = unit();
  c->overlap_offload = unit();
  c->jitter = 0.05 * unit();
  c->jitter_sync = 0.05 * unit();
  c->model.imbalance = 1.0 + 0.5 * unit();
  c->system.up_eff = 0.5 + 0.5 * unit();
  c->system.out_eff = 0.5 + 0.5 * unit();
}

/* Over valid configurations (the first that pass pod_train_check of
** random ones), one prep each, reused over samples: the same result bytes
** as pod_train_eval, and the same status when a sample fails. */
static void test_same_results(void **state) {
  (void)state;
  int valid = 0, samples = 0, moe = 0;
  /* configs that read each prepared group's ranks per domain (train.c
  ** rpd_of): pipeline, context, expert tensor parallel, amax groups */
  int pp = 0, cp = 0, etp = 0, amax = 0;
  for (int tries = 0; tries < 20000 && valid < 150; tries++) {
    pod_train_cfg c = random_cfg();
    pod_err e;
    if (pod_train_check(&c, &e) != POD_OK) continue;
    pod_train_prep prep;
    pod_train_result a, b;
    int rp = pod_train_prepare(&c, &prep, &e);
    int ra = pod_train_eval(&c, &a, &e);
    assert_int_equal(rp, ra);
    if (rp != POD_OK) {
      assert_int_equal(prep.ok, 0);
      continue;
    }
    valid++;
    moe += c.model.experts > 0;
    pp += c.parallel.pp > 1;
    cp += c.parallel.cp > 1;
    etp += c.parallel.etp > 1;
    amax += c.dtype != POD_DTYPE_BF16 && (c.fp8_recipe == POD_FP8_DELAYED ||
                                          c.fp8_recipe == POD_FP8_DELAYED_TP);
    for (int s = 0; s < 12; s++) {
      sample(&c);
      memset(&a, 0, sizeof a);
      memset(&b, 0, sizeof b);
      ra = pod_train_eval(&c, &a, &e);
      int rb = pod_train_eval_prepared(&c, &prep, &b, &e);
      assert_int_equal(ra, rb);
      if (ra == POD_OK) assert_memory_equal(&a, &b, sizeof a), samples++;
    }
  }
  assert_true(valid >= 100);
  assert_true(moe >= 30);
  assert_true(pp >= 20 && cp >= 20 && etp >= 5 && amax >= 20);
  assert_true(samples >= 1000);
}

static void test_sampled_fields(void **state) {
  (void)state;
  size_t d = sizeof(double);
  assert_true(pod_train_prep_sampled(offsetof(pod_train_cfg, eff_scale), d));
  assert_true(pod_train_prep_sampled(offsetof(pod_train_cfg, overlap_dp), d));
  assert_true(
      pod_train_prep_sampled(offsetof(pod_train_cfg, model.imbalance), d));
  assert_true(
      pod_train_prep_sampled(offsetof(pod_train_cfg, system.up_eff), d));
  assert_true(
      pod_train_prep_sampled(offsetof(pod_train_cfg, system.out_eff), d));
  /* not sampled: they feed the layout's checks or a prepared figure */
  assert_false(pod_train_prep_sampled(offsetof(pod_train_cfg, gpus), 4));
  assert_false(pod_train_prep_sampled(offsetof(pod_train_cfg, seq), 4));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, model.hidden), 4));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, system.up_GBps), d));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, system.nic_gbps), d));
  assert_false(pod_train_prep_sampled(offsetof(pod_train_cfg, parallel.tp), 4));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, mem_reserve_gb), d));
  /* within one field only */
  assert_false(pod_train_prep_sampled(offsetof(pod_train_cfg, eff_scale), 0));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, eff_scale), d + 1));
  assert_false(
      pod_train_prep_sampled(offsetof(pod_train_cfg, eff_scale) + 4, d));
  assert_true(
      pod_train_prep_sampled(offsetof(pod_train_cfg, eff_scale) + 4, 4));
}

static void test_errors(void **state) {
  (void)state;
  pod_train_cfg c =
      train_cfg("hgx_h100", "llama3_70b", 256, 4096, 1024, POD_DTYPE_BF16);
  pod_train_prep prep;
  pod_train_result r;
  pod_err e;
  assert_int_equal(pod_train_prepare(&c, NULL, &e), POD_EINVAL);
  assert_string_equal(e.field, "prep");
  assert_int_equal(pod_train_prepare(NULL, &prep, &e), POD_EINVAL);
  assert_string_equal(e.field, "cfg");
  assert_int_equal(prep.ok, 0);
  assert_int_equal(pod_train_eval_prepared(&c, &prep, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "prep");
  assert_int_equal(pod_train_eval_prepared(&c, NULL, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "prep");
  /* a layout the checks refuse: pod_train_check's error, nothing kept */
  c.parallel.tp = 3;
  assert_int_equal(pod_train_prepare(&c, &prep, &e), POD_EINVAL);
  assert_string_equal(e.field, "parallel.tp");
  assert_int_equal(prep.ok, 0);
  c.parallel.tp = 8;
  assert_int_equal(pod_train_prepare(&c, &prep, &e), POD_OK);
  assert_int_equal(prep.ok, 1);
  assert_int_equal(pod_train_eval_prepared(NULL, &prep, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "cfg");
  /* a sampled field out of its bounds: the config's own check */
  c.eff_scale = 3.0;
  assert_int_equal(pod_train_eval_prepared(&c, &prep, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "eff_scale");
  c.eff_scale = 1.0;
  c.overlap_dp = -0.5;
  assert_int_equal(pod_train_eval_prepared(&c, &prep, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "overlap_dp");
  c.overlap_dp = 0.5;
  /* every sampled field of the config's table, out of its bounds, NaN
  ** and infinite: the error pod_train_eval gives (the prepared check
  ** lists those fields itself) */
  int listed = 0;
  for (const pod_field *f = pod_train_cfg_fields; f->name; f++) {
    if (!pod_train_prep_sampled(f->offset, sizeof(double))) continue;
    assert_int_equal(f->type, POD_F_DOUBLE);
    listed++;
    double *v = (double *)((char *)&c + f->offset), keep = *v;
    const double bad[] = {f->max + 1.0, f->min - 1.0, NAN, INFINITY};
    for (int i = 0; i < 4; i++) {
      *v = bad[i];
      pod_err ea, eb;
      assert_int_equal(pod_train_eval(&c, &r, &ea), POD_EINVAL);
      assert_int_equal(pod_train_eval_prepared(&c, &prep, &r, &eb), POD_EINVAL);
      assert_string_equal(ea.field, f->name);
      assert_string_equal(eb.field, f->name);
      assert_string_equal(ea.msg, eb.msg);
    }
    *v = keep;
  }
  assert_int_equal(listed, 12);
  /* a default efficiency the GPU's table lacks (no fp4 on H100 either:
  ** the dtype check) */
  assert_int_equal(pod_train_eval_prepared(&c, &prep, NULL, &e), POD_OK);
  c.dtype = POD_DTYPE_FP4;
  assert_int_equal(pod_train_prepare(&c, &prep, &e), POD_ENOTSUP);
  assert_int_equal(prep.ok, 0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_results),
      cmocka_unit_test(test_sampled_fields),
      cmocka_unit_test(test_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
