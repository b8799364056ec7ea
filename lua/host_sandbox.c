/*
** host_sandbox.c: the scenario sandbox: the memory-budget allocator of
** every Lua state, and the restricted globals (load, require, io, os,
** package, debug; DESIGN.md 10).
*/
#include "host_int.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpod.h"

/* ---------------------------------------------------------------------- */
/* memory budget                                                           */
/* ---------------------------------------------------------------------- */

typedef struct mem_budget {
  size_t used, cap;
} mem_budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mem_budget *m = ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    m->used -= osize;
    free(ptr);
    return NULL;
  }
  if (nsize > osize && m->cap && m->used + (nsize - osize) > m->cap)
    return NULL;
  void *p = realloc(ptr, nsize);
  if (p) m->used = m->used - osize + nsize;
  return p;
}

lua_State *pod_host__new_state(double max_memory_mb) {
  mem_budget *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  m->cap = max_memory_mb > 0 ? (size_t)(max_memory_mb * 1048576.0) : 0;
  lua_State *L = lua_newstate(budget_alloc, m);
  if (L == NULL) free(m);
  return L;
}

void pod_host__close_state(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  lua_close(L);
  free(ud);
}

/* ---------------------------------------------------------------------- */
/* sandbox                                                                 */
/* ---------------------------------------------------------------------- */

/* load: text chunks only, default environment the globals. */
static int sb_load(lua_State *L) {
  size_t len;
  const char *chunkname = luaL_optstring(L, 2, NULL);
  const char *mode = luaL_optstring(L, 3, "t");
  if (strchr(mode, 'b'))
    return lpod_error(L, "load", NULL,
                      "binary chunks are not allowed in scenarios");
  int status;
  if (lua_type(L, 1) == LUA_TSTRING) {
    const char *s = lua_tolstring(L, 1, &len);
    if (len > 0 && s[0] == LUA_SIGNATURE[0])
      return lpod_error(L, "load", NULL,
                        "binary chunks are not allowed in scenarios");
    status = luaL_loadbufferx(L, s, len, chunkname ? chunkname : s, "t");
  } else {
    /* function reader: gather the pieces, then load as text */
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (;;) {
      lua_pushvalue(L, 1);
      lua_call(L, 0, 1);
      if (lua_isnil(L, -1) || (lua_isstring(L, -1) && lua_rawlen(L, -1) == 0)) {
        lua_pop(L, 1);
        break;
      }
      if (!lua_isstring(L, -1))
        return luaL_error(L, "reader function must return a string");
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    const char *s = lua_tolstring(L, -1, &len);
    status =
        luaL_loadbufferx(L, s, len, chunkname ? chunkname : "=(load)", "t");
  }
  if (status != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (!lua_isnone(L, 4)) {
    lua_pushvalue(L, 4);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

static int sb_require(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, name);
  if (!lua_isnil(L, -1)) return 1;
  return lpod_error(L, "require", NULL,
                    "module '%s' is not available in the sandbox (only "
                    "podsim's own modules; --unsafe lifts this)",
                    name);
}

static int sb_denied(lua_State *L) {
  return lpod_error(
      L, lua_tostring(L, lua_upvalueindex(1)), NULL,
      "not allowed in the sandbox (run with --unsafe to lift it)");
}

static void deny(lua_State *L, int tbl, const char *field, const char *qual) {
  lua_pushstring(L, qual);
  lua_pushcclosure(L, sb_denied, 1);
  lua_setfield(L, tbl, field);
}

/* Restrict the globals of L (DESIGN.md 10). */
void pod_host__sandbox(lua_State *L) {
  lua_pushglobaltable(L);
  int g = lua_gettop(L);
  /* io: open/lines restricted, the rest of the file API through handles */
  lua_getfield(L, g, "io");
  int io = lua_gettop(L);
  lua_getfield(L, io, "open");
  lua_pushliteral(L, "io.open");
  lua_pushcclosure(L, pod_host__io_file, 2);
  lua_setfield(L, io, "open");
  lua_getfield(L, io, "lines");
  lua_pushliteral(L, "io.lines");
  lua_pushcclosure(L, pod_host__io_file, 2);
  lua_setfield(L, io, "lines");
  deny(L, io, "popen", "io.popen");
  deny(L, io, "input", "io.input");
  deny(L, io, "output", "io.output");
  deny(L, io, "tmpfile", "io.tmpfile");
  lua_pop(L, 1);
  /* os: time and environment queries only */
  lua_getfield(L, g, "os");
  int os = lua_gettop(L);
  static const char *const os_denied[] = {
      "execute", "exit", "remove", "rename", "tmpname", "setlocale", NULL};
  for (int i = 0; os_denied[i]; i++) {
    char q[32];
    snprintf(q, sizeof q, "os.%s", os_denied[i]);
    deny(L, os, os_denied[i], q);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, sb_load);
  lua_setfield(L, g, "load");
  lua_pushcfunction(L, sb_require);
  lua_setfield(L, g, "require");
  deny(L, g, "dofile", "dofile");
  deny(L, g, "loadfile", "loadfile");
  /* package: no loaders at all (no C modules, no loadlib) */
  lua_pushnil(L);
  lua_setfield(L, g, "package");
  /* debug: traceback only */
  lua_getfield(L, g, "debug");
  lua_newtable(L);
  lua_getfield(L, -2, "traceback");
  lua_setfield(L, -2, "traceback");
  lua_setfield(L, g, "debug");
  lua_pop(L, 2);
}
