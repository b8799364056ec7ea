/*
** test_cost.c: unit tests of core/cost.c (pod_cost.h).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lpod.h"
#include "pod_cost.h"

void lpod_open_cost(lua_State *L);

static pod_tco sample_tco(void) {
  pod_tco t;
  t.capex_usd_per_gpu = 40000.0;
  t.amort_years = 5.0;
  t.capital_rate = 0.08;
  t.power_kw_per_gpu = 1.4;
  t.pue = 1.3;
  t.usd_per_kwh = 0.08;
  t.hosting_usd_per_kw_month = 150.0;
  t.ops_usd_per_gpu_year = 1000.0;
  return t;
}

static pod_cost_cfg base_cfg(void) {
  pod_cost_cfg c;
  pod_cost_cfg_init(&c);
  c.usd_per_gpu_hour = 2.0;
  c.tokens_per_s_per_gpu = 4000.0;
  c.active_gpus = 64;
  c.spare_gpus = 8;
  c.step_s = 6.0;
  c.tokens = 1e12;
  return c;
}

static void test_crf(void **state) {
  (void)state;
  assert_true(fabs(pod_cost_crf(0.0, 4.0) - 0.25) < 1e-15);
  /* 8% over 5 years: 0.250456 (standard annuity tables). */
  assert_true(fabs(pod_cost_crf(0.08, 5.0) - 0.2504565) < 1e-6);
  /* The annuity exceeds straight line when money costs something. */
  assert_true(pod_cost_crf(0.05, 5.0) > 0.2);
}

static void test_tco_parts(void **state) {
  (void)state;
  pod_tco t = sample_tco();
  pod_tco_parts p;
  assert_int_equal(pod_cost_tco_eval(&t, &p, NULL), POD_OK);
  double cap = 40000.0 * pod_cost_crf(0.08, 5.0) / 8760.0;
  assert_true(fabs(p.capital_usd - cap) < 1e-12);
  assert_true(fabs(p.energy_usd - 1.4 * 1.3 * 0.08) < 1e-12);
  assert_true(fabs(p.hosting_usd - 1.4 * 150.0 * 12.0 / 8760.0) < 1e-12);
  assert_true(fabs(p.ops_usd - 1000.0 / 8760.0) < 1e-12);
  assert_true(fabs(p.usd_per_gpu_hour - (p.capital_usd + p.energy_usd +
                                         p.hosting_usd + p.ops_usd)) < 1e-12);
  /* Used by pod_cost_eval when no rental price is given. */
  pod_cost_cfg c = base_cfg();
  c.usd_per_gpu_hour = 0.0;
  c.tco = t;
  pod_cost_result r;
  assert_int_equal(pod_cost_eval(&c, &r, NULL), POD_OK);
  assert_true(fabs(r.price.usd_per_gpu_hour - p.usd_per_gpu_hour) < 1e-12);
}

static void test_identities(void **state) {
  (void)state;
  pod_cost_cfg c = base_cfg();
  pod_cost_result r;
  assert_int_equal(pod_cost_eval(&c, &r, NULL), POD_OK);
  /* cost per Mtok x tokens = total, both ways of counting spares. */
  assert_true(fabs(r.usd_per_m_tokens * c.tokens / 1e6 - r.usd_total) <
              1e-9 * r.usd_total);
  assert_true(fabs(r.usd_per_m_tokens_charged * c.tokens / 1e6 -
                   r.usd_total_charged) < 1e-9 * r.usd_total_charged);
  /* DESIGN.md 4.4 formula. */
  assert_true(fabs(r.usd_per_m_tokens - 2.0 / (4000.0 * 3600.0 / 1e6)) < 1e-12);
  /* Charging 8 spares per 64 active multiplies by 72/64. */
  assert_true(fabs(r.usd_per_m_tokens_charged / r.usd_per_m_tokens -
                   72.0 / 64.0) < 1e-12);
  assert_true(fabs(r.spare_fraction - 8.0 / 72.0) < 1e-15);
  /* train time and GPU-hours */
  double h = 1e12 / (4000.0 * 64.0) / 3600.0;
  assert_true(fabs(r.train_h - h) < 1e-9 * h);
  assert_true(fabs(r.gpu_hours - 64.0 * h) < 1e-9 * h);
  assert_true(fabs(r.gpu_hours_charged - 72.0 * h) < 1e-9 * h);
  /* step cost: tokens per step x cost per token */
  assert_true(fabs(r.usd_per_step - 2.0 * 64.0 * 6.0 / 3600.0) < 1e-12);
  /* goodput 0.5 doubles time and cost */
  c.goodput = 0.5;
  pod_cost_result r2;
  assert_int_equal(pod_cost_eval(&c, &r2, NULL), POD_OK);
  assert_true(fabs(r2.usd_total / r.usd_total - 2.0) < 1e-12);
  assert_true(fabs(r2.usd_per_m_tokens / r.usd_per_m_tokens - 2.0) < 1e-12);
  /* no tokens: no totals */
  c.tokens = 0.0;
  assert_int_equal(pod_cost_eval(&c, &r2, NULL), POD_OK);
  assert_true(r2.usd_total == 0.0 && r2.train_h == 0.0);
}

static void test_kernel(void **state) {
  (void)state;
  pod_cost_cfg c = base_cfg();
  double m[16];
  assert_int_equal(pod_cost_kernel.cfg_size, sizeof c);
  assert_int_equal(pod_cost_kernel.nmetrics, 10);
  assert_string_equal(pod_cost_kernel.metric_names[1], "usd_per_m_tokens");
  assert_int_equal(pod_cost_kernel.fn(&c, m, NULL), POD_OK);
  pod_cost_result r;
  pod_cost_eval(&c, &r, NULL);
  assert_true(m[0] == 2.0 && m[1] == r.usd_per_m_tokens &&
              m[2] == r.usd_per_m_tokens_charged && m[3] == r.usd_total &&
              m[4] == r.usd_total_charged && m[5] == r.train_h &&
              m[6] == r.gpu_hours && m[7] == r.gpu_hours_charged &&
              m[8] == r.usd_per_step && m[9] == r.spare_fraction);
  c.active_gpus = 0;
  pod_err e;
  assert_int_equal(pod_cost_kernel.fn(&c, m, &e), POD_EINVAL);
  assert_string_equal(e.field, "active_gpus");
}

/* One bad field: expect POD_EINVAL naming `field`. */
static void expect_bad(const pod_cost_cfg *c, const char *field) {
  pod_err e;
  pod_err_clear(&e);
  pod_cost_result r;
  int rc = pod_cost_eval(c, &r, &e);
  assert_int_equal(rc, POD_EINVAL);
  assert_int_equal(e.code, POD_EINVAL);
  assert_string_equal(e.field, field);
  assert_true(strlen(e.msg) > 0);
}

static void test_bad_inputs(void **state) {
  (void)state;
  pod_cost_cfg c;
#define BAD(stmt, field)   \
  do {                     \
    c = base_cfg();        \
    stmt;                  \
    expect_bad(&c, field); \
  } while (0)
#define BADT(stmt, field)     \
  do {                        \
    c = base_cfg();           \
    c.usd_per_gpu_hour = 0.0; \
    c.tco = sample_tco();     \
    stmt;                     \
    expect_bad(&c, field);    \
  } while (0)
  BAD(c.usd_per_gpu_hour = -1.0, "usd_per_gpu_hour");
  BAD(c.usd_per_gpu_hour = NAN, "usd_per_gpu_hour");
  /* with a rental price the TCO parts are unused but must still be finite */
  BAD(c.tco.pue = NAN, "tco");
  BAD(c.tco.capex_usd_per_gpu = INFINITY, "tco");
  BAD(c.tco.ops_usd_per_gpu_year = -INFINITY, "tco"); /* the list's last */
  BAD(c.tco.amort_years = NAN, "tco");
  BAD(c.tokens_per_s_per_gpu = 0.0, "tokens_per_s_per_gpu");
  BAD(c.tokens_per_s_per_gpu = INFINITY, "tokens_per_s_per_gpu");
  BAD(c.active_gpus = 0, "active_gpus");
  BAD(c.spare_gpus = -1, "spare_gpus");
  BAD(c.goodput = 0.0, "goodput");
  BAD(c.goodput = 1.5, "goodput");
  BAD(c.goodput = NAN, "goodput");
  BAD(c.step_s = -1.0, "step_s");
  BAD(c.tokens = -5.0, "tokens");
  BAD(c.tokens = INFINITY, "tokens");
  BADT(c.tco.capex_usd_per_gpu = -1.0, "tco.capex_usd_per_gpu");
  BADT(c.tco.amort_years = 0.0, "tco.amort_years");
  BADT(c.tco.amort_years = NAN, "tco.amort_years");
  BADT(c.tco.capital_rate = -0.1, "tco.capital_rate");
  BADT(c.tco.capital_rate = 2.0, "tco.capital_rate");
  BADT(c.tco.power_kw_per_gpu = NAN, "tco.power_kw_per_gpu");
  BADT(c.tco.pue = 0.9, "tco.pue");
  BADT(c.tco.pue = INFINITY, "tco.pue");
  BADT(c.tco.usd_per_kwh = -0.1, "tco.usd_per_kwh");
  BADT(c.tco.hosting_usd_per_kw_month = -1.0, "tco.hosting_usd_per_kw_month");
  BADT(c.tco.ops_usd_per_gpu_year = NAN, "tco.ops_usd_per_gpu_year");
  /* all-zero TCO gives no price */
  BADT(memset(&c.tco, 0, sizeof c.tco); c.tco.amort_years = 1;
       c.tco.pue = 1, "tco");
  /* NULL err is allowed */
  c = base_cfg();
  c.active_gpus = -3;
  pod_cost_result r;
  assert_int_equal(pod_cost_eval(&c, &r, NULL), POD_EINVAL);
  /* overflow */
  c = base_cfg();
  c.tokens = 1e18; /* the largest pod_cost_cfg_fields allows */
  c.tokens_per_s_per_gpu = 1e-300;
  pod_err e;
  assert_int_equal(pod_cost_eval(&c, &r, &e), POD_ERANGE);
#undef BAD
#undef BADT
}

/* Build a pod_cost_cfg through the "cost" kernel's lpod type, as a study
** does. */
static pod_cost_cfg *g_cfg;
static int build_cfg(lua_State *L) {
  const pod_kernel *k;
  const lpod_type *t;
  if (!lpod_find_kernel(L, "cost", &k, &t)) return luaL_error(L, "no kernel");
  lpod_build(L, 1, t, g_cfg, NULL);
  return 0;
}

static int run_build(lua_State *L, const char *src, pod_cost_cfg *out,
                     const char **msg) {
  g_cfg = out;
  lua_pushcfunction(L, build_cfg);
  if (luaL_dostring(L, src) != LUA_OK) fail_msg("%s", lua_tostring(L, -1));
  int rc = lua_pcall(L, 1, 0, 0);
  if (msg) *msg = rc ? lua_tostring(L, -1) : NULL;
  return rc;
}

static void test_kernel_config_type(void **state) {
  (void)state;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  lpod_open_cost(L);
  lua_setglobal(L, "podsim");
  const pod_kernel *k;
  const lpod_type *t;
  assert_true(lpod_find_kernel(L, "cost", &k, &t));
  assert_ptr_equal(k, &pod_cost_kernel);
  assert_int_equal(t->size, k->cfg_size);
  pod_cost_cfg c, ref = base_cfg();
  assert_int_equal(run_build(L,
                             "return {base='default', usd_per_gpu_hour=2,"
                             " tokens_per_s_per_gpu=4000, active_gpus=64,"
                             " spare_gpus=8, step_s=6, tokens=1e12}",
                             &c, NULL),
                   0);
  assert_memory_equal(&c, &ref, sizeof c);
  pod_bind b;
  assert_int_equal(lpod_field_bind(t, "tco.pue", &b), 0);
  assert_int_equal(b.offset,
                   offsetof(pod_cost_cfg, tco) + offsetof(pod_tco, pue));
  assert_int_equal(lpod_field_bind(t, "spare_gpus", &b), 0);
  assert_int_equal(b.type, POD_BIND_INT);
  /* nested TCO from a table; errors name the nested field */
  assert_int_equal(run_build(L,
                             "return {base='default', tokens_per_s_per_gpu=1,"
                             " tco={capex_usd_per_gpu=40000, amort_years=5,"
                             " capital_rate=0.08, power_kw_per_gpu=1.4,"
                             " pue=1.3, usd_per_kwh=0.08,"
                             " hosting_usd_per_kw_month=150,"
                             " ops_usd_per_gpu_year=1000}}",
                             &c, NULL),
                   0);
  pod_tco tt = sample_tco();
  assert_memory_equal(&c.tco, &tt, sizeof tt);
  const char *msg;
  assert_int_not_equal(
      run_build(L,
                "return {base='default', tokens_per_s_per_gpu=1, tco={pue=1}}",
                &c, &msg),
      0);
  assert_non_null(
      strstr(msg, "podsim.cost: tco.amort_years: must be in (0, 100] (got 0)"));
  /* without base, a kernel config starts from its "default" preset */
  pod_cost_cfg d1, d2;
  assert_int_equal(
      run_build(L, "return {tokens_per_s_per_gpu=1, usd_per_gpu_hour=1}", &d1,
                NULL),
      0);
  assert_int_equal(
      run_build(
          L,
          "return {base='default', tokens_per_s_per_gpu=1, usd_per_gpu_hour=1}",
          &d2, NULL),
      0);
  assert_memory_equal(&d1, &d2, sizeof d1);
  lua_close(L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_crf),
      cmocka_unit_test(test_tco_parts),
      cmocka_unit_test(test_identities),
      cmocka_unit_test(test_kernel),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_kernel_config_type),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
