/*
** test_train_graph.c: pod_train_eval_specs_checked, the training entry
** point of evaluation graphs, against pod_train_eval.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"

/* Bit for bit what pod_train_eval gives, on valid configs of both
** systems (dense and MoE, sampled fields moved), and the same errors on
** every field but the system and the model. */
static void test_same_results(void **state) {
  (void)state;
  const char *sys[2] = {"gb200_nvl72", "hgx_h100"};
  for (int i = 0; i < 2; i++)
    for (int v = 0; v < 4; v++) {
      pod_train_cfg c = train_cfg(sys[i], v & 1 ? "deepseek_v3" : "llama3_70b",
                                  256, 4096, 1024, POD_DTYPE_FP8);
      c.fp8_recipe = i == 0 ? POD_FP8_BLOCK : POD_FP8_CURRENT;
      c.parallel.pp = 4;
      c.parallel.uneven = 1;
      c.parallel.tp = v & 1 ? 1 : 4;
      c.parallel.ep = v & 1 ? 32 : 1;
      c.eff_scale = 0.9 + 0.05 * v;
      c.overlap_dp = 0.6 + 0.1 * v;
      c.system.out_eff = 0.8 + 0.03 * v;
      c.model.imbalance = 1.0 + 0.1 * v;
      pod_train_result a, b;
      memset(&a, 0, sizeof a);
      memset(&b, 0, sizeof b);
      pod_err e;
      assert_int_equal(pod_train_eval(&c, &a, &e), POD_OK);
      assert_int_equal(pod_train_eval_specs_checked(&c, &b, &e), POD_OK);
      assert_memory_equal(&a, &b, sizeof a);
      assert_true(a.step_s > 0.0);
      /* the dimensions at 1 given as 0 (their default): the entry
      ** normalizes a copy (else it reads the config in place), the same
      ** bits */
      pod_layout *l = &c.parallel;
      int *dims[] = {&l->tp,  &l->pp, &l->vp,        &l->ep,
                     &l->etp, &l->cp, &l->microbatch};
      int ones = 0;
      for (size_t d = 0; d < sizeof dims / sizeof dims[0]; d++)
        if (*dims[d] == 1) *dims[d] = 0, ones++;
      assert_true(ones > 0);
      memset(&b, 0, sizeof b);
      assert_int_equal(pod_train_eval_specs_checked(&c, &b, &e), POD_OK);
      assert_memory_equal(&a, &b, sizeof a);
    }
  pod_train_cfg c =
      train_cfg("hgx_h100", "llama3_70b", 256, 4096, 1024, POD_DTYPE_BF16);
  pod_train_result r;
  pod_err e;
  c.eff_scale = 3.0;
  assert_int_equal(pod_train_eval_specs_checked(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "eff_scale");
  c.eff_scale = 1.0;
  c.parallel.tp = 3; /* 64 heads: not a divisor */
  assert_int_equal(pod_train_eval_specs_checked(&c, &r, &e), POD_EINVAL);
  assert_int_equal(pod_train_eval(&c, &r, &e), POD_EINVAL);
  assert_int_equal(pod_train_eval_specs_checked(NULL, &r, &e), POD_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_same_results),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
