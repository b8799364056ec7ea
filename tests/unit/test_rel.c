/*
** test_rel.c: unit tests of core/rel.c (presets, checks, analytic model).
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
#include "pod_rel.h"

void lpod_open_hw(lua_State *L);
void lpod_open_rel(lua_State *L);

/* 16,384 H100 in 8-GPU HGX nodes with the Llama 3 failure preset. */
static pod_rel_cfg h100_cfg(void) {
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_preset("llama3_h100", &c.failures), POD_OK);
  c.node_gpus = 8;
  c.domain_gpus = 8;
  c.active_gpus = 16384;
  c.work_h = 54.0 * 24.0;
  c.pool_units = 32; /* spare nodes for 2-day repairs */
  c.repair_h = 48.0;
  return c;
}

static void test_presets(void **state) {
  (void)state;
  pod_rel_failures f, g;
  assert_int_equal(pod_rel_failures_preset("llama3_h100", &f), POD_OK);
  assert_int_equal(f.ncauses, 18);
  assert_string_equal(f.name, "llama3_h100");
  assert_int_equal(pod_rel_failures_preset("gb200_nvl72", &g), POD_OK);
  assert_int_equal(g.ncauses, 21);
  /* NVL72 keeps the per-GPU and per-host rates and adds domain causes. */
  for (int i = 0; i < f.ncauses; i++) {
    assert_string_equal(f.cause[i].name, g.cause[i].name);
    assert_true(f.cause[i].rate_per_h == g.cause[i].rate_per_h);
    assert_int_equal(f.cause[i].unit, g.cause[i].unit);
    assert_int_equal(f.cause[i].blast, g.cause[i].blast);
    assert_true(f.cause[i].blast != POD_REL_DOMAIN);
  }
  for (int i = f.ncauses; i < g.ncauses; i++) {
    assert_int_equal(g.cause[i].unit, POD_REL_DOMAIN);
    assert_int_equal(g.cause[i].blast, POD_REL_DOMAIN);
    assert_true(g.cause[i].rate_per_h > 0.0);
  }
  assert_int_equal(pod_rel_failures_preset("nope", &f), POD_ENOENT);
  assert_int_equal(pod_rel_failures_preset(NULL, &f), POD_ENOENT);
  const char *src = NULL;
  int n = 0;
  while (pod_rel_failures_at(n, &src) != NULL) {
    assert_non_null(src);
    assert_true(strlen(src) > 10);
    n++;
  }
  assert_int_equal(n, 2);
  assert_null(pod_rel_failures_at(-1, NULL));
  /* Every preset cause has a basis and a source: Table 5 rates are
  ** sourced, the NVL72 rack-level rates assumed (no public figure). */
  for (int p = 0; p < n; p++) {
    const pod_rel_failures *q = pod_rel_failures_at(p, NULL);
    for (int i = 0; i < q->ncauses; i++) {
      const char *cs = pod_rel_preset_cause_source(p, i);
      assert_non_null(cs);
      int dom = q->cause[i].unit == POD_REL_DOMAIN;
      assert_int_equal(q->cause[i].basis,
                       dom ? POD_REL_BASIS_ASSUMED : POD_REL_BASIS_SOURCED);
      assert_true(strstr(cs, dom ? "assumed" : "Table 5") != NULL);
    }
    assert_null(pod_rel_preset_cause_source(p, q->ncauses));
  }
  assert_null(pod_rel_preset_cause_source(n, 0));
  assert_null(pod_rel_preset_cause_source(0, -1));
  int b = -1;
  for (int k = 0; k < POD_REL_NBASES; k++) {
    assert_int_equal(pod_rel_basis_parse(pod_rel_basis_name(k), &b), POD_OK);
    assert_int_equal(b, k);
  }
  assert_int_equal(pod_rel_basis_parse("guessed", &b), POD_ENOENT);
  assert_string_equal(pod_rel_basis_name(7), "?");
  /* user causes are "given"; a bad basis is refused with its path */
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_add(&c.failures, "x", 1e-5, POD_REL_GPU,
                                        POD_REL_NODE, NULL),
                   POD_OK);
  assert_int_equal(c.failures.cause[0].basis, POD_REL_BASIS_GIVEN);
  c.failures.cause[0].basis = 3;
  pod_err e;
  assert_int_equal(pod_rel_check(&c, &e), POD_EINVAL);
  assert_string_equal(e.field, "failures[1].basis");
}

/* R1/R3: the preset, evaluated on the published configuration, gives the
** published interruption count and rates (computed, not copied). */
static void test_llama3_r1_r3(void **state) {
  (void)state;
  pod_rel_cfg c = h100_cfg();
  pod_rel_result r;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_int_equal(r.nodes, 2048);
  double in54 = r.interruptions_per_day * 54.0;
  assert_true(fabs(in54 - 419.0) < 1e-6);
  assert_true(fabs(r.job_mtbf_h - 3.09) / 3.09 < 0.01);         /* R3 */
  assert_true(fabs(r.per_gpu_hour - 1.97e-5) / 1.97e-5 < 0.01); /* R3 */
  /* hardware share of the preset: 356 of 419 drain a node */
  assert_true(fabs(r.hw_fraction - 356.0 / 419.0) < 1e-9);
  /* Rate scales by unit: 10x the GPU causes, 0.1x software. */
  pod_rel_cfg s = c;
  s.gpu_rate_log10 = 1.0;
  s.job_rate_log10 = -1.0;
  assert_true(fabs(pod_rel_job_rate(&s) * 54 * 24 - (3100.0 + 46.0 + 6.3)) <
              1e-6);
  s.pool_units = 0;
  s.pool_scope = POD_REL_GPU; /* ignored without a pool */
  assert_int_equal(pod_rel_check(&s, NULL), POD_OK);
  /* Half the GPUs: the GPU and node parts halve, software does not. */
  c.active_gpus = 8192;
  pod_rel_result h;
  assert_int_equal(pod_rel_eval(&c, &h, NULL), POD_OK);
  assert_true(fabs(h.interruptions_per_day * 54.0 - (356.0 / 2 + 63.0)) < 1e-6);
}

/* R1: over 90% effective training time under plausible settings:
** 20 s checkpoint stall (asynchronous save), 5 min restart, spare nodes
** enough to cover 2-day repairs, Young interval. */
static void test_llama3_goodput(void **state) {
  (void)state;
  pod_rel_cfg c = h100_cfg();
  c.ckpt_s = 20.0;
  c.restart_s = 300.0;
  c.pool_units = 32;
  c.repair_h = 48.0;
  pod_rel_result r;
  for (int m = 0; m < 3; m++) {
    c.waste_model = m;
    assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
    assert_true(r.goodput > 0.90);
    assert_true(r.goodput < 0.95);
    assert_true(r.p_no_spare < 1e-3);
  }
  /* Without spares every hardware failure waits for a 2-day repair. */
  c.pool_units = 0;
  c.waste_model = POD_REL_WASTE_FIRST;
  pod_rel_result w;
  c.interval_rule = POD_REL_TAU_FIXED;
  c.interval_s = 3600.0;
  assert_int_equal(pod_rel_eval(&c, &w, NULL), POD_ERANGE);
  c.waste_model = POD_REL_WASTE_RENEWAL;
  assert_int_equal(pod_rel_eval(&c, &w, NULL), POD_OK);
  assert_true(fabs(w.p_no_spare - 356.0 / 419.0) < 1e-9);
  assert_true(w.goodput < 0.1);
  assert_true(fabs(w.wait_h - w.interruptions * (356.0 / 419.0) * 48.0) <
              1e-6 * w.wait_h);
}

static void test_young_minimizes(void **state) {
  (void)state;
  pod_rel_cfg c = h100_cfg();
  c.ckpt_s = 120.0;
  c.pool_units = 64;
  c.waste_model = POD_REL_WASTE_FIRST;
  pod_rel_result y;
  assert_int_equal(pod_rel_eval(&c, &y, NULL), POD_OK);
  double tau = y.checkpoint_interval_s;
  assert_true(fabs(tau / 3600.0 - sqrt(2.0 * (120.0 / 3600.0) * y.job_mtbf_h)) <
              1e-12);
  c.interval_rule = POD_REL_TAU_FIXED;
  for (double f = 0.5; f <= 1.5; f += 0.05) {
    if (fabs(f - 1.0) < 1e-9) continue;
    c.interval_s = tau * f;
    pod_rel_result r;
    assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
    assert_true(r.waste > y.waste);
  }
  /* Daly's interval beats Young's under Daly's model when C/M is large. */
  c.ckpt_s = 1800.0;
  c.waste_model = POD_REL_WASTE_DALY;
  c.interval_rule = POD_REL_TAU_YOUNG;
  pod_rel_result ry, rd;
  assert_int_equal(pod_rel_eval(&c, &ry, NULL), POD_OK);
  c.interval_rule = POD_REL_TAU_DALY;
  assert_int_equal(pod_rel_eval(&c, &rd, NULL), POD_OK);
  assert_true(rd.checkpoint_interval_s < ry.checkpoint_interval_s);
  assert_true(rd.goodput > ry.goodput);
  c.interval_rule = POD_REL_TAU_FIXED;
  for (double f = 0.8; f <= 1.2; f += 0.1) {
    if (fabs(f - 1.0) < 1e-9) continue;
    c.interval_s = rd.checkpoint_interval_s * f;
    pod_rel_result r;
    assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
    assert_true(r.goodput < rd.goodput);
  }
  /* C >= 2M: Daly's rule checkpoints once per MTBF. */
  c.interval_rule = POD_REL_TAU_DALY;
  assert_true(fabs(pod_rel_interval_h(&c, 0.1) - 0.1) < 1e-15);
}

static void test_no_failures(void **state) {
  (void)state;
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  c.active_gpus = 1024;
  c.work_h = 100.0;
  c.ckpt_s = 360.0;
  c.interval_rule = POD_REL_TAU_FIXED;
  c.interval_s = 3600.0 * 10.0;
  pod_rel_result r;
  c.waste_model = POD_REL_WASTE_RENEWAL;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  /* 9 checkpoints of 0.1 h (none after the last segment) */
  assert_true(fabs(r.wall_h - 100.9) < 1e-9);
  assert_true(r.interruptions == 0.0 && r.interruptions_per_day == 0.0);
  assert_true(isinf(r.job_mtbf_h));
  c.waste_model = POD_REL_WASTE_FIRST;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_true(fabs(r.goodput - (1.0 - 0.1 / 10.0)) < 1e-12);
  c.waste_model = POD_REL_WASTE_DALY;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_true(fabs(r.goodput - 10.0 / 10.1) < 1e-12);
  /* Optimal rule without failures: one segment, no checkpoint. */
  c.interval_rule = POD_REL_TAU_YOUNG;
  c.waste_model = POD_REL_WASTE_RENEWAL;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_true(fabs(r.wall_h - 100.0) < 1e-12);
  assert_true(fabs(r.checkpoint_interval_s - 360000.0) < 1e-6);
  /* tokens instead of hours */
  c.work_h = 0.0;
  c.tokens = 3.6e9;
  c.tokens_per_s = 1e4;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_true(fabs(r.work_h - 100.0) < 1e-12);
}

static void test_spares_and_shrink(void **state) {
  (void)state;
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_preset("gb200_nvl72", &c.failures), POD_OK);
  c.node_gpus = 4;
  c.domain_gpus = 72;
  c.active_gpus = 16384;
  c.spare_per_domain = 8; /* 64 of 72 */
  c.repair_h = 72.0;
  c.work_h = 24.0 * 30.0;
  c.waste_model = POD_REL_WASTE_RENEWAL;
  pod_rel_result r;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_int_equal(r.domains, 256);
  assert_int_equal(r.nodes, 4096);
  assert_int_equal(r.spare_gpus, 2048);
  assert_true(fabs(r.spare_fraction - 8.0 / 72.0) < 1e-12);
  assert_true(fabs(r.gpu_hours_charged / r.gpu_hours - 72.0 / 64.0) < 1e-12);
  /* Domain-wide failures cannot use in-domain spares: they wait. */
  double p_dom = 0.0, L = pod_rel_job_rate(&c);
  for (int i = 18; i < 21; i++) p_dom += c.failures.cause[i].rate_per_h * 256;
  assert_true(r.p_no_spare >= p_dom / L - 1e-12);
  /* A pool of spare racks takes them. */
  pod_rel_cfg p = c;
  p.pool_units = 4;
  p.pool_scope = POD_REL_DOMAIN;
  pod_rel_result rp;
  assert_int_equal(pod_rel_eval(&p, &rp, NULL), POD_OK);
  assert_true(rp.p_no_spare < r.p_no_spare);
  assert_true(rp.goodput > r.goodput);
  assert_true(rp.wait_h < r.wait_h);
  assert_int_equal(rp.spare_gpus, 2048 + 4 * 72);
  /* A node pool cannot replace a rack. */
  p.pool_scope = POD_REL_NODE;
  p.pool_units = 100;
  assert_int_equal(pod_rel_eval(&p, &rp, NULL), POD_OK);
  assert_true(rp.p_no_spare >= p_dom / L - 1e-12);
  /* Shrinking instead of waiting: no waiting, better goodput here. */
  p = c;
  p.shrink = 1;
  assert_int_equal(pod_rel_eval(&p, &rp, NULL), POD_OK);
  assert_true(rp.wait_h == 0.0);
  assert_true(rp.goodput > r.goodput);
  /* More hot spares per domain: fewer blocked failures. */
  p = c;
  p.spare_per_domain = 4;
  assert_int_equal(pod_rel_eval(&p, &rp, NULL), POD_OK);
  c.failures.ncauses = 18; /* drop the rack-level causes */
  p.failures.ncauses = 18;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_int_equal(pod_rel_eval(&p, &rp, NULL), POD_OK);
  assert_true(rp.p_no_spare > r.p_no_spare);
  /* Erlang B in wall time: 2 slots per domain; failures arrive only while
  ** the job runs, and none during the restart right after one, so the load
  ** is a = lambda_d E[(X - R)+] / (T - T_d): T = wall per running hour
  ** = 1 + L R + waiting, T_d = the waiting that freezes this domain.  A
  ** blocked tray waits r / 3 (its own repair or two busy ones).  Solved
  ** here by bisection on a, independently of rel.c's iteration. */
  double Lh = 0.0;
  for (int i = 0; i < 18; i++)
    if (c.failures.cause[i].blast != POD_REL_JOB)
      Lh += c.failures.cause[i].rate_per_h *
            (c.failures.cause[i].unit == POD_REL_GPU ? 16384 : 4096);
  const double L18 = pod_rel_job_rate(&c), rr = 72.0, R = 600.0 / 3600.0;
  double lo = 0.0, hi = Lh / 256 * rr, b2 = 0.0;
  for (int it = 0; it < 200; it++) {
    double a = 0.5 * (lo + hi);
    double b1 = a / (1 + a);
    b2 = a * b1 / (2 + a * b1);
    double wait = Lh * b2 * rr / 3.0;
    double Td = 1.0 + L18 * R + wait * (1.0 - 1.0 / 256);
    double g = Lh / 256 * rr * exp(-R / rr) / Td;
    if (g > a)
      lo = a;
    else
      hi = a;
  }
  if (fabs(r.p_no_spare - b2 * Lh / L18) > 1e-9 * r.p_no_spare)
    fail_msg("p_no_spare %.12g vs %.12g", r.p_no_spare, b2 * Lh / L18);
  /* The old load a = lambda_d r (a running hour taken as a wall hour)
  ** overstates blocking here. */
  {
    double a = Lh / 256 * rr, b1 = a / (1 + a);
    assert_true(r.p_no_spare < a * b1 / (2 + a * b1) * Lh / L18);
  }
}

/* Start-up transient: a run starts with every spare free, so short runs
** wait less per interruption than the equilibrium; long runs tend to it
** (the missed waits are a fixed count, Delta, spread over more
** interruptions).  p_no_spare is the equilibrium figure throughout. */
static void test_startup_transient(void **state) {
  (void)state;
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_preset("gb200_nvl72", &c.failures), POD_OK);
  c.node_gpus = 4;
  c.domain_gpus = 72;
  c.spare_per_domain = 8;
  c.active_gpus = 32768;
  c.pool_units = 4;
  c.pool_scope = POD_REL_DOMAIN;
  c.repair_h = 24.0;
  c.swap_s = 300.0;
  double per[4], pns[4];
  const double W[4] = {10.0, 200.0, 20000.0, 200000.0};
  for (int i = 0; i < 4; i++) {
    c.work_h = W[i];
    pod_rel_result r;
    assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
    per[i] = r.wait_h / r.interruptions;
    pns[i] = r.p_no_spare;
    assert_true(r.wait_h >= 0.0);
  }
  for (int i = 1; i < 4; i++) {
    assert_true(per[i] > per[i - 1]);
    assert_true(pns[i] == pns[0]);
  }
  assert_true(per[0] < 0.5 * per[3]); /* hardly any waiting at first */
  assert_true(per[2] > 0.98 * per[3]);
  /* the missed waits add up to a bounded count: per[3] - per[2] shrinks
  ** about tenfold with a tenfold longer run */
  double d2 = per[3] - per[2];
  c.work_h = 2000.0;
  pod_rel_result r;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  double d1 = per[3] - r.wait_h / r.interruptions;
  assert_true(d1 > 5.0 * d2 && d1 < 15.0 * d2);
}

static void test_kernel(void **state) {
  (void)state;
  pod_rel_cfg c = h100_cfg();
  c.pool_units = 16;
  double m[16];
  assert_int_equal(pod_rel_kernel.cfg_size, sizeof c);
  assert_int_equal(pod_rel_kernel.nmetrics, 11);
  assert_int_equal(pod_rel_kernel.fn(&c, m, NULL), POD_OK);
  pod_rel_result r;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  assert_string_equal(pod_rel_kernel.metric_names[2], "goodput");
  assert_true(m[0] == r.interruptions_per_day && m[1] == r.job_mtbf_h &&
              m[2] == r.goodput && m[3] == r.checkpoint_interval_s &&
              m[4] == r.wall_h && m[5] == r.interruptions && m[6] == r.wait_h &&
              m[7] == r.spare_gpus && m[8] == r.spare_fraction &&
              m[9] == r.gpu_hours && m[10] == r.gpu_hours_charged);
  c.ckpt_s = -1;
  pod_err e;
  assert_int_equal(pod_rel_kernel.fn(&c, m, &e), POD_EINVAL);
  assert_string_equal(e.field, "ckpt_s");
}

static void test_scopes_and_add(void **state) {
  (void)state;
  int s = -1;
  const char *names[] = {"gpu", "node", "domain", "job"};
  for (int i = 0; i < 4; i++) {
    assert_int_equal(pod_rel_scope_parse(names[i], &s), POD_OK);
    assert_int_equal(s, i);
    assert_string_equal(pod_rel_scope_name(i), names[i]);
  }
  assert_int_equal(pod_rel_scope_parse("rack", &s), POD_ENOENT);
  assert_int_equal(pod_rel_scope_parse(NULL, &s), POD_ENOENT);
  assert_string_equal(pod_rel_scope_name(7), "?");

  pod_rel_failures f;
  memset(&f, 0, sizeof f);
  pod_err e;
  assert_int_equal(
      pod_rel_failures_add(&f, "gpu", 1e-5, POD_REL_GPU, POD_REL_NODE, &e),
      POD_OK);
  assert_int_equal(f.ncauses, 1);
  assert_int_equal(pod_rel_failures_add(&f, "", 1e-5, 0, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "failures[2].cause");
  assert_int_equal(pod_rel_failures_add(&f, NULL, 1e-5, 0, 0, &e), POD_EINVAL);
  assert_int_equal(
      pod_rel_failures_add(&f, "a_name_that_is_far_too_long_for_the_field",
                           1e-5, 0, 0, &e),
      POD_EINVAL);
  assert_int_equal(pod_rel_failures_add(&f, "x", -1.0, 0, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "failures[2].rate_per_h");
  assert_int_equal(pod_rel_failures_add(&f, "x", NAN, 0, 0, &e), POD_EINVAL);
  assert_int_equal(pod_rel_failures_add(&f, "x", 1.0, 9, 0, &e), POD_EINVAL);
  assert_string_equal(e.field, "failures[2].unit");
  assert_int_equal(pod_rel_failures_add(&f, "x", 1.0, 0, -1, &e), POD_EINVAL);
  assert_string_equal(e.field, "failures[2].blast");
  assert_int_equal(f.ncauses, 1);
  while (f.ncauses < POD_REL_MAX_CAUSES)
    assert_int_equal(pod_rel_failures_add(&f, "x", 1.0, 0, 0, NULL), POD_OK);
  assert_int_equal(pod_rel_failures_add(&f, "x", 1.0, 0, 0, &e), POD_ERANGE);
  assert_string_equal(e.field, "failures");
}

static void expect_bad(const pod_rel_cfg *c, const char *field) {
  pod_err e;
  pod_err_clear(&e);
  pod_rel_result r;
  int rc = pod_rel_eval(c, &r, &e);
  assert_int_equal(rc, POD_EINVAL);
  if (strcmp(e.field, field) != 0)
    fail_msg("field %s, expected %s", e.field, field);
  assert_true(strlen(e.msg) > 0);
  assert_int_equal(pod_rel_check(c, NULL), POD_EINVAL);
}

static void test_bad_inputs(void **state) {
  (void)state;
  pod_rel_cfg c;
#define BAD(stmt, field)   \
  do {                     \
    c = h100_cfg();        \
    stmt;                  \
    expect_bad(&c, field); \
  } while (0)
  BAD(c.failures.ncauses = -1, "failures");
  BAD(c.failures.ncauses = 33, "failures");
  BAD(c.failures.cause[2].rate_per_h = -1, "failures[3].rate_per_h");
  BAD(c.failures.cause[0].rate_per_h = INFINITY, "failures[1].rate_per_h");
  BAD(c.failures.cause[4].unit = 4, "failures[5].unit");
  BAD(c.failures.cause[4].blast = -1, "failures[5].blast");
  BAD(c.failures.cause[1].name[0] = '\0', "failures[2].cause");
  BAD(memset(c.failures.cause[1].name, 'a', POD_REL_NAME_MAX),
      "failures[2].cause");
  BAD(c.node_gpus = 0, "node_gpus");
  BAD(c.node_gpus = POD_REL_MAX_GPUS + 1, "node_gpus");
  BAD(c.domain_gpus = 12, "domain_gpus");
  BAD(c.domain_gpus = 4, "domain_gpus");
  BAD(c.active_gpus = 0, "active_gpus");
  BAD(c.active_gpus = POD_REL_MAX_GPUS + 1, "active_gpus");
  BAD(c.spare_per_domain = -1, "spare_per_domain");
  BAD(c.spare_per_domain = 8, "spare_per_domain");
  BAD(c.pool_units = -1, "pool_units");
  BAD(c.pool_scope = POD_REL_GPU, "pool_scope");
  BAD(c.pool_units = 0; c.pool_scope = 7, "pool_scope");
  BAD(c.gpu_rate_log10 = 7, "gpu_rate_log10");
  BAD(c.node_rate_log10 = NAN, "node_rate_log10");
  BAD(c.domain_rate_log10 = -7, "domain_rate_log10");
  BAD(c.job_rate_log10 = INFINITY, "job_rate_log10");
  BAD(c.swap_s = -1, "swap_s");
  BAD(c.swap_s = NAN, "swap_s");
  BAD(c.repair_h = 0, "repair_h");
  BAD(c.repair_h = INFINITY, "repair_h");
  BAD(c.repair_dist = 2, "repair_dist");
  BAD(c.repair_sigma = -0.5, "repair_sigma");
  BAD(c.repair_sigma = 6, "repair_sigma");
  BAD(c.shrink = 2, "shrink");
  BAD(c.ckpt_s = NAN, "ckpt_s");
  BAD(c.ckpt_s = 0, "ckpt_s"); /* optimal interval needs C > 0 */
  BAD(c.interval_rule = 3, "interval_rule");
  BAD(c.interval_rule = POD_REL_TAU_FIXED; c.interval_s = 0, "interval_s");
  BAD(c.interval_rule = POD_REL_TAU_FIXED; c.interval_s = NAN, "interval_s");
  BAD(c.interval_s = -1, "interval_s");
  BAD(c.restart_s = -1, "restart_s");
  BAD(c.waste_model = 3, "waste_model");
  BAD(c.work_h = -1, "work_h");
  BAD(c.work_h = 0, "work_h");
  BAD(c.tokens = 1e12, "tokens");
  BAD(c.tokens = -1, "tokens");
  BAD(c.work_h = 0; c.tokens = 1e12, "tokens_per_s");
  BAD(c.tokens_per_s = -1, "tokens_per_s");
  BAD(c.work_h = 0; c.tokens = 1e300; c.tokens_per_s = 1e-300, "tokens");
  BAD(c.u_seed = 1.0, "u_seed");
  BAD(c.u_seed = NAN, "u_seed");
#undef BAD
  /* fixed interval with C = 0 is fine */
  c = h100_cfg();
  c.ckpt_s = 0;
  c.interval_rule = POD_REL_TAU_FIXED;
  c.interval_s = 1800;
  pod_rel_result r;
  assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
  /* first-order waste >= 1 is a range error naming the interval */
  c.interval_s = 3600.0 * 24 * 10;
  c.waste_model = POD_REL_WASTE_FIRST;
  pod_err e;
  assert_int_equal(pod_rel_eval(&c, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "interval_s");
  /* shrinking faster than repairs come back */
  c = h100_cfg();
  c.shrink = 1;
  c.repair_h = 1e6;
  c.waste_model = POD_REL_WASTE_RENEWAL;
  assert_int_equal(pod_rel_eval(&c, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "shrink");
  /* overflowing wall time */
  c = h100_cfg();
  c.waste_model = POD_REL_WASTE_DALY;
  c.interval_rule = POD_REL_TAU_FIXED;
  c.interval_s = 3600.0 * 1e4;
  assert_int_equal(pod_rel_eval(&c, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "work_h");
}

/* Build a pod_rel_cfg from a Lua table through the kernel's lpod type, as
** a study does; the table's source is the chunk returned by `src`. */
static pod_rel_cfg *g_cfg;
static int build_cfg(lua_State *L) {
  const pod_kernel *k;
  const lpod_type *t;
  if (!lpod_find_kernel(L, lua_tostring(L, 2), &k, &t))
    return luaL_error(L, "no kernel");
  lpod_build(L, 1, t, g_cfg, NULL);
  return 0;
}

static int run_build(lua_State *L, const char *src, const char *kernel,
                     pod_rel_cfg *out, const char **msg) {
  g_cfg = out;
  lua_pushcfunction(L, build_cfg);
  if (luaL_dostring(L, src) != LUA_OK) fail_msg("%s", lua_tostring(L, -1));
  lua_pushstring(L, kernel);
  int rc = lua_pcall(L, 2, 0, 0);
  if (msg) *msg = rc ? lua_tostring(L, -1) : NULL;
  return rc;
}

static void test_kernel_config_type(void **state) {
  (void)state;
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_newtable(L);
  lpod_open_hw(L);
  lpod_open_rel(L);
  lua_setglobal(L, "podsim");
  const pod_kernel *k;
  const lpod_type *t;
  assert_true(lpod_find_kernel(L, "reliability", &k, &t));
  assert_ptr_equal(k, &pod_rel_kernel);
  assert_int_equal(t->size, k->cfg_size);
  assert_true(lpod_find_kernel(L, "simulate_run", &k, &t));
  assert_ptr_equal(k, &pod_relsim_kernel);
  assert_int_equal(t->size, k->cfg_size);

  pod_rel_cfg c, ref = h100_cfg();
  assert_int_equal(
      run_build(L,
                "return {base='default', failures='llama3_h100', node_gpus=8,"
                " domain_gpus=8, active_gpus=16384, pool_units=32,"
                " pool_scope='node', repair_h=48, work_h=1296,"
                " interval_rule='young', waste_model='first'}",
                "reliability", &c, NULL),
      0);
  ref.waste_model = POD_REL_WASTE_FIRST;
  assert_memory_equal(&c, &ref, sizeof c);
  double m1[16], m2[16];
  c.waste_model = POD_REL_WASTE_RENEWAL;
  assert_int_equal(pod_rel_kernel.fn(&c, m1, NULL), POD_OK);
  /* a sampled field bound by path, as the Monte Carlo layer does */
  pod_bind b;
  assert_int_equal(lpod_field_bind(t, "domain_rate_log10", &b), 0);
  assert_int_equal(b.type, POD_BIND_DOUBLE);
  assert_int_equal(b.offset, offsetof(pod_rel_cfg, domain_rate_log10));
  assert_int_equal(lpod_field_bind(t, "u_seed", &b), 0);
  assert_int_equal(b.offset, offsetof(pod_rel_cfg, u_seed));
  assert_int_equal(lpod_field_bind(t, "pool_units", &b), 0);
  assert_int_equal(b.type, POD_BIND_INT);
  assert_int_equal(lpod_field_bind(t, "failures", &b), -1);
  *(double *)((char *)&c + offsetof(pod_rel_cfg, gpu_rate_log10)) = 1.0;
  assert_int_equal(pod_rel_kernel.fn(&c, m2, NULL), POD_OK);
  assert_true(m2[0] > 5 * m1[0]); /* interruptions per day */
  c.u_seed = 0.5;
  assert_int_equal(pod_relsim_kernel.fn(&c, m2, NULL), POD_OK);
  assert_true(m2[2] > 0); /* interruptions */

  /* a failure set spec works; a plain list does not (it has no names) */
  const char *msg = NULL;
  assert_int_equal(
      run_build(L,
                "return {base='default', failures=podsim.failure_set{"
                "{cause='x', rate_per_h=0.1, unit='job', blast='job'}},"
                " active_gpus=8}",
                "simulate_run", &c, NULL),
      0);
  assert_int_equal(c.failures.ncauses, 1);
  assert_int_not_equal(
      run_build(L,
                "return {base='default', failures={{cause='x', rate_per_h=1,"
                " unit='job', blast='job'}}}",
                "simulate_run", &c, &msg),
      0);
  assert_non_null(strstr(msg, "failures"));
  assert_int_not_equal(
      run_build(L, "return {base='default', failures={name='x'}}",
                "simulate_run", &c, &msg),
      0);
  assert_non_null(strstr(msg, "podsim.failure_set"));
  /* without base, a kernel config starts from its "default" preset */
  pod_rel_cfg d1, d2;
  assert_int_equal(
      run_build(L, "return {failures='llama3_h100'}", "reliability", &d1, NULL),
      0);
  assert_int_equal(
      run_build(L, "return {base='default', failures='llama3_h100'}",
                "reliability", &d2, NULL),
      0);
  assert_memory_equal(&d1, &d2, sizeof d1);
  assert_int_not_equal(
      run_build(L, "return {base='defaults'}", "reliability", &c, &msg), 0);
  assert_non_null(strstr(msg, "default"));
  lua_close(L);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_presets),
      cmocka_unit_test(test_llama3_r1_r3),
      cmocka_unit_test(test_llama3_goodput),
      cmocka_unit_test(test_young_minimizes),
      cmocka_unit_test(test_no_failures),
      cmocka_unit_test(test_spares_and_shrink),
      cmocka_unit_test(test_startup_transient),
      cmocka_unit_test(test_kernel),
      cmocka_unit_test(test_scopes_and_add),
      cmocka_unit_test(test_bad_inputs),
      cmocka_unit_test(test_kernel_config_type),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
