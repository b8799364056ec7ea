/*
** l_rl.c: the RL post-training step in Lua (issue 14): podsim.rl{...},
** podsim.rl_split{...} and the "rl" built-in evaluator.
**
** The config is one lpod_type over pod_rl_cfg nesting the serving config
** (rollout), the training config (train) and the reliability config
** (reliability).  podsim.rl fills what a table leaves out: base="default"
** for each nested table, the rollout's and trainer's system and model
** from top-level system=/model=, and the reliability footprint from the
** system (4-GPU trays in 72-GPU racks, else 8-GPU nodes).
*/
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "l_dist.h"
#include "l_hw.h"
#include "l_rl.h"
#include "l_serve.h"
#include "lpod.h"
#include "pod_rl.h"

extern const lpod_type lpod_train_cfg_type; /* l_train.c */
extern const lpod_type lpod_rel_cfg_type;   /* l_rel.c */

/* Numeric fields: bounds in pod_rl_length_fields, pod_rl_cfg_fields and
** pod_rl_pair_fields (core/rl.c).  Response-length kinds: the first
** POD_DIST_DISCRETE names of pod_dist_kind_names (core/dist.c), without
** the sample-based "discrete" and "empirical" (a response length needs a
** continuous quantile); an LPOD_ENUM's size limits its names. */
#define LF(name, i)                                                            \
  {                                                                            \
    name, LPOD_DOUBLE, offsetof(pod_rl_length, p) + i * sizeof(double), 0, "", \
        NULL, NULL                                                             \
  }
static const lpod_field length_fields[] = {
    {"kind", LPOD_ENUM, offsetof(pod_rl_length, kind), POD_DIST_DISCRETE, "",
     pod_dist_kind_names, NULL},
    LF("a", 0),
    LF("b", 1),
    LF("c", 2),
    LF("d", 3),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type length_type = {"podsim.rl_length",
                                      "response length",
                                      "podsim.rl",
                                      NULL,
                                      sizeof(pod_rl_length),
                                      length_fields,
                                      NULL,
                                      NULL,
                                      NULL,
                                      NULL,
                                      pod_rl_length_fields};

static int cfg_check(const void *v, pod_err *e) {
  return pod_rl_check(v, e);
}
static int cfg_preset(const char *n, void *out) {
  if (strcmp(n, "default") != 0) return POD_ENOENT;
  pod_rl_cfg_init(out);
  return POD_OK;
}

#define CF(name, type) \
  { #name, type, offsetof(pod_rl_cfg, name), 0, "", NULL, NULL }
static const lpod_field cfg_fields[] = {
    {"rollout", LPOD_STRUCT, offsetof(pod_rl_cfg, rollout), 0, "", NULL,
     &lpod_serve_cfg_type},
    CF(rollout_gpus, LPOD_INT),
    {"train", LPOD_STRUCT, offsetof(pod_rl_cfg, train), 0, "", NULL,
     &lpod_train_cfg_type},
    {"placement", LPOD_ENUM, offsetof(pod_rl_cfg, placement), 0, "",
     pod_rl_placement_names, NULL},
    CF(async, LPOD_BOOL),
    CF(partial, LPOD_BOOL),
    CF(prompts, LPOD_INT),
    CF(samples, LPOD_INT),
    CF(input_tokens, LPOD_DOUBLE),
    {"response", LPOD_STRUCT, offsetof(pod_rl_cfg, response), 0, "", NULL,
     &length_type},
    CF(max_response, LPOD_DOUBLE),
    CF(ref_model, LPOD_BOOL),
    CF(old_logprob, LPOD_BOOL),
    CF(reward_model, LPOD_BOOL),
    CF(critic, LPOD_BOOL),
    CF(reward_s, LPOD_DOUBLE),
    CF(minibatches, LPOD_INT),
    CF(epochs, LPOD_INT),
    {"sync_method", LPOD_ENUM, offsetof(pod_rl_cfg, sync_method), 0, "",
     pod_rl_sync_names, NULL},
    CF(sync_bytes, LPOD_DOUBLE),
    CF(offload, LPOD_BOOL),
    CF(host_GBps, LPOD_DOUBLE),
    CF(sync_fixed_s, LPOD_DOUBLE),
    CF(hours, LPOD_DOUBLE),
    {"reliability", LPOD_STRUCT, offsetof(pod_rl_cfg, rel), 0, "", NULL,
     &lpod_rel_cfg_type},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type rl_cfg_type = {
    "podsim.rl_cfg",          "rl config", "podsim.rl",      NULL,
    sizeof(pod_rl_cfg),       cfg_fields,  cfg_check,        cfg_preset,
    lpod_default_preset_name, NULL,        pod_rl_cfg_fields};

static int pair_preset(const char *n, void *out) {
  if (strcmp(n, "default") != 0) return POD_ENOENT;
  pod_rl_pair_cfg_init(out);
  return POD_OK;
}

#define PF(name) \
  { #name, LPOD_DOUBLE, offsetof(pod_rl_pair_cfg, name), 0, "", NULL, NULL }
static const lpod_field pair_fields[] = {
    {"a", LPOD_STRUCT, offsetof(pod_rl_pair_cfg, a), 0, "", NULL, &rl_cfg_type},
    {"b", LPOD_STRUCT, offsetof(pod_rl_pair_cfg, b), 0, "", NULL, &rl_cfg_type},
    {"pretrain", LPOD_BOOL, offsetof(pod_rl_pair_cfg, pretrain), 0, "", NULL,
     NULL},
    PF(eff_scale),
    PF(overlap),
    PF(imbalance),
    PF(resp_scale),
    PF(up_eff_a),
    PF(up_eff_b),
    PF(out_eff_a),
    PF(out_eff_b),
    PF(price_a),
    PF(price_b),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type pair_cfg_type = {"podsim.rl_pair_cfg",
                                        "rl pair config",
                                        "podsim.kernel.rl_pair",
                                        NULL,
                                        sizeof(pod_rl_pair_cfg),
                                        pair_fields,
                                        NULL,
                                        pair_preset,
                                        lpod_default_preset_name,
                                        NULL,
                                        pod_rl_pair_fields};

static void setnum(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* Shallow copy of the plain table at idx onto the top, base="default" when
** absent.  [-0, +1, m] */
static int copy_default(lua_State *L, int idx) {
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  int t = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, t);
  }
  if (lua_getfield(L, t, "base") == LUA_TNIL) {
    lua_pushliteral(L, "default");
    lua_setfield(L, t, "base");
  }
  lua_pop(L, 1);
  return t;
}

/* t[key] = v when t[key] is nil (v at index vidx).  [-0, +0, m] */
static void set_absent(lua_State *L, int t, const char *key, int vidx) {
  if (lua_getfield(L, t, key) == LUA_TNIL && !lua_isnil(L, vidx)) {
    lua_pushvalue(L, vidx);
    lua_setfield(L, t, key);
  }
  lua_pop(L, 1);
}

/* parallel[key] of the train table at t as a number, def when absent or
** not a number.  [-0, +0, -] */
static double par_num(lua_State *L, int t, const char *key, double def) {
  double v = def;
  if (lua_getfield(L, t, "parallel") == LUA_TTABLE) {
    if (lua_getfield(L, -1, key) == LUA_TNUMBER && lua_tonumber(L, -1) > 0)
      v = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  return v;
}

/* The nested check's placeholder global batch for a training table
** without one: dp x microbatch x pp, the smallest batch that every layout
** rule accepts (divisible by dp x microbatch; at least pp micro-batches
** per pipeline for interleaved stages), or gpus when the layout does not
** divide them (the check then names the layout field).  [-0, +0, -] */
static lua_Integer placeholder_batch(lua_State *L, int t, double gpus) {
  double tp = par_num(L, t, "tp", 1), pp = par_num(L, t, "pp", 1);
  double cp = par_num(L, t, "cp", 1), mb = par_num(L, t, "microbatch", 1);
  double dp = par_num(L, t, "dp", gpus / (tp * pp * cp));
  double b = dp * mb * pp;
  if (!(b >= 1 && b <= 1 << 30 && b == floor(b))) b = gpus;
  return (lua_Integer)(b >= 1 && b <= 1 << 30 ? b : 1);
}

/* A plain sub-table `key` of t replaced by its defaulted copy (with
** system/model filled in); a spec is left alone.  Returns the index of the
** copy or 0.  [-0, +0, m] */
static int prepare_sub(lua_State *L, int t, const char *key, int sys, int model,
                       int serve, const char *ctx) {
  if (lua_getfield(L, t, key) != LUA_TTABLE) {
    lua_pop(L, 1);
    return 0;
  }
  if (lua_getmetatable(L, -1)) {
    lua_pop(L, 2);
    return 0;
  }
  int sub = serve ? lserve_prepare(L, -1, ctx) : copy_default(L, -1);
  set_absent(L, sub, "system", sys);
  set_absent(L, sub, "model", model);
  if (!serve) {
    /* seq and global_batch are set per step from the generated data; any
    ** valid placeholder passes the nested check */
    if (lua_getfield(L, sub, "seq") == LUA_TNIL) {
      lua_pushinteger(L, 1 << 16); /* divisible by 2 cp for any cp */
      lua_setfield(L, sub, "seq");
    }
    lua_pop(L, 1);
    if (lua_getfield(L, sub, "global_batch") == LUA_TNIL &&
        lua_getfield(L, sub, "gpus") != LUA_TNIL) {
      lua_pushinteger(L, placeholder_batch(L, sub, lua_tonumber(L, -1)));
      lua_setfield(L, sub, "global_batch");
    }
    lua_settop(L, sub);
  }
  if (!serve && lua_getfield(L, sub, "parallel") == LUA_TTABLE &&
      !lua_getmetatable(L, -1)) {
    copy_default(L, -1);
    lua_setfield(L, sub, "parallel");
  }
  lua_settop(L, sub);
  lua_setfield(L, t, key);
  lua_pop(L, 1); /* the original sub-table */
  return 1;
}

/* Build the config from the options table at 1.  [-0, +0, e] */
static void build(lua_State *L, pod_rl_cfg *c, const char *ctx,
                  const char *const *skip) {
  if (!lua_istable(L, 1))
    lpod_error(L, ctx, NULL,
               "expected a table {system=, model=, train=, ...}, got %s",
               luaL_typename(L, 1));
  int top = lua_gettop(L);
  int t = copy_default(L, 1);
  lua_getfield(L, t, "system");
  int sys = lua_gettop(L);
  lua_getfield(L, t, "model");
  int model = lua_gettop(L);
  lua_pushnil(L);
  lua_setfield(L, t, "system");
  lua_pushnil(L);
  lua_setfield(L, t, "model");
  for (int i = 0; skip && skip[i]; i++) {
    lua_pushnil(L);
    lua_setfield(L, t, skip[i]);
  }
  /* without a base config, absent rollout/train tables start from their
  ** defaults (with system/model filled in) */
  lua_getfield(L, 1, "base");
  int own_base = lua_isnil(L, -1);
  lua_pop(L, 1);
  static const char *const subs[] = {"rollout", "train"};
  for (int i = 0; i < 2 && own_base; i++) {
    if (lua_getfield(L, t, subs[i]) == LUA_TNIL) {
      lua_newtable(L);
      lua_setfield(L, t, subs[i]);
    }
    lua_pop(L, 1);
  }
  prepare_sub(L, t, "rollout", sys, model, 1, ctx);
  prepare_sub(L, t, "train", sys, model, 0, ctx);
  /* response: a podsim.dist value becomes {kind=, a=, b=, c=, d=} */
  if (lua_getfield(L, t, "response") != LUA_TNIL) {
    const pod_dist *d = lpod_dist_test(L, -1, NULL);
    if (d) {
      if (d->kind >= POD_DIST_DISCRETE)
        lpod_error(L, ctx, "response",
                   "a %s distribution has no continuous quantile; use a "
                   "continuous kind (lognormal, gamma, ...)",
                   pod_dist_kind_name(d->kind));
      lua_createtable(L, 0, 5);
      lua_pushstring(L, pod_dist_kind_name(d->kind));
      lua_setfield(L, -2, "kind");
      static const char *const pn[] = {"a", "b", "c", "d"};
      for (int i = 0; i < 4; i++) setnum(L, pn[i], d->p[i]);
      lua_setfield(L, t, "response");
    } else if (lua_istable(L, -1) && !lua_getmetatable(L, -1)) {
      copy_default(L, -1);
      lua_pushnil(L);
      lua_setfield(L, -2, "base");
      lua_setfield(L, t, "response");
    }
  }
  lua_settop(L, model);
  /* reliability: defaulted, footprint from the system */
  if (lua_getfield(L, t, "reliability") == LUA_TTABLE &&
      !lua_getmetatable(L, -1)) {
    int r = copy_default(L, -1);
    pod_system s;
    if (!lua_isnil(L, sys)) {
      lpod_to_value(L, sys, &lpod_system_type, &s, "system");
      int dom = s.domain_gpus;
      if (lua_getfield(L, r, "domain_gpus") == LUA_TNIL) {
        lua_pushinteger(L, dom);
        lua_setfield(L, r, "domain_gpus");
      }
      lua_pop(L, 1);
      if (lua_getfield(L, r, "node_gpus") == LUA_TNIL) {
        lua_pushinteger(L, dom >= 36 ? 4 : dom);
        lua_setfield(L, r, "node_gpus");
      }
      lua_pop(L, 1);
    }
    lua_pushvalue(L, r);
    lua_setfield(L, t, "reliability");
  }
  lua_settop(L, model);
  lpod_build_in(L, t, &rl_cfg_type, c, NULL, ctx);
  lua_settop(L, top);
}

static void push_result(lua_State *L, const pod_rl_cfg *c,
                        const pod_rl_result *r) {
  lua_createtable(L, 0, 40);
  setnum(L, "step_s", r->step_s);
  setnum(L, "rollout_s", r->rollout_s);
  setnum(L, "tail_s", r->tail_s);
  setnum(L, "split_s", r->split_s);
  setnum(L, "score_s", r->score_s);
  setnum(L, "train_s", r->train_s);
  setnum(L, "sync_s", r->sync_s);
  setnum(L, "idle_s", r->idle_s);
  setnum(L, "sequences", r->sequences);
  setnum(L, "mean_response", r->mean_response);
  setnum(L, "max_response", r->max_response);
  setnum(L, "generated_tokens", r->generated_tokens);
  setnum(L, "sync_bytes", r->sync_bytes);
  lua_pushinteger(L, r->instances);
  lua_setfield(L, -2, "instances");
  lua_pushinteger(L, r->rollout_batch);
  lua_setfield(L, -2, "rollout_batch");
  lua_pushinteger(L, r->total_gpus);
  lua_setfield(L, -2, "total_gpus");
  setnum(L, "gpu_hours_per_step", r->gpu_hours_per_step);
  setnum(L, "usd_per_step", r->usd_per_step);
  setnum(L, "usd_per_m_tokens", r->usd_per_m_tokens);
  setnum(L, "usd_per_m_tokens_charged", r->usd_per_m_tokens_charged);
  setnum(L, "rollout_util", r->rollout_util);
  setnum(L, "train_util", r->train_util);
  setnum(L, "goodput", r->goodput);
  lua_pushinteger(L, r->spare_gpus);
  lua_setfield(L, -2, "spare_gpus");
  setnum(L, "rollout_tokens_per_s_per_gpu", r->rollout_tokens_per_s_per_gpu);
  lua_createtable(L, 0, 6);
  setnum(L, "step_s", r->train.step_s);
  setnum(L, "tokens_per_s_per_gpu", r->train.tokens_per_s_per_gpu);
  setnum(L, "mfu", r->train.mfu);
  setnum(L, "memory_gb", r->train.memory.total_gb);
  setnum(L, "compute_s", r->train.breakdown.compute);
  lua_setfield(L, -2, "train");
  lserve_push_result(L, &c->rollout, &r->serve);
  lua_setfield(L, -2, "serve");
  lpod_push(L, &rl_cfg_type, c);
  lua_setfield(L, -2, "config");
}

static int l_rl(lua_State *L) {
  static const char ctx[] = "podsim.rl";
  lua_settop(L, 1);
  pod_rl_cfg c;
  build(L, &c, ctx, NULL);
  pod_rl_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rl_eval(&c, &r, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  push_result(L, &c, &r);
  return 1;
}

/* podsim.rl_split{gpus=, ...}: the best disaggregated split of a budget. */
static int l_rl_split(lua_State *L) {
  static const char ctx[] = "podsim.rl_split";
  static const char *const skip[] = {"gpus", NULL};
  lua_settop(L, 1);
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL, "expected a table {gpus=, ...}");
  int gpus =
      (int)lpod_opt_field(L, 1, "gpus", 0, &pod_rl_split_gpus, 1, ctx, NULL);
  /* placeholders for the nested checks; the search sets both pools */
  lua_getfield(L, 1, "base");
  int had_base = !lua_isnil(L, -1);
  lua_pop(L, 1);
  int opts = copy_default(L, 1);
  if (!had_base) {
    lua_pushnil(L);
    lua_setfield(L, opts, "base");
  }
  if (lua_getfield(L, opts, "train") == LUA_TTABLE &&
      !lua_getmetatable(L, -1)) {
    int tr = copy_default(L, -1);
    lua_pushnil(L);
    lua_setfield(L, tr, "base");
    if (lua_getfield(L, tr, "gpus") == LUA_TNIL) {
      lua_pushinteger(L, gpus / 2);
      lua_setfield(L, tr, "gpus");
    }
    lua_pop(L, 1);
    lua_setfield(L, opts, "train");
  }
  lua_settop(L, opts);
  lua_pushliteral(L, "disaggregated");
  lua_setfield(L, opts, "placement");
  if (lua_getfield(L, opts, "rollout_gpus") == LUA_TNIL) {
    lua_pushinteger(L, gpus / 2);
    lua_setfield(L, opts, "rollout_gpus");
  }
  lua_pop(L, 1);
  lua_replace(L, 1);
  pod_rl_cfg c;
  build(L, &c, ctx, skip);
  c.placement = POD_RL_DISAGGREGATED;
  pod_rl_result r;
  int rg = 0;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rl_best_split(&c, gpus, &rg, &r, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  c.rollout_gpus = rg;
  c.train.gpus = gpus - rg;
  push_result(L, &c, &r);
  lua_pushinteger(L, rg);
  lua_setfield(L, -2, "rollout_gpus");
  lua_pushinteger(L, gpus - rg);
  lua_setfield(L, -2, "train_gpus");
  return 1;
}

/* podsim.rl_config{...}: the config of podsim.rl, not evaluated (a base
** for the rl and rl_pair kernels; pre-training sides keep train.seq and
** train.global_batch as given). */
static int l_rl_config(lua_State *L) {
  lua_settop(L, 1);
  pod_rl_cfg c;
  build(L, &c, "podsim.rl_config", NULL);
  lpod_push(L, &rl_cfg_type, &c);
  return 1;
}

/* podsim.rl_sync{...}: the weight sync alone -> {sync_s=, bytes=}. */
static int l_rl_sync(lua_State *L) {
  static const char ctx[] = "podsim.rl_sync";
  lua_settop(L, 1);
  pod_rl_cfg c;
  build(L, &c, ctx, NULL);
  double t = 0.0, b = 0.0;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rl_sync_eval(&c, &t, &b, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  lua_createtable(L, 0, 2);
  setnum(L, "sync_s", t);
  setnum(L, "bytes", b);
  return 1;
}

/* podsim.expected_max(dist, n [, cap]): E[min(max of n draws, cap)].
** The bounds of n and cap are core's (pod_rl_expected_max_args). */
static int l_expected_max(lua_State *L) {
  static const char ctx[] = "podsim.expected_max";
  const pod_dist *d = lpod_dist_test(L, 1, NULL);
  if (!d) return lpod_error(L, ctx, "dist", "expected a podsim.dist value");
  double n = lpod_check_field(L, 2, &pod_rl_expected_max_args[0], ctx, "n");
  double cap =
      lua_isnoneornil(L, 3)
          ? HUGE_VAL
          : lpod_check_field(L, 3, &pod_rl_expected_max_args[1], ctx, "cap");
  pod_rl_length len = {(int)d->kind, {d->p[0], d->p[1], d->p[2], d->p[3]}};
  double v = 0.0;
  pod_err e;
  pod_err_clear(&e);
  if (pod_rl_expected_max_checked(&len, n, cap, &v, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  lua_pushnumber(L, v);
  return 1;
}

void lpod_open_rl(lua_State *L) {
  int podsim = lua_gettop(L);
  lpod_type_register(L, &rl_cfg_type);
  lua_pushcfunction(L, l_rl);
  lua_setfield(L, podsim, "rl");
  lua_pushcfunction(L, l_rl_split);
  lua_setfield(L, podsim, "rl_split");
  lua_pushcfunction(L, l_rl_config);
  lua_setfield(L, podsim, "rl_config");
  lua_pushcfunction(L, l_rl_sync);
  lua_setfield(L, podsim, "rl_sync");
  lua_pushcfunction(L, l_expected_max);
  lua_setfield(L, podsim, "expected_max");
  lpod_register_kernel(L, "rl", &pod_rl_kernel, &rl_cfg_type);
  lpod_register_kernel(L, "rl_pair", &pod_rl_pair_kernel, &pair_cfg_type);
}
