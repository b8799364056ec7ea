/*
** l_coll.c: podsim.collective(system, op, {ranks=, bytes=,
** ranks_per_domain=, algo=}) and the "collective" built-in evaluator
** (DESIGN.md 4.2, 5).
*/
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "lpod.h"
#include "pod_coll.h"

#define ARG(f) (offsetof(pod_coll_cfg, args) + offsetof(pod_coll_args, f))
static const lpod_field cfg_fields[] = {
    {"system", LPOD_STRUCT, offsetof(pod_coll_cfg, system), 0, "", NULL,
     &lpod_system_type},
    {"op", LPOD_ENUM, offsetof(pod_coll_cfg, op), 0, "", pod_coll_op_names,
     NULL},
    /* numeric fields: bounds and units in pod_coll_cfg_fields (core) */
    {"ranks", LPOD_INT, ARG(ranks), 0, "", NULL, NULL},
    {"ranks_per_domain", LPOD_INT, ARG(ranks_per_domain), 0, "", NULL, NULL},
    {"bytes", LPOD_DOUBLE, ARG(bytes), 0, "", NULL, NULL},
    {"algo", LPOD_ENUM, ARG(algo), 0, "", pod_coll_algo_names, NULL},
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_coll_cfg_type = {"podsim.collective_cfg",
                                      "collective",
                                      "podsim.collective",
                                      NULL,
                                      sizeof(pod_coll_cfg),
                                      cfg_fields,
                                      NULL,
                                      NULL,
                                      NULL,
                                      NULL,
                                      pod_coll_cfg_fields};

static const char *const opt_keys[] = {"ranks", "bytes", "ranks_per_domain",
                                       "algo", NULL};

/* The option at stack slot idx checked against core bound `name` of
** pod_coll_args_fields; raises the located error naming it otherwise. */
static double opt_value(lua_State *L, int idx, const char *name, int required,
                        const char *ctx) {
  const pod_field *f = pod_field_find(pod_coll_args_fields, name);
  if (f == NULL) return lpod_error(L, ctx, name, "internal error: no bound");
  double v = lua_type(L, idx) == LUA_TNUMBER ? lua_tonumber(L, idx) : 0;
  if (lua_type(L, idx) == LUA_TNUMBER && pod_field_ok(f, v)) return v;
  if (lua_isnil(L, idx) && required)
    lpod_error(L, ctx, name, "required field is missing");
  return lpod_check_field(L, idx, f, ctx, name); /* raises */
}

/* Read podsim.collective's arguments (stack 1..3: system, op, opts) into
** *c (l_read.h).  `op` is the operation when the caller already matched
** it, or -1 to parse it from slot 2. */
void lpod_coll_read(lua_State *L, int op, pod_coll_cfg *c) {
  static const char ctx[] = "podsim.collective";
  memset(c, 0, sizeof *c);
  const pod_system *sys = lpod_test(L, 1, &lpod_system_type);
  if (sys == NULL) {
    if (lua_isnoneornil(L, 1))
      lpod_error(L, ctx, "system", "required argument is missing");
    lpod_to_value(L, 1, &lpod_system_type, &c->system, "system");
  } else {
    c->system = *sys;
  }
  if (op < 0 && lua_type(L, 2) == LUA_TSTRING) {
    const char *name = lua_tostring(L, 2);
    for (int i = 0; pod_coll_op_names[i]; i++)
      if (strcmp(name, pod_coll_op_names[i]) == 0) op = i;
  }
  if (op < 0) {
    if (lua_type(L, 2) != LUA_TSTRING)
      lpod_error(L, ctx, "op",
                 "expected one of all_reduce, all_gather, "
                 "reduce_scatter, all_to_all, broadcast, send_recv; got %s",
                 luaL_typename(L, 2));
    const char *near = lpod_nearest(lua_tostring(L, 2), pod_coll_op_names);
    lpod_error(L, ctx, "op", "unknown collective '%s'%s%s%s",
               lua_tostring(L, 2), near ? " (did you mean '" : "",
               near ? near : "", near ? "'?)" : "");
  }
  c->op = (pod_coll_op)op;
  if (!lua_istable(L, 3))
    lpod_error(L, ctx, "opts", "expected a table {ranks=, bytes=, ...}, got %s",
               luaL_typename(L, 3));
  /* One read of each option (stack 4..7: ranks, bytes, ranks_per_domain,
  ** algo).  Unknown fields are reported first (the better message): the
  ** slow key check runs only when the table has keys we did not read. */
  lua_settop(L, 3);
  int found = 0;
  for (int i = 0; opt_keys[i]; i++)
    found += lua_getfield(L, 3, opt_keys[i]) != LUA_TNIL;
  if (lpod_count_keys(L, 3) != found)
    lpod_check_keys(L, 3, ctx, NULL, opt_keys);
  pod_coll_args *a = &c->args;
  a->ranks = (int)opt_value(L, 4, "ranks", 1, ctx);
  a->bytes = opt_value(L, 5, "bytes", 1, ctx);
  a->ranks_per_domain =
      lua_isnil(L, 6) ? 0 : (int)opt_value(L, 6, "ranks_per_domain", 0, ctx);
  a->algo = lua_isnil(L, 7) ? POD_ALGO_AUTO
                            : (pod_coll_algo)lpod_opt_enum(
                                  L, 3, "algo", POD_ALGO_AUTO,
                                  pod_coll_algo_names, 0, ctx, NULL);
  lua_settop(L, 3);
}

/* pod_coll_eval with the binding's error conventions (l_read.h). */
int lpod_coll_eval(const pod_coll_cfg *c, pod_coll_result *r, pod_err *e) {
  int rc = pod_coll_eval(&c->system, c->op, &c->args, r, e);
  if (rc != POD_OK && e->field[0] == '\0')
    pod_err_set(e, rc, "", "%s", pod_strerror(rc));
  return rc;
}

/* podsim.collective(system, op, opts) -> {time_s, algbw_GBps, busbw_GBps, algo}
 */
static int l_collective(lua_State *L) {
  static const char ctx[] = "podsim.collective";
  /* op: compare with the interned names in the upvalues first (pointer
  ** comparisons); lpod_coll_read parses it for the error message */
  int op = -1;
  for (int i = 0; i < POD_COLL_NOPS; i++)
    if (lua_rawequal(L, 2, lua_upvalueindex(i + 1))) {
      op = i;
      break;
    }
  pod_coll_cfg c;
  lpod_coll_read(L, op, &c);
  pod_coll_result r;
  pod_err e;
  pod_err_clear(&e);
  /* a system spec (userdata) was checked when it was built and is
  ** immutable: only the collective's own arguments are checked again */
  int rc = lpod_test(L, 1, &lpod_system_type)
               ? pod_coll_eval_checked(&c.system, c.op, &c.args, &r, &e)
               : lpod_coll_eval(&c, &r, &e);
  if (rc != POD_OK) {
    if (e.field[0] == '\0') pod_err_set(&e, rc, "", "%s", pod_strerror(rc));
    return lpod_error_core(L, ctx, NULL, &e);
  }
  lua_createtable(L, 0, 4);
  lua_pushnumber(L, r.time_s);
  lua_setfield(L, -2, "time_s");
  lua_pushnumber(L, r.algbw_GBps);
  lua_setfield(L, -2, "algbw_GBps");
  lua_pushnumber(L, r.busbw_GBps);
  lua_setfield(L, -2, "busbw_GBps");
  lua_pushstring(L, pod_coll_algo_name(r.algo));
  lua_setfield(L, -2, "algo");
  return 1;
}

void lpod_open_coll(lua_State *L) {
  for (int i = 0; i < POD_COLL_NOPS; i++)
    lua_pushstring(L, pod_coll_op_names[i]);
  lua_pushcclosure(L, l_collective, POD_COLL_NOPS);
  lua_setfield(L, -2, "collective");
  lpod_register_kernel(L, "collective", &pod_coll_kernel, &lpod_coll_cfg_type);
}
