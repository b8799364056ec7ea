/*
** l_train.c: models and the training-step model in Lua (DESIGN.md 4.3, 5):
** podsim.models.<name>, podsim.model{base=, ...}, podsim.model_params(m),
** podsim.model_flops(m, seq [, causal]), podsim.train{...},
** podsim.search{...}, and the "train" built-in evaluator
** (podsim.kernel.train{base="default", ...}).
**
** Specs are immutable userdata described by the field tables below
** (lpod.h); core/train.c does the work.  podsim.train and podsim.search
** start from the shared defaults (pod_train_cfg_init: table efficiencies,
** overlaps, jitter; layout all 1 with the distributed optimizer).
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "host.h"
#include "l_search_pool.h"
#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_train.h"

#define INF HUGE_VAL

/* ---- models ------------------------------------------------------------ */

static int model_check(const void *v, pod_err *e) {
  return pod_model_check(v, e);
}
/* "default": where a model built from scratch (no base=) starts: zeros,
** but MoE fields that are never right at 0: every layer after the dense
** ones is MoE (moe_interval 1), tokens spread evenly (imbalance 1),
** dropless routing (capacity_factor 0).  experts, top_k and expert_ffn
** have no sane default and stay required for an MoE model. */
static int model_preset(const char *n, void *out) {
  if (strcmp(n, "default") == 0) {
    pod_model *m = out;
    memset(m, 0, sizeof *m);
    m->moe_interval = 1;
    m->imbalance = 1.0;
    m->capacity_factor = 0.0;
    return POD_OK;
  }
  return pod_model_preset(n, out);
}
LPOD_PRESET_ITER(model, pod_model, pod_model_at)

/* Numeric fields: bounds and units in core (pod_model_fields,
** pod_train_layout_fields, pod_train_recompute_set_fields,
** pod_train_sw_fields, pod_train_cfg_fields). */
#define MF(name, type) \
  { #name, type, offsetof(pod_model, name), 0, "", NULL, NULL }
static const lpod_field model_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_model, name), POD_NAME_MAX, "", NULL,
     NULL},
    MF(layers, LPOD_INT),
    MF(hidden, LPOD_INT),
    MF(ffn, LPOD_INT),
    MF(heads, LPOD_INT),
    MF(kv_heads, LPOD_INT),
    MF(head_dim, LPOD_INT),
    MF(vocab, LPOD_INT),
    {"attn", LPOD_ENUM, offsetof(pod_model, attn), 0, "", pod_model_attn_names,
     NULL},
    MF(q_lora, LPOD_INT),
    MF(kv_lora, LPOD_INT),
    MF(qk_nope, LPOD_INT),
    MF(qk_rope, LPOD_INT),
    MF(v_head, LPOD_INT),
    MF(tied_embeddings, LPOD_BOOL),
    MF(gated_mlp, LPOD_BOOL),
    MF(experts, LPOD_INT),
    MF(top_k, LPOD_INT),
    MF(expert_ffn, LPOD_INT),
    MF(shared_experts, LPOD_INT),
    MF(dense_layers, LPOD_INT),
    MF(moe_interval, LPOD_INT),
    MF(capacity_factor, LPOD_DOUBLE),
    MF(imbalance, LPOD_DOUBLE),
    MF(mtp_layers, LPOD_INT),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_model_type = {
    "podsim.model",    "model",      "podsim.model",  "models",
    sizeof(pod_model), model_fields, model_check,     model_preset,
    model_name,        model_source, pod_model_fields};

/* ---- layouts and training configs -------------------------------------- */

static int layout_preset(const char *n, void *out) {
  if (strcmp(n, "default") != 0) return POD_ENOENT;
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  memcpy(out, &c.parallel, sizeof c.parallel);
  return POD_OK;
}

#define RF(name) \
  { #name, LPOD_BOOL, offsetof(pod_recompute_set, name), 0, "", NULL, NULL }
static const lpod_field recompute_set_fields[] = {
    RF(core_attn), RF(layernorm), RF(mla_up_proj),
    RF(moe_act),   RF(mlp),       {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type recompute_set_type = {"podsim.recompute_modules",
                                             "recompute modules",
                                             "podsim.train",
                                             NULL,
                                             sizeof(pod_recompute_set),
                                             recompute_set_fields,
                                             NULL,
                                             NULL,
                                             NULL,
                                             NULL,
                                             pod_train_recompute_set_fields};

#define OF(name) \
  { #name, LPOD_BOOL, offsetof(pod_offload_set, name), 0, "", NULL, NULL }
static const lpod_field offload_set_fields[] = {
    OF(attn_norm),
    OF(core_attn),
    OF(attn_proj),
    OF(mlp_norm),
    OF(expert_fc1),
    OF(moe_act),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type offload_set_type = {"podsim.offload_modules",
                                           "offload modules",
                                           "podsim.train",
                                           NULL,
                                           sizeof(pod_offload_set),
                                           offload_set_fields,
                                           NULL,
                                           NULL,
                                           NULL,
                                           NULL,
                                           pod_train_offload_set_fields};

static int sw_preset(const char *n, void *out) {
  return pod_train_sw_preset(n, out);
}
static const char *sw_name(int i) {
  const pod_train_sw_preset_t *p = pod_train_sw_at(i, NULL);
  return p ? p->name : NULL;
}
static const char *sw_source(int i) {
  const char *src = NULL;
  return pod_train_sw_at(i, &src) ? src : NULL;
}

#define SF(name, type) \
  { #name, type, offsetof(pod_train_sw, name), 0, "", NULL, NULL }
static const lpod_field sw_fields[] = {
    {"cuda_graphs", LPOD_ENUM, offsetof(pod_train_sw, cuda_graphs), 0, "",
     pod_train_graphs_names, NULL},
    SF(a2a_overlap, LPOD_BOOL),
    SF(fused_grouped_mlp, LPOD_BOOL),
    SF(fp8_attention, LPOD_BOOL),
    {"dispatcher", LPOD_ENUM, offsetof(pod_train_sw, dispatcher), 0, "",
     pod_train_dispatcher_names, NULL},
    SF(max_domains, LPOD_INT),
    {"schedule", LPOD_ENUM, offsetof(pod_train_sw, schedule), 0, "",
     pod_train_schedule_names, NULL},
    SF(fp8_params, LPOD_BOOL),
    SF(tp_comm_overlap, LPOD_BOOL),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type sw_type = {"podsim.software",
                                  "software release",
                                  "podsim.train",
                                  "software",
                                  sizeof(pod_train_sw),
                                  sw_fields,
                                  NULL,
                                  sw_preset,
                                  sw_name,
                                  sw_source,
                                  pod_train_sw_fields};

#define LF(name, type) \
  { #name, type, offsetof(pod_layout, name), 0, "", NULL, NULL }
static const lpod_field layout_fields[] = {
    LF(tp, LPOD_INT),
    LF(pp, LPOD_INT),
    LF(vp, LPOD_INT),
    LF(dp, LPOD_INT),
    LF(ep, LPOD_INT),
    LF(etp, LPOD_INT),
    LF(cp, LPOD_INT),
    LF(microbatch, LPOD_INT),
    LF(zero, LPOD_INT),
    {"recompute", LPOD_ENUM, offsetof(pod_layout, recompute), 0, "",
     pod_train_recompute_names, NULL},
    LF(uneven, LPOD_BOOL),
    {"recompute_modules", LPOD_STRUCT, offsetof(pod_layout, recompute_modules),
     0, "", NULL, &recompute_set_type},
    {"offload_modules", LPOD_STRUCT, offsetof(pod_layout, offload_modules), 0,
     "", NULL, &offload_set_type},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

static const lpod_type layout_type = {"podsim.parallel",
                                      "parallel layout",
                                      "podsim.train",
                                      NULL,
                                      sizeof(pod_layout),
                                      layout_fields,
                                      NULL,
                                      layout_preset,
                                      lpod_default_preset_name,
                                      NULL,
                                      pod_train_layout_fields};

static int cfg_check(const void *v, pod_err *e) {
  return pod_train_check(v, e);
}
static int base_check(const void *v, pod_err *e) {
  return pod_train_check_base(v, e);
}
static int cfg_preset(const char *n, void *out) {
  if (strcmp(n, "default") != 0) return POD_ENOENT;
  pod_train_cfg_init(out);
  return POD_OK;
}

#define CF(name, type) \
  { #name, type, offsetof(pod_train_cfg, name), 0, "", NULL, NULL }
static const lpod_field cfg_fields[] = {
    {"system", LPOD_STRUCT, offsetof(pod_train_cfg, system), 0, "", NULL,
     &lpod_system_type},
    {"model", LPOD_STRUCT, offsetof(pod_train_cfg, model), 0, "", NULL,
     &lpod_model_type},
    CF(gpus, LPOD_INT),
    CF(seq, LPOD_INT),
    CF(global_batch, LPOD_INT),
    {"dtype", LPOD_ENUM, offsetof(pod_train_cfg, dtype), 0, "",
     pod_train_dtype_names, NULL},
    {"parallel", LPOD_STRUCT, offsetof(pod_train_cfg, parallel), 0, "", NULL,
     &layout_type},
    CF(eff_gemm, LPOD_DOUBLE),
    CF(eff_attn, LPOD_DOUBLE),
    CF(gemm_k_half, LPOD_DOUBLE),
    CF(gemm_w_half, LPOD_DOUBLE),
    CF(eff_scale, LPOD_DOUBLE),
    CF(eff_hbm, LPOD_DOUBLE),
    CF(overlap_tp, LPOD_DOUBLE),
    CF(overlap_cp, LPOD_DOUBLE),
    CF(overlap_ep, LPOD_DOUBLE),
    CF(overlap_pp, LPOD_DOUBLE),
    CF(overlap_dp, LPOD_DOUBLE),
    CF(overlap_offload, LPOD_DOUBLE),
    CF(jitter, LPOD_DOUBLE),
    CF(grad_reduce_bytes, LPOD_DOUBLE),
    CF(mem_reserve_gb, LPOD_DOUBLE),
    CF(mfu_full_attn, LPOD_BOOL),
    {"fp8_recipe", LPOD_ENUM, offsetof(pod_train_cfg, fp8_recipe), 0, "",
     pod_train_fp8_recipe_names, NULL},
    CF(jitter_sync, LPOD_DOUBLE),
    {"software", LPOD_STRUCT, offsetof(pod_train_cfg, software), 0, "", NULL,
     &sw_type},
    CF(host_expert_us, LPOD_DOUBLE),
    CF(moe_layer_us, LPOD_DOUBLE),
    CF(gemm_k_half_expert, LPOD_DOUBLE),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

/* The training config (podsim.train and the "train" kernel). */
const lpod_type lpod_train_cfg_type = {
    "podsim.train_cfg",       "train config", "podsim.train",      NULL,
    sizeof(pod_train_cfg),    cfg_fields,     cfg_check,           cfg_preset,
    lpod_default_preset_name, NULL,           pod_train_cfg_fields};

/* The search's base config: the same fields, the layout left unchecked. */
static const lpod_type search_cfg_type = {"podsim.search_cfg",
                                          "search config",
                                          "podsim.search",
                                          NULL,
                                          sizeof(pod_train_cfg),
                                          cfg_fields,
                                          base_check,
                                          cfg_preset,
                                          lpod_default_preset_name,
                                          NULL,
                                          pod_train_cfg_fields};

/* ---- helpers ----------------------------------------------------------- */

static void setnum(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}
static void setint(lua_State *L, const char *k, long v) {
  lua_pushinteger(L, v);
  lua_setfield(L, -2, k);
}

/* Copy the table at idx into a new table on the top of the stack, without
** the keys in `skip`, with base="default" when absent, and the same for a
** `parallel` sub-table. */
static int defaulted_copy(lua_State *L, int idx, const char *const *skip) {
  idx = lua_absindex(L, idx);
  lua_newtable(L); /* stack: copy */
  int copy = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, idx)) { /* stack: copy, key, value */
    int skipped = 0;
    if (lua_type(L, -2) == LUA_TSTRING && skip)
      for (int i = 0; skip[i]; i++)
        if (strcmp(lua_tostring(L, -2), skip[i]) == 0) skipped = 1;
    if (!skipped) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2); /* stack: copy, key, key, value */
      lua_rawset(L, copy);
    } else {
      lua_pop(L, 1);
    }
  }
  if (lua_getfield(L, copy, "base") == LUA_TNIL) {
    lua_pushliteral(L, "default");
    lua_setfield(L, copy, "base");
  }
  lua_pop(L, 1);
  /* parallel = {...} without base starts from the default layout */
  if (lua_getfield(L, copy, "parallel") == LUA_TTABLE &&
      !lua_getmetatable(L, -1)) {
    int par = lua_gettop(L);
    lua_newtable(L);
    lua_pushnil(L);
    while (lua_next(L, par)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, -4);
    }
    if (lua_getfield(L, -1, "base") == LUA_TNIL) {
      lua_pushliteral(L, "default");
      lua_setfield(L, -3, "base");
    }
    lua_pop(L, 1);
    lua_setfield(L, copy, "parallel");
  }
  lua_settop(L, copy);
  return copy;
}

/* The fields podsim.train and podsim.search cannot do without, in the
** options copy at t; raises a located error naming the first missing. */
static void require_fields(lua_State *L, int t, const char *ctx) {
  static const char *const required[] = {"system", "model",        "gpus",
                                         "seq",    "global_batch", NULL};
  for (int i = 0; required[i]; i++) {
    if (lua_getfield(L, t, required[i]) == LUA_TNIL)
      lpod_error(L, ctx, required[i], "required field is missing");
    lua_pop(L, 1);
  }
}

static void push_layout(lua_State *L, const pod_layout *l) {
  setint(L, "tp", l->tp);
  setint(L, "pp", l->pp);
  setint(L, "vp", l->vp);
  setint(L, "dp", l->dp);
  setint(L, "ep", l->ep);
  setint(L, "etp", l->etp);
  setint(L, "cp", l->cp);
  setint(L, "microbatch", l->microbatch);
  setint(L, "zero", l->zero);
  lua_pushstring(L, pod_train_recompute_name(l->recompute));
  lua_setfield(L, -2, "recompute");
  lua_pushboolean(L, l->uneven);
  lua_setfield(L, -2, "uneven");
  lpod_push(L, &recompute_set_type, &l->recompute_modules);
  lua_setfield(L, -2, "recompute_modules");
  lpod_push(L, &offload_set_type, &l->offload_modules);
  lua_setfield(L, -2, "offload_modules");
}

/* ---- podsim.model{}, model_params, model_flops -------------------------- */

static int l_model(lua_State *L) {
  pod_model m;
  if (!lua_istable(L, 1))
    return lpod_error(L, "podsim.model", NULL,
                      "expected a table of fields, got %s",
                      luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_model_type, &m, NULL);
  lpod_push(L, &lpod_model_type, &m);
  return 1;
}

static int l_model_params(lua_State *L) {
  pod_model m;
  if (lua_isnoneornil(L, 1))
    return lpod_error(L, "podsim.model_params", "model",
                      "required argument is missing");
  lpod_to_value(L, 1, &lpod_model_type, &m, "model");
  pod_model_params p;
  pod_model_params_count(&m, &p);
  lua_createtable(L, 0, 10);
  setnum(L, "total", p.total);
  setnum(L, "active", p.active);
  setnum(L, "embedding", p.embedding);
  setnum(L, "head", p.head);
  setnum(L, "layers_dense", p.layers_dense);
  setnum(L, "layers_expert", p.layers_expert);
  setnum(L, "expert", p.expert);
  setnum(L, "mtp", p.mtp);
  setint(L, "moe_layers", p.moe_layers);
  setint(L, "dense_mlp_layers", p.dense_mlp_layers);
  return 1;
}

static int l_model_flops(lua_State *L) {
  static const char ctx[] = "podsim.model_flops";
  pod_model m;
  if (lua_isnoneornil(L, 1))
    return lpod_error(L, ctx, "model", "required argument is missing");
  lpod_to_value(L, 1, &lpod_model_type, &m, "model");
  double seq = lpod_check_field(
      L, 2, pod_field_find(pod_train_cfg_fields, "seq"), ctx, "seq");
  int causal = lua_isnoneornil(L, 3) ? 1 : lua_toboolean(L, 3);
  pod_model_flops f;
  pod_model_flops_per_token(&m, (int)seq, causal, &f);
  lua_createtable(L, 0, 6);
  setnum(L, "gemm_dense", f.gemm_dense);
  setnum(L, "gemm_expert", f.gemm_expert);
  setnum(L, "attn", f.attn);
  setnum(L, "head", f.head);
  setnum(L, "mtp", f.mtp);
  setnum(L, "total", f.total);
  return 1;
}

/* ---- podsim.train{} ----------------------------------------------------- */

static void push_result(lua_State *L, const pod_train_cfg *c,
                        const pod_train_result *r) {
  lua_createtable(L, 0, 20);
  setnum(L, "step_s", r->step_s);
  setnum(L, "tokens_per_s", r->tokens_per_s);
  setnum(L, "tokens_per_s_per_gpu", r->tokens_per_s_per_gpu);
  setnum(L, "tflops_per_gpu", r->tflops_per_gpu);
  setnum(L, "mfu", r->mfu);
  setnum(L, "peak_tflops", r->peak_tflops);
  setnum(L, "flops_per_token", r->flops_per_token);
  setnum(L, "memory_gb", r->memory.total_gb);
  lua_pushboolean(L, r->fits);
  lua_setfield(L, -2, "fits");
  setnum(L, "eff_gemm", r->eff_gemm);
  setnum(L, "eff_attn", r->eff_attn);
  setnum(L, "clock", r->clock);
  setint(L, "microbatches", r->microbatches);
  setint(L, "dp", r->dp);
  setint(L, "edp", r->edp);
  lua_createtable(L, 0, 7);
  setnum(L, "weights_gb", r->memory.weights_gb);
  setnum(L, "grads_gb", r->memory.grads_gb);
  setnum(L, "optimizer_gb", r->memory.optimizer_gb);
  setnum(L, "activations_gb", r->memory.activations_gb);
  setnum(L, "reserve_gb", r->memory.reserve_gb);
  setnum(L, "total_gb", r->memory.total_gb);
  setnum(L, "host_gb", r->memory.host_gb);
  lua_setfield(L, -2, "memory");
  const pod_train_breakdown *b = &r->breakdown;
  lua_createtable(L, 0, 9);
  setnum(L, "compute", b->compute);
  setnum(L, "tp", b->tp);
  setnum(L, "cp", b->cp);
  setnum(L, "ep", b->ep);
  setnum(L, "pp", b->pp);
  setnum(L, "dp", b->dp);
  setnum(L, "bubble", b->bubble);
  setnum(L, "optimizer", b->optimizer);
  setnum(L, "straggler", b->straggler);
  setnum(L, "host", b->host);
  lua_setfield(L, -2, "breakdown");
  lpod_push(L, &lpod_train_cfg_type, c);
  lua_setfield(L, -2, "config");
}

/* Read podsim.train's options (stack 1) into *c (l_read.h). */
void lpod_train_read(lua_State *L, pod_train_cfg *c) {
  static const char ctx[] = "podsim.train";
  if (!lua_istable(L, 1))
    lpod_error(L, ctx, NULL,
               "expected a table {system=, model=, gpus=, ...}, got %s",
               luaL_typename(L, 1));
  lua_settop(L, 1);
  int t = defaulted_copy(L, 1, NULL); /* stack: opts, copy */
  require_fields(L, t, ctx);
  lpod_build(L, t, &lpod_train_cfg_type, c, NULL);
  lua_settop(L, 1);
}

static int l_train(lua_State *L) {
  static const char ctx[] = "podsim.train";
  pod_train_cfg c;
  lpod_train_read(L, &c);
  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_train_eval(&c, &r, &e);
  if (rc != POD_OK) return lpod_error_core(L, ctx, NULL, &e);
  if (!r.fits && lpod_host(L) != NULL &&
      r.memory.total_gb <= c.system.gpu.hbm_gb) {
    lpod_where(L); /* the offloaded activations overflow host memory */
    fprintf(stderr,
            "%s warning: podsim.train: the offloaded activations do not fit "
            "in host memory: %.1f GB per GPU > host_mem_gb %.0f GB; its "
            "step time and throughput (fits = false) assume memory it does "
            "not have\n",
            lua_tostring(L, -1), r.memory.host_gb, c.system.host_mem_gb);
    lua_pop(L, 1);
  } else if (!r.fits && lpod_host(L) != NULL) {
    /* loud: the throughput below is for a machine with more memory */
    lpod_where(L);
    fprintf(stderr,
            "%s warning: podsim.train: the layout does not fit in memory: "
            "%.1f GB per GPU > %.0f GB HBM (tp=%d pp=%d cp=%d ep=%d "
            "zero=%d); its step time and throughput (fits = false) assume "
            "memory it does not have\n",
            lua_tostring(L, -1), r.memory.total_gb, c.system.gpu.hbm_gb,
            c.parallel.tp, c.parallel.pp, c.parallel.cp, c.parallel.ep,
            c.parallel.zero);
    lua_pop(L, 1);
  }
  push_result(L, &c, &r);
  return 1;
}

/* ---- podsim.search{} ---------------------------------------------------- */

static const char *const search_only[] = {
    "fix",    "top",    "max_tp",          "max_pp", "max_vp",
    "max_cp", "max_mb", "offload_modules", NULL};
static const char *const fix_keys[] = {
    "tp", "pp",         "vp",   "dp",        "ep",     "etp",
    "cp", "microbatch", "zero", "recompute", "uneven", NULL};

/* podsim.search's own options (stack 1: top=, max_*=, fix=) into *o.
** [-0, +0, v] */
static void read_search_opts(lua_State *L, const char *ctx,
                             pod_train_search_opts *o) {
  pod_train_search_opts_init(o);
  /* bounds: pod_train_search_opts_fields and, for fix=, the layout's
  ** (core checks a fixed size is >= 1) */
#define OB(name) pod_field_find(pod_train_search_opts_fields, name)
#define LB(name) pod_field_find(pod_train_layout_fields, name)
  o->top_n = (int)lpod_opt_field(L, 1, "top", 10, OB("top_n"), 0, ctx, NULL);
  static const char *const maxes[] = {"max_tp", "max_pp", "max_vp",
                                      "max_cp", "max_mb", NULL};
  int *maxv[] = {&o->max_tp, &o->max_pp, &o->max_vp, &o->max_cp, &o->max_mb};
  for (int i = 0; maxes[i]; i++)
    *maxv[i] = (int)lpod_opt_field(L, 1, maxes[i], *maxv[i], OB(maxes[i]), 0,
                                   ctx, NULL);
  if (lua_getfield(L, 1, "fix") != LUA_TNIL) { /* stack: opts, copy, fix */
    int fx = lua_gettop(L);
    if (!lua_istable(L, fx))
      lpod_error(L, ctx, "fix", "expected a table {tp=, pp=, ...}, got %s",
                 luaL_typename(L, fx));
    lpod_check_keys(L, fx, ctx, "fix", fix_keys);
    pod_layout *f = &o->fix;
    static const char *const dims[] = {"tp",  "pp", "vp",         "dp",   "ep",
                                       "etp", "cp", "microbatch", "zero", NULL};
    int *dimv[] = {&f->tp,  &f->pp, &f->vp,         &f->dp,  &f->ep,
                   &f->etp, &f->cp, &f->microbatch, &f->zero};
    for (int i = 0; dims[i]; i++)
      *dimv[i] =
          (int)lpod_opt_field(L, fx, dims[i], -1, LB(dims[i]), 0, ctx, "fix");
#undef OB
#undef LB
    if (lua_getfield(L, fx, "recompute") != LUA_TNIL)
      f->recompute = lpod_opt_enum(L, fx, "recompute", 0,
                                   pod_train_recompute_names, 1, ctx, "fix");
    lua_pop(L, 1);
    if (lua_getfield(L, fx, "uneven") != LUA_TNIL)
      f->uneven = lpod_opt_bool(L, fx, "uneven", 0, ctx, "fix");
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
}

/* podsim.search's result table from the search's outcome (stack 1: the
** options).  [-0, +1, e] */
static int search_done(lua_State *L, const lpod_search_out *out) {
  static const char ctx[] = "podsim.search";
  if (out->rc != POD_OK) return lpod_error_core(L, ctx, NULL, &out->err);
  const pod_train_search_item *items = out->items;
  const pod_train_search_stats st = out->stats;
  const pod_train_cfg *c = &out->c;
  const pod_train_search_opts *o = &out->o;
  int n = out->n;
  lua_createtable(L, n, 5); /* stack: ..., list */
  for (int i = 0; i < n; i++) {
    lua_createtable(L, 0, 16);
    push_layout(L, &items[i].layout);
    lua_createtable(L, 0, 11); /* item.parallel: ready for podsim.train */
    push_layout(L, &items[i].layout);
    lua_setfield(L, -2, "parallel");
    setnum(L, "tokens_per_s_per_gpu", items[i].tokens_per_s_per_gpu);
    setnum(L, "step_s", items[i].step_s);
    setnum(L, "mfu", items[i].mfu);
    setnum(L, "memory_gb", items[i].memory_gb);
    lua_rawseti(L, -2, i + 1);
  }
  setint(L, "candidates", st.candidates);
  setint(L, "checked", st.checked);
  setint(L, "fitting", st.fitting);
  setint(L, "evaluated", st.evaluated);
  if (n == 0) {
    char why[320];
    if (st.candidates == 0)
      snprintf(
          why, sizeof why,
          "no layout of %d GPUs passes the divisibility rules (tp and cp "
          "divide the heads, pp the layers, ep the experts; max_tp=%d "
          "max_pp=%d max_cp=%d%s)",
          c->gpus, o->max_tp, o->max_pp, o->max_cp,
          lua_getfield(L, 1, "fix") != LUA_TNIL ? " and the fix= values" : "");
    else
      snprintf(why, sizeof why,
               "%ld layouts pass the divisibility rules, but none of their %ld "
               "ZeRO/recompute variants fits in %.0f GB HBM per GPU (try more "
               "GPUs, a shorter sequence or fewer fix= constraints)",
               st.candidates, st.checked, c->system.gpu.hbm_gb);
    if (st.candidates == 0) lua_pop(L, 1);
    lua_pushstring(L, why);
    lua_setfield(L, -2, "why");
    if (lpod_host(L) != NULL) {
      lpod_where(L);
      fprintf(stderr, "%s warning: podsim.search: no layout: %s\n",
              lua_tostring(L, -1), why);
      lua_pop(L, 1);
    }
  }
  return 1;
}

static int l_search(lua_State *L) {
  static const char ctx[] = "podsim.search";
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL,
                      "expected a table {system=, model=, gpus=, ...}, got %s",
                      luaL_typename(L, 1));
  lua_settop(L, 1);
  if (lua_getfield(L, 1, "parallel") != LUA_TNIL)
    return lpod_error(
        L, ctx, "parallel",
        "the search chooses the layout; fix dimensions with fix={...}");
  lua_pop(L, 1);
  int t = defaulted_copy(L, 1, search_only); /* stack: opts, copy */
  require_fields(L, t, ctx);
  pod_train_cfg c;
  lpod_build(L, t, &search_cfg_type, &c, NULL);
  /* offload_modules: the search considers offload only when asked, and
  ** then with these modules in every layout */
  if (lua_getfield(L, 1, "offload_modules") != LUA_TNIL)
    lpod_build(L, -1, &offload_set_type, &c.parallel.offload_modules, NULL);
  lua_pop(L, 1);
  pod_train_search_opts o;
  read_search_opts(L, ctx, &o);
  /* stack: opts, copy; the search may wait on the pool's threads */
  return lpod_search_run(L, &c, &o, search_done);
}

void lpod_open_train(lua_State *L) {
  int podsim = lua_gettop(L);
  lpod_open_type(L, podsim, &lpod_model_type);
  lpod_type_register(L, &recompute_set_type);
  lpod_open_type(L, podsim, &sw_type);
  lpod_type_register(L, &layout_type);
  lpod_type_register(L, &lpod_train_cfg_type);
  lpod_type_register(L, &search_cfg_type);
  lua_pushcfunction(L, l_model);
  lua_setfield(L, podsim, "model");
  lua_pushcfunction(L, l_model_params);
  lua_setfield(L, podsim, "model_params");
  lua_pushcfunction(L, l_model_flops);
  lua_setfield(L, podsim, "model_flops");
  lua_pushcfunction(L, l_train);
  lua_setfield(L, podsim, "train");
  lua_pushcfunction(L, l_search);
  lua_setfield(L, podsim, "search");
  lpod_register_kernel(L, "train", &pod_train_kernel, &lpod_train_cfg_type);
}
