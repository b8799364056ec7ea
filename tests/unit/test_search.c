/*
** test_search.c: the layout search (pod_train_search in core/train_search.c).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_train.h"
#include "train_fixture.h"

/* Every result is a valid layout that fits, results are sorted, and the
** first one matches a fresh evaluation. */
static void check_results(const pod_train_cfg *base,
                          const pod_train_search_item *it, int n) {
  for (int i = 0; i < n; i++) {
    pod_train_cfg c = *base;
    c.parallel = it[i].layout;
    pod_train_result r;
    pod_err e;
    if (pod_train_eval(&c, &r, &e) != POD_OK) {
      print_error("item %d invalid: %s: %s\n", i, e.field, e.msg);
      fail();
    }
    assert_true(r.fits);
    assert_true(fabs(r.tokens_per_s_per_gpu - it[i].tokens_per_s_per_gpu) <=
                1e-9 * r.tokens_per_s_per_gpu);
    assert_true(fabs(r.memory.total_gb - it[i].memory_gb) < 1e-9);
    assert_true(it[i].layout.dp * it[i].layout.tp * it[i].layout.pp *
                    it[i].layout.cp ==
                base->gpus);
    if (i > 0)
      assert_true(it[i - 1].tokens_per_s_per_gpu >= it[i].tokens_per_s_per_gpu);
  }
}

/* tp*cp of the search in int wrapped: tp 2^16 (a model of 2^16 heads)
** and cp up to max_cp = 2^16 made 2^32, a zero divisor (SIGFPE).  The
** search stops growing cp once tp*cp exceeds gpus and still finds the
** layout with tp*cp = gpus. */
static void test_search_layout_product(void **state) {
  (void)state;
  pod_train_cfg base;
  pod_train_cfg_init(&base);
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &base.system), POD_OK);
  base.model = tiny_model();
  base.model.heads = base.model.kv_heads = 1 << 16;
  base.model.hidden = 1 << 22;
  base.model.head_dim = 64;
  base.gpus = 1 << 24;
  base.seq = 1 << 17;
  base.global_batch = 1;
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  o.fix.tp = 1 << 16;
  o.fix.pp = 1;
  o.max_tp = o.max_cp = 1 << 16;
  pod_train_search_item it[4];
  int n = -1;
  pod_train_search_stats st;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_train_search(&base, &o, it, 4, &n, &st, &e);
  if (rc != POD_OK) print_error("%s: %s\n", e.field, e.msg);
  assert_int_equal(rc, POD_OK);
  /* the one layout: tp 2^16, cp 2^8, dp 1 */
  assert_int_equal(st.candidates, 1);
}

static void test_dense_search(void **state) {
  (void)state;
  pod_train_cfg base =
      train_cfg("hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_BF16);
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  o.top_n = 20;
  pod_train_search_item it[20];
  int n = 0;
  pod_train_search_stats st;
  pod_err e;
  assert_int_equal(pod_train_search(&base, &o, it, 20, &n, &st, &e), POD_OK);
  assert_int_equal(n, 20);
  assert_true(st.candidates > 100 && st.evaluated >= n);
  assert_true(st.checked >= st.fitting && st.fitting == st.evaluated);
  assert_true(st.checked >= st.candidates);
  check_results(&base, it, n);
  /* The best layout is at least as good as the published T3 layout. */
  pod_train_cfg t3 = base;
  t3.parallel =
      (pod_layout){4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}};
  pod_train_result r;
  assert_int_equal(pod_train_eval(&t3, &r, &e), POD_OK);
  assert_true(it[0].tokens_per_s_per_gpu >= r.tokens_per_s_per_gpu);
  /* Fixing dimensions is respected; a smaller capacity truncates. */
  o.fix.tp = 4;
  o.fix.cp = 2;
  o.fix.recompute = POD_RECOMPUTE_NONE;
  assert_int_equal(pod_train_search(&base, &o, it, 5, &n, NULL, &e), POD_OK);
  assert_int_equal(n, 5);
  check_results(&base, it, n);
  for (int i = 0; i < n; i++)
    assert_true(it[i].layout.tp == 4 && it[i].layout.cp == 2 &&
                it[i].layout.recompute == 0);
}

static void test_moe_search(void **state) {
  (void)state;
  pod_train_cfg base = train_cfg("gb200_nvl72", "llama4_maverick", 128, 8192,
                                 1024, POD_DTYPE_FP8);
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  o.max_mb = 2;
  pod_train_search_item it[10];
  int n = 0;
  pod_err e;
  assert_int_equal(pod_train_search(&base, &o, it, 10, &n, NULL, &e), POD_OK);
  assert_int_equal(n, 10);
  check_results(&base, it, n);
  for (int i = 0; i < n; i++) {
    assert_int_equal(128 % it[i].layout.ep, 0);
    assert_int_equal((it[i].layout.tp * it[i].layout.cp * it[i].layout.dp) %
                         (it[i].layout.ep * it[i].layout.etp),
                     0);
  }
}

/* Uneven layouts may hold pp*vp = layers + 2 virtual stages (an
** embedding-only and a loss-only one): the search finds Llama 3.1 405B's
** PP16 VP8 over 126 layers (the Megatron-Bridge MXFP8 recipe on GB200)
** and marks it uneven; with uneven fixed off it has none. */
static void test_embedding_loss_search(void **state) {
  (void)state;
  pod_train_cfg base =
      train_cfg("gb200_nvl72", "llama3_405b", 256, 8192, 1536, POD_DTYPE_FP8);
  base.fp8_recipe = POD_FP8_BLOCK;
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  o.fix.tp = 4;
  o.fix.pp = 16;
  o.fix.vp = 8;
  o.fix.cp = 1;
  o.fix.microbatch = 1;
  o.fix.recompute = POD_RECOMPUTE_NONE;
  pod_train_search_item it[4];
  int n = 0;
  pod_err e;
  assert_int_equal(pod_train_search(&base, &o, it, 4, &n, NULL, &e), POD_OK);
  assert_true(n >= 1);
  check_results(&base, it, n);
  for (int i = 0; i < n; i++) {
    assert_int_equal(it[i].layout.pp * it[i].layout.vp, 128);
    assert_int_equal(it[i].layout.uneven, 1);
  }
  o.fix.uneven = 0;
  assert_int_equal(pod_train_search(&base, &o, it, 4, &n, NULL, &e), POD_OK);
  assert_int_equal(n, 0);
}

static void test_nothing_fits_and_errors(void **state) {
  (void)state;
  /* 405B on 8 H100s cannot fit: no result, still OK. */
  pod_train_cfg base =
      train_cfg("hgx_h100", "llama3_405b", 8, 8192, 8, POD_DTYPE_BF16);
  pod_train_search_item it[4];
  int n = -1;
  pod_err e;
  assert_int_equal(pod_train_search(&base, NULL, it, 4, &n, NULL, &e), POD_OK);
  assert_int_equal(n, 0);
  pod_train_search_opts o;
  struct {
    int *field;
    int bad;
    const char *name;
  } cases[] = {
      {&o.fix.tp, 0, "fix.tp"},
      {&o.fix.pp, -2, "fix.pp"},
      {&o.fix.vp, 0, "fix.vp"},
      {&o.fix.dp, 0, "fix.dp"},
      {&o.fix.ep, 0, "fix.ep"},
      {&o.fix.etp, 0, "fix.etp"},
      {&o.fix.cp, 0, "fix.cp"},
      {&o.fix.microbatch, 0, "fix.microbatch"},
      {&o.fix.zero, 4, "fix.zero"},
      {&o.fix.recompute, 3, "fix.recompute"},
      {&o.fix.uneven, 2, "fix.uneven"},
      {&o.top_n, 0, "top_n"},
      {&o.max_tp, 0, "max_tp"},
      {&o.max_pp, 0, "max_pp"},
      {&o.max_vp, 0, "max_vp"},
      {&o.max_cp, 0, "max_cp"},
      {&o.max_mb, 0, "max_mb"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_train_search_opts_init(&o);
    *cases[i].field = cases[i].bad;
    assert_int_equal(pod_train_search(&base, &o, it, 4, &n, NULL, &e),
                     POD_EINVAL);
    assert_string_equal(e.field, cases[i].name);
  }
  pod_train_search_opts_init(&o);
  assert_int_equal(pod_train_search(&base, &o, NULL, 4, &n, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "out");
  assert_int_equal(pod_train_search(&base, &o, it, 4, NULL, NULL, &e),
                   POD_EINVAL);
  base.seq = 0;
  assert_int_equal(pod_train_search(&base, &o, it, 4, &n, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "seq");
  base.seq = 8192;
  strcpy(base.system.gpu.name, "mi300x");
  assert_int_equal(pod_train_search(&base, &o, it, 4, &n, NULL, &e),
                   POD_ENOTSUP);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_search),
      cmocka_unit_test(test_moe_search),
      cmocka_unit_test(test_embedding_loss_search),
      cmocka_unit_test(test_nothing_fits_and_errors),
      cmocka_unit_test(test_search_layout_product),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
