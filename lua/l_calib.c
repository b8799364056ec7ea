/*
** l_calib.c: podsim._calibrate, the fit behind `podsim calibrate`
** (core/calib.c; the nccl-tests parser and the Lua file writer are in
** lua/lib/tools_eval.lua).
**
**   podsim._calibrate(system, rows, params)
**     rows: list of {op=, ranks=, ranks_per_domain=, bytes=, time_s=}
**     params: list of field names (pod_calib_params)
**   -> {system = <spec>, pred_s = {...}, rms_rel, max_rel, iterations,
**       converged}
*/
#include <stdlib.h>

#include "l_hw.h"
#include "lpod.h"
#include "pod_calib.h"

#define MAX_ROWS 100000

static double row_num(lua_State *L, int row, const char *k, int i) {
  lua_getfield(L, row, k);
  if (lua_type(L, -1) != LUA_TNUMBER) {
    char path[48];
    snprintf(path, sizeof path, "rows[%d].%s", i, k);
    lpod_error(L, "podsim._calibrate", path, "expected a number");
  }
  double v = lua_tonumber(L, -1);
  lua_pop(L, 1);
  return v;
}

static int l_calibrate(lua_State *L) {
  static const char ctx[] = "podsim._calibrate";
  pod_system base;
  lpod_to_value(L, 1, &lpod_system_type, &base, "system");
  luaL_checktype(L, 2, LUA_TTABLE);
  luaL_checktype(L, 3, LUA_TTABLE);
  int n = (int)lua_rawlen(L, 2), np = (int)lua_rawlen(L, 3);
  if (n < 1 || n > MAX_ROWS)
    return lpod_error(L, ctx, "rows", "expected 1 to %d rows", MAX_ROWS);
  if (np < 1 || np > 16)
    return lpod_error(L, ctx, "params", "expected 1 to 16 names");
  pod_calib_row *rows = lua_newuserdatauv(L, sizeof *rows * (size_t)n, 0);
  double *pred = lua_newuserdatauv(L, sizeof(double) * (size_t)n, 0);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, 2, i);
    int row = lua_gettop(L);
    if (!lua_istable(L, row))
      return lpod_error(L, ctx, "rows", "row %d is not a table", i);
    lua_getfield(L, row, "op");
    pod_coll_op op;
    if (!lua_isstring(L, -1) ||
        pod_coll_op_parse(lua_tostring(L, -1), &op) != POD_OK)
      return lpod_error(L, ctx, "rows", "row %d: unknown op '%s'", i,
                        luaL_optstring(L, -1, "?"));
    lua_pop(L, 1);
    pod_calib_row *r = &rows[i - 1];
    r->op = op;
    r->ranks = (int)row_num(L, row, "ranks", i);
    lua_getfield(L, row, "ranks_per_domain");
    r->ranks_per_domain = (int)luaL_optinteger(L, -1, 0);
    lua_pop(L, 1);
    r->bytes = row_num(L, row, "bytes", i);
    r->time_s = row_num(L, row, "time_s", i);
    r->algo = POD_ALGO_AUTO;
    if (lua_getfield(L, row, "algo") != LUA_TNIL &&
        (!lua_isstring(L, -1) ||
         pod_coll_algo_parse(lua_tostring(L, -1), &r->algo) != POD_OK))
      return lpod_error(L, ctx, "rows", "row %d: unknown algo '%s'", i,
                        luaL_optstring(L, -1, "?"));
    lua_pop(L, 1);
    lua_pop(L, 1);
  }
  const char *names[16];
  for (int j = 1; j <= np; j++) {
    lua_rawgeti(L, 3, j);
    names[j - 1] = lua_tostring(L, -1); /* anchored by the table */
    lua_pop(L, 1);
  }
  pod_system out;
  pod_calib_fit fit;
  pod_err e;
  pod_err_clear(&e);
  if (pod_calib_run(&base, rows, n, names, np, &out, pred, &fit, &e) != POD_OK)
    return lpod_error_core(L, ctx, NULL, &e);
  lua_createtable(L, 0, 6);
  lpod_push(L, &lpod_system_type, &out);
  lua_setfield(L, -2, "system");
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushnumber(L, pred[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "pred_s");
  lua_pushnumber(L, fit.rms_rel);
  lua_setfield(L, -2, "rms_rel");
  lua_pushnumber(L, fit.max_rel);
  lua_setfield(L, -2, "max_rel");
  lua_pushinteger(L, fit.iterations);
  lua_setfield(L, -2, "iterations");
  lua_pushboolean(L, fit.converged);
  lua_setfield(L, -2, "converged");
  return 1;
}

/* podsim._busbw_factor(op, n): nccl-tests' busbw / algbw. */
static int l_busbw_factor(lua_State *L) {
  pod_coll_op op;
  if (pod_coll_op_parse(luaL_checkstring(L, 1), &op) != POD_OK)
    return lpod_error(L, "podsim._busbw_factor", NULL, "unknown op '%s'",
                      lua_tostring(L, 1));
  lua_pushnumber(L, pod_coll_busbw_factor(op, (int)luaL_checkinteger(L, 2)));
  return 1;
}

void lpod_open_calib(lua_State *L) {
  int podsim = lua_gettop(L);
  lua_pushcfunction(L, l_busbw_factor);
  lua_setfield(L, podsim, "_busbw_factor");
  lua_pushcfunction(L, l_calibrate);
  lua_setfield(L, podsim, "_calibrate");
  lua_newtable(L);
  int i = 0;
  for (const pod_calib_param *p = pod_calib_params; p->name; p++) {
    lua_pushstring(L, p->name);
    lua_rawseti(L, -2, ++i);
  }
  lua_setfield(L, podsim, "_calib_params");
}
