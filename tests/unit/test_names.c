/*
** test_names.c: the enum name tables core exports (issue 10): each is
** NULL-terminated right after its last enum value, and agrees with the
** module's name and parse functions, which the Lua bindings rely on.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_coll.h"
#include "pod_dist.h"
#include "pod_err.h"
#include "pod_hw.h"
#include "pod_mc.h"
#include "pod_model.h"
#include "pod_rel.h"
#include "pod_rl.h"
#include "pod_serve.h"
#include "pod_train.h"

static int count(const char *const *t) {
  int n = 0;
  while (t[n] != NULL) n++;
  return n;
}

static void test_lengths(void **state) {
  (void)state;
  assert_int_equal(count(pod_coll_op_names), POD_COLL_NOPS);
  assert_int_equal(count(pod_coll_algo_names), POD_ALGO_N);
  assert_int_equal(count(pod_hw_transport_names), POD_TRANSPORT_N);
  assert_int_equal(count(pod_hw_routing_names), POD_ROUTING_N);
  assert_int_equal(count(pod_rel_scope_names), POD_REL_NSCOPES);
  assert_int_equal(count(pod_rel_basis_names), POD_REL_NBASES);
  assert_int_equal(count(pod_rel_pool_scope_names), POD_REL_JOB);
  assert_int_equal(count(pod_rel_interval_rule_names), POD_REL_TAU_DALY + 1);
  assert_int_equal(count(pod_rel_waste_model_names), POD_REL_WASTE_RENEWAL + 1);
  assert_int_equal(count(pod_rel_repair_dist_names),
                   POD_REL_REPAIR_LOGNORMAL + 1);
  assert_int_equal(count(pod_dist_kind_names), POD_DIST_NKINDS);
  assert_int_equal(count(pod_model_attn_names), POD_ATTN_MLA + 1);
  assert_int_equal(count(pod_rl_placement_names), POD_RL_DISAGGREGATED + 1);
  assert_int_equal(count(pod_rl_sync_names), POD_RL_SYNC_BROADCAST + 1);
  assert_int_equal(count(pod_serve_ep_kernel_names), POD_SERVE_EP_NCCL + 1);
  assert_int_equal(count(pod_train_dtype_names), POD_DTYPE_FP4 + 1);
  assert_int_equal(count(pod_train_recompute_names), 3);
  assert_int_equal(count(pod_train_fp8_recipe_names), POD_FP8_BLOCK + 1);
  assert_int_equal(count(pod_train_graphs_names), POD_GRAPHS_FULL + 1);
  assert_int_equal(count(pod_train_dispatcher_names),
                   POD_DISPATCH_HYBRIDEP + 1);
  assert_int_equal(count(pod_train_schedule_names), POD_SCHED_DUALPIPE + 1);
  assert_int_equal(count(pod_mc_sens_names), POD_MC_SENS_SOBOL + 1);
  assert_int_equal(count(pod_mc_unfit_names), POD_MC_UNFIT_ERROR + 1);
  assert_int_equal(count(pod_mc_nonfinite_names), POD_MC_NONFINITE_ERROR + 1);
}

static void test_name_functions(void **state) {
  (void)state;
  for (int i = 0; pod_coll_op_names[i]; i++) {
    pod_coll_op op;
    assert_string_equal(pod_coll_op_name((pod_coll_op)i), pod_coll_op_names[i]);
    assert_int_equal(pod_coll_op_parse(pod_coll_op_names[i], &op), POD_OK);
    assert_int_equal(op, i);
  }
  for (int i = 0; pod_coll_algo_names[i]; i++) {
    pod_coll_algo a;
    assert_int_equal(pod_coll_algo_parse(pod_coll_algo_names[i], &a), POD_OK);
    assert_int_equal(a, i);
  }
  for (int i = 0; pod_hw_transport_names[i]; i++)
    assert_string_equal(pod_hw_transport_name(i), pod_hw_transport_names[i]);
  for (int i = 0; pod_hw_routing_names[i]; i++)
    assert_string_equal(pod_hw_routing_name(i), pod_hw_routing_names[i]);
  for (int i = 0; pod_rel_scope_names[i]; i++) {
    int s = -1;
    assert_int_equal(pod_rel_scope_parse(pod_rel_scope_names[i], &s), POD_OK);
    assert_int_equal(s, i);
  }
  for (int i = 0; pod_rel_basis_names[i]; i++) {
    int b = -1;
    assert_string_equal(pod_rel_basis_name(i), pod_rel_basis_names[i]);
    assert_int_equal(pod_rel_basis_parse(pod_rel_basis_names[i], &b), POD_OK);
    assert_int_equal(b, i);
  }
  for (int i = 0; pod_dist_kind_names[i]; i++)
    assert_string_equal(pod_dist_kind_name((pod_dist_kind)i),
                        pod_dist_kind_names[i]);
  for (int i = 0; pod_model_attn_names[i]; i++) {
    pod_attn_kind k;
    assert_int_equal(pod_model_attn_parse(pod_model_attn_names[i], &k), POD_OK);
    assert_int_equal(k, i);
  }
  for (int i = 0; pod_rl_placement_names[i]; i++)
    assert_string_equal(pod_rl_placement_name(i), pod_rl_placement_names[i]);
  for (int i = 0; pod_rl_sync_names[i]; i++)
    assert_string_equal(pod_rl_sync_name(i), pod_rl_sync_names[i]);
  for (int i = 0; pod_serve_ep_kernel_names[i]; i++) {
    int k = -1;
    assert_int_equal(
        pod_serve_ep_kernel_parse(pod_serve_ep_kernel_names[i], &k), POD_OK);
    assert_int_equal(k, i);
  }
  for (int i = 0; pod_train_dtype_names[i]; i++) {
    pod_dtype d;
    assert_int_equal(pod_train_dtype_parse(pod_train_dtype_names[i], &d),
                     POD_OK);
    assert_int_equal(d, i);
  }
  for (int i = 0; pod_train_recompute_names[i]; i++) {
    int r = -1;
    assert_int_equal(
        pod_train_recompute_parse(pod_train_recompute_names[i], &r), POD_OK);
    assert_int_equal(r, i);
  }
  for (int i = 0; pod_train_fp8_recipe_names[i]; i++) {
    int r = -1;
    assert_int_equal(
        pod_train_fp8_recipe_parse(pod_train_fp8_recipe_names[i], &r), POD_OK);
    assert_int_equal(r, i);
  }
  for (int i = 0; pod_train_graphs_names[i]; i++)
    assert_string_equal(pod_train_graphs_name(i), pod_train_graphs_names[i]);
  for (int i = 0; pod_train_dispatcher_names[i]; i++)
    assert_string_equal(pod_train_dispatcher_name(i),
                        pod_train_dispatcher_names[i]);
  for (int i = 0; pod_train_schedule_names[i]; i++)
    assert_string_equal(pod_train_schedule_name(i),
                        pod_train_schedule_names[i]);
  assert_int_equal(pod_coll_op_parse("nope", NULL), POD_ENOENT);
}

/* The reliability enums (pod_rel.h) and the study's (pod_mc.h): each
** table round-trips through its
** name and parse functions; unknown names, NULL and out-of-range values
** are refused. */
typedef struct rel_enum { /* any int-valued enum with _name and _parse */
  const char *const *names;
  const char *(*name)(int);
  int (*parse)(const char *, int *);
} rel_enum;

static void test_rel_enums(void **state) {
  (void)state;
  const rel_enum t[] = {
      {pod_rel_scope_names, pod_rel_scope_name, pod_rel_scope_parse},
      {pod_rel_pool_scope_names, pod_rel_pool_scope_name,
       pod_rel_pool_scope_parse},
      {pod_rel_basis_names, pod_rel_basis_name, pod_rel_basis_parse},
      {pod_rel_interval_rule_names, pod_rel_interval_rule_name,
       pod_rel_interval_rule_parse},
      {pod_rel_waste_model_names, pod_rel_waste_model_name,
       pod_rel_waste_model_parse},
      {pod_rel_repair_dist_names, pod_rel_repair_dist_name,
       pod_rel_repair_dist_parse},
      {pod_mc_sens_names, pod_mc_sens_name, pod_mc_sens_parse},
      {pod_mc_unfit_names, pod_mc_unfit_name, pod_mc_unfit_parse},
      {pod_mc_nonfinite_names, pod_mc_nonfinite_name, pod_mc_nonfinite_parse},
  };
  for (size_t k = 0; k < sizeof t / sizeof t[0]; k++) {
    int n = count(t[k].names);
    assert_true(n >= 2);
    for (int i = 0; i < n; i++) {
      int v = -1;
      assert_string_equal(t[k].name(i), t[k].names[i]);
      assert_int_equal(t[k].parse(t[k].names[i], &v), POD_OK);
      assert_int_equal(v, i);
      assert_int_equal(t[k].parse(t[k].name(i), &v), POD_OK);
      assert_int_equal(v, i);
    }
    int v = 7;
    assert_int_equal(t[k].parse("nope", &v), POD_ENOENT);
    assert_int_equal(t[k].parse("", &v), POD_ENOENT);
    assert_int_equal(t[k].parse(NULL, &v), POD_ENOENT);
    assert_int_equal(v, 7); /* untouched on failure */
    assert_string_equal(t[k].name(-1), "?");
    assert_string_equal(t[k].name(n), "?");
  }
  /* the enum values the tables are indexed by */
  int v = -1;
  assert_int_equal(pod_rel_interval_rule_parse("daly", &v), POD_OK);
  assert_int_equal(v, POD_REL_TAU_DALY);
  assert_int_equal(pod_rel_waste_model_parse("renewal", &v), POD_OK);
  assert_int_equal(v, POD_REL_WASTE_RENEWAL);
  assert_int_equal(pod_rel_repair_dist_parse("lognormal", &v), POD_OK);
  assert_int_equal(v, POD_REL_REPAIR_LOGNORMAL);
  assert_int_equal(pod_rel_pool_scope_parse("domain", &v), POD_OK);
  assert_int_equal(v, POD_REL_DOMAIN);
  assert_int_equal(pod_rel_pool_scope_parse("job", &v), POD_ENOENT);
  /* the study's enums (pod_mc.h) */
  assert_int_equal(pod_mc_sens_parse("sobol", &v), POD_OK);
  assert_int_equal(v, POD_MC_SENS_SOBOL);
  assert_int_equal(pod_mc_unfit_parse("exclude", &v), POD_OK);
  assert_int_equal(v, POD_MC_UNFIT_EXCLUDE);
  assert_int_equal(pod_mc_nonfinite_parse("error", &v), POD_OK);
  assert_int_equal(v, POD_MC_NONFINITE_ERROR);
  assert_int_equal(pod_mc_nonfinite_parse("Error", &v), POD_ENOENT);
}

/* podsim.ep_time's kernels are the decode kernels, in their order, then
** DeepEP's normal kernels at POD_SERVE_EP_TIME_NORMAL. */
static void test_ep_time_kernels(void **state) {
  (void)state;
  int n = 0;
  while (pod_serve_ep_kernel_names[n]) {
    assert_string_equal(pod_serve_ep_time_kernel_names[n],
                        pod_serve_ep_kernel_names[n]);
    n++;
  }
  assert_int_equal(n, POD_SERVE_EP_TIME_NORMAL);
  assert_string_equal(pod_serve_ep_time_kernel_names[n], "deepep_normal");
  assert_null(pod_serve_ep_time_kernel_names[n + 1]);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_lengths),
      cmocka_unit_test(test_name_functions),
      cmocka_unit_test(test_rel_enums),
      cmocka_unit_test(test_ep_time_kernels),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
