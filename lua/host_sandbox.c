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

/* next(t, k) as a C function (for __pairs of read-only views). */
static int lua_next_fn(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}

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
  /* the standard libraries: their read-only global views, never the
  ** tables in package.loaded (podsim's own code relies on those) */
  static const char *const std[] = {"string",    "table", "math", "utf8",
                                    "coroutine", "io",    "os",   "debug",
                                    "_G",        NULL};
  for (int i = 0; std[i]; i++)
    if (strcmp(name, std[i]) == 0) {
      if (i == 8)
        lua_pushglobaltable(L);
      else
        lua_getglobal(L, name);
      return 1;
    }
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

/* __newindex of a read-only library view. */
static int ro_newindex(lua_State *L) {
  return lpod_error(
      L, lua_tostring(L, lua_upvalueindex(1)), luaL_optstring(L, 2, "?"),
      "the standard library is read-only in the sandbox (podsim "
      "relies on it; keep your own functions in locals or tables)");
}

/* __pairs of a read-only view: iterate the library itself. */
static int ro_pairs(lua_State *L) {
  lua_pushcfunction(L, lua_next_fn);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushnil(L);
  return 3;
}

/* Replace global `name` (a library table) with a read-only view of it:
** reads go to the library, writes are errors, getmetatable says false.
** The library itself stays reachable only by podsim's own code, which
** captured it before the scenario ran. */
static void readonly_global(lua_State *L, int g, const char *name) {
  if (lua_getfield(L, g, name) != LUA_TTABLE) {
    lua_pop(L, 1);
    return;
  }
  int lib = lua_gettop(L);
  lua_newtable(L);          /* stack: lib, view */
  lua_createtable(L, 0, 4); /* stack: lib, view, mt */
  lua_pushvalue(L, lib);
  lua_setfield(L, -2, "__index");
  lua_pushstring(L, name);
  lua_pushcclosure(L, ro_newindex, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushvalue(L, lib);
  lua_pushcclosure(L, ro_pairs, 1);
  lua_setfield(L, -2, "__pairs");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_setfield(L, g, name);
  lua_pop(L, 1);
}

/* Hide a metatable from getmetatable (and so from changes). */
static void protect_metatable(lua_State *L, int mt) {
  if (!lua_istable(L, mt)) return;
  lua_pushboolean(L, 0);
  lua_setfield(L, mt, "__metatable");
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
  lua_pop(L, 1); /* the old debug */
  /* The libraries podsim's own code calls are read-only views: replacing
  ** string.match, table.sort or a file method cannot change what the host
  ** does (podsim.lua also runs in its own copy of the globals). */
  static const char *const libs[] = {"string", "table",     "math",
                                     "utf8",   "coroutine", "io",
                                     "os",     "debug",     NULL};
  for (int i = 0; libs[i]; i++) readonly_global(L, g, libs[i]);
  lua_pushliteral(L, "");
  lua_getmetatable(L, -1); /* the string metatable: its __index is string */
  protect_metatable(L, lua_gettop(L));
  lua_pop(L, 2);
  luaL_getmetatable(L, LUA_FILEHANDLE); /* file methods (f:write) */
  protect_metatable(L, lua_gettop(L));
  lua_pop(L, 1);
  lua_pop(L, 1); /* globals */
}
