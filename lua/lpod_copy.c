/*
** lpod_copy.c: lpod_copy_value, copying a value (tables, functions with
** their upvalues, podsim userdata) from one Lua state to another (see
** lpod.h).
*/
#include "lpod_int.h"

#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* copying between states                                                  */
/* ---------------------------------------------------------------------- */

typedef struct copy_ctx {
  lua_State *from, *to;
  int seen_from; /* table in `from`: value -> integer id */
  int seen_to;   /* table in `to`: id -> copied value */
  int nseen;
  int depth; /* nesting of copy_rec: bounds the C stack */
  char path[LPOD_PATH_MAX];
} copy_ctx;

/* Tables and functions nested deeper than this are refused instead of
** overflowing the C stack (copy_rec recurses once per level). */
#define COPY_MAX_DEPTH 200

static int copy_rec(copy_ctx *c, int idx);

static int copy_fail(copy_ctx *c, const char *what) {
  lua_pushfstring(c->to,
                  "%s (at '%s') cannot be copied into a worker's Lua state",
                  what, c->path[0] ? c->path : "value");
  return -1;
}

typedef struct dump_buf {
  luaL_Buffer *b;
} dump_buf;

static int dump_writer(lua_State *L, const void *p, size_t sz, void *ud) {
  (void)L;
  luaL_addlstring(((dump_buf *)ud)->b, p, sz);
  return 0;
}

/* Known functions (podsim's API, the standard library) cross by name. */
static int copy_known_function(copy_ctx *c, int idx) {
  lua_State *F = c->from, *T = c->to;
  if (lua_getfield(F, LUA_REGISTRYINDEX, "lpod.fnames") != LUA_TTABLE) {
    lua_pop(F, 1);
    return 0;
  }
  lua_pushvalue(F, idx);
  lua_rawget(F, -2); /* stack(F): fnames, name|nil */
  if (!lua_isstring(F, -1)) {
    lua_pop(F, 2);
    return 0;
  }
  const char *name = lua_tostring(F, -1);
  /* Resolve the dotted name from the target's globals. */
  lua_pushglobaltable(T);
  const char *p = name;
  while (*p) {
    const char *dot = strchr(p, '.');
    size_t len = dot ? (size_t)(dot - p) : strlen(p);
    lua_pushlstring(T, p, len);
    lua_rawget(T, -2);
    if (lua_isnil(T, -1) && lua_getmetatable(T, -2)) {
      /* a read-only library view (host_sandbox.c): its __index table,
      ** raw, so that no metamethod runs here */
      lua_pushliteral(T, "__index");
      lua_rawget(T, -2);
      if (lua_istable(T, -1)) {
        lua_pushlstring(T, p, len);
        lua_rawget(T, -2);
        lua_replace(T, -4);
      }
      lua_pop(T, 2);
    }
    lua_remove(T, -2);
    if (!dot) break;
    if (!lua_istable(T, -1)) break;
    p = dot + 1;
  }
  lua_pop(F, 2);
  if (!lua_isfunction(T, -1)) {
    lua_pop(T, 1);
    return 0;
  }
  return 1;
}

static int copy_function(copy_ctx *c, int idx) {
  lua_State *F = c->from, *T = c->to;
  if (copy_known_function(c, idx)) return 0;
  if (lua_iscfunction(F, idx)) return copy_fail(c, "a C function");
  luaL_Buffer b;
  dump_buf db = {&b};
  luaL_buffinit(T, &b);
  lua_pushvalue(F, idx);
  int rc = lua_dump(F, dump_writer, &db, 0);
  lua_pop(F, 1);
  luaL_pushresult(&b);
  if (rc != 0) {
    lua_pop(T, 1);
    return copy_fail(c, "a function");
  }
  size_t len;
  const char *code = lua_tolstring(T, -1, &len);
  lua_Debug ar;
  lua_pushvalue(F, idx);
  lua_getinfo(F, ">S", &ar);
  if (luaL_loadbufferx(T, code, len, ar.source, "b") != LUA_OK) {
    lua_remove(T, -2);
    return -1;
  }
  lua_remove(T, -2); /* stack(T): fn */
  int tfn = lua_gettop(T);
  /* record before copying upvalues, so recursion finds it */
  lua_pushvalue(F, idx);
  lua_rawseti(F, c->seen_from, ++c->nseen);
  lua_pushvalue(F, idx);
  lua_pushinteger(F, c->nseen);
  lua_rawset(F, c->seen_from);
  lua_pushvalue(T, tfn);
  lua_rawseti(T, c->seen_to, c->nseen);
  size_t plen = strlen(c->path);
  for (int i = 1;; i++) {
    const char *up = lua_getupvalue(F, idx, i);
    if (up == NULL) break;
    if (strcmp(up, "_ENV") == 0) {
      lua_pop(F, 1);
      lua_pushglobaltable(T);
      lua_setupvalue(T, tfn, i);
      continue;
    }
    snprintf(c->path + plen, sizeof c->path - plen, "%supvalue '%s'",
             plen ? " > " : "", up[0] ? up : "?");
    int r = copy_rec(c, lua_gettop(F));
    lua_pop(F, 1);
    c->path[plen] = '\0';
    if (r != 0) return r;
    lua_setupvalue(T, tfn, i);
  }
  return 0;
}

/* Push the value at dotted global `name` ("podsim.systems") in L. */
static void push_global_path(lua_State *L, const char *name) {
  lua_pushglobaltable(L);
  for (const char *p = name; *p;) {
    const char *dot = strchr(p, '.');
    size_t len = dot ? (size_t)(dot - p) : strlen(p);
    if (!lua_istable(L, -1)) break;
    lua_pushlstring(L, p, len);
    lua_rawget(L, -2);
    lua_remove(L, -2);
    if (!dot) break;
    p = dot + 1;
  }
}

static int copy_table(copy_ctx *c, int idx) {
  lua_State *F = c->from, *T = c->to;
  if (lua_getmetatable(F, idx)) {
    /* podsim's own tables with a metatable (presets, distributions)
    ** cross by name, like podsim's functions */
    if (lua_getfield(F, -1, "__lpod_global") == LUA_TSTRING) {
      push_global_path(T, lua_tostring(F, -1));
      lua_pop(F, 2);
      if (lua_istable(T, -1)) return 0;
      lua_pop(T, 1);
      return copy_fail(c, "a podsim table missing in the worker");
    }
    lua_pop(F, 2);
    return copy_fail(c, "a table with a metatable");
  }
  lua_newtable(T);
  int tt = lua_gettop(T);
  lua_pushvalue(F, idx);
  lua_pushinteger(F, ++c->nseen);
  lua_rawset(F, c->seen_from);
  lua_pushvalue(T, tt);
  lua_rawseti(T, c->seen_to, c->nseen);
  size_t plen = strlen(c->path);
  lua_pushnil(F);
  while (lua_next(F, idx)) { /* stack(F): key, value */
    int kidx = lua_gettop(F) - 1, vidx = kidx + 1;
    if (lua_type(F, kidx) == LUA_TSTRING)
      snprintf(c->path + plen, sizeof c->path - plen, "%s%s", plen ? "." : "",
               lua_tostring(F, kidx));
    else if (lua_type(F, kidx) == LUA_TNUMBER)
      snprintf(c->path + plen, sizeof c->path - plen, "[%lld]",
               (long long)lua_tointeger(F, kidx));
    if (copy_rec(c, kidx) != 0 || copy_rec(c, vidx) != 0) {
      lua_pop(F, 2);
      return -1;
    }
    lua_rawset(T, tt);
    lua_pop(F, 1);
    c->path[plen] = '\0';
  }
  return 0;
}

static int copy_rec_in(copy_ctx *c, int idx);

static int copy_rec(copy_ctx *c, int idx) {
  if (c->depth >= COPY_MAX_DEPTH)
    return copy_fail(c, "a value nested deeper than 200 levels");
  c->depth++;
  int r = copy_rec_in(c, idx);
  c->depth--;
  return r;
}

static int copy_rec_in(copy_ctx *c, int idx) {
  lua_State *F = c->from, *T = c->to;
  idx = lua_absindex(F, idx);
  if (!lua_checkstack(T, 8) || !lua_checkstack(F, 8))
    return copy_fail(c, "a too deeply nested value");
  switch (lua_type(F, idx)) {
    case LUA_TNIL:
      lua_pushnil(T);
      return 0;
    case LUA_TBOOLEAN:
      lua_pushboolean(T, lua_toboolean(F, idx));
      return 0;
    case LUA_TNUMBER:
      if (lua_isinteger(F, idx))
        lua_pushinteger(T, lua_tointeger(F, idx));
      else
        lua_pushnumber(T, lua_tonumber(F, idx));
      return 0;
    case LUA_TSTRING: {
      size_t len;
      const char *s = lua_tolstring(F, idx, &len);
      lua_pushlstring(T, s, len);
      return 0;
    }
    default:
      break;
  }
  /* reference types: shared and cyclic values copy once */
  lua_pushvalue(F, idx);
  if (lua_rawget(F, c->seen_from) == LUA_TNUMBER) {
    lua_Integer id = lua_tointeger(F, -1);
    lua_pop(F, 1);
    lua_rawgeti(T, c->seen_to, id);
    return 0;
  }
  lua_pop(F, 1);
  switch (lua_type(F, idx)) {
    case LUA_TTABLE:
      return copy_table(c, idx);
    case LUA_TFUNCTION:
      return copy_function(c, idx);
    case LUA_TUSERDATA: {
      if (!lua_getmetatable(F, idx)) return copy_fail(c, "a userdata");
      lua_getfield(F, -1, "__lpod_type");
      const lpod_type *t = lua_touserdata(F, -1);
      lua_pop(F, 2);
      if (t == NULL) return copy_fail(c, "a userdata (file handle or similar)");
      lpod_push(T, t, lua_touserdata(F, idx));
      return 0;
    }
    case LUA_TTHREAD:
      return copy_fail(c, "a coroutine");
    default:
      return copy_fail(c, "a light userdata");
  }
}

int lpod_copy_value(lua_State *from, int idx, lua_State *to, const char *path) {
  copy_ctx c;
  int from_top = lua_gettop(from), to_top = lua_gettop(to);
  idx = lua_absindex(from, idx);
  c.from = from;
  c.to = to;
  c.nseen = 0;
  c.depth = 0;
  snprintf(c.path, sizeof c.path, "%s", path ? path : "");
  lua_newtable(from);
  c.seen_from = lua_gettop(from);
  lua_newtable(to);
  c.seen_to = lua_gettop(to);
  int r = copy_rec(&c, idx);
  /* stack(to): seen, ..., value|error; keep only the top */
  lua_copy(to, -1, to_top + 1);
  lua_settop(to, to_top + 1);
  lua_settop(from, from_top);
  return r;
}
