/*
** l_rel.c: failures, reliability and one simulated run (DESIGN.md 4.5, 5):
** podsim.failures.<preset>, podsim.failure_set(...), podsim.reliability{},
** podsim.simulate_run{}, and the "reliability" and "simulate_run"
** built-in evaluators.
**
** A failures value is a preset name, a podsim.failure_set spec, or a list
** of causes {cause=, rate_per_h=, unit=, blast=} (an optional `name`
** field names the list).
*/
#include <math.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_hw.h"
#include "pod_rel.h"

/* Enum names and numeric bounds come from core (pod_rel.h): the name
** tables pod_rel_*_names and the bound tables pod_rel_cfg_fields and
** pod_rel_cause_fields are their only copies. */

/* The core bound of config field `name` (NULL when unknown: lpod_opt_field
** reports that as an internal error). */
static const pod_field *rb(const char *name) {
  return pod_field_find(pod_rel_cfg_fields, name);
}

/* --- failure sets ----------------------------------------------------------
 */

/* Only lpod_build (a table of fields, as a study's config) calls this:
** such a table cannot list causes, so without base= it has none.  Lists of
** causes go through podsim.failure_set(...) or any API taking failures=. */
static int fs_check(const void *v, pod_err *e) {
  const pod_rel_failures *f = v;
  if (f->ncauses == 0)
    return pod_err_set(
        e, POD_EINVAL, "",
        "give a preset name or podsim.failure_set{...} (a list of causes)");
  return POD_OK;
}
static int fs_preset(const char *n, void *out) {
  return pod_rel_failures_preset(n, out);
}
LPOD_PRESET_ITER(fs, pod_rel_failures, pod_rel_failures_at)

static const lpod_field fs_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_rel_failures, name), POD_REL_NAME_MAX,
     "", NULL, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_failures_type = {"podsim.failure_set",
                                      "failure set",
                                      "podsim.failure_set",
                                      NULL,
                                      sizeof(pod_rel_failures),
                                      fs_fields,
                                      fs_check,
                                      fs_preset,
                                      fs_name,
                                      fs_source,
                                      NULL};

static const char *const cause_keys[] = {"cause", "rate_per_h", "unit", "blast",
                                         "basis", "source",     NULL};

/* One cause {cause=, rate_per_h=, unit=, blast=[, basis=, source=]} at the
** top of the stack, appended to `out`; `p` is its path (failures[i]).
** [-0, +0, e] */
static void read_cause(lua_State *L, pod_rel_failures *out, const char *ctx,
                       const char *p) {
  if (!lua_istable(L, -1))
    lpod_error(L, ctx, p,
               "expected a cause {cause=, rate_per_h=, unit=, blast=}, got %s",
               luaL_typename(L, -1));
  lpod_check_keys(L, -1, ctx, p, cause_keys);
  lua_getfield(L, -1, "cause"); /* stack: cause, name */
  if (lua_type(L, -1) != LUA_TSTRING) {
    char q[112];
    snprintf(q, sizeof q, "%s.cause", p);
    lpod_error(
        L, ctx, q,
        lua_isnil(L, -1) ? "required field is missing" : "expected a string");
  }
  const char *name = lua_tostring(L, -1);
  double rate = lpod_opt_field(
      L, -2, "rate_per_h", 0,
      pod_field_find(pod_rel_cause_fields, "rate_per_h"), 1, ctx, p);
  int unit = lpod_opt_enum(L, -2, "unit", 0, pod_rel_scope_names, 1, ctx, p);
  int blast = lpod_opt_enum(L, -2, "blast", 0, pod_rel_scope_names, 1, ctx, p);
  /* basis and source are informational (a preset's list read back) */
  int basis = lpod_opt_enum(L, -2, "basis", POD_REL_BASIS_GIVEN,
                            pod_rel_basis_names, 0, ctx, p);
  lua_getfield(L, -2, "source");
  if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TSTRING) {
    char q[112];
    snprintf(q, sizeof q, "%s.source", p);
    lpod_error(L, ctx, q, "expected a string");
  }
  lua_pop(L, 1);
  pod_err e;
  pod_err_clear(&e);
  if (pod_rel_failures_add(out, name, rate, unit, blast, &e) != POD_OK) {
    /* core names the field failures[i].x: re-root it at `p` */
    const char *dot = strchr(e.field, '.');
    char q[112];
    snprintf(q, sizeof q, "%s%s", p, dot ? dot : "");
    lpod_error(L, ctx, q, "%s", e.msg);
  }
  out->cause[out->ncauses - 1].basis = basis;
  lua_pop(L, 1); /* name */
}

/* Read a failures value at idx into *out (see the file comment). */
static void read_failures(lua_State *L, int idx, pod_rel_failures *out,
                          const char *ctx, const char *path) {
  char p[96];
  idx = lua_absindex(L, idx);
  if (!lua_istable(L, idx) || lua_getmetatable(L, idx)) {
    if (lua_istable(L, idx)) lua_pop(L, 1); /* a table with a metatable */
    if (lua_type(L, idx) == LUA_TSTRING) {
      const char *name = lua_tostring(L, idx);
      if (pod_rel_failures_preset(name, out) == POD_OK) return;
      const char *names[16];
      int n = 0;
      while (n < 15 && (names[n] = fs_name(n)) != NULL) n++;
      names[n] = NULL;
      lpod_error_unknown(L, ctx, path, "failures preset", name, names,
                         "presets");
    }
    if (lpod_test(L, idx, &lpod_failures_type)) {
      lpod_to_value(L, idx, &lpod_failures_type, out, path);
      return;
    }
    lpod_error(L, ctx, path,
               "expected a preset name, podsim.failure_set or a "
               "list of causes, got %s",
               luaL_typename(L, idx));
  }
  memset(out, 0, sizeof *out);
  lua_getfield(L, idx, "name"); /* stack: name */
  if (!lua_isnil(L, -1)) {
    size_t len = 0;
    const char *s =
        lua_type(L, -1) == LUA_TSTRING ? lua_tolstring(L, -1, &len) : NULL;
    if (s == NULL || len >= sizeof out->name) {
      snprintf(p, sizeof p, "%s.name", path);
      lpod_error(L, ctx, p, "expected a string of at most %d bytes",
                 POD_REL_NAME_MAX - 1);
    }
    memcpy(out->name, s, len + 1);
  } else {
    snprintf(out->name, sizeof out->name, "custom");
  }
  lua_pop(L, 1);
  /* only `name` and the list part */
  lua_pushnil(L);
  while (lua_next(L, idx)) { /* stack: key, value */
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TSTRING &&
        strcmp(lua_tostring(L, -1), "name") == 0)
      continue;
    if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
        lua_tointeger(L, -1) > (lua_Integer)lua_rawlen(L, idx)) {
      lua_pushvalue(L, -1);
      const char *k = luaL_tolstring(L, -1, NULL);
      snprintf(p, sizeof p, "%s.%s", path, k);
      lpod_error(L, ctx, p,
                 "unknown field (a failures list holds causes and a name)");
    }
  }
  int n = (int)lua_rawlen(L, idx);
  if (n > POD_REL_MAX_CAUSES)
    lpod_error(L, ctx, path, "at most %d causes (got %d)", POD_REL_MAX_CAUSES,
               n);
  for (int i = 1; i <= n; i++) {
    snprintf(p, sizeof p, "%s[%d]", path, i);
    lua_rawgeti(L, idx, i); /* stack: cause */
    read_cause(L, out, ctx, p);
    lua_pop(L, 1);
  }
}

/* Push a failure set as a list of cause tables with a `name`; `preset` >= 0
** adds each cause's source. */
static void push_failure_list(lua_State *L, const pod_rel_failures *f,
                              int preset) {
  lua_createtable(L, f->ncauses, 1);
  lua_pushstring(L, f->name);
  lua_setfield(L, -2, "name");
  for (int i = 0; i < f->ncauses; i++) {
    const pod_rel_cause *k = &f->cause[i];
    lua_createtable(L, 0, 4);
    lua_pushstring(L, k->name);
    lua_setfield(L, -2, "cause");
    lua_pushnumber(L, k->rate_per_h);
    lua_setfield(L, -2, "rate_per_h");
    lua_pushstring(L, pod_rel_scope_name(k->unit));
    lua_setfield(L, -2, "unit");
    lua_pushstring(L, pod_rel_scope_name(k->blast));
    lua_setfield(L, -2, "blast");
    lua_pushstring(L, pod_rel_basis_name(k->basis));
    lua_setfield(L, -2, "basis");
    const char *src =
        preset >= 0 ? pod_rel_preset_cause_source(preset, i) : NULL;
    if (src) {
      lua_pushstring(L, src);
      lua_setfield(L, -2, "source");
    }
    lua_rawseti(L, -2, i + 1);
  }
}

/* podsim.failure_set(name | list | spec) -> spec */
static int l_failure_set(lua_State *L) {
  pod_rel_failures f;
  read_failures(L, 1, &f, "podsim.failure_set", "failures");
  lpod_push(L, &lpod_failures_type, &f);
  return 1;
}

/* podsim.failure_list(spec | name | list) -> a fresh list of causes */
static int l_failure_list(lua_State *L) {
  pod_rel_failures f;
  read_failures(L, 1, &f, "podsim.failure_list", "failures");
  push_failure_list(L, &f, -1);
  return 1;
}

/* --- the kernel config -----------------------------------------------------
 */

static int cfg_check(const void *v, pod_err *e) {
  return pod_rel_check(v, e);
}
static int cfg_preset(const char *name, void *out) {
  if (strcmp(name, "default") != 0) return POD_ENOENT;
  pod_rel_cfg_init(out);
  return POD_OK;
}

/* Numeric fields: bounds and units in pod_rel_cfg_fields (core/rel.c). */
#define RF(name, type) \
  { #name, type, offsetof(pod_rel_cfg, name), 0, "", NULL, NULL }
#define RE(name, names) \
  { #name, LPOD_ENUM, offsetof(pod_rel_cfg, name), 0, "", names, NULL }
static const lpod_field cfg_fields[] = {
    {"failures", LPOD_STRUCT, offsetof(pod_rel_cfg, failures), 0, "", NULL,
     &lpod_failures_type},
    RF(node_gpus, LPOD_INT),
    RF(domain_gpus, LPOD_INT),
    RF(active_gpus, LPOD_INT),
    RF(spare_per_domain, LPOD_INT),
    RF(pool_units, LPOD_INT),
    RE(pool_scope, pod_rel_pool_scope_names),
    RF(swap_s, LPOD_DOUBLE),
    RF(repair_h, LPOD_DOUBLE),
    RE(repair_dist, pod_rel_repair_dist_names),
    RF(repair_sigma, LPOD_DOUBLE),
    RF(shrink, LPOD_BOOL),
    RF(ckpt_s, LPOD_DOUBLE),
    RE(interval_rule, pod_rel_interval_rule_names),
    RF(interval_s, LPOD_DOUBLE),
    RF(restart_s, LPOD_DOUBLE),
    RE(waste_model, pod_rel_waste_model_names),
    RF(work_h, LPOD_DOUBLE),
    RF(tokens, LPOD_DOUBLE),
    RF(tokens_per_s, LPOD_DOUBLE),
    RF(u_seed, LPOD_DOUBLE),
    RF(gpu_rate_log10, LPOD_DOUBLE),
    RF(node_rate_log10, LPOD_DOUBLE),
    RF(domain_rate_log10, LPOD_DOUBLE),
    RF(job_rate_log10, LPOD_DOUBLE),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_rel_cfg_type = {"podsim.reliability_cfg",
                                     "reliability config",
                                     "podsim.reliability",
                                     NULL,
                                     sizeof(pod_rel_cfg),
                                     cfg_fields,
                                     cfg_check,
                                     cfg_preset,
                                     lpod_default_preset_name,
                                     NULL,
                                     pod_rel_cfg_fields};

/* --- podsim.reliability{} and podsim.simulate_run{}
 * ---------------------------- */

static const char *const rel_keys[] = {
    "system",       "domain_gpus", "node_gpus",  "gpus",   "failures",
    "spares",       "checkpoint",  "restart_s",  "hours",  "tokens",
    "tokens_per_s", "train",       "repair_h",   "repair", "repair_sigma",
    "shrink",       "waste",       "rate_scale", "seed",   NULL};
static const char *const spare_keys[] = {"per_domain", "pool", "pool_scope",
                                         "swap_s", NULL};
static const char *const ckpt_keys[] = {"write_s", "interval_s", "interval",
                                        NULL};

/* Fill *c from the options table at index 1.  `sim` allows seed=. */
/* Read spares= into *c (options table at index 1).  [-0, +0, e] */
static void read_spares(lua_State *L, const char *ctx, pod_rel_cfg *c) {
  /* spares: required (issue 13), because no spares at all is the case
  ** that changes goodput most; "none" states it.  In a table swap_s is
  ** required too: it is paid on every hardware interruption (a spare
  ** swapped in, or the repaired unit brought back), a few percent of the
  ** wall time at NVL72 rates. */
  int t = lua_getfield(L, 1, "spares"); /* stack: spares */
  if (t == LUA_TTABLE) {
    lpod_check_keys(L, -1, ctx, "spares", spare_keys);
    c->spare_per_domain = (int)lpod_opt_field(
        L, -1, "per_domain", 0, rb("spare_per_domain"), 0, ctx, "spares");
    c->pool_units = (int)lpod_opt_field(L, -1, "pool", 0, rb("pool_units"), 0,
                                        ctx, "spares");
    c->pool_scope = lpod_opt_enum(L, -1, "pool_scope", POD_REL_NODE,
                                  pod_rel_pool_scope_names, 0, ctx, "spares");
    lua_getfield(L, -1, "swap_s");
    int has_swap = !lua_isnil(L, -1);
    lua_pop(L, 1);
    if (!has_swap)
      lpod_error(L, ctx, "spares.swap_s",
                 "required field is missing (seconds to bring a "
                 "spare or the repaired unit into the job; 0 states none)");
    c->swap_s =
        lpod_opt_field(L, -1, "swap_s", 0, rb("swap_s"), 1, ctx, "spares");
  } else if (t == LUA_TSTRING && strcmp(lua_tostring(L, -1), "none") == 0) {
    c->spare_per_domain = 0; /* no spares, no swap time */
    c->pool_units = 0;
  } else if (t == LUA_TNIL) {
    lpod_error(L, ctx, "spares",
               "required field is missing (spares = \"none\", or "
               "{per_domain=, pool=, pool_scope=, swap_s=}: without spares "
               "every hardware "
               "failure waits for its repair)");
  } else {
    lpod_error(L, ctx, "spares",
               "expected \"none\" or a table {per_domain=, pool=, "
               "pool_scope=, swap_s=}, got %s",
               t == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

/* Read checkpoint=, restart_s= and waste= into *c.  [-0, +0, e] */
static void read_checkpoint(lua_State *L, const char *ctx, pod_rel_cfg *c) {
  /* checkpoints and restarts */
  if (lua_getfield(L, 1, "checkpoint") != LUA_TTABLE) /* stack: checkpoint */
    lpod_error(L, ctx, "checkpoint",
               lua_isnil(L, -1)
                   ? "required field is missing ({write_s=, interval_s= or "
                     "interval='young'|'daly'})"
                   : "expected a table {write_s=, interval_s= or interval=}");
  lpod_check_keys(L, -1, ctx, "checkpoint", ckpt_keys);
  c->ckpt_s =
      lpod_opt_field(L, -1, "write_s", 0, rb("ckpt_s"), 1, ctx, "checkpoint");
  lua_getfield(L, -1, "interval_s");
  int fixed = !lua_isnil(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, -1, "interval");
  int has_rule = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (fixed && has_rule)
    lpod_error(L, ctx, "checkpoint.interval",
               "give interval_s or interval, not both");
  if (fixed) {
    c->interval_rule = POD_REL_TAU_FIXED;
    c->interval_s = lpod_opt_field(L, -1, "interval_s", 0, rb("interval_s"), 1,
                                   ctx, "checkpoint");
  } else {
    /* interval= names an optimal rule: the rule names after "fixed" */
    c->interval_rule =
        POD_REL_TAU_YOUNG +
        lpod_opt_enum(L, -1, "interval", 0,
                      pod_rel_interval_rule_names + POD_REL_TAU_YOUNG, 0, ctx,
                      "checkpoint");
  }
  lua_pop(L, 1);
  c->restart_s =
      lpod_opt_field(L, 1, "restart_s", 0, rb("restart_s"), 1, ctx, NULL);
  c->waste_model = lpod_opt_enum(L, 1, "waste", POD_REL_WASTE_RENEWAL,
                                 pod_rel_waste_model_names, 0, ctx, NULL);
}

/* A rate multiplier at idx: a number whose log10 meets core bound lf
** (the config holds log10 multipliers).  [-0, +0, v] */
static double read_scale(lua_State *L, int idx, const pod_field *lf,
                         const char *ctx, const char *path) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    lpod_error(L, ctx, path, "expected a number, got %s",
               luaL_typename(L, idx));
  double v = lua_tonumber(L, idx);
  if (!(v > 0) || !pod_field_ok(lf, log10(v)))
    lpod_error(L, ctx, path, "must be in [%.10g, %.10g] (got %.10g)",
               pow(10, lf->min), pow(10, lf->max), v);
  return log10(v);
}

/* Read rate_scale= into the log10 rate multipliers of *c.  [-0, +0, e] */
static void read_rate_scale(lua_State *L, const char *ctx, pod_rel_cfg *c) {
  /* rate_scale: a multiplier for every cause, or per unit scope (the keys
  ** are the scope names) */
  static const char *const lg[POD_REL_NSCOPES] = {
      "gpu_rate_log10", "node_rate_log10", "domain_rate_log10",
      "job_rate_log10"};
  double *dst[POD_REL_NSCOPES] = {&c->gpu_rate_log10, &c->node_rate_log10,
                                  &c->domain_rate_log10, &c->job_rate_log10};
  int t = lua_getfield(L, 1, "rate_scale"); /* stack: rate_scale */
  if (t == LUA_TNUMBER) {
    for (int i = 0; i < POD_REL_NSCOPES; i++)
      *dst[i] = read_scale(L, -1, rb(lg[i]), ctx, "rate_scale");
  } else if (t == LUA_TTABLE) {
    lpod_check_keys(L, -1, ctx, "rate_scale", pod_rel_scope_names);
    char p[48];
    for (int i = 0; i < POD_REL_NSCOPES; i++) {
      if (lua_getfield(L, -1, pod_rel_scope_names[i]) != LUA_TNIL) {
        snprintf(p, sizeof p, "rate_scale.%s", pod_rel_scope_names[i]);
        *dst[i] = read_scale(L, -1, rb(lg[i]), ctx, p);
      }
      lua_pop(L, 1);
    }
  } else if (t != LUA_TNIL) {
    lpod_error(L, ctx, "rate_scale",
               "expected a number or {gpu=, node=, domain=, job=}, got %s",
               luaL_typename(L, -1));
  }
  lua_pop(L, 1);
}

/* Read hours=, or tokens= at tokens_per_s=, into *c.  [-0, +0, e] */
static void read_length(lua_State *L, const char *ctx, pod_rel_cfg *c) {
  /* job length: hours, or tokens at tokens_per_s (or train.tokens_per_s) */
  lua_getfield(L, 1, "hours");
  int has_hours = !lua_isnil(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, 1, "tokens");
  int has_tokens = !lua_isnil(L, -1);
  lua_pop(L, 1);
  if (has_hours == has_tokens)
    lpod_error(L, ctx, has_hours ? "tokens" : "hours",
               has_hours
                   ? "give hours or tokens, not both"
                   : "required: hours= (failure-free compute) or tokens=");
  if (has_hours) {
    c->work_h = lpod_opt_field(L, 1, "hours", 0, rb("work_h"), 1, ctx, NULL);
    if (!(c->work_h > 0)) lpod_error(L, ctx, "hours", "must be > 0");
  } else {
    c->work_h = 0;
    c->tokens = lpod_opt_field(L, 1, "tokens", 0, rb("tokens"), 1, ctx, NULL);
    if (!(c->tokens > 0)) lpod_error(L, ctx, "tokens", "must be > 0");
    double tps = NAN;
    int t = lua_getfield(L, 1, "train"); /* stack: train */
    if (t == LUA_TTABLE || t == LUA_TUSERDATA) {
      lua_getfield(L, -1, "tokens_per_s");
      if (!lua_isnil(L, -1))
        tps = lpod_check_field(L, -1, rb("tokens_per_s"), ctx,
                               "train.tokens_per_s");
      lua_pop(L, 1);
      if (isnan(tps))
        lpod_error(L, ctx, "train.tokens_per_s", "required field is missing");
    } else if (t != LUA_TNIL) {
      lpod_error(L, ctx, "train", "expected a podsim.train result, got %s",
                 luaL_typename(L, -1));
    }
    lua_pop(L, 1);
    c->tokens_per_s = lpod_opt_field(L, 1, "tokens_per_s", tps,
                                     rb("tokens_per_s"), isnan(tps), ctx, NULL);
    if (!(c->tokens_per_s > 0))
      lpod_error(L, ctx, "tokens_per_s", "must be > 0");
  }
}

static void read_rel(lua_State *L, const char *ctx, int sim, pod_rel_cfg *c,
                     uint64_t *seed, int *shrink_given) {
  if (!lua_istable(L, 1))
    lpod_error(L, ctx, NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_check_keys(L, 1, ctx, NULL, rel_keys);
  pod_rel_cfg_init(c);

  /* footprint: system (domain size) or domain_gpus; node_gpus */
  int dom = 0;
  if (lua_getfield(L, 1, "system") != LUA_TNIL) { /* stack: system */
    pod_system s;
    lpod_to_value(L, -1, &lpod_system_type, &s, "system");
    dom = s.domain_gpus;
  }
  lua_pop(L, 1);
  dom = (int)lpod_opt_field(L, 1, "domain_gpus", dom, rb("domain_gpus"),
                            dom == 0, ctx, NULL);
  /* HGX-class nodes are the domain; NVL72-class racks hold 4-GPU trays */
  int node_def = dom <= 8 ? dom : (dom % 4 == 0 ? 4 : 1);
  c->domain_gpus = dom;
  c->node_gpus = (int)lpod_opt_field(L, 1, "node_gpus", node_def,
                                     rb("node_gpus"), 0, ctx, NULL);
  c->active_gpus =
      (int)lpod_opt_field(L, 1, "gpus", 0, rb("active_gpus"), 1, ctx, NULL);

  if (lua_getfield(L, 1, "failures") == LUA_TNIL) /* stack: failures */
    lpod_error(L, ctx, "failures",
               "required field is missing (a preset name such as "
               "'llama3_h100', or a list of causes)");
  read_failures(L, -1, &c->failures, ctx, "failures");
  lua_pop(L, 1);

  read_spares(L, ctx, c);

  /* repairs */
  c->repair_h =
      lpod_opt_field(L, 1, "repair_h", 0, rb("repair_h"), 1, ctx, NULL);
  c->repair_dist = lpod_opt_enum(L, 1, "repair", POD_REL_REPAIR_EXP,
                                 pod_rel_repair_dist_names, 0, ctx, NULL);
  c->repair_sigma =
      lpod_opt_field(L, 1, "repair_sigma", 0, rb("repair_sigma"),
                     c->repair_dist == POD_REL_REPAIR_LOGNORMAL, ctx, NULL);
  lua_getfield(L, 1, "shrink");
  *shrink_given = !lua_isnil(L, -1);
  lua_pop(L, 1);
  c->shrink = lpod_opt_bool(L, 1, "shrink", 0, ctx, NULL);
  read_checkpoint(L, ctx, c);
  read_rate_scale(L, ctx, c);
  read_length(L, ctx, c);

  /* seed (simulate_run only) */
  if (lua_getfield(L, 1, "seed") != LUA_TNIL) { /* stack: seed */
    if (!sim)
      lpod_error(L, ctx, "seed", "only podsim.simulate_run takes a seed");
    int isint = 0;
    lua_Integer s = lua_tointegerx(L, -1, &isint);
    if (!isint || s < 0)
      lpod_error(L, ctx, "seed", "expected an integer >= 0, got %s",
                 luaL_tolstring(L, -1, NULL));
    *seed = (uint64_t)s;
  } else if (sim) {
    lpod_error(L, ctx, "seed", "required field is missing (an integer >= 0)");
  }
  lua_pop(L, 1);

  pod_err e;
  pod_err_clear(&e);
  if (pod_rel_check(c, &e) != POD_OK) lpod_error_core(L, ctx, NULL, &e);
}

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}
static void set_int(lua_State *L, const char *k, lua_Integer v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* Read podsim.reliability's options (stack 1) into *c (l_read.h). */
void lpod_rel_read(lua_State *L, pod_rel_cfg *c) {
  int shrink_given = 0;
  read_rel(L, "podsim.reliability", 0, c, NULL, &shrink_given);
}

/* The one default left that can move goodput by more than a few percent:
** waiting (not shrinking) when no spare is free.  When it matters here
** (at least 1% of interruptions find no spare) and shrink= was not given,
** say so once per process on stderr; the text carries no figures, so it
** is the same whatever the thread count or sample order. */
static atomic_flag shrink_noted = ATOMIC_FLAG_INIT;

static void note_shrink_default(const char *ctx, int shrink_given,
                                double p_no_spare) {
  if (shrink_given || !(p_no_spare >= 0.01)) return;
  if (atomic_flag_test_and_set(&shrink_noted)) return;
  fprintf(
      stderr,
      "%s: note: shrink not given, so a hardware failure that finds no free "
      "spare waits for its repair; give shrink = false (wait) or true (run on "
      "fewer "
      "GPUs) to state it\n",
      ctx);
}

static int l_reliability(lua_State *L) {
  static const char ctx[] = "podsim.reliability";
  pod_rel_cfg c;
  int shrink_given = 0;
  read_rel(L, ctx, 0, &c, NULL, &shrink_given);
  pod_rel_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rel_eval(&c, &r, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  note_shrink_default(ctx, shrink_given, r.p_no_spare);
  lua_createtable(L, 0, 24);
  set_num(L, "interruptions_per_day", r.interruptions_per_day);
  set_num(L, "job_mtbf_h", r.job_mtbf_h);
  set_num(L, "rate_per_h", r.rate_per_h);
  set_num(L, "per_gpu_hour", r.per_gpu_hour);
  set_num(L, "hw_fraction", r.hw_fraction);
  set_num(L, "checkpoint_interval_s", r.checkpoint_interval_s);
  set_num(L, "p_no_spare", r.p_no_spare);
  set_num(L, "down_s", r.down_s);
  set_num(L, "goodput", r.goodput);
  set_num(L, "waste", r.waste);
  set_num(L, "work_h", r.work_h);
  set_num(L, "wall_h", r.wall_h);
  set_num(L, "interruptions", r.interruptions);
  set_num(L, "wait_h", r.wait_h);
  set_int(L, "nodes", r.nodes);
  set_int(L, "domains", r.domains);
  set_int(L, "gpus", c.active_gpus);
  set_int(L, "spare_gpus", r.spare_gpus);
  set_num(L, "spare_fraction", r.spare_fraction);
  set_num(L, "gpu_hours", r.gpu_hours);
  set_num(L, "gpu_hours_charged", r.gpu_hours_charged);
  lua_pushstring(L, pod_rel_waste_model_name(c.waste_model));
  lua_setfield(L, -2, "waste_model");
  return 1;
}

static int l_simulate_run(lua_State *L) {
  static const char ctx[] = "podsim.simulate_run";
  pod_rel_cfg c;
  uint64_t seed = 0;
  int shrink_given = 0;
  read_rel(L, ctx, 1, &c, &seed, &shrink_given);
  pod_relsim_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_relsim_run(&c, seed, NULL, &r, &e) != POD_OK) {
    if (e.field[0] == '\0' && e.msg[0] == '\0')
      pod_err_set(&e, e.code, "", "%s", pod_strerror(e.code));
    return lpod_error_core(L, ctx, NULL, &e);
  }
  note_shrink_default(ctx, shrink_given,
                      r.interruptions > 0
                          ? (double)(r.waits + r.shrinks) / r.interruptions
                          : 0.0);
  lua_createtable(L, 0, 24);
  set_num(L, "wall_h", r.wall_h);
  set_num(L, "work_h", r.work_h);
  set_num(L, "goodput", r.goodput);
  set_int(L, "interruptions", r.interruptions);
  set_num(L, "lost_h", r.lost_h);
  set_num(L, "restart_h", r.restart_h);
  set_num(L, "wait_h", r.wait_h);
  set_num(L, "ckpt_h", r.ckpt_h);
  set_num(L, "checkpoints", r.checkpoints);
  set_int(L, "swaps", r.swaps);
  set_int(L, "waits", r.waits);
  set_int(L, "shrinks", r.shrinks);
  set_int(L, "spares_peak_gpus", r.spares_peak_gpus);
  set_int(L, "spare_gpus", r.spare_gpus);
  set_int(L, "gpus", c.active_gpus);
  set_num(L, "gpu_hours", r.gpu_hours);
  set_num(L, "gpu_hours_charged", r.gpu_hours_charged);
  lua_createtable(L, 0, c.failures.ncauses); /* stack: result, by_cause */
  for (int i = 0; i < c.failures.ncauses; i++) {
    /* two causes of one name add up */
    lua_getfield(L, -1, c.failures.cause[i].name);
    lua_Integer prev = lua_tointeger(L, -1);
    lua_pop(L, 1);
    set_int(L, c.failures.cause[i].name, prev + r.by_cause[i]);
  }
  lua_setfield(L, -2, "by_cause");
  return 1;
}

void lpod_open_rel(lua_State *L) {
  int podsim = lua_gettop(L);
  lpod_open_type(L, podsim, &lpod_failures_type);
  /* podsim.failures.<preset>: lists of causes; sources in podsim._sources */
  lua_newtable(L); /* stack: podsim, failures */
  for (int i = 0;; i++) {
    const pod_rel_failures *f = pod_rel_failures_at(i, NULL);
    if (f == NULL) break;
    push_failure_list(L, f, i);
    lua_setfield(L, -2, f->name);
  }
  lua_setfield(L, podsim, "failures");
  if (lua_getfield(L, podsim, "_sources") != LUA_TTABLE) { /* stack: _sources */
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, podsim, "_sources");
  }
  lua_newtable(L); /* stack: _sources, srcs */
  const char *src;
  for (int i = 0; pod_rel_failures_at(i, &src); i++) {
    lua_pushstring(L, src);
    lua_setfield(L, -2, pod_rel_failures_at(i, NULL)->name);
  }
  lua_setfield(L, -2, "failures");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_failure_set);
  lua_setfield(L, podsim, "failure_set");
  lua_pushcfunction(L, l_failure_list);
  lua_setfield(L, podsim, "failure_list");
  lua_pushcfunction(L, l_reliability);
  lua_setfield(L, podsim, "reliability");
  lua_pushcfunction(L, l_simulate_run);
  lua_setfield(L, podsim, "simulate_run");
  lpod_register_kernel(L, "reliability", &pod_rel_kernel, &lpod_rel_cfg_type);
  lpod_register_kernel(L, "simulate_run", &pod_relsim_kernel,
                       &lpod_rel_cfg_type);
}
