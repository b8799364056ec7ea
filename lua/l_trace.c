/*
** l_trace.c: tracing values and the traced API (see l_trace.h).
**
** A tracing value is a full userdata of metatable "podsim.traced" naming
** a graph node: a number (arithmetic and math.* record operations), a
** spec built by podsim.system/gpu/model (field reads record field nodes)
** or a kernel result (podsim.collective/train/reliability/cost; field
** reads record field nodes).  The state's podsim functions and math
** functions are replaced by wrappers that call the original when no
** argument holds a tracing value.
*/
#include "l_trace.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_graph.h"
#include "pod_hw.h"
#include "pod_model.h"

#define TRACED_T "podsim.traced"
#define TRACE_KEY "lpod.trace"
#define MAX_LEAVES 256
#define MAX_PATCHES 512
#define MAX_FIELDS 192
#define NCHECK 8

/* ---------------------------------------------------------------------- */
/* traced calls: readers, kernels, result fields                           */
/* ---------------------------------------------------------------------- */

/* One field of a kernel's Lua result table. */
enum { TR_DOUBLE, TR_INT, TR_SUB, TR_STOP, TR_CONST };
typedef struct tres {
  const char *name;
  int kind;
  int part; /* 0: config, 1: result */
  size_t off;
  const struct tres *sub; /* TR_SUB */
} tres;

typedef struct tcall {
  const char *name;          /* "podsim.train" */
  const char *key;           /* podsim.<key> */
  const lpod_type *cfg_type; /* numeric fields of the config */
  size_t cfg_size, res_off, blob_size;
  void (*read)(lua_State *L, void *cfg);
  pod_graph_blob_fn fn;
  const tres *res;       /* NULL: a spec constructor */
  const lpod_type *spec; /* spec constructors */
} tcall;

#define RES_OFF(cfg) ((sizeof(cfg) + 15) & ~(size_t)15)

/* collective */
static void rd_coll(lua_State *L, void *c) {
  lpod_coll_read(L, -1, c);
}
static int fn_coll(void *b, pod_err *e) {
  return lpod_coll_eval(
      b, (pod_coll_result *)((char *)b + RES_OFF(pod_coll_cfg)), e);
}
/* The same when the config's system is a checked spec's, byte for byte
** (see system_is_checked): the system is not validated again. */
static int fn_coll_checked(void *b, pod_err *e) {
  pod_coll_cfg *c = b;
  pod_coll_result *r = (pod_coll_result *)((char *)b + RES_OFF(pod_coll_cfg));
  int rc = pod_coll_eval_checked(&c->system, c->op, &c->args, r, e);
  if (rc != POD_OK && e->field[0] == '\0')
    pod_err_set(e, rc, "", "%s", pod_strerror(rc));
  return rc;
}
#define CR(f) \
  { #f, TR_DOUBLE, 1, offsetof(pod_coll_result, f), NULL }
static const tres res_coll[] = {CR(time_s),
                                CR(algbw_GBps),
                                CR(busbw_GBps),
                                {"algo", TR_STOP, 1, 0, NULL},
                                {NULL, 0, 0, 0, NULL}};

/* train */
static void rd_train(lua_State *L, void *c) {
  lpod_train_read(L, c);
}
static int fn_train(void *b, pod_err *e) {
  return pod_train_eval(
      b, (pod_train_result *)((char *)b + RES_OFF(pod_train_cfg)), e);
}
#define TD(n, f) \
  { n, TR_DOUBLE, 1, offsetof(pod_train_result, f), NULL }
#define TI(n, f) \
  { n, TR_INT, 1, offsetof(pod_train_result, f), NULL }
static const tres res_train_mem[] = {
    TD("weights_gb", memory.weights_gb),
    TD("grads_gb", memory.grads_gb),
    TD("optimizer_gb", memory.optimizer_gb),
    TD("activations_gb", memory.activations_gb),
    TD("reserve_gb", memory.reserve_gb),
    TD("total_gb", memory.total_gb),
    {NULL, 0, 0, 0, NULL}};
static const tres res_train_bd[] = {TD("compute", breakdown.compute),
                                    TD("tp", breakdown.tp),
                                    TD("cp", breakdown.cp),
                                    TD("ep", breakdown.ep),
                                    TD("pp", breakdown.pp),
                                    TD("dp", breakdown.dp),
                                    TD("bubble", breakdown.bubble),
                                    TD("optimizer", breakdown.optimizer),
                                    TD("straggler", breakdown.straggler),
                                    {NULL, 0, 0, 0, NULL}};
static const tres res_train[] = {
    TD("step_s", step_s),
    TD("tokens_per_s", tokens_per_s),
    TD("tokens_per_s_per_gpu", tokens_per_s_per_gpu),
    TD("tflops_per_gpu", tflops_per_gpu),
    TD("mfu", mfu),
    TD("peak_tflops", peak_tflops),
    TD("flops_per_token", flops_per_token),
    TD("memory_gb", memory.total_gb),
    {"fits", TR_STOP, 1, 0, NULL},
    TD("eff_gemm", eff_gemm),
    TD("eff_attn", eff_attn),
    TI("microbatches", microbatches),
    TI("dp", dp),
    TI("edp", edp),
    {"memory", TR_SUB, 1, 0, res_train_mem},
    {"breakdown", TR_SUB, 1, 0, res_train_bd},
    {"config", TR_STOP, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL}};

/* reliability */
static void rd_rel(lua_State *L, void *c) {
  lpod_rel_read(L, c);
}
static int fn_rel(void *b, pod_err *e) {
  return pod_rel_eval(b, (pod_rel_result *)((char *)b + RES_OFF(pod_rel_cfg)),
                      e);
}
#define RD(f) \
  { #f, TR_DOUBLE, 1, offsetof(pod_rel_result, f), NULL }
#define RI(f) \
  { #f, TR_INT, 1, offsetof(pod_rel_result, f), NULL }
static const tres res_rel[] = {
    RD(interruptions_per_day),
    RD(job_mtbf_h),
    RD(rate_per_h),
    RD(per_gpu_hour),
    RD(hw_fraction),
    RD(checkpoint_interval_s),
    RD(p_no_spare),
    RD(down_s),
    RD(goodput),
    RD(waste),
    RD(work_h),
    RD(wall_h),
    RD(interruptions),
    RD(wait_h),
    RI(nodes),
    RI(domains),
    {"gpus", TR_INT, 0, offsetof(pod_rel_cfg, active_gpus), NULL},
    RI(spare_gpus),
    RD(spare_fraction),
    RD(gpu_hours),
    RD(gpu_hours_charged),
    {"waste_model", TR_CONST, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL}};

/* cost */
static void rd_cost(lua_State *L, void *c) {
  lpod_cost_read(L, c);
}
static int fn_cost(void *b, pod_err *e) {
  return pod_cost_eval(
      b, (pod_cost_result *)((char *)b + RES_OFF(pod_cost_cfg)), e);
}
#define KD(n, f) \
  { n, TR_DOUBLE, 1, offsetof(pod_cost_result, f), NULL }
static const tres res_cost_parts[] = {KD("capital_usd", price.capital_usd),
                                      KD("energy_usd", price.energy_usd),
                                      KD("hosting_usd", price.hosting_usd),
                                      KD("ops_usd", price.ops_usd),
                                      {NULL, 0, 0, 0, NULL}};
static const tres res_cost[] = {
    KD("usd_per_gpu_hour", price.usd_per_gpu_hour),
    {"usd_per_gpu_hour_parts", TR_SUB, 1, 0, res_cost_parts},
    KD("tokens_per_s", tokens_per_s),
    {"tokens_per_s_per_gpu", TR_DOUBLE, 0,
     offsetof(pod_cost_cfg, tokens_per_s_per_gpu), NULL},
    KD("usd_per_m_tokens", usd_per_m_tokens),
    KD("usd_per_m_tokens_excluded", usd_per_m_tokens),
    KD("usd_per_m_tokens_charged", usd_per_m_tokens_charged),
    KD("usd_per_step", usd_per_step),
    KD("usd_per_step_charged", usd_per_step_charged),
    KD("train_h", train_h),
    KD("gpu_hours", gpu_hours),
    KD("gpu_hours_charged", gpu_hours_charged),
    KD("usd_total", usd_total),
    KD("usd_total_excluded", usd_total),
    KD("usd_total_charged", usd_total_charged),
    KD("spare_fraction", spare_fraction),
    {"goodput", TR_DOUBLE, 0, offsetof(pod_cost_cfg, goodput), NULL},
    {"gpus", TR_INT, 0, offsetof(pod_cost_cfg, active_gpus), NULL},
    {"spare_gpus", TR_INT, 0, offsetof(pod_cost_cfg, spare_gpus), NULL},
    {NULL, 0, 0, 0, NULL}};

/* spec constructors: lpod_build as l_new / l_model do */
static void rd_system(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.system", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_system_type, c, NULL);
}
static void rd_gpu(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.gpu", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_gpu_type, c, NULL);
}
static void rd_model(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.model", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_model_type, c, NULL);
}
static int fn_system(void *b, pod_err *e) {
  return pod_hw_system_check(b, e);
}

/* Is the system at [base, base + sizeof(pod_system)) of a new blob with
** `patches` always the bytes of one checked system spec node?  True when
** no patch writes it (the template's system, checked when traced), or
** when every patch there copies field o of one spec node S (whose
** function checks it per sample) to base + o, and every field S patches
** is copied so. */
static int system_is_checked(const pod_graph *g, const pod_gpatch *patches,
                             int np, size_t base) {
  int spec = -1, n = 0;
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    if (p->offset < base || p->offset >= base + sizeof(pod_system)) continue;
    int b;
    size_t off;
    if (p->kind == POD_GP_BYTES || !pod_graph_field_src(g, p->src, &b, &off))
      return 0;
    if (pod_graph_blob_fn_of(g, b) != fn_system || off != p->offset - base)
      return 0;
    if (spec >= 0 && b != spec) return 0;
    spec = b;
    n++;
  }
  if (spec < 0) return 1;
  for (int i = 0; i < pod_graph_blob_npatches(g, spec); i++) {
    size_t o = pod_graph_blob_patch(g, spec, i)->offset;
    int copied = 0;
    for (int k = 0; k < np && !copied; k++)
      copied = patches[k].offset == base + o;
    if (!copied) return 0;
  }
  return n > 0;
}
static int fn_gpu(void *b, pod_err *e) {
  return pod_hw_gpu_check(b, e);
}
static int fn_model(void *b, pod_err *e) {
  return pod_model_check(b, e);
}

#define KCALL(nm, key, T, R, rd, fn, res)                         \
  {                                                               \
    nm, key, &lpod_##T##_type, sizeof(pod_##T), RES_OFF(pod_##T), \
        RES_OFF(pod_##T) + sizeof(R), rd, fn, res, NULL           \
  }
#define SCALL(nm, key, T, st, rd, fn) \
  { nm, key, &st, sizeof(T), sizeof(T), sizeof(T), rd, fn, NULL, &st }
static const tcall calls[] = {
    KCALL("podsim.collective", "collective", coll_cfg, pod_coll_result, rd_coll,
          fn_coll, res_coll),
    KCALL("podsim.train", "train", train_cfg, pod_train_result, rd_train,
          fn_train, res_train),
    KCALL("podsim.reliability", "reliability", rel_cfg, pod_rel_result, rd_rel,
          fn_rel, res_rel),
    KCALL("podsim.cost", "cost", cost_cfg, pod_cost_result, rd_cost, fn_cost,
          res_cost),
    SCALL("podsim.system", "system", pod_system, lpod_system_type, rd_system,
          fn_system),
    SCALL("podsim.gpu", "gpu", pod_gpu, lpod_gpu_type, rd_gpu, fn_gpu),
    SCALL("podsim.model", "model", pod_model, lpod_model_type, rd_model,
          fn_model),
    {NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, NULL}};

/* podsim functions that cannot take a tracing value */
static const char *const untraced[] = {
    "simulate_run", "search", "model_params", "model_flops", "failure_set",
    "failure_list", NULL};

/* ---------------------------------------------------------------------- */
/* tracing values                                                          */
/* ---------------------------------------------------------------------- */

enum { TV_NUM, TV_SPEC, TV_RESULT };

typedef struct tvary {
  size_t off;
  int isint;
} tvary;

typedef struct tval {
  int kind;
  int node;
  const tcall *call;   /* TV_SPEC, TV_RESULT */
  const tres *res;     /* TV_RESULT: fields of this (sub)table */
  const lpod_type *st; /* TV_SPEC: its type (a nested spec: the field's) */
  size_t base;         /* TV_SPEC: its offset in the blob (nested specs) */
  int nvary;           /* TV_SPEC: fields that vary per sample */
  tvary vary[];
} tval;
/* uservalue 1: the value at the probe point (spec or result table) */

typedef struct trace {
  pod_graph *g;
  int stopped;
  char stop[512];
  long steps; /* hook calls in the current eval call */
} trace;

/* Instructions one eval call may run in the trace state (hook calls of
** TRACE_HOOK_EVERY instructions): an eval this long is not traced. */
#define TRACE_HOOK_EVERY (1 << 16)
#define TRACE_MAX_STEPS 256

static trace *get_trace(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
  trace *t = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return t;
}

/* End the trace: remember the first reason (located) and raise it. */
static int trace_stop(lua_State *L, const char *fmt, ...) {
  trace *t = get_trace(L);
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  lpod_where(L);
  const char *w = lua_tostring(L, -1);
  if (t && !t->stopped) {
    t->stopped = 1;
    snprintf(t->stop, sizeof t->stop, "%s%s%s", w, w[0] ? " " : "", msg);
  }
  lua_pushfstring(L, "%s%s%s", w, w[0] ? " " : "", msg);
  return lua_error(L);
}

static void trace_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
  trace *t = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (t == NULL || ++t->steps <= TRACE_MAX_STEPS) return;
  if (!t->stopped) {
    t->stopped = 1;
    lpod_where(L);
    snprintf(t->stop, sizeof t->stop,
             "%s%seval runs more than %d million Lua instructions per call "
             "(too long to trace)",
             lua_tostring(L, -1), lua_tostring(L, -1)[0] ? " " : "",
             TRACE_MAX_STEPS * TRACE_HOOK_EVERY / 1000000);
    lua_pop(L, 1);
  }
  luaL_error(L, "%s", t->stop);
}

static int node_or_stop(lua_State *L, int rc, const pod_err *e) {
  if (rc >= 0) return rc;
  return trace_stop(L, "%s", e->msg[0] ? e->msg : pod_strerror(rc));
}

static tval *test_tval(lua_State *L, int idx) {
  return luaL_testudata(L, idx, TRACED_T);
}

static tval *push_tval(lua_State *L, int kind, int node, int nvary) {
  tval *v =
      lua_newuserdatauv(L, sizeof(tval) + sizeof(tvary) * (size_t)nvary, 1);
  memset(v, 0, sizeof *v);
  v->kind = kind;
  v->node = node;
  v->nvary = nvary;
  luaL_setmetatable(L, TRACED_T);
  return v;
}

static void push_num(lua_State *L, int node) {
  push_tval(L, TV_NUM, node, 0);
}

static void push_gval(lua_State *L, pod_gval v) {
  if (v.isint)
    lua_pushinteger(L, (lua_Integer)v.u.i);
  else
    lua_pushnumber(L, v.u.d);
}

static const char *tv_noun(const tval *v) {
  return v->kind == TV_NUM    ? "traced number"
         : v->kind == TV_SPEC ? "traced spec"
                              : "traced result";
}

/* The node of the number at idx (a tracing number, a number, or a string
** Lua would convert), recording constants; stops on anything else. */
static int num_node(lua_State *L, int idx) {
  trace *t = get_trace(L);
  pod_err e;
  pod_err_clear(&e);
  tval *v = test_tval(L, idx);
  if (v) {
    if (v->kind != TV_NUM)
      return trace_stop(L, "arithmetic on a %s", tv_noun(v));
    return v->node;
  }
  pod_gval k;
  if (lua_type(L, idx) == LUA_TNUMBER) {
    k.isint = lua_isinteger(L, idx);
    if (k.isint)
      k.u.i = (int64_t)lua_tointeger(L, idx);
    else
      k.u.d = lua_tonumber(L, idx);
  } else if (lua_type(L, idx) == LUA_TSTRING &&
             lua_stringtonumber(L, lua_tostring(L, idx))) {
    k.isint = lua_isinteger(L, -1);
    if (k.isint)
      k.u.i = (int64_t)lua_tointeger(L, -1);
    else
      k.u.d = lua_tonumber(L, -1);
    lua_pop(L, 1);
  } else {
    return trace_stop(L, "arithmetic on a %s value with a traced number",
                      luaL_typename(L, idx));
  }
  return node_or_stop(L, pod_graph_const(t->g, k, &e), &e);
}

static int record_op(lua_State *L, pod_graph_op op, int a, int b) {
  trace *t = get_trace(L);
  pod_err e;
  pod_err_clear(&e);
  lpod_where(L);
  int n = pod_graph_node_op(t->g, op, a, b, lua_tostring(L, -1), &e);
  lua_pop(L, 1);
  return node_or_stop(L, n, &e);
}

/* __add etc.: upvalue 1 is the operation, upvalue 2 is 1 for unary. */
static int mm_arith(lua_State *L) {
  pod_graph_op op = (pod_graph_op)lua_tointeger(L, lua_upvalueindex(1));
  int unary = lua_toboolean(L, lua_upvalueindex(2));
  int a = num_node(L, 1);
  int b = unary ? -1 : num_node(L, 2);
  push_num(L, record_op(L, op, a, b));
  return 1;
}

static int mm_stop(lua_State *L) {
  const char *what = lua_tostring(L, lua_upvalueindex(1));
  return trace_stop(L, "%s", what);
}

/* Field node of a blob, pushed as a tracing number. */
static void push_field(lua_State *L, int blob, size_t off, pod_gfield_type ft) {
  trace *t = get_trace(L);
  pod_err e;
  pod_err_clear(&e);
  push_num(L, node_or_stop(L, pod_graph_field(t->g, blob, off, ft, &e), &e));
}

static const tres *find_res(const tres *r, const char *k) {
  for (; r->name; r++)
    if (strcmp(r->name, k) == 0) return r;
  return NULL;
}

static const lpod_field *find_lfield(const lpod_type *t, const char *k) {
  for (const lpod_field *f = t->fields; f->name; f++)
    if (strcmp(f->name, k) == 0) return f;
  return NULL;
}

static size_t res_offset(const tval *v, const tres *r) {
  return (r->part ? v->call->res_off : 0) + r->off;
}

static int mm_index(lua_State *L) {
  tval *v = test_tval(L, 1);
  if (v->kind == TV_NUM) return trace_stop(L, "indexing a traced number");
  if (lua_type(L, 2) != LUA_TSTRING)
    return trace_stop(L, "indexing a %s with a non-string key", tv_noun(v));
  const char *k = lua_tostring(L, 2);
  if (v->kind == TV_RESULT) {
    const tres *r = find_res(v->res, k);
    if (r == NULL) return 0;
    switch (r->kind) {
      case TR_DOUBLE:
        push_field(L, v->node, res_offset(v, r), POD_GF_DOUBLE);
        return 1;
      case TR_INT:
        push_field(L, v->node, res_offset(v, r), POD_GF_INT);
        return 1;
      case TR_SUB: {
        tval *s = push_tval(L, TV_RESULT, v->node, 0);
        s->call = v->call;
        s->res = r->sub;
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, k);
        lua_setiuservalue(L, -3, 1);
        lua_pop(L, 1);
        return 1;
      }
      case TR_CONST:
        lua_getiuservalue(L, 1, 1);
        lua_getfield(L, -1, k);
        return 1;
      default:
        return trace_stop(
            L, "reading '%s' of a traced %s result (it depends on the sample)",
            k, v->call->name);
    }
  }
  /* spec: varying numeric fields are nodes, the rest is the probe's */
  const lpod_field *f = find_lfield(v->st, k);
  size_t off = f ? v->base + f->offset : 0;
  if (f && (f->type == LPOD_DOUBLE || f->type == LPOD_INT)) {
    for (int i = 0; i < v->nvary; i++)
      if (v->vary[i].off == off) {
        push_field(L, v->node, off,
                   f->type == LPOD_INT ? POD_GF_INT : POD_GF_DOUBLE);
        return 1;
      }
  } else if (f && f->type == LPOD_STRUCT) {
    int nv = 0;
    for (int i = 0; i < v->nvary; i++)
      nv += v->vary[i].off >= off && v->vary[i].off < off + f->sub->size;
    if (nv) { /* a nested spec with varying fields */
      tval *s = push_tval(L, TV_SPEC, v->node, nv);
      s->call = v->call;
      s->st = f->sub;
      s->base = off;
      nv = 0;
      for (int i = 0; i < v->nvary; i++)
        if (v->vary[i].off >= off && v->vary[i].off < off + f->sub->size)
          s->vary[nv++] = v->vary[i];
      lua_getiuservalue(L, 1, 1);
      lua_getfield(L, -1, k);
      lua_setiuservalue(L, -3, 1);
      lua_pop(L, 1);
      return 1;
    }
  }
  lua_getiuservalue(L, 1, 1);
  lua_getfield(L, -1, k);
  return 1;
}

static void open_metatable(lua_State *L) {
  if (!luaL_newmetatable(L, TRACED_T)) {
    lua_pop(L, 1);
    return;
  }
  static const struct {
    const char *mm;
    pod_graph_op op;
    int unary;
  } ar[] = {{"__add", POD_G_ADD, 0},   {"__sub", POD_G_SUB, 0},
            {"__mul", POD_G_MUL, 0},   {"__div", POD_G_DIV, 0},
            {"__mod", POD_G_MOD, 0},   {"__pow", POD_G_POW, 0},
            {"__idiv", POD_G_IDIV, 0}, {"__unm", POD_G_UNM, 1}};
  for (size_t i = 0; i < sizeof ar / sizeof ar[0]; i++) {
    lua_pushinteger(L, ar[i].op);
    lua_pushboolean(L, ar[i].unary);
    lua_pushcclosure(L, mm_arith, 2);
    lua_setfield(L, -2, ar[i].mm);
  }
  static const struct {
    const char *mm, *what;
  } st[] = {
      {"__eq", "comparison of a traced value (data-dependent control flow)"},
      {"__lt", "comparison of a traced value (data-dependent control flow)"},
      {"__le", "comparison of a traced value (data-dependent control flow)"},
      {"__concat", "concatenation of a traced value (a string of a sample)"},
      {"__tostring", "tostring of a traced value (a string of a sample)"},
      {"__len", "length of a traced value"},
      {"__call", "calling a traced value"},
      {"__newindex", "assigning into a traced value"},
      {"__pairs", "iterating over a traced value"},
      {"__band", "bitwise operation on a traced value"},
      {"__bor", "bitwise operation on a traced value"},
      {"__bxor", "bitwise operation on a traced value"},
      {"__shl", "bitwise operation on a traced value"},
      {"__shr", "bitwise operation on a traced value"},
      {"__bnot", "bitwise operation on a traced value"},
      {"__close", "closing a traced value"}};
  for (size_t i = 0; i < sizeof st / sizeof st[0]; i++) {
    lua_pushstring(L, st[i].what);
    lua_pushcclosure(L, mm_stop, 1);
    lua_setfield(L, -2, st[i].mm);
  }
  lua_pushcfunction(L, mm_index);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "traced value");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
}

/* ---------------------------------------------------------------------- */
/* math, type, tonumber                                                    */
/* ---------------------------------------------------------------------- */

static int any_traced_arg(lua_State *L) {
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++)
    if (test_tval(L, i)) return 1;
  return 0;
}

static int call_original(lua_State *L) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  return lua_gettop(L);
}

/* math.<f>: upvalue 1 original, 2 operation (-1: stops), 3 name. */
static int w_math(lua_State *L) {
  int op = (int)lua_tointeger(L, lua_upvalueindex(2));
  const char *name = lua_tostring(L, lua_upvalueindex(3));
  if (op == -2)
    return trace_stop(L, "math.%s (a different value per call)", name);
  if (!any_traced_arg(L)) return call_original(L);
  if (op == -1) return trace_stop(L, "math.%s of a traced value", name);
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++)
    if (!test_tval(L, i) && lua_type(L, i) != LUA_TNUMBER)
      return trace_stop(L, "math.%s of a traced value and a %s", name,
                        luaL_typename(L, i));
  pod_graph_op gop = (pod_graph_op)op;
  if (gop == POD_G_MIN || gop == POD_G_MAX) {
    int acc = num_node(L, 1);
    for (int i = 2; i <= n; i++) acc = record_op(L, gop, acc, num_node(L, i));
    push_num(L, acc);
    return 1;
  }
  int a = num_node(L, 1);
  if (gop == POD_G_LOG && n >= 2 && !lua_isnil(L, 2)) {
    if (test_tval(L, 2)) {
      gop = POD_G_LOGB;
    } else {
      double base = lua_tonumber(L, 2);
      gop = base == 2.0 ? POD_G_LOG2 : base == 10.0 ? POD_G_LOG10 : POD_G_LOGB;
    }
    int b = gop == POD_G_LOGB ? num_node(L, 2) : -1;
    push_num(L, record_op(L, gop, a, b));
    return 1;
  }
  int b = -1;
  if (gop == POD_G_ATAN) {
    if (n >= 2) {
      b = num_node(L, 2);
    } else {
      lua_pushnumber(L, 1.0);
      b = num_node(L, -1);
      lua_pop(L, 1);
    }
  } else if (gop == POD_G_FMOD) {
    if (n < 2) return trace_stop(L, "math.fmod needs two arguments");
    b = num_node(L, 2);
  }
  push_num(L, record_op(L, gop, a, b));
  return 1;
}

static int w_type(lua_State *L) {
  tval *v = test_tval(L, 1);
  if (v == NULL) return call_original(L);
  lua_pushstring(L, v->kind == TV_NUM      ? "number"
                    : v->kind == TV_RESULT ? "table"
                                           : "userdata");
  return 1;
}

static int w_tonumber(lua_State *L) {
  if (lua_gettop(L) == 1 && test_tval(L, 1)) {
    tval *v = test_tval(L, 1);
    if (v->kind == TV_NUM) return 1;
    lua_pushnil(L);
    return 1;
  }
  return call_original(L);
}

static int has_traced(lua_State *L, int idx, int depth);

static int w_stop_traced(lua_State *L) {
  int n = lua_gettop(L), traced = 0;
  for (int i = 1; i <= n && !traced; i++) traced = has_traced(L, i, 6);
  if (!traced) return call_original(L);
  return trace_stop(L, "%s of a traced value",
                    lua_tostring(L, lua_upvalueindex(2)));
}

/* ---------------------------------------------------------------------- */
/* traced API calls                                                        */
/* ---------------------------------------------------------------------- */

static int has_traced(lua_State *L, int idx, int depth) {
  if (test_tval(L, idx)) return 1;
  if (depth <= 0 || lua_type(L, idx) != LUA_TTABLE) return 0;
  idx = lua_absindex(L, idx);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (has_traced(L, -1, depth - 1) || test_tval(L, -2)) {
      lua_pop(L, 2);
      return 1;
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* A scalar the traced call depends on, and where it sits in the concrete
** arguments: lt[3j+1] container, lt[3j+2] key, lt[3j+3] original value. */
typedef struct leaf {
  int node;
  pod_gval v0;
  const lpod_type *st; /* spec field of the value at container[key] */
  size_t soff;
  char path[96];
} leaf;

typedef struct cctx {
  trace *tr;
  leaf *leaves;
  int nleaves;
  int lt; /* stack index of the leaf table */
} cctx;

static void add_leaf(lua_State *L, cctx *c, int cont, int key, int orig,
                     int node, const lpod_type *st, size_t soff,
                     const char *path) {
  if (c->nleaves >= MAX_LEAVES)
    trace_stop(L, "more than %d traced values in one call", MAX_LEAVES);
  leaf *lf = &c->leaves[c->nleaves];
  lf->node = node;
  lf->v0 = pod_graph_probe(c->tr->g, node);
  lf->st = st;
  lf->soff = soff;
  snprintf(lf->path, sizeof lf->path, "%s", path);
  int j = c->nleaves++;
  lua_pushvalue(L, cont);
  lua_rawseti(L, c->lt, 3 * j + 1);
  lua_pushvalue(L, key);
  lua_rawseti(L, c->lt, 3 * j + 2);
  lua_pushvalue(L, orig);
  lua_rawseti(L, c->lt, 3 * j + 3);
}

static void concretize(lua_State *L, cctx *c, int v, int cont, int key,
                       const char *path, int depth);

/* Concrete copy of the result table R (at r) whose fields `res` are leaves
** (fields of the config part that no patch writes are constants). */
static void copy_result(lua_State *L, cctx *c, const tval *tv, const tres *res,
                        int r, const char *path) {
  r = lua_absindex(L, r);
  lua_newtable(L);
  int copy = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, r)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, copy);
  }
  for (const tres *d = res; d->name; d++) {
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, d->name);
    if (d->kind == TR_DOUBLE || d->kind == TR_INT) {
      size_t off = res_offset(tv, d),
             w = d->kind == TR_INT ? sizeof(int) : sizeof(double);
      if (d->part == 0 && !pod_graph_blob_writes(c->tr->g, tv->node, off, w))
        continue;
      pod_err e;
      pod_err_clear(&e);
      int n =
          pod_graph_field(c->tr->g, tv->node, off,
                          d->kind == TR_INT ? POD_GF_INT : POD_GF_DOUBLE, &e);
      node_or_stop(L, n, &e);
      lua_getfield(L, copy, d->name); /* the probe value */
      lua_pushstring(L, d->name);
      add_leaf(L, c, copy, lua_gettop(L), lua_gettop(L) - 1, n, NULL, 0, p);
      lua_pop(L, 2);
    } else if (d->kind == TR_SUB) {
      if (lua_getfield(L, r, d->name) == LUA_TTABLE) {
        copy_result(L, c, tv, d->sub, -1, p);
        lua_setfield(L, copy, d->name);
      }
      lua_pop(L, 1);
    }
  }
  lua_settop(L, copy);
}

static void concretize(lua_State *L, cctx *c, int v, int cont, int key,
                       const char *path, int depth) {
  v = lua_absindex(L, v);
  tval *tv = test_tval(L, v);
  if (tv && tv->kind == TV_NUM) {
    push_gval(L, pod_graph_probe(c->tr->g, tv->node));
    add_leaf(L, c, cont, key, lua_gettop(L), tv->node, NULL, 0, path);
  } else if (tv && tv->kind == TV_SPEC) {
    lua_getiuservalue(L, v, 1);
    int sv = lua_gettop(L);
    for (int i = 0; i < tv->nvary; i++) {
      pod_err e;
      pod_err_clear(&e);
      int n =
          pod_graph_field(c->tr->g, tv->node, tv->vary[i].off,
                          tv->vary[i].isint ? POD_GF_INT : POD_GF_DOUBLE, &e);
      node_or_stop(L, n, &e);
      add_leaf(L, c, cont, key, sv, n, tv->st, tv->vary[i].off - tv->base,
               path);
    }
  } else if (tv) {
    lua_getiuservalue(L, v, 1);
    copy_result(L, c, tv, tv->res, -1, path);
    lua_remove(L, -2);
  } else if (lua_type(L, v) == LUA_TTABLE && depth > 0 &&
             has_traced(L, v, depth)) {
    if (lua_getmetatable(L, v))
      return (void)trace_stop(
          L, "%s: a table with a metatable holds a traced value", path);
    lua_newtable(L);
    int copy = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, v)) { /* key, value */
      if (test_tval(L, -2))
        trace_stop(L, "%s: a traced value used as a table key", path);
      char p[96];
      if (lua_type(L, -2) == LUA_TSTRING)
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "",
                 lua_tostring(L, -2));
      else
        snprintf(p, sizeof p, "%s[%lld]", path,
                 (long long)lua_tointeger(L, -2));
      concretize(L, c, -1, copy, lua_gettop(L) - 1, p, depth - 1);
      lua_pop(L, 1);
    }
  } else {
    lua_pushvalue(L, v);
  }
  /* stack: concrete value on the top */
  lua_pushvalue(L, key);
  lua_insert(L, -2);
  lua_rawset(L, cont);
}

/* Read the concrete arguments (argt[1..nargs]) into out; 0 or the error
** message pushed. */
static int rd_tramp(lua_State *L) {
  const tcall *tc = lua_touserdata(L, lua_upvalueindex(1));
  void *out = lua_touserdata(L, lua_upvalueindex(2));
  tc->read(L, out);
  return 0;
}

static int call_read(lua_State *L, const tcall *tc, int argt, int nargs,
                     void *out) {
  memset(out, 0, tc->cfg_size);
  lua_pushlightuserdata(L, (void *)tc);
  lua_pushlightuserdata(L, out);
  lua_pushcclosure(L, rd_tramp, 2);
  for (int i = 1; i <= nargs; i++) lua_rawgeti(L, argt, i);
  if (lua_pcall(L, nargs, 0, 0) != LUA_OK) return 1;
  return 0;
}

/* Numeric fields of a config type, flattened. */
typedef struct nfield {
  size_t off;
  const lpod_field *f;
  char path[80];
} nfield;

static void flatten(const lpod_type *t, size_t base, const char *prefix,
                    nfield *out, int *n) {
  for (const lpod_field *f = t->fields; f->name; f++) {
    char p[80];
    snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "", f->name);
    if (f->type == LPOD_STRUCT) {
      flatten(f->sub, base + f->offset, p, out, n);
    } else if ((f->type == LPOD_DOUBLE || f->type == LPOD_INT) &&
               *n < MAX_FIELDS) {
      out[*n].off = base + f->offset;
      out[*n].f = f;
      snprintf(out[*n].path, sizeof out[*n].path, "%s", p);
      (*n)++;
    }
  }
}

/* Set leaf j's value to x (or back to its original when restore). */
static void set_leaf(lua_State *L, cctx *c, int j, pod_gval x, int restore) {
  leaf *lf = &c->leaves[j];
  lua_rawgeti(L, c->lt, 3 * j + 1);
  lua_rawgeti(L, c->lt, 3 * j + 2);
  if (restore) {
    lua_rawgeti(L, c->lt, 3 * j + 3);
  } else if (lf->st) {
    lua_rawgeti(L, c->lt, 3 * j + 3);
    const void *orig = lua_touserdata(L, -1);
    char buf[sizeof(pod_model) > sizeof(pod_system) ? sizeof(pod_model)
                                                    : sizeof(pod_system)];
    memcpy(buf, orig, lf->st->size);
    if (x.isint) {
      int iv = (int)x.u.i;
      memcpy(buf + lf->soff, &iv, sizeof iv);
    } else {
      memcpy(buf + lf->soff, &x.u.d, sizeof x.u.d);
    }
    lua_pop(L, 1);
    lpod_push(L, lf->st, buf);
  } else {
    push_gval(L, x);
  }
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Candidate variations of a leaf value. */
static int variations(pod_gval v, pod_gval *out) {
  int n = 0;
  if (v.isint) {
    int64_t d[] = {1, -1, 2, -2};
    for (int i = 0; i < 4; i++) {
      out[n].isint = 1;
      out[n++].u.i = v.u.i + d[i];
    }
    return n;
  }
  double x = v.u.d;
  double f[] = {1.25, 0.8, 1 + 0x1p-20, 1 - 0x1p-20};
  for (int i = 0; i < 4; i++) {
    out[n].isint = 0;
    out[n++].u.d = x != 0 ? x * f[i]
                          : (i == 0   ? 0.5
                             : i == 1 ? 1e-3
                             : i == 2 ? 1.0
                                      : 0x1p-20);
  }
  return n;
}

static double gnum(pod_gval v) {
  return v.isint ? (double)v.u.i : v.u.d;
}

/* Compare configs t0 and t1 (leaf j varied to x1) and append the patches
** that explain every changed byte; stops when something cannot be
** explained. */
static void map_leaf(lua_State *L, const tcall *tc, const nfield *fl, int nf,
                     const leaf *lf, const unsigned char *t0,
                     const unsigned char *t1, pod_gval x1, pod_gpatch *patches,
                     int *np) {
  unsigned char *seen = lua_newuserdatauv(L, tc->cfg_size, 0);
  memset(seen, 0, tc->cfg_size);
  double a0 = gnum(lf->v0), a1 = gnum(x1);
  for (int i = 0; i < nf; i++) {
    size_t off = fl[i].off,
           w = fl[i].f->type == LPOD_INT ? sizeof(int) : sizeof(double);
    if (memcmp(t0 + off, t1 + off, w) == 0) continue;
    memset(seen + off, 1, w);
    if (*np >= MAX_PATCHES)
      trace_stop(L, "%s: too many traced fields", tc->name);
    pod_gpatch *p = &patches[(*np)++];
    memset(p, 0, sizeof *p);
    p->offset = off;
    p->src = lf->node;
    p->min = fl[i].f->min;
    p->max = fl[i].f->max;
    p->min_open = fl[i].f->min_open;
    p->field = fl[i].path;
    if (fl[i].f->type == LPOD_INT) {
      int i0, i1;
      memcpy(&i0, t0 + off, sizeof i0);
      memcpy(&i1, t1 + off, sizeof i1);
      if (!(a0 == floor(a0) && a1 == floor(a1) && i0 == (int)a0 &&
            i1 == (int)a1))
        trace_stop(L,
                   "%s: the traced value at '%s' reaches '%s' through a "
                   "computation the trace does not know",
                   tc->name, lf->path, fl[i].path);
      p->kind = POD_GP_INT;
      continue;
    }
    double d0, d1;
    memcpy(&d0, t0 + off, sizeof d0);
    memcpy(&d1, t1 + off, sizeof d1);
    if (d0 == a0 && d1 == a1) {
      p->kind = POD_GP_DOUBLE;
    } else if (d0 == log10(a0) && d1 == log10(a1)) {
      p->kind = POD_GP_LOG10;
      p->min = pow(10, fl[i].f->min);
      p->max = pow(10, fl[i].f->max);
      p->min_open = 1;
    } else {
      trace_stop(L,
                 "%s: the traced value at '%s' reaches '%s' through a "
                 "computation the trace does not know",
                 tc->name, lf->path, fl[i].path);
    }
  }
  for (size_t b = 0; b < tc->cfg_size; b++)
    if (t0[b] != t1[b] && !seen[b])
      trace_stop(L,
                 "%s: the traced value at '%s' changes a non-numeric part of "
                 "the config",
                 tc->name, lf->path);
  lua_pop(L, 1);
}

/* Every field of R (at r) matches the probe blob, and has a descriptor. */
static void verify_result(lua_State *L, const tcall *tc, const tres *res,
                          const unsigned char *blob, int r) {
  r = lua_absindex(L, r);
  lua_pushnil(L);
  while (lua_next(L, r)) {
    const tres *d = lua_type(L, -2) == LUA_TSTRING
                        ? find_res(res, lua_tostring(L, -2))
                        : NULL;
    if (d == NULL)
      trace_stop(L, "%s: result field '%s' is unknown to the trace", tc->name,
                 lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
    size_t off = (d->part ? tc->res_off : 0) + d->off;
    int ok = 1;
    if (d->kind == TR_DOUBLE) {
      double x;
      memcpy(&x, blob + off, sizeof x);
      ok = lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1) &&
           lua_tonumber(L, -1) == x;
    } else if (d->kind == TR_INT) {
      int x;
      memcpy(&x, blob + off, sizeof x);
      ok = lua_isinteger(L, -1) && lua_tointeger(L, -1) == x;
    } else if (d->kind == TR_SUB) {
      verify_result(L, tc, d->sub, blob, -1);
    }
    if (!ok)
      trace_stop(L, "%s: result field '%s' differs from the binding's",
                 tc->name, d->name);
    lua_pop(L, 1);
  }
}

/* The wrapper of a traced podsim function: upvalue 1 original, 2 tcall. */
static int w_call(lua_State *L) {
  const tcall *tc = lua_touserdata(L, lua_upvalueindex(2));
  int nargs = lua_gettop(L);
  int traced = 0;
  for (int i = 1; i <= nargs && !traced; i++) traced = has_traced(L, i, 6);
  if (!traced) return call_original(L);
  cctx c;
  c.tr = get_trace(L);
  c.nleaves = 0;
  c.leaves = lua_newuserdatauv(L, sizeof(leaf) * MAX_LEAVES, 0);
  lua_newtable(L);
  c.lt = lua_gettop(L);
  lua_createtable(L, nargs, 0);
  int argt = lua_gettop(L);
  for (int i = 1; i <= nargs; i++) {
    char p[32];
    snprintf(p, sizeof p, "arg%d", i);
    lua_pushinteger(L, i);
    concretize(L, &c, i, argt, lua_gettop(L), i == 1 && nargs == 1 ? "" : p, 6);
    lua_pop(L, 1);
  }
  unsigned char *t0 = lua_newuserdatauv(L, tc->blob_size, 0);
  unsigned char *t1 = lua_newuserdatauv(L, tc->cfg_size, 0);
  memset(t0, 0, tc->blob_size);
  if (call_read(L, tc, argt, nargs, t0))
    return lua_error(L); /* the binding's own error */
  nfield *fl = lua_newuserdatauv(L, sizeof(nfield) * MAX_FIELDS, 0);
  int nf = 0;
  flatten(tc->cfg_type, 0, "", fl, &nf);
  pod_gpatch *patches =
      lua_newuserdatauv(L, sizeof(pod_gpatch) * MAX_PATCHES, 0);
  int np = 0;
  for (int j = 0; j < c.nleaves; j++) {
    pod_gval cand[4];
    int nc = variations(c.leaves[j].v0, cand), mapped = 0;
    for (int k = 0; k < nc && !mapped; k++) {
      set_leaf(L, &c, j, cand[k], 0);
      int bad = call_read(L, tc, argt, nargs, t1);
      set_leaf(L, &c, j, cand[k], 1);
      if (bad) {
        lua_pop(L, 1);
        continue;
      }
      map_leaf(L, tc, fl, nf, &c.leaves[j], t0, t1, cand[k], patches, &np);
      mapped = 1;
    }
    if (!mapped)
      trace_stop(L,
                 "%s: cannot vary the traced value at '%s' (every variation is "
                 "rejected)",
                 tc->name, c.leaves[j].path);
  }
  pod_gblob_spec bs;
  memset(&bs, 0, sizeof bs);
  bs.name = tc->name;
  lpod_where(L);
  bs.where = lua_tostring(L, -1);
  bs.size = tc->blob_size;
  bs.tmpl = t0;
  bs.fn = tc->fn;
  if (tc->fn == fn_coll &&
      system_is_checked(c.tr->g, patches, np, offsetof(pod_coll_cfg, system)))
    bs.fn = fn_coll_checked;
  bs.patches = patches;
  bs.npatches = np;
  pod_err e;
  pod_err_clear(&e);
  int node = pod_graph_blob(c.tr->g, &bs, &e);
  lua_pop(L, 1); /* where */
  if (node < 0) {
    /* the binding fails at the probe too: raise its error */
    return lpod_error(L, NULL, NULL, "%s", e.msg);
  }
  const unsigned char *pb = pod_graph_probe_blob(c.tr->g, node);
  if (memcmp(pb, t0, tc->cfg_size) != 0)
    return trace_stop(L, "%s: the traced config differs from the binding's",
                      tc->name);
  if (tc->res) {
    lua_pushvalue(L, lua_upvalueindex(1));
    for (int i = 1; i <= nargs; i++) lua_rawgeti(L, argt, i);
    lua_call(L, nargs, 1); /* the binding's result at the probe */
    if (!lua_istable(L, -1))
      return trace_stop(L, "%s: unexpected result", tc->name);
    verify_result(L, tc, tc->res, pb, -1);
    int r = lua_gettop(L);
    tval *v = push_tval(L, TV_RESULT, node, 0);
    v->call = tc;
    v->res = tc->res;
    lua_pushvalue(L, r);
    lua_setiuservalue(L, -2, 1);
    return 1;
  }
  /* a spec: its varying fields are the patched ones */
  int nv = 0;
  tvary vary[MAX_PATCHES];
  for (int i = 0; i < np; i++) {
    int dup = 0;
    for (int k = 0; k < nv; k++) dup |= vary[k].off == patches[i].offset;
    if (dup) continue;
    vary[nv].off = patches[i].offset;
    vary[nv++].isint = patches[i].kind == POD_GP_INT;
  }
  tval *v = push_tval(L, TV_SPEC, node, nv);
  v->call = tc;
  v->st = tc->spec;
  memcpy(v->vary, vary, sizeof(tvary) * (size_t)nv);
  lpod_push(L, tc->spec, pb);
  lua_setiuservalue(L, -2, 1);
  return 1;
}

/* ---------------------------------------------------------------------- */
/* the trace state                                                         */
/* ---------------------------------------------------------------------- */

static void wrap(lua_State *L, int tbl, const char *key, lua_CFunction w,
                 int nup_extra) {
  /* stack: extra upvalues (nup_extra) on the top */
  lua_getfield(L, tbl, key);
  if (!lua_isfunction(L, -1)) {
    lua_pop(L, 1 + nup_extra);
    return;
  }
  lua_insert(L, -1 - nup_extra);
  lua_pushcclosure(L, w, 1 + nup_extra);
  lua_pushstring(L, key);
  lua_insert(L, -2);
  lua_rawset(L, tbl);
}

/* Replace podsim's traced functions, math and type/tonumber in L. */
static void install(lua_State *L) {
  open_metatable(L);
  lua_getglobal(L, "podsim");
  int podsim = lua_gettop(L);
  for (const tcall *tc = calls; tc->name; tc++) {
    lua_pushlightuserdata(L, (void *)tc);
    wrap(L, podsim, tc->key, w_call, 1);
  }
  for (int i = 0; untraced[i]; i++) {
    lua_pushfstring(L, "podsim.%s", untraced[i]);
    wrap(L, podsim, untraced[i], w_stop_traced, 1);
  }
  lua_pop(L, 1);
  lua_getglobal(L, "math");
  int math = lua_gettop(L);
  static const struct {
    const char *name;
    int op;
  } mf[] = {{"floor", POD_G_FLOOR}, {"ceil", POD_G_CEIL}, {"abs", POD_G_ABS},
            {"sqrt", POD_G_SQRT},   {"exp", POD_G_EXP},   {"log", POD_G_LOG},
            {"sin", POD_G_SIN},     {"cos", POD_G_COS},   {"tan", POD_G_TAN},
            {"asin", POD_G_ASIN},   {"acos", POD_G_ACOS}, {"atan", POD_G_ATAN},
            {"fmod", POD_G_FMOD},   {"min", POD_G_MIN},   {"max", POD_G_MAX},
            {"modf", -1},           {"tointeger", -1},    {"ult", -1},
            {"type", -1},           {"random", -2},       {"randomseed", -2}};
  for (size_t i = 0; i < sizeof mf / sizeof mf[0]; i++) {
    lua_pushinteger(L, mf[i].op);
    lua_pushstring(L, mf[i].name);
    wrap(L, math, mf[i].name, w_math, 2);
  }
  lua_pop(L, 1);
  lua_pushglobaltable(L);
  int g = lua_gettop(L);
  wrap(L, g, "type", w_type, 0);
  wrap(L, g, "tonumber", w_tonumber, 0);
  lua_pop(L, 1);
}

struct lpod_traced {
  int G, M, P;
  pod_graph **graphs;
};

void lpod_traced_free(lpod_traced *t) {
  if (t == NULL) return;
  for (int g = 0; g < t->G; g++) pod_graph_free(t->graphs[g]);
  free(t->graphs);
  free(t);
}

int lpod_traced_nodes(const lpod_traced *t, int g, int *blobs) {
  if (blobs) *blobs = pod_graph_blobs(t->graphs[g]);
  return pod_graph_live(t->graphs[g]);
}

/* Stack: fn, points.  Trace grid point g into *out; 0 or 1 with why. */
typedef struct gtrace {
  const lpod_trace_in *in;
  int g;
  const double *probe;
  pod_graph *graph;
  char *why;
  size_t whylen;
} gtrace;

static int trace_point(lua_State *L) {
  gtrace *gt = lua_touserdata(L, 1);
  const lpod_trace_in *in = gt->in;
  trace *tr = get_trace(L);
  pod_err e;
  pod_err_clear(&e);
  /* p: the grid point's values and a tracing number per parameter */
  lua_newtable(L);
  int p = lua_gettop(L);
  lua_rawgeti(L, 3, gt->g + 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, p);
  }
  lua_pop(L, 1);
  for (int i = 0; i < in->P; i++) {
    int n = pod_graph_param(tr->g, i, &e);
    if (n < 0) return luaL_error(L, "%s", e.msg);
    push_num(L, n);
    lua_setfield(L, p, in->pnames[i]);
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, p);
  lua_call(L, 1, 1);
  /* metrics */
  int *outs = lua_newuserdatauv(L, sizeof(int) * (size_t)in->M, 0);
  int ret = lua_gettop(L) - 1;
  for (int m = 0; m < in->M; m++) {
    if (lua_type(L, ret) == LUA_TNUMBER || test_tval(L, ret)) {
      if (in->M != 1)
        return luaL_error(L, "eval returned a number for %d metrics", in->M);
      lua_pushvalue(L, ret);
    } else if (lua_istable(L, ret)) {
      lua_getfield(L, ret, in->mnames[m]);
    } else {
      return luaL_error(L, "eval must return a table of metrics (got %s)",
                        luaL_typename(L, ret));
    }
    tval *v = test_tval(L, -1);
    if (v && v->kind != TV_NUM)
      return luaL_error(L, "metric '%s' is a %s", in->mnames[m], tv_noun(v));
    if (v == NULL && lua_type(L, -1) != LUA_TNUMBER)
      return luaL_error(L,
                        "eval returned %s for metric '%s' (a number is needed)",
                        luaL_typename(L, -1), in->mnames[m]);
    outs[m] = num_node(L, -1);
    lua_pop(L, 1);
  }
  if (pod_graph_finish(tr->g, outs, in->M, &e) != POD_OK)
    return luaL_error(L, "%s", e.msg);
  return 0;
}

/* Lua's eval at x in L (stack: fn, points) into y; 0, or 1 when it fails. */
static int lua_eval_at(lua_State *L, const lpod_trace_in *in, int g,
                       const double *x, double *y) {
  lua_newtable(L);
  int p = lua_gettop(L);
  lua_rawgeti(L, 2, g + 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, p);
  }
  lua_pop(L, 1);
  for (int i = 0; i < in->P; i++) {
    lua_pushnumber(L, x[i]);
    lua_setfield(L, p, in->pnames[i]);
  }
  lua_pushvalue(L, 1);
  lua_insert(L, p);
  int bad = lua_pcall(L, 1, 1, 0) != LUA_OK;
  for (int m = 0; !bad && m < in->M; m++) {
    if (lua_type(L, -1) == LUA_TNUMBER && in->M == 1) {
      y[m] = lua_tonumber(L, -1);
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, in->mnames[m]);
      bad = lua_type(L, -1) != LUA_TNUMBER;
      y[m] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    } else {
      bad = 1;
    }
  }
  lua_settop(L, 2);
  return bad;
}

/* Check points: the probe, then quantiles spread over the parameters. */
static void check_point(const lpod_trace_in *in, int k, double *x) {
  static const double q[NCHECK] = {0.5, 0.1, 0.9, 0.25, 0.75, 0.02, 0.98, 0.6};
  for (int i = 0; i < in->P; i++) {
    int j = (k + i * (k % 3 + 1)) % NCHECK;
    x[i] = pod_dist_quantile(&in->dists[i], k == 0 ? 0.5 : q[j]);
  }
}

int lpod_trace_study(lua_State *L, int fn, int points, const lpod_trace_in *in,
                     lpod_traced **out, char *why, size_t whylen) {
  *out = NULL;
  why[0] = '\0';
  for (int i = 0; i < in->P; i++)
    if (in->labeled[i]) {
      snprintf(why, whylen, "parameter '%s' is a choice of labels",
               in->pnames[i]);
      return 1;
    }
  lpod_traced *t = calloc(1, sizeof *t);
  double *x = calloc((size_t)in->P + 1, sizeof(double));
  double *y1 = calloc((size_t)in->M + 1, sizeof(double));
  double *y2 = calloc((size_t)in->M + 1, sizeof(double));
  lua_State *T = lpod_worker_state(in->opts);
  if (t) t->graphs = calloc((size_t)in->G, sizeof(pod_graph *));
  int rc = 1;
  if (!t || !x || !y1 || !y2 || !T || !t->graphs) {
    snprintf(why, whylen, "out of memory for the trace");
    goto done;
  }
  t->G = in->G;
  t->M = in->M;
  t->P = in->P;
  install(T);
  lua_settop(T, 0);
  if (lpod_copy_value(L, fn, T, "eval") != 0 ||
      lpod_copy_value(L, points, T, "grid") != 0) {
    snprintf(why, whylen, "%s", lua_tostring(T, -1));
    goto done;
  }
  trace tr;
  memset(&tr, 0, sizeof tr);
  lua_pushlightuserdata(T, &tr);
  lua_setfield(T, LUA_REGISTRYINDEX, TRACE_KEY);
  lua_sethook(T, trace_hook, LUA_MASKCOUNT, TRACE_HOOK_EVERY);
  check_point(in, 0, x);
  for (int g = 0; g < in->G; g++) {
    pod_err e;
    pod_err_clear(&e);
    tr.stopped = 0;
    tr.stop[0] = '\0';
    tr.steps = 0;
    if (pod_graph_new(in->P, x, &tr.g, &e) != POD_OK) {
      snprintf(why, whylen, "%s", e.msg);
      goto done;
    }
    t->graphs[g] = tr.g;
    gtrace gt = {in, g, x, tr.g, why, whylen};
    lua_pushcfunction(T, trace_point);
    lua_pushlightuserdata(T, &gt);
    lua_pushvalue(T, 1);
    lua_pushvalue(T, 2);
    int st = lua_pcall(T, 3, 0, 0);
    if (tr.stopped) {
      snprintf(why, whylen, "%s", tr.stop);
      lua_settop(T, 2);
      goto done;
    }
    if (st != LUA_OK) {
      snprintf(why, whylen, "%s",
               lua_tostring(T, -1) ? lua_tostring(T, -1) : "eval failed");
      lua_settop(T, 2);
      rc = 2;
      goto done;
    }
  }
  tr.g = NULL;
  /* the same metrics, bit for bit, from the graph and from Lua */
  for (int g = 0; g < in->G; g++) {
    pod_graph_ws *ws = NULL;
    pod_err e;
    pod_err_clear(&e);
    if (pod_graph_ws_new(t->graphs[g], &ws, &e) != POD_OK) {
      snprintf(why, whylen, "%s", e.msg);
      goto done;
    }
    /* every check point at the first grid points, two at the others */
    for (int k = 0; k < (g < 4 ? NCHECK : 2); k++) {
      check_point(in, k, x);
      int bad_g = pod_graph_eval(t->graphs[g], ws, x, y1, &e) != POD_OK;
      tr.steps = 0;
      int bad_l = lua_eval_at(T, in, g, x, y2);
      if (tr.stopped) {
        snprintf(why, whylen, "%s", tr.stop);
        pod_graph_ws_free(ws);
        goto done;
      }
      int same = bad_g == bad_l, m = 0;
      for (; same && !bad_g && m < in->M; m++)
        if (memcmp(&y1[m], &y2[m], sizeof(double)) != 0) same = 0;
      if (!same) {
        char detail[POD_ERR_MSG_MAX + 64];
        if (bad_g != bad_l)
          snprintf(detail, sizeof detail, "%s", bad_g ? e.msg : "Lua failed");
        else
          snprintf(detail, sizeof detail,
                   "metric '%s': %.17g traced, %.17g in Lua", in->mnames[m - 1],
                   y1[m - 1], y2[m - 1]);
        snprintf(why, whylen,
                 "the traced eval and Lua disagree at grid point %d (check "
                 "point %d, %s); "
                 "an == test or a table lookup on a traced value?",
                 g + 1, k + 1, detail);
        pod_graph_ws_free(ws);
        goto done;
      }
    }
    pod_graph_ws_free(ws);
  }
  rc = 0;
  *out = t;
  t = NULL;
done:
  if (T) {
    void *aud;
    lua_getallocf(T, &aud);
    lua_close(T);
    free(aud); /* the worker state's memory budget (host.c) */
  }
  lpod_traced_free(t);
  free(x);
  free(y1);
  free(y2);
  return rc;
}

/* ---------------------------------------------------------------------- */
/* the plan evaluator                                                      */
/* ---------------------------------------------------------------------- */

typedef struct tworker {
  int g;
  pod_graph_ws *ws;
} tworker;

static void *tw_new(void *ud, pod_err *err) {
  (void)ud;
  tworker *w = calloc(1, sizeof *w);
  if (w == NULL)
    pod_err_set(err, POD_ENOMEM, "eval", "out of memory for a worker");
  else
    w->g = -1;
  return w;
}

static void tw_free(void *ud, void *worker) {
  (void)ud;
  tworker *w = worker;
  if (w == NULL) return;
  pod_graph_ws_free(w->ws);
  free(w);
}

static int tw_eval(void *ud, void *worker, int grid, const double *x, double *y,
                   pod_err *err) {
  lpod_traced *t = ud;
  tworker *w = worker;
  if (grid != w->g) {
    pod_graph_ws_free(w->ws);
    w->ws = NULL;
    w->g = -1;
    int rc = pod_graph_ws_new(t->graphs[grid], &w->ws, err);
    if (rc != POD_OK) return rc;
    w->g = grid;
  }
  return pod_graph_eval(t->graphs[grid], w->ws, x, y, err);
}

void lpod_traced_evaluator(lpod_traced *t, pod_mc_evaluator *ev) {
  ev->ud = t;
  ev->worker_new = tw_new;
  ev->worker_free = tw_free;
  ev->eval = tw_eval;
}
