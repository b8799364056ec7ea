/*
** test_fields.c: the numeric bound tables core exports (pod_field.h,
** issue 10).  For every entry of every table, a valid struct with that one
** field set just outside its bound (below the minimum, above the maximum,
** a fraction for an int, 2 for a flag, NaN and inf) must fail the module's
** check with err.field naming that field, and the bound itself must not
** be reported as out of range.  A second copy of a bound in a check that
** drifted from the table fails here.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "pod_coll.h"
#include "pod_cost.h"
#include "pod_field.h"
#include "pod_hw.h"
#include "pod_mc.h"
#include "pod_rel.h"
#include "pod_rl.h"
#include "pod_run.h"
#include "pod_serve.h"
#include "pod_train.h"

/* Check the whole struct at base; returns a pod status. */
typedef int (*check_fn)(const void *base, pod_err *err);

/* One table under test: the struct a check sees (`whole`, valid), the
** member struct the table describes inside it (at `sub`), and the field
** path prefix the check reports for it. */
typedef struct table_case {
  const char *what;
  const pod_field *table;
  const void *whole;
  size_t size, sub;
  const char *prefix;
  check_fn check;
} table_case;

/* Large enough for every struct under test (checked); static, as the RL
** pair config is large. */
#define BUF_MAX (1 << 17)
static unsigned char buf[BUF_MAX];

static void set_value(const pod_field *f, void *base, double v) {
  char *p = (char *)base + f->offset;
  if (f->type == POD_F_DOUBLE) {
    memcpy(p, &v, sizeof v);
  } else if (f->type == POD_F_INT64) {
    int64_t i = (int64_t)v;
    memcpy(p, &i, sizeof i);
  } else if (f->type == POD_F_UINT64) {
    /* -1 wraps to 2^64 - 1, far above any bound */
    uint64_t u = v < 0 ? (uint64_t)(int64_t)v : (uint64_t)v;
    memcpy(p, &u, sizeof u);
  } else {
    int i = (int)v;
    memcpy(p, &i, sizeof i);
  }
}

/* Expect check(whole with field f = v) to fail naming the field. */
static void expect_reject(const table_case *tc, const pod_field *f, double v) {
  assert_true(tc->size <= sizeof buf);
  memcpy(buf, tc->whole, tc->size);
  set_value(f, buf + tc->sub, v);
  pod_err e;
  pod_err_clear(&e);
  char want[POD_ERR_FIELD_MAX];
  snprintf(want, sizeof want, "%s%s", tc->prefix, f->name);
  int rc = tc->check(buf, &e);
  if (rc != POD_EINVAL || strcmp(e.field, want) != 0)
    fail_msg("%s: %s = %.17g: got %d '%s: %s', want an error on %s", tc->what,
             f->name, v, rc, e.field, e.msg, want);
}

/* At the bound itself the check may fail on a rule across fields, but
** never with this field's own range message. */
static void expect_no_range_error(const table_case *tc, const pod_field *f,
                                  double v) {
  memcpy(buf, tc->whole, tc->size);
  set_value(f, buf + tc->sub, v);
  pod_err e;
  pod_err_clear(&e);
  char want[POD_ERR_FIELD_MAX];
  snprintf(want, sizeof want, "%s%s", tc->prefix, f->name);
  char r[80];
  pod_field_range(f, r, sizeof r);
  if (tc->check(buf, &e) != POD_OK && strcmp(e.field, want) == 0 &&
      strstr(e.msg, r) != NULL)
    fail_msg("%s: %s = %.17g is inside its bound but got '%s'", tc->what,
             f->name, v, e.msg);
}

static void run_case(const table_case *tc) {
  int n = 0;
  for (const pod_field *f = tc->table; f->name; f++, n++) {
    int lo_open = (f->open & POD_F_MIN_OPEN) != 0;
    int hi_open = (f->open & POD_F_MAX_OPEN) != 0;
    if (f->type == POD_F_DOUBLE) {
      expect_reject(tc, f, lo_open ? f->min : nextafter(f->min, -INFINITY));
      if (isfinite(f->max))
        expect_reject(tc, f, hi_open ? f->max : nextafter(f->max, INFINITY));
      expect_reject(tc, f, NAN);
      expect_reject(tc, f, INFINITY);
      expect_reject(tc, f, -INFINITY);
      if (!lo_open) expect_no_range_error(tc, f, f->min);
      if (!hi_open && isfinite(f->max)) expect_no_range_error(tc, f, f->max);
    } else {
      /* ints and flags: the nearest integers outside */
      expect_reject(tc, f, f->min - 1);
      expect_reject(tc, f, f->max + 1);
      expect_no_range_error(tc, f, f->min);
      expect_no_range_error(tc, f, f->max);
    }
    /* every entry names a member inside the struct, with a unit */
    assert_true(f->offset < tc->size - tc->sub);
    assert_non_null(f->unit);
    assert_true(f->min <= f->max);
  }
  assert_true(n > 0);
}

static int gpu_check(const void *b, pod_err *e) {
  return pod_hw_gpu_check(b, e);
}
static int system_check(const void *b, pod_err *e) {
  return pod_hw_system_check(b, e);
}
static int rel_check(const void *b, pod_err *e) {
  return pod_rel_check(b, e);
}

static void test_hw_tables(void **state) {
  (void)state;
  for (int i = 0; pod_hw_system_at(i, NULL); i++) {
    const pod_system *s = pod_hw_system_at(i, NULL);
    table_case g = {"gpu", pod_hw_gpu_fields, &s->gpu, sizeof s->gpu, 0,
                    "",    gpu_check};
    run_case(&g);
    table_case gs = {"system.gpu", pod_hw_gpu_fields,         s,
                     sizeof *s,    offsetof(pod_system, gpu), "gpu.",
                     system_check};
    run_case(&gs);
    table_case sy = {"system", pod_hw_system_fields, s, sizeof *s, 0,
                     "",       system_check};
    run_case(&sy);
  }
}

static void test_rel_tables(void **state) {
  (void)state;
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_preset("llama3_h100", &c.failures), POD_OK);
  c.node_gpus = 8;
  c.domain_gpus = 8;
  c.active_gpus = 1024;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_rel_check(&c, &e), POD_OK);
  table_case cfg = {"reliability", pod_rel_cfg_fields, &c, sizeof c, 0, "",
                    rel_check};
  run_case(&cfg);
  table_case cause = {"cause",
                      pod_rel_cause_fields,
                      &c,
                      sizeof c,
                      offsetof(pod_rel_cfg, failures.cause[0]),
                      "failures[1].",
                      rel_check};
  run_case(&cause);
}

static int cost_check(const void *b, pod_err *e) {
  pod_cost_result r;
  return pod_cost_eval(b, &r, e);
}

static void test_cost_tables(void **state) {
  (void)state;
  pod_cost_cfg c;
  pod_cost_cfg_init(&c);
  c.usd_per_gpu_hour = 0; /* price from the TCO parts, so they are checked */
  c.tco = (pod_tco){30000, 4, 0.08, 1.5, 1.3, 0.1, 100, 1000};
  c.tokens_per_s_per_gpu = 1000;
  c.active_gpus = 8;
  c.tokens = 1e12;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(cost_check(&c, &e), POD_OK);
  table_case cfg = {"cost", pod_cost_cfg_fields, &c, sizeof c, 0,
                    "",     cost_check};
  run_case(&cfg);
  table_case tco = {"cost.tco", pod_cost_tco_fields,         &c,
                    sizeof c,   offsetof(pod_cost_cfg, tco), "tco.",
                    cost_check};
  run_case(&tco);
}

static int serve_check(const void *b, pod_err *e) {
  return pod_serve_check(b, e);
}

static void test_serve_tables(void **state) {
  (void)state;
  pod_serve_cfg c;
  pod_serve_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  assert_int_equal(pod_model_preset("llama3_70b", &c.model), POD_OK);
  c.gpus = 8;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(serve_check(&c, &e), POD_OK);
  table_case cfg = {"serve", pod_serve_cfg_fields, &c, sizeof c, 0,
                    "",      serve_check};
  run_case(&cfg);
  table_case par = {"serve.parallel",
                    pod_serve_par_fields,
                    &c,
                    sizeof c,
                    offsetof(pod_serve_cfg, parallel),
                    "parallel.",
                    serve_check};
  run_case(&par);
  table_case pool = {"serve.prefill",
                     pod_serve_pool_fields,
                     &c,
                     sizeof c,
                     offsetof(pod_serve_cfg, prefill),
                     "prefill.",
                     serve_check};
  run_case(&pool);
}

static int rl_check(const void *b, pod_err *e) {
  return pod_rl_check(b, e);
}
static int rl_pair_check(const void *b, pod_err *e) {
  pod_rl_pair_result r;
  return pod_rl_pair_eval(b, &r, e);
}

static pod_rl_cfg rl_base(void) {
  pod_rl_cfg c;
  pod_rl_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.rollout.system), POD_OK);
  assert_int_equal(pod_model_preset("llama3_70b", &c.rollout.model), POD_OK);
  c.train.system = c.rollout.system;
  c.train.model = c.rollout.model;
  c.rollout.gpus = 8;
  c.rollout.parallel.tp = 8;
  c.train.gpus = 64;
  c.train.parallel.tp = 8;
  c.prompts = 128;
  c.samples = 8;
  return c;
}

static void test_rl_tables(void **state) {
  (void)state;
  static pod_rl_cfg c;
  c = rl_base();
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(rl_check(&c, &e), POD_OK);
  table_case cfg = {"rl", pod_rl_cfg_fields, &c, sizeof c, 0, "", rl_check};
  run_case(&cfg);
  table_case len = {"rl.response", pod_rl_length_fields,           &c,
                    sizeof c,      offsetof(pod_rl_cfg, response), "response.",
                    rl_check};
  run_case(&len);
  static pod_rl_pair_cfg p;
  pod_rl_pair_cfg_init(&p);
  p.a = c;
  p.b = c;
  assert_int_equal(rl_pair_check(&p, &e), POD_OK);
  table_case pair = {"rl_pair", pod_rl_pair_fields, &p, sizeof p, 0,
                     "",        rl_pair_check};
  run_case(&pair);
  /* the split budget, an argument */
  pod_rl_result r;
  int rg;
  assert_int_equal(pod_rl_best_split(&c, 1, &rg, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "gpus");
  assert_int_equal(pod_rl_best_split(&c, (1 << 24) + 1, &rg, &r, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "gpus");
}

static int model_check(const void *b, pod_err *e) {
  return pod_model_check(b, e);
}
static int train_check(const void *b, pod_err *e) {
  return pod_train_check(b, e);
}
static int search_check(const void *b, pod_err *e) {
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  assert_int_equal(pod_model_preset("llama3_8b", &c.model), POD_OK);
  c.gpus = 8;
  c.seq = 4096;
  c.global_batch = 64;
  pod_train_search_item it[4];
  int n;
  return pod_train_search(&c, b, it, 4, &n, NULL, e);
}

static void test_train_tables(void **state) {
  (void)state;
  pod_err e;
  pod_err_clear(&e);
  /* a dense and an MoE model */
  const char *models[] = {"llama3_70b", "deepseek_v3"};
  for (int i = 0; i < 2; i++) {
    pod_model m;
    assert_int_equal(pod_model_preset(models[i], &m), POD_OK);
    table_case mc = {models[i], pod_model_fields, &m, sizeof m, 0,
                     "",        model_check};
    run_case(&mc);
  }
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  assert_int_equal(pod_model_preset("llama3_70b", &c.model), POD_OK);
  c.gpus = 64;
  c.seq = 8192;
  c.global_batch = 128;
  c.parallel.tp = 8;
  assert_int_equal(train_check(&c, &e), POD_OK);
  const struct {
    const char *what;
    const pod_field *t;
    size_t sub;
    const char *prefix;
  } parts[] = {
      {"train", pod_train_cfg_fields, 0, ""},
      {"train.parallel", pod_train_layout_fields,
       offsetof(pod_train_cfg, parallel), "parallel."},
      {"train.recompute_modules", pod_train_recompute_set_fields,
       offsetof(pod_train_cfg, parallel.recompute_modules),
       "parallel.recompute_modules."},
      {"train.software", pod_train_sw_fields, offsetof(pod_train_cfg, software),
       "software."},
  };
  for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++) {
    table_case tc = {parts[i].what, parts[i].t,      &c,         sizeof c,
                     parts[i].sub,  parts[i].prefix, train_check};
    run_case(&tc);
  }
  /* the search's options */
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  assert_int_equal(search_check(&o, &e), POD_OK);
  table_case so = {
      "search",    pod_train_search_opts_fields, &o, sizeof o, 0, "",
      search_check};
  run_case(&so);
  o.fix.tp = 0; /* a fixed size is >= 1 */
  assert_int_equal(search_check(&o, &e), POD_EINVAL);
  assert_string_equal(e.field, "fix.tp");
  o.fix.tp = (1 << 16) + 1;
  assert_int_equal(search_check(&o, &e), POD_EINVAL);
  assert_string_equal(e.field, "fix.tp");
}

static pod_system coll_sys;
static int coll_check(const void *b, pod_err *e) {
  pod_coll_result r;
  return pod_coll_eval(&coll_sys, POD_COLL_ALL_REDUCE, b, &r, e);
}

static void test_coll_tables(void **state) {
  (void)state;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &coll_sys), POD_OK);
  pod_coll_args a = {8, 0, 1e6, POD_ALGO_AUTO};
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(coll_check(&a, &e), POD_OK);
  table_case tc = {"collective", pod_coll_args_fields, &a, sizeof a, 0, "",
                   coll_check};
  run_case(&tc);
  /* the kernel config's table is the same list at the config's offsets */
  int n = 0;
  for (const pod_field *f = pod_coll_cfg_fields; f->name; f++, n++) {
    const pod_field *g = &pod_coll_args_fields[n];
    assert_string_equal(f->name, g->name);
    assert_int_equal(f->offset, offsetof(pod_coll_cfg, args) + g->offset);
    assert_true(f->min == g->min && f->max == g->max && f->type == g->type);
  }
  assert_null(pod_coll_args_fields[n].name);
}

/* pod_serve_ep_time's argument bounds: each just outside fails naming
** the argument (offsets unused: the arguments are passed by value). */
static void test_serve_ep_args(void **state) {
  (void)state;
  pod_system sys;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &sys), POD_OK);
  const double ok[5] = {8, 2, 128, 14336, 288};
  int n = 0;
  for (const pod_field *f = pod_serve_ep_args; f->name; f++, n++) {
    double bad[2] = {
        f->type == POD_F_INT ? f->min - 1 : nextafter(f->min, -INFINITY),
        f->type == POD_F_INT ? f->max + 1 : nextafter(f->max, INFINITY)};
    for (int j = 0; j < 2; j++) {
      double a[5] = {ok[0], ok[1], ok[2], ok[3], ok[4]};
      a[n] = bad[j];
      pod_err e;
      pod_err_clear(&e);
      double t;
      assert_int_equal(pod_serve_ep_time(&sys, (int)a[0], (int)a[1], a[2], a[3],
                                         POD_SERVE_EP_DEEPEP_LL, 0, 34, 19,
                                         (int)a[4], 0, &t, &e),
                       POD_EINVAL);
      assert_string_equal(e.field, f->name);
    }
  }
  assert_int_equal(n, 5);
}

static int mc_eval(void *ud, void *w, int g, const double *x, double *y,
                   pod_err *e) {
  (void)ud, (void)w, (void)g, (void)e;
  y[0] = x[0];
  return POD_OK;
}
static int mc_check(const void *b, pod_err *e) {
  return pod_mc_spec_check(b, e);
}

/* The study plan's spec (pod_mc.h) and its stopping rule; the checks
** walk every distribution, so the spec has as many as the most
** parameters. */
static void test_mc_tables(void **state) {
  (void)state;
  static pod_dist d[POD_MC_PARAMS_MAX + 1];
  for (int i = 0; i <= POD_MC_PARAMS_MAX; i++) d[i] = pod_dist_uniform(0, 1);
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 1;
  s.dists = d;
  s.nmetrics = 1;
  s.eval.eval = mc_eval;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(mc_check(&s, &e), POD_OK);
  table_case spec = {"mc", pod_mc_spec_fields, &s, sizeof s, 0, "", mc_check};
  run_case(&spec);
  s.stop_metric = 0;
  s.stop_rel_ci95 = 0.01;
  assert_int_equal(mc_check(&s, &e), POD_OK);
  table_case stop = {"mc.stop", pod_mc_stop_fields, &s, sizeof s, 0, "",
                     mc_check};
  run_case(&stop);
  /* the plan checks the same spec */
  s.samples = 0;
  pod_mc_plan *pl = NULL;
  assert_int_equal(pod_mc_plan_new(&s, &pl, &e), POD_EINVAL);
  assert_string_equal(e.field, "samples");
  assert_string_equal(e.msg, "must be in [1, 1e+12] (got 0)");
  assert_null(pl);
}

static void run_done(pod_run *run, pod_run_status st, void *ud) {
  (void)run, (void)st, (void)ud;
}

/* The runner's thread count, an option of pod_run_start: just outside
** the bound that the study binding and --threads read, the start fails
** naming it (nothing is queued, so the loop never runs). */
static void test_run_threads(void **state) {
  (void)state;
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  static const char *const mn[] = {"y"};
  s.nmetrics = 1;
  s.metric_names = mn;
  s.eval.eval = mc_eval;
  pod_mc_plan *pl;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_mc_plan_new(&s, &pl, &e), POD_OK);
  uv_loop_t loop;
  assert_int_equal(uv_loop_init(&loop), 0);
  const pod_field *f = &pod_run_threads;
  const double bad[2] = {f->min - 1, f->max + 1};
  for (int i = 0; i < 2; i++) {
    pod_run_opts o;
    memset(&o, 0, sizeof o);
    o.threads = (int)bad[i];
    o.done_cb = run_done;
    pod_run *run = NULL;
    assert_int_equal(pod_run_start(&loop, pl, &o, &run, &e), POD_EINVAL);
    assert_string_equal(e.field, "threads");
    assert_null(run);
  }
  assert_int_equal(uv_loop_close(&loop), 0);
  pod_mc_plan_free(pl);
  assert_int_equal(pod_run_set_threads((int)f->min - 1), POD_EINVAL);
}

/* The helpers themselves: messages, lookups, open bounds. */
static void test_field_helpers(void **state) {
  (void)state;
  typedef struct {
    double x;
    int n;
    int flag;
  } demo;
  static const pod_field t[] = {
      POD_FIELD_D(demo, x, 0, 1, POD_F_MIN_OPEN | POD_F_MAX_OPEN, "share"),
      POD_FIELD_I(demo, n, 1, 8, "count"), POD_FIELD_B(demo, flag, "on"),
      POD_FIELD_END};
  demo d = {0.5, 4, 1};
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_field_check_all(t, &d, "p.", &e), POD_OK);
  d.x = 1;
  assert_int_equal(pod_field_check_all(t, &d, "p.", &e), POD_EINVAL);
  assert_string_equal(e.field, "p.x");
  assert_string_equal(e.msg, "must be in (0, 1) (got 1)");
  d.x = NAN;
  pod_field_check_all(t, &d, NULL, &e);
  assert_string_equal(e.field, "x");
  assert_string_equal(e.msg, "must be a finite number (got nan)");
  d.x = 0.25;
  d.n = 9;
  pod_field_check_all(t, &d, "", &e);
  assert_string_equal(e.msg, "must be in [1, 8] (got 9)");
  pod_field_error(&t[1], 2.5, "", &e);
  assert_string_equal(e.msg, "must be an integer (got 2.5)");
  d.n = 2;
  d.flag = 2;
  pod_field_check_all(t, &d, "", &e);
  assert_string_equal(e.field, "flag");
  assert_string_equal(e.msg, "must be 0 or 1 (got 2)");
  const pod_field inf = {"y", 0, POD_F_DOUBLE, 0, HUGE_VAL, POD_F_MIN_OPEN, ""};
  pod_field_error(&inf, -1, "", &e);
  assert_string_equal(e.msg, "must be > 0 (got -1)");
  char r[32];
  pod_field_range(&inf, r, sizeof r);
  assert_string_equal(r, "(0, inf)");
  pod_field_range(&t[2], r, sizeof r);
  assert_string_equal(r, "0 or 1");
  assert_ptr_equal(pod_field_find(t, "n"), &t[1]);
  assert_null(pod_field_find(t, "m"));
  assert_ptr_equal(pod_field_at(t, offsetof(demo, flag)), &t[2]);
  assert_null(pod_field_at(t, 1));
  assert_true(pod_field_ok(&t[0], 0.5));
  assert_false(pod_field_ok(&t[1], 1.5));
  assert_true(pod_field_get(&t[1], &d) == 2.0);
  /* 64-bit integers, read through a double */
  typedef struct {
    int64_t n;
    uint64_t u;
  } wide;
  static const pod_field w[] = {
      POD_FIELD_I64(wide, n, 1, 1e12, "count"),
      POD_FIELD_U64(wide, u, 0, 9007199254740991.0, "seed"), POD_FIELD_END};
  wide x = {1000000000000LL, 9007199254740991ULL};
  assert_int_equal(pod_field_check_all(w, &x, "", &e), POD_OK);
  assert_true(pod_field_get(&w[1], &x) == 9007199254740991.0);
  x.n = 1000000000001LL;
  pod_field_check_all(w, &x, "", &e);
  assert_string_equal(e.field, "n");
  assert_string_equal(e.msg, "must be in [1, 1e+12] (got 1000000000001)");
  x.n = INT64_MIN;
  assert_int_equal(pod_field_check_all(w, &x, "", &e), POD_EINVAL);
  x.n = 5;
  x.u = UINT64_MAX;
  pod_field_check_all(w, &x, "", &e);
  assert_string_equal(e.field, "u");
  x.u = 1ULL << 53;
  assert_int_equal(pod_field_check_all(w, &x, "", &e), POD_EINVAL);
  assert_false(pod_field_ok(&w[0], 2.5));
}

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_field_helpers),
      cmocka_unit_test(test_hw_tables),
      cmocka_unit_test(test_rel_tables),
      cmocka_unit_test(test_cost_tables),
      cmocka_unit_test(test_serve_tables),
      cmocka_unit_test(test_serve_ep_args),
      cmocka_unit_test(test_rl_tables),
      cmocka_unit_test(test_train_tables),
      cmocka_unit_test(test_coll_tables),
      cmocka_unit_test(test_mc_tables),
      cmocka_unit_test(test_run_threads),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
