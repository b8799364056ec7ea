/*
** l_trace.c: tracing values, the math wrappers and installing them in the
** trace state (see l_trace.h; the study's graphs are in l_trace_state.c,
** the traced podsim calls in l_trace_calls.c).
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

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_graph.h"
#include "pod_hw.h"
#include "pod_model.h"

#define TRACED_T "podsim.traced"
#define TRACE_KEY "lpod.trace"

/* ---------------------------------------------------------------------- */
/* tracing values                                                          */
/* ---------------------------------------------------------------------- */

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

void lpod_trace__push_num(lua_State *L, int node) {
  lpod_trace__push(L, TV_NUM, node, 0);
}

void lpod_trace__push_gval(lua_State *L, pod_gval v) {
  if (v.isint)
    lua_pushinteger(L, (lua_Integer)v.u.i);
  else
    lua_pushnumber(L, v.u.d);
}

const char *lpod_trace__noun(const tval *v) {
  return v->kind == TV_NUM    ? "traced number"
         : v->kind == TV_SPEC ? "traced spec"
                              : "traced result";
}

/* The node of the number at idx (a tracing number, a number, or a string
** Lua would convert), recording constants; stops on anything else. */
int lpod_trace__num_node(lua_State *L, int idx) {
  trace *t = lpod_trace__get(L);
  pod_err e;
  pod_err_clear(&e);
  tval *v = lpod_trace__test(L, idx);
  if (v) {
    if (v->kind != TV_NUM)
      return lpod_trace__stop(L, "arithmetic on a %s", lpod_trace__noun(v));
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
  int a = lpod_trace__num_node(L, 1);
  int b = unary ? -1 : lpod_trace__num_node(L, 2);
  lpod_trace__push_num(L, record_op(L, op, a, b));
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
  lpod_trace__push_num(
      L, lpod_trace__node(L, pod_graph_field(t->g, blob, off, ft, &e), &e));
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
                            lpod_trace__noun(v));
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
    int acc = lpod_trace__num_node(L, 1);
    for (int i = 2; i <= n; i++)
      acc = record_op(L, gop, acc, lpod_trace__num_node(L, i));
    lpod_trace__push_num(L, acc);
    return 1;
  }
  int a = lpod_trace__num_node(L, 1);
  if (gop == POD_G_LOG && n >= 2 && !lua_isnil(L, 2)) {
    if (lpod_trace__test(L, 2)) {
      gop = POD_G_LOGB;
    } else {
      double base = lua_tonumber(L, 2);
      gop = base == 2.0 ? POD_G_LOG2 : base == 10.0 ? POD_G_LOG10 : POD_G_LOGB;
    }
    int b = gop == POD_G_LOGB ? lpod_trace__num_node(L, 2) : -1;
    lpod_trace__push_num(L, record_op(L, gop, a, b));
    return 1;
  }
  int b = -1;
  if (gop == POD_G_ATAN) {
    if (n >= 2) {
      b = lpod_trace__num_node(L, 2);
    } else {
      lua_pushnumber(L, 1.0);
      b = lpod_trace__num_node(L, -1);
      lua_pop(L, 1);
    }
  } else if (gop == POD_G_FMOD) {
    if (n < 2) return lpod_trace__stop(L, "math.fmod needs two arguments");
    b = lpod_trace__num_node(L, 2);
  }
  lpod_trace__push_num(L, record_op(L, gop, a, b));
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

/* pcall, xpcall and coroutines end the trace: a trace cannot follow
** caught errors, and the budgets that such a call must not swallow
** (host_guard.c) are enforced on the per-sample Lua path. */
static int w_stop_always(lua_State *L) {
  return lpod_trace__stop(
      L, "%s in eval (error handling and coroutines are not traced)",
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
  static const char *const guarded[] = {"pcall", "xpcall"};
  for (size_t i = 0; i < sizeof guarded / sizeof guarded[0]; i++) {
    lua_pushstring(L, guarded[i]);
    wrap(L, g, guarded[i], w_stop_always, 1);
  }
  lua_pop(L, 1);
  lua_getglobal(L, "coroutine");
  if (lua_istable(L, -1)) {
    int co = lua_gettop(L);
    static const char *const cofn[] = {"resume", "wrap"};
    for (size_t i = 0; i < sizeof cofn / sizeof cofn[0]; i++) {
      lua_pushfstring(L, "coroutine.%s", cofn[i]);
      wrap(L, co, cofn[i], w_stop_always, 1);
    }
  }
  lua_pop(L, 1);
}

int lpod_trace__install(lua_State *L) {
  install(L);
  return 0;
}
