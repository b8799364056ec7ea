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

/* The search in nparts parts, merged. */
static int search_in_parts(const pod_train_cfg *base,
                           const pod_train_search_opts *o, int nparts,
                           pod_train_search_item *out, int cap, int *n,
                           pod_train_search_stats *st, pod_err *e) {
  enum { MAXP = 8, MAXC = 32 };
  static pod_train_search_item items[MAXP][MAXC];
  static long seq[MAXP][MAXC];
  pod_train_search_part parts[MAXP];
  assert_true(nparts <= MAXP && cap <= MAXC);
  for (int i = 0; i < nparts; i++) {
    parts[i] =
        (pod_train_search_part){.items = items[i], .seq = seq[i], .cap = cap};
    int rc = pod_train_search_part_run(base, o, i, nparts, NULL, &parts[i]);
    assert_int_equal(rc, parts[i].rc);
  }
  return pod_train_search_merge(parts, nparts, out, cap, n, st, e);
}

static void same_items(const pod_train_search_item *a,
                       const pod_train_search_item *b, int n) {
  for (int i = 0; i < n; i++) {
    assert_memory_equal(&a[i].layout, &b[i].layout, sizeof a[i].layout);
    assert_memory_equal(&a[i].tokens_per_s_per_gpu, &b[i].tokens_per_s_per_gpu,
                        sizeof(double));
    assert_memory_equal(&a[i].memory_gb, &b[i].memory_gb, sizeof(double));
    assert_memory_equal(&a[i].step_s, &b[i].step_s, sizeof(double));
  }
}

/* Any number of parts gives the one search's items, order and stats. */
static void test_search_parts_same(void **state) {
  (void)state;
  pod_train_cfg cfgs[2] = {
      train_cfg("hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_BF16),
      train_cfg("gb200_nvl72", "llama4_maverick", 128, 8192, 1024,
                POD_DTYPE_FP8)};
  int caps[2] = {20, 7};
  for (int k = 0; k < 2; k++) {
    pod_train_search_opts o;
    pod_train_search_opts_init(&o);
    o.top_n = 20;
    o.max_mb = 2;
    pod_train_search_item one[20], many[20];
    pod_train_search_stats s1, sn;
    int n1 = -1, nn = -1;
    pod_err e;
    assert_int_equal(pod_train_search(&cfgs[k], &o, one, caps[k], &n1, &s1, &e),
                     POD_OK);
    assert_int_equal(n1, caps[k]);
    for (int np = 1; np <= 7; np += 2) {
      assert_int_equal(
          search_in_parts(&cfgs[k], &o, np, many, caps[k], &nn, &sn, &e),
          POD_OK);
      assert_int_equal(nn, n1);
      same_items(one, many, n1);
      assert_int_equal(sn.candidates, s1.candidates);
      assert_int_equal(sn.checked, s1.checked);
      assert_int_equal(sn.fitting, s1.fitting);
      assert_int_equal(sn.evaluated, s1.evaluated);
    }
  }
}

/* Ties (same tokens/s and memory) keep the search's order across parts:
** the item of the lower place first, and the cap cuts the later ones. */
static void test_search_merge_ties(void **state) {
  (void)state;
  pod_train_search_item a[2], b[2], out[3];
  long sa[2] = {5, 9}, sb[2] = {2, 7};
  memset(a, 0, sizeof a);
  memset(b, 0, sizeof b);
  for (int i = 0; i < 2; i++) {
    a[i].tokens_per_s_per_gpu = b[i].tokens_per_s_per_gpu = 100.0;
    a[i].memory_gb = b[i].memory_gb = 40.0;
    a[i].layout.tp = (int)sa[i];
    b[i].layout.tp = (int)sb[i];
  }
  a[1].memory_gb = 30.0; /* beats every other: less memory */
  pod_train_search_part parts[2] = {
      {.items = a, .seq = sa, .cap = 2, .n = 2, .rc = POD_OK},
      {.items = b, .seq = sb, .cap = 2, .n = 2, .rc = POD_OK}};
  int n = 0;
  pod_err e;
  assert_int_equal(pod_train_search_merge(parts, 2, out, 3, &n, NULL, &e),
                   POD_OK);
  assert_int_equal(n, 3);
  assert_int_equal(out[0].layout.tp, 9);
  assert_int_equal(out[1].layout.tp, 2);
  assert_int_equal(out[2].layout.tp, 5);
}

/* Errors: the checks before any candidate fail every part alike; the
** first failure in the search's order wins the merge; a stop flag ends a
** part with POD_ECANCELED; bad part numbers and buffers. */
static void test_search_parts_errors(void **state) {
  (void)state;
  pod_train_cfg base =
      train_cfg("hgx_h100", "llama3_70b", 64, 8192, 128, POD_DTYPE_BF16);
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  pod_train_search_item it[10];
  int n = -1;
  pod_err e;
  o.max_pp = 0;
  assert_int_equal(search_in_parts(&base, &o, 3, it, 10, &n, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "max_pp");
  pod_train_search_opts_init(&o);
  long seq[10];
  pod_train_search_part p = {.items = it, .seq = seq, .cap = 10};
  atomic_int stop;
  atomic_init(&stop, 1);
  assert_int_equal(pod_train_search_part_run(&base, &o, 1, 2, &stop, &p),
                   POD_ECANCELED);
  assert_int_equal(p.n, 0);
  assert_int_equal(pod_train_search_part_run(&base, &o, 2, 2, NULL, &p),
                   POD_EINVAL);
  assert_string_equal(p.err.field, "part");
  p.seq = NULL;
  assert_int_equal(pod_train_search_part_run(&base, &o, 0, 1, NULL, &p),
                   POD_EINVAL);
  assert_string_equal(p.err.field, "out");
  pod_train_search_part parts[3];
  memset(parts, 0, sizeof parts);
  parts[0].rc = POD_ECANCELED;
  parts[0].fail_k = 40;
  pod_err_set(&parts[0].err, POD_ECANCELED, NULL, "search stopped");
  parts[2].rc = POD_ENOMEM;
  parts[2].fail_k = 12;
  pod_err_set(&parts[2].err, POD_ENOMEM, "step", "at 12");
  assert_int_equal(pod_train_search_merge(parts, 3, it, 10, &n, NULL, &e),
                   POD_ENOMEM);
  assert_string_equal(e.msg, "at 12");
  assert_int_equal(pod_train_search_merge(parts, 0, it, 10, &n, NULL, &e),
                   POD_EINVAL);
  assert_int_equal(pod_train_search_merge(parts, 3, NULL, 10, &n, NULL, &e),
                   POD_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_dense_search),
      cmocka_unit_test(test_moe_search),
      cmocka_unit_test(test_embedding_loss_search),
      cmocka_unit_test(test_nothing_fits_and_errors),
      cmocka_unit_test(test_search_layout_product),
      cmocka_unit_test(test_search_parts_same),
      cmocka_unit_test(test_search_merge_ties),
      cmocka_unit_test(test_search_parts_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
