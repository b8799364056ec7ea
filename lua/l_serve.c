/*
** l_serve.c: the serving model in Lua (issue 14): podsim.serve{...} and
** the "serve" built-in evaluator (podsim.kernel.serve{...}).
**
** The config is one lpod_type (fields below) over pod_serve_cfg; a table
** without base= starts from pod_serve_cfg_init ("default").  core/serve.c
** does the work.
*/
#include <stddef.h>
#include <string.h>

#include "l_hw.h"
#include "l_serve.h"
#include "lpod.h"
#include "pod_serve.h"

extern const lpod_type lpod_model_type; /* l_train.c */

/* Numeric fields: bounds and units in pod_serve_par_fields,
** pod_serve_pool_fields and pod_serve_cfg_fields (core/serve.c). */
#define PF(name) \
  { #name, LPOD_INT, offsetof(pod_serve_par, name), 0, "", NULL, NULL }
static const lpod_field par_fields[] = {
    PF(tp), PF(dp_attn), PF(ep), PF(pp), {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type par_type = {"podsim.serve_parallel",
                                   "serving layout",
                                   "podsim.serve",
                                   NULL,
                                   sizeof(pod_serve_par),
                                   par_fields,
                                   NULL,
                                   NULL,
                                   NULL,
                                   NULL,
                                   pod_serve_par_fields};

#define OF(name, member) \
  { #name, LPOD_INT, offsetof(pod_serve_pool, member), 0, "", NULL, NULL }
static const lpod_field pool_fields[] = {OF(gpus, gpus),
                                         OF(tp, parallel.tp),
                                         OF(dp_attn, parallel.dp_attn),
                                         OF(ep, parallel.ep),
                                         OF(pp, parallel.pp),
                                         {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type pool_type = {"podsim.serve_prefill",
                                    "prefill pool",
                                    "podsim.serve",
                                    NULL,
                                    sizeof(pod_serve_pool),
                                    pool_fields,
                                    NULL,
                                    NULL,
                                    NULL,
                                    NULL,
                                    pod_serve_pool_fields};

static int cfg_check(const void *v, pod_err *e) {
  return pod_serve_check(v, e);
}
static int cfg_preset(const char *n, void *out) {
  if (strcmp(n, "default") != 0) return POD_ENOENT;
  pod_serve_cfg_init(out);
  return POD_OK;
}

#define CF(name, type) \
  { #name, type, offsetof(pod_serve_cfg, name), 0, "", NULL, NULL }
static const lpod_field cfg_fields[] = {
    {"system", LPOD_STRUCT, offsetof(pod_serve_cfg, system), 0, "", NULL,
     &lpod_system_type},
    {"model", LPOD_STRUCT, offsetof(pod_serve_cfg, model), 0, "", NULL,
     &lpod_model_type},
    CF(gpus, LPOD_INT),
    {"dtype", LPOD_ENUM, offsetof(pod_serve_cfg, dtype), 0, "",
     pod_train_dtype_names, NULL},
    {"kv_dtype", LPOD_ENUM, offsetof(pod_serve_cfg, kv_dtype), 0, "",
     pod_train_dtype_names, NULL},
    {"dense_dtype", LPOD_ENUM, offsetof(pod_serve_cfg, dense_dtype), 0, "",
     pod_serve_dtype_names, NULL},
    {"parallel", LPOD_STRUCT, offsetof(pod_serve_cfg, parallel), 0, "", NULL,
     &par_type},
    CF(batch, LPOD_INT),
    CF(input_tokens, LPOD_DOUBLE),
    CF(output_tokens, LPOD_DOUBLE),
    CF(prefix_hit, LPOD_DOUBLE),
    CF(disaggregated, LPOD_BOOL),
    {"prefill", LPOD_STRUCT, offsetof(pod_serve_cfg, prefill), 0, "", NULL,
     &pool_type},
    CF(prefill_tokens, LPOD_DOUBLE),
    CF(spec_tokens, LPOD_INT),
    CF(spec_accept, LPOD_DOUBLE),
    CF(redundant_experts, LPOD_INT),
    {"ep_kernel", LPOD_ENUM, offsetof(pod_serve_cfg, ep_kernel), 0, "",
     pod_serve_ep_kernel_names, NULL},
    CF(two_batch_overlap, LPOD_BOOL),
    CF(single_batch_overlap, LPOD_BOOL),
    CF(eff_gemm, LPOD_DOUBLE),
    CF(eff_attn, LPOD_DOUBLE),
    CF(eff_hbm, LPOD_DOUBLE),
    CF(overlap, LPOD_DOUBLE),
    CF(ep_ll_us, LPOD_DOUBLE),
    CF(ep_ll_up_us, LPOD_DOUBLE),
    CF(ep_cast_us, LPOD_DOUBLE),
    CF(layer_us, LPOD_DOUBLE),
    CF(kernel_us, LPOD_DOUBLE),
    CF(mem_reserve_gb, LPOD_DOUBLE),
    CF(kv_frac, LPOD_DOUBLE),
    CF(host_GBps, LPOD_DOUBLE),
    CF(ep_sms, LPOD_DOUBLE),
    CF(expert_cv, LPOD_DOUBLE),
    CF(host_us, LPOD_DOUBLE),
    CF(host_overlap, LPOD_BOOL),
    CF(gemm_w_overlap, LPOD_DOUBLE),
    CF(fp8_prefill_attn, LPOD_BOOL),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_serve_cfg_type = {
    "podsim.serve_cfg",       "serve config", "podsim.serve",      NULL,
    sizeof(pod_serve_cfg),    cfg_fields,     cfg_check,           cfg_preset,
    lpod_default_preset_name, NULL,           pod_serve_cfg_fields};

static void setnum(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* Copy the table at idx onto the top, with base="default" when absent,
** batch from concurrency, and disaggregated set when prefill is given.
** [-0, +1, e] */
int lserve_prepare(lua_State *L, int idx, const char *ctx) {
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  int copy = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, idx)) { /* stack: copy, key, value */
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, copy);
  }
  if (lua_getfield(L, copy, "base") == LUA_TNIL) {
    lua_pushliteral(L, "default");
    lua_setfield(L, copy, "base");
  }
  lua_pop(L, 1);
  if (lua_getfield(L, copy, "concurrency") != LUA_TNIL) {
    if (lua_getfield(L, copy, "batch") != LUA_TNIL)
      lpod_error(L, ctx, "concurrency", "give batch or concurrency, not both");
    lua_pop(L, 1);
    lua_setfield(L, copy, "batch"); /* pops concurrency */
    lua_pushnil(L);
    lua_setfield(L, copy, "concurrency");
  } else {
    lua_pop(L, 1);
  }
  if (lua_getfield(L, copy, "prefill") != LUA_TNIL &&
      lua_getfield(L, copy, "disaggregated") == LUA_TNIL) {
    lua_pushboolean(L, 1);
    lua_setfield(L, copy, "disaggregated");
  }
  lua_settop(L, copy);
  return copy;
}

void lserve_push_result(lua_State *L, const pod_serve_cfg *c,
                        const pod_serve_result *r) {
  lua_createtable(L, 0, 28);
  setnum(L, "prefill_tokens_per_s", r->prefill_tokens_per_s);
  setnum(L, "prefill_tokens_per_s_per_gpu", r->prefill_tokens_per_s_per_gpu);
  setnum(L, "prefill_pass_s", r->prefill_pass_s);
  setnum(L, "ttft_s", r->ttft_s);
  setnum(L, "kv_transfer_s", r->kv_transfer_s);
  setnum(L, "decode_tokens_per_s", r->decode_tokens_per_s);
  setnum(L, "decode_tokens_per_s_per_gpu", r->decode_tokens_per_s_per_gpu);
  setnum(L, "tpot_s", r->tpot_s);
  setnum(L, "tokens_per_step", r->tokens_per_step);
  lua_pushinteger(L, r->batch);
  lua_setfield(L, -2, "batch");
  lua_pushinteger(L, r->max_batch);
  lua_setfield(L, -2, "max_batch");
  setnum(L, "kv_bytes_per_token", r->kv_bytes_per_token);
  setnum(L, "kv_gb_per_seq", r->kv_gb_per_seq);
  setnum(L, "experts_touched", r->experts_touched);
  setnum(L, "clock", r->clock);
  setnum(L, "offload_gb", r->offload_gb);
  setnum(L, "output_tokens_per_s_per_gpu", r->output_tokens_per_s_per_gpu);
  setnum(L, "requests_per_s_per_gpu", r->requests_per_s_per_gpu);
  setnum(L, "prefill_gpu_share", r->prefill_gpu_share);
  setnum(L, "usd_per_m_output", r->usd_per_m_output);
  lua_createtable(L, 0, 5);
  setnum(L, "weights_gb", r->memory.weights_gb);
  setnum(L, "kv_gb", r->memory.kv_gb);
  setnum(L, "reserve_gb", r->memory.reserve_gb);
  setnum(L, "total_gb", r->memory.total_gb);
  setnum(L, "prefill_weights_gb", r->memory.prefill_weights_gb);
  lua_setfield(L, -2, "memory");
  setnum(L, "memory_gb", r->memory.total_gb);
  const pod_serve_step *s = &r->step;
  lua_createtable(L, 0, 11);
  setnum(L, "attn", s->attn);
  setnum(L, "dense", s->dense);
  setnum(L, "expert", s->expert);
  setnum(L, "tp", s->tp);
  setnum(L, "ep", s->ep);
  setnum(L, "pp", s->pp);
  setnum(L, "overhead", s->overhead);
  setnum(L, "act", s->act);
  setnum(L, "draft", s->draft);
  setnum(L, "host", s->host);
  setnum(L, "total", s->total);
  lua_setfield(L, -2, "step");
  const pod_serve_pass *ps = &r->pass;
  lua_createtable(L, 0, 6);
  setnum(L, "gemm", ps->gemm);
  setnum(L, "attn", ps->attn);
  setnum(L, "comm", ps->comm);
  setnum(L, "overhead", ps->overhead);
  setnum(L, "act", ps->act);
  setnum(L, "ep_sm", ps->ep_sm);
  setnum(L, "kv_out", ps->kv_out);
  setnum(L, "offload", ps->offload);
  setnum(L, "total", ps->total);
  lua_setfield(L, -2, "pass");
  lpod_push(L, &lpod_serve_cfg_type, c);
  lua_setfield(L, -2, "config");
}

void lserve_build(lua_State *L, int idx, pod_serve_cfg *c, const char *ctx,
                  const char *path) {
  int t = lserve_prepare(L, idx, ctx);
  static const char *const required[] = {"system", "model", "gpus", NULL};
  lua_getfield(L, t, "base");
  int own = lua_type(L, -1) == LUA_TSTRING; /* "default": no base spec */
  lua_pop(L, 1);
  for (int i = 0; own && required[i]; i++) {
    if (lua_getfield(L, t, required[i]) == LUA_TNIL) {
      char p[64];
      snprintf(p, sizeof p, "%s%s%s", path ? path : "", path ? "." : "",
               required[i]);
      lpod_error(L, ctx, p, "required field is missing");
    }
    lua_pop(L, 1);
  }
  lpod_build_in(L, t, &lpod_serve_cfg_type, c, path, ctx);
  lua_pop(L, 1);
}

static int l_serve(lua_State *L) {
  static const char ctx[] = "podsim.serve";
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL,
                      "expected a table {system=, model=, gpus=, ...}, got %s",
                      luaL_typename(L, 1));
  lua_settop(L, 1);
  pod_serve_cfg c;
  lserve_build(L, 1, &c, ctx, NULL);
  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_serve_eval(&c, &r, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  lserve_push_result(L, &c, &r);
  return 1;
}

/* podsim.ep_time{system=, ranks=, tokens=, hidden=, top_k=,
** bytes_per_elem=, kernel=, ll_us=, ll_up_us=, experts=, cast_us=}: one
** dispatch or combine, seconds. */
static int l_ep_time(lua_State *L) {
  static const char ctx[] = "podsim.ep_time";
  static const char *const keys[] = {
      "system", "ranks", "tokens",   "hidden",  "top_k",   "bytes_per_elem",
      "kernel", "ll_us", "ll_up_us", "experts", "cast_us", NULL};
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL, "expected a table {system=, ranks=, ...}");
  lpod_check_keys(L, 1, ctx, NULL, keys);
  pod_system sys;
  if (lua_getfield(L, 1, "system") == LUA_TNIL)
    return lpod_error(L, ctx, "system", "required field is missing");
  lpod_to_value(L, -1, &lpod_system_type, &sys, "system");
  lua_pop(L, 1);
  /* argument bounds: pod_serve_ep_args, pod_serve_ep_row_args and, for the
  ** fixed costs, the config's ep_ll_us and ep_ll_up_us (core/serve.c) */
#define ARG(name) pod_field_find(pod_serve_ep_args, name)
#define ROW(name) pod_field_find(pod_serve_ep_row_args, name)
  int ranks = (int)lpod_opt_field(L, 1, "ranks", 0, ARG("ranks"), 1, ctx, NULL);
  double tokens =
      lpod_opt_field(L, 1, "tokens", 0, ARG("tokens"), 1, ctx, NULL);
  double hidden =
      lpod_opt_field(L, 1, "hidden", 0, ROW("hidden"), 1, ctx, NULL);
  int top_k = (int)lpod_opt_field(L, 1, "top_k", 0, ARG("top_k"), 1, ctx, NULL);
  double bpe = lpod_opt_field(L, 1, "bytes_per_elem", 2, ROW("bytes_per_elem"),
                              0, ctx, NULL);
  int k = lpod_opt_enum(L, 1, "kernel", 0, pod_serve_ep_time_kernel_names, 0,
                        ctx, NULL);
  pod_serve_cfg d;
  pod_serve_cfg_init(&d);
  double ll = lpod_opt_field(L, 1, "ll_us", d.ep_ll_us,
                             pod_field_find(pod_serve_cfg_fields, "ep_ll_us"),
                             0, ctx, NULL);
  double llu = lpod_opt_field(
      L, 1, "ll_up_us", d.ep_ll_up_us,
      pod_field_find(pod_serve_cfg_fields, "ep_ll_up_us"), 0, ctx, NULL);
  /* experts: DeepEP's tests' default, 288 (tests/test_low_latency.py);
  ** cast_us: no in-kernel cast unless given (the config's ep_cast_us is
  ** the NVFP4 dispatch's) */
  int experts =
      (int)lpod_opt_field(L, 1, "experts", 288, ARG("experts"), 0, ctx, NULL);
  double cast = lpod_opt_field(
      L, 1, "cast_us", 0.0, pod_field_find(pod_serve_cfg_fields, "ep_cast_us"),
      0, ctx, NULL);
#undef ARG
#undef ROW
  double t = 0.0;
  pod_err e;
  pod_err_clear(&e);
  if (pod_serve_ep_time(
          &sys, ranks, top_k, tokens, hidden * bpe,
          k == POD_SERVE_EP_TIME_NORMAL ? POD_SERVE_EP_DEEPEP_LL : k,
          k == POD_SERVE_EP_TIME_NORMAL, ll, llu, experts, cast, &t,
          &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  lua_pushnumber(L, t);
  return 1;
}

void lpod_open_serve(lua_State *L) {
  int podsim = lua_gettop(L);
  lpod_type_register(L, &lpod_serve_cfg_type);
  lua_pushcfunction(L, l_serve);
  lua_setfield(L, podsim, "serve");
  lua_pushcfunction(L, l_ep_time);
  lua_setfield(L, podsim, "ep_time");
  lpod_register_kernel(L, "serve", &pod_serve_kernel, &lpod_serve_cfg_type);
}
