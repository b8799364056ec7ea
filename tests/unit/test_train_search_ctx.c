/*
** test_train_search_ctx.c: the layout search's evaluation
** (pod_train__eval_search, core/train.c, train_int.h) against the plain
** one (pod_train__eval_core): one search context over every layout of a
** config, its figures made once and its collective times kept, gives the
** same result and return code bit for bit, at want_time 0 and 1, and at
** want_time 2 (time it if it fits) the timed result when the layout fits
** and the memory-only one when it does not.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "pod_train.h"
#include "train_fixture.h"
#include "train_int.h"

/* The result fields a search reads and the step's breakdown, compared as
** bits (NaN-safe, and -0 apart from 0). */
static void same_result(const pod_train_result *a, const pod_train_result *b) {
  const double x[] = {a->step_s,
                      a->tokens_per_s_per_gpu,
                      a->mfu,
                      a->memory.total_gb,
                      a->memory.activations_gb,
                      a->memory.host_gb,
                      a->breakdown.compute,
                      a->breakdown.tp,
                      a->breakdown.cp,
                      a->breakdown.ep,
                      a->breakdown.pp,
                      a->breakdown.dp,
                      a->breakdown.bubble,
                      a->breakdown.straggler,
                      a->eff_gemm,
                      a->flops_per_token};
  const double y[] = {b->step_s,
                      b->tokens_per_s_per_gpu,
                      b->mfu,
                      b->memory.total_gb,
                      b->memory.activations_gb,
                      b->memory.host_gb,
                      b->breakdown.compute,
                      b->breakdown.tp,
                      b->breakdown.cp,
                      b->breakdown.ep,
                      b->breakdown.pp,
                      b->breakdown.dp,
                      b->breakdown.bubble,
                      b->breakdown.straggler,
                      b->eff_gemm,
                      b->flops_per_token};
  assert_memory_equal(x, y, sizeof x);
  assert_int_equal(a->fits, b->fits);
  assert_int_equal(a->dp, b->dp);
  assert_int_equal(a->microbatches, b->microbatches);
}

/* Every layout of a small grid on config base: returns the layouts that
** passed the checks and counts in *fit those that fit. */
static int grid(const pod_train_cfg *base, long *fit, long *hits) {
  pod_train__search_ctx *sc = malloc(sizeof *sc);
  assert_non_null(sc);
  pod_train__search_ctx_init(base, sc);
  static const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4}, eps[] = {1, 4, 8};
  int n = 0;
  *fit = 0;
  for (int a = 0; a < 4; a++)
    for (int b = 0; b < 3; b++)
      for (int e = 0; e < 3; e++)
        for (int etp = 1; etp <= 2; etp++)
          for (int cp = 1; cp <= 2; cp++)
            for (int mb = 1; mb <= 2; mb++)
              for (int z = 0; z <= 3; z++)
                for (int rcp = 0; rcp <= 2; rcp++) {
                  pod_train_cfg c = *base;
                  pod_layout *l = &c.parallel;
                  l->tp = tps[a], l->pp = pps[b], l->ep = eps[e];
                  l->etp = etp, l->cp = cp, l->microbatch = mb;
                  l->vp = 1, l->dp = 0, l->zero = z, l->recompute = rcp;
                  pod_train__normalize(l);
                  int dp = 0;
                  if (pod_train__check_cfg(&c, &dp, NULL) != POD_OK) continue;
                  n++;
                  pod_train_result r0, r1, s0, s1, s2;
                  pod_err e0, e1;
                  int rc0 = pod_train__eval_core(&c, dp, &r0, 0, NULL, &e0);
                  int rc1 = pod_train__eval_core(&c, dp, &r1, 1, NULL, &e1);
                  assert_int_equal(
                      pod_train__eval_search(&c, dp, &s0, 0, sc, NULL), rc0);
                  assert_int_equal(
                      pod_train__eval_search(&c, dp, &s1, 1, sc, NULL), rc1);
                  int rc2 = pod_train__eval_search(&c, dp, &s2, 2, sc, NULL);
                  same_result(&r0, &s0);
                  if (rc1 == POD_OK) same_result(&r1, &s1);
                  if (r0.fits) {
                    (*fit)++;
                    assert_int_equal(rc2, rc1);
                    if (rc1 == POD_OK) same_result(&r1, &s2);
                  } else {
                    assert_int_equal(rc2, rc0);
                    same_result(&r0, &s2);
                  }
                }
  *hits = sc->hits;
  assert_true(sc->hits <= sc->lookups);
  free(sc);
  return n;
}

/* MLA with shared and routed experts in fp8 (dense and MoE layers, EP,
** ETP, CP), GQA experts in bf16 on 8-GPU nodes, a dense model, and MLA
** experts under DeepEP across 8-GPU domains: each
** grid has layouts that fit and ones that do not, and the collective
** cache is met again. */
static void test_search_eval_same(void **state) {
  (void)state;
  pod_train_cfg cs[4];
  cs[0] =
      train_cfg("gb200_nvl72", "deepseek_v3", 512, 4096, 1024, POD_DTYPE_FP8);
  cs[1] = train_cfg("hgx_h100", "mixtral_8x7b", 64, 4096, 128, POD_DTYPE_BF16);
  cs[2] = train_cfg("hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_FP8);
  /* a hierarchical dispatcher over 8-GPU domains (the kept hier shares) */
  cs[3] = train_cfg("hgx_h800", "deepseek_v3", 256, 4096, 512, POD_DTYPE_FP8);
  cs[3].software.dispatcher = POD_DISPATCH_DEEPEP;
  cs[3].software.max_domains = 4;
  for (int i = 0; i < 4; i++) {
    long fit = 0, hits = 0;
    int n = grid(&cs[i], &fit, &hits);
    assert_true(n > 0);
    assert_true(fit > 0 && fit < n);
    assert_true(hits > 0);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_search_eval_same),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
