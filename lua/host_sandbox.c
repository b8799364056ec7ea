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
#include <unistd.h>

#include "lpod.h"

/* ---------------------------------------------------------------------- */
/* memory budget                                                           */
/* ---------------------------------------------------------------------- */

/* Per-state budget record, the allocator's ud (so any thread of a state
** finds it with lua_getallocf).  `doomed` makes a budget error sticky:
** once set, the guarded pcall/xpcall/coroutine.resume re-raise instead of
** catching (see pod_host__guard_budgets). */
typedef struct mem_budget {
  size_t used, cap;
  size_t last_refused; /* size of the last refused growth, 0: none since */
  int doomed;          /* POD_DOOM_* */
} mem_budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mem_budget *m = ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    m->used -= osize;
    free(ptr);
    return NULL;
  }
  if (nsize > osize && m->cap && m->used + (nsize - osize) > m->cap) {
    /* Lua retries a refused allocation once after an emergency collection
    ** (lmem.c); a second refusal of the same size raises LUA_ERRMEM, so
    ** that is where the state is doomed. */
    if (m->last_refused == nsize && m->doomed == POD_DOOM_NONE)
      m->doomed = POD_DOOM_MEMORY;
    m->last_refused = nsize;
    return NULL;
  }
  void *p = realloc(ptr, nsize);
  if (p) {
    m->used = m->used - osize + nsize;
    m->last_refused = 0;
  }
  return p;
}

/* Panic function of every state: an error outside any protected call
** (a binding bug, or memory running out while copying between states)
** is reported and ends the process with exit code 1, not abort(). */
static int state_panic(lua_State *L) {
  const char *msg = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  fflush(stdout);
  fprintf(stderr, "podsim: unprotected error in a Lua state: %s\n",
          msg ? msg : "(error object is not a string)");
  fflush(stderr);
  _exit(1);
  return 0;
}

lua_State *pod_host__new_state(double max_memory_mb) {
  mem_budget *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  m->cap = max_memory_mb > 0 ? (size_t)(max_memory_mb * 1048576.0) : 0;
  lua_State *L = lua_newstate(budget_alloc, m);
  if (L == NULL) {
    free(m);
    return NULL;
  }
  lua_atpanic(L, state_panic);
  return L;
}

void pod_host__close_state(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  lua_close(L);
  free(ud);
}

static mem_budget *budget_of(lua_State *L) {
  void *ud;
  lua_Alloc f = lua_getallocf(L, &ud);
  return f == budget_alloc ? ud : NULL;
}

void pod_host__doom(lua_State *L, int kind) {
  mem_budget *m = budget_of(L);
  if (m && m->doomed == POD_DOOM_NONE) m->doomed = kind;
}

int pod_host__doomed(lua_State *L) {
  mem_budget *m = budget_of(L);
  return m ? m->doomed : POD_DOOM_NONE;
}

/* ---------------------------------------------------------------------- */
/* budgets that pcall cannot swallow                                       */
/* ---------------------------------------------------------------------- */

/* Shared end of the guarded pcall and xpcall (also their continuation
** after a yield): a failed call whose state is doomed, or that ran out of
** memory, re-raises its error instead of returning false. */
static int guard_finish(lua_State *L, int status, lua_KContext extra) {
  if (status != LUA_OK && status != LUA_YIELD) {
    if (status == LUA_ERRMEM || pod_host__doomed(L)) {
      pod_host__doom(L, status == LUA_ERRMEM ? POD_DOOM_MEMORY : POD_DOOM_TIME);
      return lua_error(L);
    }
    lua_pushboolean(L, 0);
    lua_pushvalue(L, -2);
    return 2;
  }
  return lua_gettop(L) - (int)extra;
}

static int guard_pcall(lua_State *L) {
  luaL_checkany(L, 1);
  lua_pushboolean(L, 1); /* first result on success */
  lua_insert(L, 1);
  int status =
      lua_pcallk(L, lua_gettop(L) - 2, LUA_MULTRET, 0, 0, guard_finish);
  return guard_finish(L, status, 0);
}

static int guard_xpcall(lua_State *L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION); /* the message handler */
  lua_pushboolean(L, 1);
  lua_pushvalue(L, 1);
  lua_rotate(L, 3, 2); /* stack: f, handler, true, f, args... */
  int status = lua_pcallk(L, n - 2, LUA_MULTRET, 2, 2, guard_finish);
  return guard_finish(L, status, 2);
}

/* coroutine.resume(co, ...) through the original (upvalue 1): a coroutine
** that died of a budget error passes the error on. */
static int guard_resume(lua_State *L) {
  int n = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, n, LUA_MULTRET);
  if (!lua_toboolean(L, 1) && pod_host__doomed(L)) {
    lua_settop(L, 2);
    return lua_error(L);
  }
  return lua_gettop(L);
}

/* The budget check at the entry of a long C call: the deadline of a
** template state, the run's time budget in the main state, or the check
** a worker state registered ("lpod.budget_check", see l_study_worker.c).
** Lua's count hook does not run inside C functions, so a loop of slow
** pattern matches would otherwise see it only every million
** instructions, that is after millions of matches. */
static void check_budget(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.deadline_ns") == LUA_TNUMBER) {
    uint64_t deadline = (uint64_t)lua_tointeger(L, -1);
    lua_pop(L, 1);
    if (deadline && uv_hrtime() >= deadline) {
      pod_host__doom(L, POD_DOOM_TIME);
      lua_getfield(L, LUA_REGISTRYINDEX, "lpod.deadline_msg");
      lua_error(L);
    }
  } else {
    lua_pop(L, 1);
  }
  if (lpod_host(L) != NULL) {
    pod_host__check_time(L);
  } else if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.budget_check") ==
             LUA_TFUNCTION) {
    lua_call(L, 0, 0);
  } else {
    lua_pop(L, 1);
  }
}

/* The argument checks of the pattern functions, done here so that a bad
** argument is named after the function the scenario called (the original,
** called from C, would be '?'). */
static void check_pattern_args(lua_State *L, int gsub) {
  luaL_checkstring(L, 1);
  luaL_checkstring(L, 2);
  if (gsub) {
    int tr = lua_type(L, 3);
    luaL_argexpected(L,
                     tr == LUA_TNUMBER || tr == LUA_TSTRING ||
                         tr == LUA_TFUNCTION || tr == LUA_TTABLE,
                     3, "string/function/table");
    luaL_optinteger(L, 4, 0);
  } else {
    luaL_optinteger(L, 3, 0);
  }
}

/* The original's results, also after it yielded (podsim.search waits for
** its parts on the pool: the call must stay yieldable). */
static int guard_string_k(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  return lua_gettop(L);
}

/* string.find/match/gsub and podsim.search through the original (upvalue
** 1), after the argument checks (upvalue 2: 0 none, 1 find/match, 2 gsub)
** and the budget check. */
static int guard_string_fn(lua_State *L) {
  int kind = (int)lua_tointeger(L, lua_upvalueindex(2));
  if (kind) check_pattern_args(L, kind == 2);
  check_budget(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_callk(L, lua_gettop(L) - 1, LUA_MULTRET, 0, guard_string_k);
  return lua_gettop(L);
}

/* The iterator of string.gmatch (upvalue 1: the original's), each match
** after the budget check. */
static int guard_gmatch_iter(lua_State *L) {
  check_budget(L);
  lua_settop(L, 0);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_call(L, 0, LUA_MULTRET);
  return lua_gettop(L);
}

static int guard_gmatch(lua_State *L) {
  check_pattern_args(L, 0);
  check_budget(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  lua_pushcclosure(L, guard_gmatch_iter, 1);
  return 1;
}

void pod_host__guard_budgets(lua_State *L) {
  if (lua_getglobal(L, "string") == LUA_TTABLE) {
    static const char *const fns[] = {"find", "match", "gsub", NULL};
    for (int i = 0; fns[i]; i++) {
      lua_getfield(L, -1, fns[i]);
      lua_pushinteger(L, i == 2 ? 2 : 1);
      lua_pushcclosure(L, guard_string_fn, 2);
      lua_setfield(L, -2, fns[i]);
    }
    lua_getfield(L, -1, "gmatch");
    lua_pushcclosure(L, guard_gmatch, 1);
    lua_setfield(L, -2, "gmatch");
  }
  lua_pop(L, 1);
  /* the layout search is the other long C call */
  if (lua_getglobal(L, "podsim") == LUA_TTABLE) {
    if (lua_getfield(L, -1, "search") == LUA_TFUNCTION) {
      lua_pushinteger(L, 0);
      lua_pushcclosure(L, guard_string_fn, 2);
      lua_setfield(L, -2, "search");
    } else {
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, guard_pcall);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, guard_xpcall);
  lua_setglobal(L, "xpcall");
  if (lua_getglobal(L, "coroutine") == LUA_TTABLE) {
    lua_getfield(L, -1, "resume");
    lua_pushcclosure(L, guard_resume, 1);
    lua_setfield(L, -2, "resume");
  }
  lua_pop(L, 1);
}

/* The deadline hook of states that do not run on the loop (the probe's
** template state, finalizers at exit): registry "lpod.deadline_ns" is the
** uv_hrtime() at which the budget ends, "lpod.deadline_msg" the error. */
static void deadline_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.deadline_ns");
  uint64_t deadline = (uint64_t)lua_tointeger(L, -1);
  lua_pop(L, 1);
  if (deadline == 0 || uv_hrtime() < deadline) return;
  pod_host__doom(L, POD_DOOM_TIME);
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.deadline_msg");
  lua_error(L);
}

void pod_host__set_deadline(lua_State *L, uint64_t deadline_ns,
                            const char *msg) {
  lua_pushinteger(L, (lua_Integer)deadline_ns);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.deadline_ns");
  lua_pushstring(L, msg);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.deadline_msg");
  if (deadline_ns)
    lua_sethook(L, deadline_hook, LUA_MASKCOUNT, 100000);
  else
    lua_sethook(L, NULL, 0, 0);
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
