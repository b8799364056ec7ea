/*
** l_cost.c: podsim.cost{...} and the "cost" built-in evaluator
** (DESIGN.md 4.4, 5).  The training side comes in as numbers (a
** podsim.train result or plain fields); spares and goodput may come from a
** podsim.reliability result.
*/
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_cost.h"
#include "pod_hw.h"

/* The TCO parts as a spec type, nested in the kernel config. */
static int tco_check(const void *v, pod_err *e) {
  pod_tco_parts p;
  int rc = pod_cost_tco_eval(v, &p, e);
  /* lpod_build prefixes the path ("tco"): drop core's own prefix */
  if (rc && e && strncmp(e->field, "tco.", 4) == 0)
    memmove(e->field, e->field + 4, strlen(e->field + 4) + 1);
  else if (rc && e && strcmp(e->field, "tco") == 0)
    e->field[0] = '\0';
  return rc;
}

/* Numeric fields: bounds and units in pod_cost_tco_fields and
** pod_cost_cfg_fields (core/cost.c). */
#define TF(name) \
  { #name, LPOD_DOUBLE, offsetof(pod_tco, name), 0, "", NULL, NULL }
static const lpod_field tco_fields[] = {TF(capex_usd_per_gpu),
                                        TF(amort_years),
                                        TF(capital_rate),
                                        TF(power_kw_per_gpu),
                                        TF(pue),
                                        TF(usd_per_kwh),
                                        TF(hosting_usd_per_kw_month),
                                        TF(ops_usd_per_gpu_year),
                                        {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_tco_type = {
    "podsim.tco", "tco", "podsim.cost", NULL, sizeof(pod_tco),    tco_fields,
    tco_check,    NULL,  NULL,          NULL, pod_cost_tco_fields};

/* The kernel config (pod_cost_cfg), for studies: build from a table with
** base = "default" (goodput 1, no spares), then these fields. */
static int cfg_check(const void *v, pod_err *e) {
  pod_cost_result r;
  return pod_cost_eval(v, &r, e);
}
static int cfg_preset(const char *name, void *out) {
  if (strcmp(name, "default") != 0) return POD_ENOENT;
  pod_cost_cfg_init(out);
  return POD_OK;
}

#define CF(name, type) \
  { #name, type, offsetof(pod_cost_cfg, name), 0, "", NULL, NULL }
static const lpod_field cfg_fields[] = {
    CF(usd_per_gpu_hour, LPOD_DOUBLE),
    {"tco", LPOD_STRUCT, offsetof(pod_cost_cfg, tco), 0, "", NULL,
     &lpod_tco_type},
    CF(tokens_per_s_per_gpu, LPOD_DOUBLE),
    CF(active_gpus, LPOD_INT),
    CF(spare_gpus, LPOD_INT),
    CF(goodput, LPOD_DOUBLE),
    CF(step_s, LPOD_DOUBLE),
    CF(tokens, LPOD_DOUBLE),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_cost_cfg_type = {
    "podsim.cost_cfg",        "cost config", "podsim.cost",      NULL,
    sizeof(pod_cost_cfg),     cfg_fields,    cfg_check,          cfg_preset,
    lpod_default_preset_name, NULL,          pod_cost_cfg_fields};

/* The core bound of config field `name` (NULL when unknown: lpod_opt_field
** reports that as an internal error). */
static const pod_field *cb(const char *name) {
  return pod_field_find(pod_cost_cfg_fields, name);
}

/* Raise unless v (taken from another result, at `path`) meets the bound
** of config field `name`.  [-0, +0, v] */
static void check_derived(lua_State *L, const char *ctx, const char *path,
                          const char *name, double v) {
  const pod_field *f = cb(name);
  if (pod_field_ok(f, v)) return;
  pod_err e;
  pod_field_error(f, v, NULL, &e);
  lpod_error(L, ctx, path, "%s", e.msg);
}

static const char *const cost_keys[] = {
    "train",  "usd_per_gpu_hour", "tco",         "system",
    "spares", "tokens",           "gpus",        "tokens_per_s_per_gpu",
    "step_s", "goodput",          "reliability", NULL};

/* Number field `key` of the value at idx (table or spec), or NaN when it
** is absent; raises when present but not a number. */
static double field_number(lua_State *L, int idx, const char *key,
                           const char *ctx, const char *path) {
  double v = NAN;
  lua_getfield(L, idx, key); /* stack: value */
  if (!lua_isnil(L, -1)) {
    char full[96];
    snprintf(full, sizeof full, "%s.%s", path, key);
    v = lpod_check_range(L, -1, -HUGE_VAL, HUGE_VAL, 0, ctx, full);
  }
  lua_pop(L, 1);
  return v;
}

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* spares= of podsim.cost's options (stack 1): a count, or a table with
** spare_gpus; rel_spares (NAN if none) from reliability= is the default. */
static int read_spares(lua_State *L, const char *ctx, double rel_spares) {
  int t = lua_getfield(L, 1, "spares"); /* stack: spares */
  double sp = isnan(rel_spares) ? 0 : rel_spares;
  if (t == LUA_TNUMBER) {
    sp = lpod_check_field(L, -1, cb("spare_gpus"), ctx, "spares");
  } else if (t == LUA_TTABLE) {
    sp = field_number(L, -1, "spare_gpus", ctx, "spares");
    if (isnan(sp))
      lpod_error(L, ctx, "spares.spare_gpus", "required field is missing");
  } else if (t != LUA_TNIL) {
    lpod_error(L, ctx, "spares",
               "expected a number of spare GPUs or a "
               "table with spare_gpus, got %s",
               luaL_typename(L, -1));
  }
  lua_pop(L, 1);
  check_derived(L, ctx, "spares", "spare_gpus", sp); /* table or result */
  return (int)sp;
}

/* The price of podsim.cost's options (stack 1) into *c: usd_per_gpu_hour=,
** tco=, or system.usd_per_gpu_hour. */
static void read_price(lua_State *L, const char *ctx, pod_cost_cfg *c) {
  lua_getfield(L, 1, "usd_per_gpu_hour");
  int has_price = !lua_isnil(L, -1);
  lua_pop(L, 1);
  int t = lua_getfield(L, 1, "tco"); /* stack: tco */
  if (t != LUA_TNIL) {
    if (has_price)
      lpod_error(L, ctx, "tco", "give usd_per_gpu_hour or tco, not both");
    lpod_to_value(L, -1, &lpod_tco_type, &c->tco, "tco");
    c->usd_per_gpu_hour = 0;
  } else if (has_price) {
    c->usd_per_gpu_hour = lpod_opt_field(L, 1, "usd_per_gpu_hour", 0,
                                         cb("usd_per_gpu_hour"), 1, ctx, NULL);
    if (!(c->usd_per_gpu_hour > 0))
      lpod_error(L, ctx, "usd_per_gpu_hour", "must be > 0");
  } else {
    double sys_price = NAN;
    if (lua_getfield(L, 1, "system") != LUA_TNIL) { /* stack: tco, system */
      pod_system sys;
      lpod_to_value(L, -1, &lpod_system_type, &sys, "system");
      sys_price = sys.usd_per_gpu_hour;
    }
    lua_pop(L, 1);
    if (!(sys_price > 0))
      lpod_error(L, ctx, "usd_per_gpu_hour",
                 "give usd_per_gpu_hour=, tco={...}, "
                 "or a system= with a price");
    c->usd_per_gpu_hour = sys_price;
  }
  lua_pop(L, 1);
}

/* podsim.cost{train=, usd_per_gpu_hour= | tco= | system=, spares=,
** tokens=, gpus=, goodput=, reliability=} -> table */
/* Read podsim.cost's options (stack 1) into *out (l_read.h). */
void lpod_cost_read(lua_State *L, pod_cost_cfg *out) {
  static const char ctx[] = "podsim.cost";
  if (!lua_istable(L, 1))
    lpod_error(L, ctx, NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_check_keys(L, 1, ctx, NULL, cost_keys);
  pod_cost_cfg c;
  pod_cost_cfg_init(&c);

  /* throughput: train= (a podsim.train result or table) or the fields */
  double per_gpu = NAN, job_tps = NAN, train_gpus = NAN, step_s = NAN;
  int t = lua_getfield(L, 1, "train"); /* stack: train */
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE && t != LUA_TUSERDATA)
      lpod_error(L, ctx, "train",
                 "expected a podsim.train result or a "
                 "table with tokens_per_s_per_gpu, got %s",
                 luaL_typename(L, -1));
    per_gpu = field_number(L, -1, "tokens_per_s_per_gpu", ctx, "train");
    job_tps = field_number(L, -1, "tokens_per_s", ctx, "train");
    train_gpus = field_number(L, -1, "gpus", ctx, "train");
    step_s = field_number(L, -1, "step_s", ctx, "train");
    if (isnan(per_gpu))
      lpod_error(L, ctx, "train.tokens_per_s_per_gpu",
                 "required field is missing");
  }
  lua_pop(L, 1);
  per_gpu = lpod_opt_field(L, 1, "tokens_per_s_per_gpu", per_gpu,
                           cb("tokens_per_s_per_gpu"), 0, ctx, NULL);
  if (isnan(per_gpu))
    lpod_error(L, ctx, "train",
               "give train= (a podsim.train result) or "
               "tokens_per_s_per_gpu=");
  check_derived(L, ctx, "tokens_per_s_per_gpu", "tokens_per_s_per_gpu",
                per_gpu); /* from train= */
  c.tokens_per_s_per_gpu = per_gpu;
  c.step_s = lpod_opt_field(L, 1, "step_s", isnan(step_s) ? 0 : step_s,
                            cb("step_s"), 0, ctx, NULL);
  c.tokens = lpod_opt_field(L, 1, "tokens", 0, cb("tokens"), 0, ctx, NULL);

  /* reliability= result: goodput, spare GPUs and the job's GPUs */
  double rel_goodput = NAN, rel_spares = NAN, rel_gpus = NAN;
  t = lua_getfield(L, 1, "reliability"); /* stack: reliability */
  if (t != LUA_TNIL) {
    if (t != LUA_TTABLE)
      lpod_error(L, ctx, "reliability",
                 "expected a podsim.reliability or "
                 "podsim.simulate_run result, got %s",
                 luaL_typename(L, -1));
    rel_goodput = field_number(L, -1, "goodput", ctx, "reliability");
    rel_spares = field_number(L, -1, "spare_gpus", ctx, "reliability");
    rel_gpus = field_number(L, -1, "gpus", ctx, "reliability");
  }
  lua_pop(L, 1);

  /* active GPUs: gpus=, train.gpus, reliability.gpus, or
  ** train.tokens_per_s / tokens_per_s_per_gpu */
  double g = !isnan(train_gpus) ? train_gpus
             : !isnan(rel_gpus) ? rel_gpus
             : !isnan(job_tps)  ? floor(job_tps / per_gpu + 0.5)
                                : NAN;
  lua_getfield(L, 1, "gpus");
  int has_gpus = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (has_gpus || isnan(g)) {
    int need = c.tokens > 0 || c.step_s > 0;
    c.active_gpus = (int)lpod_opt_field(L, 1, "gpus", 1, cb("active_gpus"),
                                        need && isnan(g), ctx, NULL);
  } else {
    if (!pod_field_ok(cb("active_gpus"), g))
      lpod_error(L, ctx, "train",
                 "active GPUs from train are %g; give gpus=", g);
    c.active_gpus = (int)g;
  }
  if (!isnan(rel_gpus) && rel_gpus != c.active_gpus)
    lpod_error(L, ctx, "reliability.gpus",
               "the reliability result is for %g GPUs, "
               "the job runs on %d",
               rel_gpus, c.active_gpus);

  c.goodput =
      lpod_opt_field(L, 1, "goodput", isnan(rel_goodput) ? 1.0 : rel_goodput,
                     cb("goodput"), 0, ctx, NULL);
  check_derived(L, ctx, "reliability.goodput", "goodput", c.goodput);

  c.spare_gpus = read_spares(L, ctx, rel_spares);

  read_price(L, ctx, &c);

  *out = c;
}

static int l_cost(lua_State *L) {
  static const char ctx[] = "podsim.cost";
  pod_cost_cfg c;
  lpod_cost_read(L, &c);
  pod_cost_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_cost_eval(&c, &r, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);

  lua_createtable(L, 0, 20);
  set_num(L, "usd_per_gpu_hour", r.price.usd_per_gpu_hour);
  lua_createtable(L, 0, 4); /* stack: result, parts */
  set_num(L, "capital_usd", r.price.capital_usd);
  set_num(L, "energy_usd", r.price.energy_usd);
  set_num(L, "hosting_usd", r.price.hosting_usd);
  set_num(L, "ops_usd", r.price.ops_usd);
  lua_setfield(L, -2, "usd_per_gpu_hour_parts");
  set_num(L, "tokens_per_s", r.tokens_per_s);
  set_num(L, "tokens_per_s_per_gpu", c.tokens_per_s_per_gpu);
  set_num(L, "usd_per_m_tokens", r.usd_per_m_tokens);
  set_num(L, "usd_per_m_tokens_excluded", r.usd_per_m_tokens);
  set_num(L, "usd_per_m_tokens_charged", r.usd_per_m_tokens_charged);
  set_num(L, "usd_per_step", r.usd_per_step);
  set_num(L, "usd_per_step_charged", r.usd_per_step_charged);
  set_num(L, "train_h", r.train_h);
  set_num(L, "gpu_hours", r.gpu_hours);
  set_num(L, "gpu_hours_charged", r.gpu_hours_charged);
  set_num(L, "usd_total", r.usd_total);
  set_num(L, "usd_total_excluded", r.usd_total);
  set_num(L, "usd_total_charged", r.usd_total_charged);
  set_num(L, "spare_fraction", r.spare_fraction);
  set_num(L, "goodput", c.goodput);
  lua_pushinteger(L, c.active_gpus);
  lua_setfield(L, -2, "gpus");
  lua_pushinteger(L, c.spare_gpus);
  lua_setfield(L, -2, "spare_gpus");
  return 1;
}

void lpod_open_cost(lua_State *L) {
  lua_pushcfunction(L, l_cost);
  lua_setfield(L, -2, "cost");
  lpod_type_register(L, &lpod_tco_type);
  lpod_register_kernel(L, "cost", &pod_cost_kernel, &lpod_cost_cfg_type);
}
