/*
** l_trace.c: tracing values, the trace state and the study's graphs (see
** l_trace.h; the traced podsim calls are in l_trace_calls.c).
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
#include "l_trace_int.h"

#include <lauxlib.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_graph.h"
#include "pod_hw.h"
#include "pod_model.h"

#define TRACED_T "podsim.traced"
#define TRACE_KEY "lpod.trace"
#define NCHECK 8
/* Grid points traced at most (a graph each, with its config templates). */
#define TRACE_MAX_GRID 4096

/* ---------------------------------------------------------------------- */
/* tracing values                                                          */
/* ---------------------------------------------------------------------- */

/* Instructions one eval call may run in the trace state (hook lpod_trace__calls
 *of
 ** TRACE_HOOK_EVERY instructions): an eval this long is not traced. */
#define TRACE_HOOK_EVERY (1 << 16)
#define TRACE_MAX_STEPS 256

trace *lpod_trace__get(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
  trace *t = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return t;
}

/* End the trace: remember the first reason (located) and raise it. */
int lpod_trace__stop(lua_State *L, const char *fmt, ...) {
  trace *t = lpod_trace__get(L);
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
  if (t == NULL) return;
  /* the trace state's own time budget (this hook replaces the one
  ** lpod_worker_state sets) */
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb && sb->deadline_ns && uv_hrtime() > sb->deadline_ns)
    luaL_error(L, "time budget of %g s exceeded (--timeout)", sb->timeout_s);
  if (++t->steps <= TRACE_MAX_STEPS) return;
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

int lpod_trace__node(lua_State *L, int rc, const pod_err *e) {
  if (rc >= 0) return rc;
  return lpod_trace__stop(L, "%s", e->msg[0] ? e->msg : pod_strerror(rc));
}

tval *lpod_trace__test(lua_State *L, int idx) {
  return luaL_testudata(L, idx, TRACED_T);
}

tval *lpod_trace__push(lua_State *L, int kind, int node, int nvary) {
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
  lpod_trace__push(L, TV_NUM, node, 0);
}

void lpod_trace__push_gval(lua_State *L, pod_gval v) {
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
  trace *t = lpod_trace__get(L);
  pod_err e;
  pod_err_clear(&e);
  tval *v = lpod_trace__test(L, idx);
  if (v) {
    if (v->kind != TV_NUM)
      return lpod_trace__stop(L, "arithmetic on a %s", tv_noun(v));
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
    return lpod_trace__stop(L, "arithmetic on a %s value with a traced number",
                            luaL_typename(L, idx));
  }
  return lpod_trace__node(L, pod_graph_const(t->g, k, &e), &e);
}

static int record_op(lua_State *L, pod_graph_op op, int a, int b) {
  trace *t = lpod_trace__get(L);
  pod_err e;
  pod_err_clear(&e);
  lpod_where(L);
  int n = pod_graph_node_op(t->g, op, a, b, lua_tostring(L, -1), &e);
  lua_pop(L, 1);
  return lpod_trace__node(L, n, &e);
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
  return lpod_trace__stop(L, "%s", what);
}

/* Field node of a blob, pushed as a tracing number. */
static void push_field(lua_State *L, int blob, size_t off, pod_gfield_type ft) {
  trace *t = lpod_trace__get(L);
  pod_err e;
  pod_err_clear(&e);
  push_num(L,
           lpod_trace__node(L, pod_graph_field(t->g, blob, off, ft, &e), &e));
}

static const lpod_field *find_lfield(const lpod_type *t, const char *k) {
  for (const lpod_field *f = t->fields; f->name; f++)
    if (strcmp(f->name, k) == 0) return f;
  return NULL;
}

static int mm_index(lua_State *L) {
  tval *v = lpod_trace__test(L, 1);
  if (v->kind == TV_NUM) return lpod_trace__stop(L, "indexing a traced number");
  if (lua_type(L, 2) != LUA_TSTRING)
    return lpod_trace__stop(L, "indexing a %s with a non-string key",
                            tv_noun(v));
  const char *k = lua_tostring(L, 2);
  if (v->kind == TV_RESULT) {
    const tres *r = lpod_trace__find_res(v->res, k);
    if (r == NULL) return 0;
    switch (r->kind) {
      case TR_DOUBLE:
        push_field(L, v->node, lpod_trace__res_offset(v, r), POD_GF_DOUBLE);
        return 1;
      case TR_INT:
        push_field(L, v->node, lpod_trace__res_offset(v, r), POD_GF_INT);
        return 1;
      case TR_SUB: {
        tval *s = lpod_trace__push(L, TV_RESULT, v->node, 0);
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
        return lpod_trace__stop(
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
      tval *s = lpod_trace__push(L, TV_SPEC, v->node, nv);
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
    if (lpod_trace__test(L, i)) return 1;
  return 0;
}

int lpod_trace__original(lua_State *L) {
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
    return lpod_trace__stop(L, "math.%s (a different value per call)", name);
  if (!any_traced_arg(L)) return lpod_trace__original(L);
  if (op == -1) return lpod_trace__stop(L, "math.%s of a traced value", name);
  int n = lua_gettop(L);
  for (int i = 1; i <= n; i++)
    if (!lpod_trace__test(L, i) && lua_type(L, i) != LUA_TNUMBER)
      return lpod_trace__stop(L, "math.%s of a traced value and a %s", name,
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
    if (lpod_trace__test(L, 2)) {
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
    if (n < 2) return lpod_trace__stop(L, "math.fmod needs two arguments");
    b = num_node(L, 2);
  }
  push_num(L, record_op(L, gop, a, b));
  return 1;
}

static int w_type(lua_State *L) {
  tval *v = lpod_trace__test(L, 1);
  if (v == NULL) return lpod_trace__original(L);
  lua_pushstring(L, v->kind == TV_NUM      ? "number"
                    : v->kind == TV_RESULT ? "table"
                                           : "userdata");
  return 1;
}

static int w_tonumber(lua_State *L) {
  if (lua_gettop(L) == 1 && lpod_trace__test(L, 1)) {
    tval *v = lpod_trace__test(L, 1);
    if (v->kind == TV_NUM) return 1;
    lua_pushnil(L);
    return 1;
  }
  return lpod_trace__original(L);
}

static int w_stop_traced(lua_State *L) {
  int n = lua_gettop(L), traced = 0;
  for (int i = 1; i <= n && !traced; i++) traced = lpod_trace__has(L, i, 6);
  if (!traced) return lpod_trace__original(L);
  return lpod_trace__stop(L, "%s of a traced value",
                          lua_tostring(L, lua_upvalueindex(2)));
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
  for (const tcall *tc = lpod_trace__calls; tc->name; tc++) {
    lua_pushlightuserdata(L, (void *)tc);
    wrap(L, podsim, tc->key, lpod_trace__call, 1);
  }
  for (int i = 0; lpod_trace__untraced[i]; i++) {
    lua_pushfstring(L, "podsim.%s", lpod_trace__untraced[i]);
    wrap(L, podsim, lpod_trace__untraced[i], w_stop_traced, 1);
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

static int install_protected(lua_State *L) {
  install(L);
  return 0;
}

/* One graph per grid point and combination of labels (choice parameters
** over labels are constants in each trace): graph g * K + c, where c is
** the mixed-radix number of the label indices (first labeled parameter
** varying slowest). */
struct lpod_traced {
  int G, M, P, K;
  pod_graph **graphs;
  int *nlab; /* per parameter: number of labels, 0 when numeric */
};

void lpod_traced_free(lpod_traced *t) {
  if (t == NULL) return;
  for (int g = 0; t->graphs && g < t->G * t->K; g++)
    pod_graph_free(t->graphs[g]);
  free(t->graphs);
  free(t->nlab);
  free(t);
}

int lpod_traced_nodes(const lpod_traced *t, int g, int *blobs) {
  if (blobs) *blobs = pod_graph_blobs(t->graphs[g * t->K]);
  return pod_graph_live(t->graphs[g * t->K]);
}

/* Stack: fn, points.  Trace grid point g into *out; 0 or 1 with why. */
typedef struct gtrace {
  const lpod_trace_in *in;
  int g;
  const int *li; /* per parameter: label index, or -1 */
  const double *probe;
  pod_graph *graph;
  char *why;
  size_t whylen;
} gtrace;

static int trace_point(lua_State *L) {
  gtrace *gt = lua_touserdata(L, 1);
  const lpod_trace_in *in = gt->in;
  trace *tr = lpod_trace__get(L);
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
    if (gt->li[i] >= 0) { /* a label: a constant of this graph */
      lua_rawgeti(L, 4, i + 1);
      lua_rawgeti(L, -1, gt->li[i] + 1);
      lua_setfield(L, p, in->pnames[i]);
      lua_pop(L, 1);
      continue;
    }
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
    if (lua_type(L, ret) == LUA_TNUMBER || lpod_trace__test(L, ret)) {
      if (in->M != 1)
        return luaL_error(L, "eval returned a number for %d metrics", in->M);
      lua_pushvalue(L, ret);
    } else if (lua_istable(L, ret)) {
      lua_getfield(L, ret, in->mnames[m]);
    } else {
      return luaL_error(L, "eval must return a table of metrics (got %s)",
                        luaL_typename(L, ret));
    }
    tval *v = lpod_trace__test(L, -1);
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

/* Lua's eval at x in L (stack: fn, points, labels) into y; 0, or 1 when
** it fails. */
/* Lua's eval at one point (protected; arguments: the eval_at_args, the
** points, fn, the labels).  Raises when eval fails or returns no number
** for a metric. */
typedef struct eval_at_args {
  const lpod_trace_in *in;
  int g;
  const double *x;
  double *y;
} eval_at_args;

static int eval_at_protected(lua_State *L) {
  const eval_at_args *a = lua_touserdata(L, 1);
  const lpod_trace_in *in = a->in;
  lua_newtable(L);
  int p = lua_gettop(L);
  lua_rawgeti(L, 2, a->g + 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, p);
  }
  lua_pop(L, 1);
  for (int i = 0; i < in->P; i++) {
    if (in->labeled[i]) { /* the label, as the Lua evaluator passes it */
      lua_rawgeti(L, 4, i + 1);
      lua_rawgeti(L, -1, (lua_Integer)a->x[i] + 1);
      lua_setfield(L, p, in->pnames[i]);
      lua_pop(L, 1);
    } else {
      lua_pushnumber(L, a->x[i]);
      lua_setfield(L, p, in->pnames[i]);
    }
  }
  lua_pushvalue(L, 3);
  lua_insert(L, p);
  lua_call(L, 1, 1);
  for (int m = 0; m < in->M; m++) {
    if (lua_type(L, -1) == LUA_TNUMBER && in->M == 1) {
      a->y[m] = lua_tonumber(L, -1);
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, in->mnames[m]);
      if (lua_type(L, -1) != LUA_TNUMBER) return luaL_error(L, "not a number");
      a->y[m] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    } else {
      return luaL_error(L, "not a table");
    }
  }
  return 0;
}

/* Lua's eval at x in L (stack: fn, points, labels) into y; 0, or 1 when
** it fails. */
static int lua_eval_at(lua_State *L, const lpod_trace_in *in, int g,
                       const double *x, double *y) {
  eval_at_args a = {in, g, x, y};
  lua_pushcfunction(L, eval_at_protected);
  lua_pushlightuserdata(L, &a);
  lua_pushvalue(L, 2); /* points at 2 in the callee */
  lua_pushvalue(L, 1); /* fn at 3 */
  lua_pushvalue(L, 3); /* labels at 4 */
  int bad = lua_pcall(L, 4, 0, 0) != LUA_OK;
  lua_settop(L, 3);
  return bad;
}

/* Label indices of combination c (-1 for numeric parameters). */
static void combo_labels(const lpod_traced *t, int c, int *li) {
  for (int i = t->P - 1; i >= 0; i--) {
    if (t->nlab[i] == 0) {
      li[i] = -1;
      continue;
    }
    li[i] = c % t->nlab[i];
    c /= t->nlab[i];
  }
}

/* Check points: the probe, then quantiles spread over the parameters;
** labeled parameters hold the graph's label index. */
static void check_point(const lpod_trace_in *in, const int *li, int k,
                        double *x) {
  static const double q[NCHECK] = {0.5, 0.1, 0.9, 0.25, 0.75, 0.02, 0.98, 0.6};
  for (int i = 0; i < in->P; i++) {
    int j = (k + i * (k % 3 + 1)) % NCHECK;
    x[i] = li[i] >= 0 ? (double)li[i]
                      : pod_dist_quantile(&in->dists[i], k == 0 ? 0.5 : q[j]);
  }
}

/* Compare graph gi (grid point g, labels li) with Lua's eval (in T: fn,
** points, labels) at the check points, bit for bit; 0, or 1 with the
** first difference in why. */
static int check_graph(lua_State *T, pod_graph *graph, const lpod_trace_in *in,
                       int g, const int *li, int npoints, trace *tr, double *x,
                       double *y1, double *y2, char *why, size_t whylen) {
  pod_graph_ws *ws = NULL;
  pod_err e;
  pod_err_clear(&e);
  if (pod_graph_ws_new(graph, &ws, &e) != POD_OK) {
    snprintf(why, whylen, "%s", e.msg);
    return 1;
  }
  for (int k = 0; k < npoints; k++) {
    check_point(in, li, k, x);
    int bad_g = pod_graph_eval(graph, ws, x, y1, &e) != POD_OK;
    tr->steps = 0;
    int bad_l = lua_eval_at(T, in, g, x, y2);
    if (tr->stopped) {
      snprintf(why, whylen, "%s", tr->stop);
      pod_graph_ws_free(ws);
      return 1;
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
               "the traced eval and Lua disagree at grid point %d (check point "
               "%d, %s); an == test or a table lookup on a traced value?",
               g + 1, k + 1, detail);
      pod_graph_ws_free(ws);
      return 1;
    }
  }
  pod_graph_ws_free(ws);
  return 0;
}

/* Trace every (grid point, label combination) into t->graphs, then check
** each against Lua; 0, 1 (not traceable: why) or 2 (eval failed). */
static int trace_all(lua_State *T, lpod_traced *t, const lpod_trace_in *in,
                     trace *tr, int *li, double *x, double *y1, double *y2,
                     char *why, size_t whylen) {
  for (int gi = 0; gi < t->G * t->K; gi++) {
    int g = gi / t->K;
    combo_labels(t, gi % t->K, li);
    check_point(in, li, 0, x);
    pod_err e;
    pod_err_clear(&e);
    tr->stopped = 0;
    tr->stop[0] = '\0';
    tr->steps = 0;
    if (pod_graph_new(in->P, x, &tr->g, &e) != POD_OK) {
      snprintf(why, whylen, "%s", e.msg);
      return 1;
    }
    t->graphs[gi] = tr->g;
    gtrace gt = {in, g, li, x, tr->g, why, whylen};
    lua_pushcfunction(T, trace_point);
    lua_pushlightuserdata(T, &gt);
    lua_pushvalue(T, 1);
    lua_pushvalue(T, 2);
    lua_pushvalue(T, 3);
    int st = lua_pcall(T, 4, 0, 0);
    if (tr->stopped || st != LUA_OK) {
      snprintf(why, whylen, "%s",
               tr->stopped           ? tr->stop
               : lua_tostring(T, -1) ? lua_tostring(T, -1)
                                     : "eval failed");
      lua_settop(T, 3);
      return tr->stopped ? 1 : 2;
    }
  }
  tr->g = NULL;
  /* the same metrics, bit for bit, from the graphs and from Lua: every
  ** check point at the first graphs, two at the others */
  for (int gi = 0; gi < t->G * t->K; gi++) {
    combo_labels(t, gi % t->K, li);
    if (check_graph(T, t->graphs[gi], in, gi / t->K, li, gi < 4 ? NCHECK : 2,
                    tr, x, y1, y2, why, whylen))
      return 1;
  }
  return 0;
}

int lpod_trace_study(lua_State *L, int fn, int points, int labels,
                     const lpod_trace_in *in, lpod_traced **out, char *why,
                     size_t whylen) {
  *out = NULL;
  why[0] = '\0';
  lpod_traced *t = calloc(1, sizeof *t);
  double *x = calloc((size_t)in->P + 1, sizeof(double));
  double *y1 = calloc((size_t)in->M + 1, sizeof(double));
  double *y2 = calloc((size_t)in->M + 1, sizeof(double));
  int *li = calloc((size_t)in->P + 1, sizeof(int));
  lua_State *T = NULL;
  int rc = 1;
  if (!t || !x || !y1 || !y2 || !li ||
      !(t->nlab = calloc((size_t)in->P + 1, sizeof(int)))) {
    snprintf(why, whylen, "out of memory for the trace");
    goto done;
  }
  t->G = in->G;
  t->M = in->M;
  t->P = in->P;
  t->K = 1;
  labels = lua_absindex(L, labels);
  for (int i = 0; i < in->P; i++) {
    if (!in->labeled[i]) continue;
    lua_rawgeti(L, labels, i + 1);
    t->nlab[i] = (int)lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (t->nlab[i] < 1 || (double)t->K * t->nlab[i] * in->G > TRACE_MAX_GRID) {
      t->K = TRACE_MAX_GRID + 1;
      break;
    }
    t->K *= t->nlab[i];
  }
  if ((double)in->G * t->K > TRACE_MAX_GRID) {
    snprintf(why, whylen,
             "more than %d grid points and label combinations (one graph each)",
             TRACE_MAX_GRID);
    t->K = 0; /* no graphs to free */
    goto done;
  }
  t->graphs = calloc((size_t)(in->G * t->K), sizeof(pod_graph *));
  T = lpod_worker_state(in->opts, in->sb);
  if (!t->graphs || !T) {
    snprintf(why, whylen, "out of memory for the trace");
    goto done;
  }
  lua_pushcfunction(T, install_protected);
  if (lua_pcall(T, 0, 0, 0) != LUA_OK) {
    snprintf(why, whylen, "cannot set up the trace state: %s",
             lua_tostring(T, -1));
    goto done;
  }
  lua_settop(T, 0);
  if (lpod_copy_value(L, fn, T, "eval") != 0 ||
      lpod_copy_value(L, points, T, "grid") != 0 ||
      lpod_copy_value(L, labels, T, "labels") != 0) {
    snprintf(why, whylen, "%s", lua_tostring(T, -1));
    goto done;
  }
  trace tr;
  memset(&tr, 0, sizeof tr);
  lua_pushlightuserdata(T, &tr);
  lua_setfield(T, LUA_REGISTRYINDEX, TRACE_KEY);
  lua_sethook(T, trace_hook, LUA_MASKCOUNT, TRACE_HOOK_EVERY);
  rc = trace_all(T, t, in, &tr, li, x, y1, y2, why, whylen);
  if (rc == 0) {
    *out = t;
    t = NULL;
  }
done:
  if (T) {
    void *aud;
    lua_getallocf(T, &aud);
    lua_close(T);
    free(aud); /* the worker state's memory budget (host_sandbox.c) */
  }
  lpod_traced_free(t);
  free(x);
  free(y1);
  free(y2);
  free(li);
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
  /* the graph of this grid point and these labels (x holds their
  ** indices, as the per-sample Lua evaluator reads them) */
  int gi = grid * t->K, stride = 1;
  for (int i = t->P - 1; i >= 0; i--) {
    if (t->nlab[i] == 0) continue;
    int l = (int)x[i];
    if (l < 0 || l >= t->nlab[i])
      return pod_err_set(err, POD_EINVAL, "eval", "label index %d out of range",
                         l);
    gi += l * stride;
    stride *= t->nlab[i];
  }
  if (gi != w->g) {
    pod_graph_ws_free(w->ws);
    w->ws = NULL;
    w->g = -1;
    int rc = pod_graph_ws_new(t->graphs[gi], &w->ws, err);
    if (rc != POD_OK) return rc;
    w->g = gi;
  }
  return pod_graph_eval(t->graphs[gi], w->ws, x, y, err);
}

void lpod_traced_evaluator(lpod_traced *t, pod_mc_evaluator *ev) {
  memset(ev, 0, sizeof *ev); /* no chunk_begin: a graph keeps no state */
  ev->ud = t;
  ev->worker_new = tw_new;
  ev->worker_free = tw_free;
  ev->eval = tw_eval;
}
