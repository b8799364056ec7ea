/*
** lpod.c: binding infrastructure (see lpod.h): specs (typed userdata for
** C structs, building them from tables, presets, registered kernels).
** Located errors and option checks are in lpod_check.c, copying values
** between states in lpod_copy.c.
*/
#include "lpod_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* specs                                                                   */
/* ---------------------------------------------------------------------- */

static const lpod_field *find_field(const lpod_type *t, const char *name,
                                    size_t len) {
  for (const lpod_field *f = t->fields; f->name; f++)
    if (strlen(f->name) == len && memcmp(f->name, name, len) == 0) return f;
  return NULL;
}

static void push_field(lua_State *L, const lpod_field *f, const char *base) {
  const char *p = base + f->offset;
  switch (f->type) {
    case LPOD_DOUBLE:
      lua_pushnumber(L, *(const double *)p);
      break;
    case LPOD_INT:
      lua_pushinteger(L, *(const int *)p);
      break;
    case LPOD_BOOL:
      lua_pushboolean(L, *(const int *)p);
      break;
    case LPOD_STRING:
      lua_pushstring(L, p);
      break;
    case LPOD_ENUM:
      lua_pushstring(L, f->names[*(const int *)p]);
      break;
    case LPOD_STRUCT:
      lpod_push(L, f->sub, p);
      break;
  }
}

/* The spec at 1 of type t, or a type error (a metamethod called by hand
** on something else must not read it as a t). */
static const char *check_spec(lua_State *L, const lpod_type *t) {
  const char *base = lpod_test(L, 1, t);
  if (base == NULL) luaL_typeerror(L, 1, t->kind);
  return base;
}

static int spec_index(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = check_spec(L, t);
  size_t len;
  const char *k = lua_tolstring(L, 2, &len);
  if (k == NULL) return 0;
  const lpod_field *f = find_field(t, k, len);
  if (f == NULL) {
    if (strcmp(k, "kind") == 0) {
      lua_pushstring(L, t->kind);
      return 1;
    }
    return 0;
  }
  push_field(L, f, base);
  return 1;
}

static int spec_newindex(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  check_spec(L, t);
  return lpod_error(
      L, t->ctor, luaL_optstring(L, 2, "?"),
      "%s specs are read-only; derive a new one with %s{base=..., ...}",
      t->kind, t->ctor);
}

/* __pairs: iterate fields in declaration order. */
static int spec_next(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = check_spec(L, t);
  const lpod_field *f = t->fields;
  if (!lua_isnil(L, 2)) {
    size_t len;
    const char *k = lua_tolstring(L, 2, &len);
    f = k ? find_field(t, k, len) : NULL;
    if (f == NULL) return 0;
    f++;
  }
  if (f->name == NULL) return 0;
  lua_pushstring(L, f->name);
  push_field(L, f, base);
  return 2;
}

static int spec_pairs(lua_State *L) {
  check_spec(L, lua_touserdata(L, lua_upvalueindex(1)));
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, spec_next, 1);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

static int spec_tostring(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = check_spec(L, t);
  const lpod_field *name = find_field(t, "name", 4);
  if (name && name->type == LPOD_STRING)
    lua_pushfstring(L, "%s %s", t->kind, base + name->offset);
  else
    lua_pushfstring(L, "%s %p", t->kind, (const void *)base);
  return 1;
}

static int spec_eq(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  void *a = lpod_test(L, 1, t), *b = lpod_test(L, 2, t);
  lua_pushboolean(L, a && b && memcmp(a, b, t->size) == 0);
  return 1;
}

void lpod_type_register(lua_State *L, const lpod_type *t) {
  if (!luaL_newmetatable(L, t->tname)) {
    lua_pop(L, 1);
    return;
  }
  /* stack: mt */
  static const struct {
    const char *name;
    lua_CFunction fn;
  } mm[] = {{"__index", spec_index}, {"__newindex", spec_newindex},
            {"__pairs", spec_pairs}, {"__tostring", spec_tostring},
            {"__eq", spec_eq},       {NULL, NULL}};
  for (int i = 0; mm[i].name; i++) {
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, mm[i].fn, 1);
    lua_setfield(L, -2, mm[i].name);
  }
  lua_pushlightuserdata(L, (void *)t);
  lua_setfield(L, -2, "__lpod_type");
  lua_pushstring(L, t->kind);
  lua_setfield(L, -2, "__name");
  lua_pushboolean(L, 0); /* getmetatable(spec) is false */
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  for (const lpod_field *f = t->fields; f->name; f++) {
    if (f->type == LPOD_STRUCT) lpod_type_register(L, f->sub);
    /* a numeric field of a type with core bounds must have one */
    if ((f->type == LPOD_DOUBLE || f->type == LPOD_INT) &&
        lpod_field_bound(t, f) == NULL)
      luaL_error(L, "internal error: %s field '%s' has no core bound", t->kind,
                 f->name);
  }
}

void *lpod_push(lua_State *L, const lpod_type *t, const void *value) {
  void *p = lua_newuserdatauv(L, t->size, 0);
  memcpy(p, value, t->size);
  lpod_type_register(L, t);
  luaL_setmetatable(L, t->tname);
  return p;
}

void *lpod_test(lua_State *L, int idx, const lpod_type *t) {
  return luaL_testudata(L, idx, t->tname);
}

static void preset_error(lua_State *L, const lpod_type *t, const char *name,
                         const char *path, const char *ctx) {
  const char *names[128];
  int n = 0;
  if (t->preset_name)
    for (const char *s; n < 127 && (s = t->preset_name(n)) != NULL; n++)
      names[n] = s;
  names[n] = NULL;
  lua_pushfstring(L, "%s preset", t->kind);
  lpod_error_unknown(L, ctx, path, lua_tostring(L, -1), name, names, "presets");
}

static void build_ctx(lua_State *L, int idx, const lpod_type *t, void *out,
                      const char *path, const char *ctx);

static void to_value_ctx(lua_State *L, int idx, const lpod_type *t, void *out,
                         const char *path, const char *ctx) {
  idx = lua_absindex(L, idx);
  void *p = lpod_test(L, idx, t);
  if (p) {
    memcpy(out, p, t->size);
    return;
  }
  if (lua_type(L, idx) == LUA_TSTRING && t->preset) {
    if (t->preset(lua_tostring(L, idx), out) != POD_OK)
      preset_error(L, t, lua_tostring(L, idx), path, ctx);
    return;
  }
  if (lua_istable(L, idx)) {
    build_ctx(L, idx, t, out, path, ctx);
    return;
  }
  lpod_error(L, ctx, path,
             "expected a %s (a preset name, %s{...} or a table), got %s",
             t->kind, t->ctor, luaL_typename(L, idx));
}

void lpod_to_value(lua_State *L, int idx, const lpod_type *t, void *out,
                   const char *path) {
  to_value_ctx(L, idx, t, out, path, t->ctor);
}

const pod_field *lpod_field_bound(const lpod_type *t, const lpod_field *f) {
  return t->bounds ? pod_field_at(t->bounds, f->offset) : NULL;
}

static void set_field(lua_State *L, int vidx, const lpod_type *t,
                      const lpod_field *f, char *base, const char *ctor,
                      const char *full) {
  char *p = base + f->offset;
  const pod_field *b;
  switch (f->type) {
    case LPOD_DOUBLE: /* the bound exists: lpod_type_register checked */
      b = lpod_field_bound(t, f);
      *(double *)p = lpod_check_field(L, vidx, b, ctor, full);
      break;
    case LPOD_INT:
      b = lpod_field_bound(t, f);
      *(int *)p = (int)lpod_check_field(L, vidx, b, ctor, full);
      break;
    case LPOD_BOOL:
      if (!lua_isboolean(L, vidx))
        lpod_error(L, ctor, full, "expected a boolean, got %s",
                   luaL_typename(L, vidx));
      *(int *)p = lua_toboolean(L, vidx);
      break;
    case LPOD_STRING: {
      if (lua_type(L, vidx) != LUA_TSTRING)
        lpod_error(L, ctor, full, "expected a string, got %s",
                   luaL_typename(L, vidx));
      size_t len;
      const char *s = lua_tolstring(L, vidx, &len);
      if (len >= f->size)
        lpod_error(L, ctor, full, "string too long (%d bytes at most)",
                   (int)f->size - 1);
      memcpy(p, s, len + 1);
      break;
    }
    case LPOD_ENUM:
      if (f->size > 0) { /* only the first f->size names */
        const char *first[LPOD_ENUM_MAX + 1];
        size_t n = f->size < LPOD_ENUM_MAX ? f->size : LPOD_ENUM_MAX;
        memcpy(first, f->names, n * sizeof *first);
        first[n] = NULL;
        *(int *)p = lpod__enum_index(L, vidx, first, ctor, full);
      } else {
        *(int *)p = lpod__enum_index(L, vidx, f->names, ctor, full);
      }
      break;
    case LPOD_STRUCT:
      to_value_ctx(L, vidx, f->sub, p, full, ctor);
      break;
  }
}

void lpod_build(lua_State *L, int idx, const lpod_type *t, void *out,
                const char *path) {
  build_ctx(L, idx, t, out, path, t->ctor);
}

void lpod_build_in(lua_State *L, int idx, const lpod_type *t, void *out,
                   const char *path, const char *ctx) {
  build_ctx(L, idx, t, out, path, ctx);
}

static void build_ctx(lua_State *L, int idx, const lpod_type *t, void *out,
                      const char *path, const char *ctx) {
  char full[LPOD_PATH_MAX];
  idx = lua_absindex(L, idx);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    lpod_error(L, ctx, path, "expected a plain table of fields");
  }
  /* base: a preset name or a spec of the same type; otherwise zeros. */
  memset(out, 0, t->size);
  lua_getfield(L, idx, "base"); /* stack: base */
  if (!lua_isnil(L, -1)) {
    lpod__join_path(full, sizeof full, path, "base");
    to_value_ctx(L, -1, t, out, full, ctx);
  } else if (t->preset == NULL || t->preset("default", out) != POD_OK) {
    /* Kinds with a "default" preset (kernel configs) start from it; the
    ** others are built from scratch: every numeric field with a lower
    ** bound above zero must then be given, and check() reports the first
    ** missing one. */
    memset(out, 0, t->size);
  }
  lua_pop(L, 1);
  /* Fields, in table order; unknown names get a suggestion. */
  const char *names[96];
  int n = 0;
  for (const lpod_field *f = t->fields; f->name && n < 94; f++)
    names[n++] = f->name;
  names[n++] = "base";
  names[n] = NULL;
  lpod_check_keys(L, idx, ctx, path, names);
  for (const lpod_field *f = t->fields; f->name; f++) {
    lua_getfield(L, idx, f->name); /* stack: value */
    if (!lua_isnil(L, -1)) {
      lpod__join_path(full, sizeof full, path, f->name);
      set_field(L, lua_gettop(L), t, f, out, ctx, full);
    }
    lua_pop(L, 1);
  }
  if (t->check) {
    pod_err e;
    pod_err_clear(&e);
    if (t->check(out, &e) != POD_OK) lpod_error_core(L, ctx, path, &e);
  }
}

int lpod_field_bind(const lpod_type *t, const char *path, pod_bind *b) {
  size_t off = 0;
  for (;;) {
    const char *dot = strchr(path, '.');
    size_t len = dot ? (size_t)(dot - path) : strlen(path);
    const lpod_field *f = find_field(t, path, len);
    if (f == NULL) return -1;
    off += f->offset;
    if (dot) {
      if (f->type != LPOD_STRUCT) return -1;
      t = f->sub;
      path = dot + 1;
      continue;
    }
    if (f->type == LPOD_DOUBLE)
      b->type = POD_BIND_DOUBLE;
    else if (f->type == LPOD_INT)
      b->type = POD_BIND_INT;
    else
      return -1;
    b->offset = off;
    return 0;
  }
}

/* __index of a preset table: reading a name that is not a preset is an
** error with a suggestion (a nil would surface later as a missing field). */
static int presets_index(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  if (lua_type(L, 2) != LUA_TSTRING) return 0;
  char ctx[64];
  snprintf(ctx, sizeof ctx, "podsim.%s", t->presets);
  preset_error(L, t, lua_tostring(L, 2), NULL, ctx);
  return 0;
}

void lpod_push_presets(lua_State *L, const lpod_type *t) {
  lua_newtable(L); /* stack: presets */
  if (t->presets != NULL) {
    lua_createtable(L, 0, 2); /* stack: presets, mt */
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, presets_index, 1);
    lua_setfield(L, -2, "__index");
    /* copies into worker states resolve the table by name (copy_table) */
    lua_pushfstring(L, "podsim.%s", t->presets);
    lua_setfield(L, -2, "__lpod_global");
    lua_pushboolean(L, 0);
    lua_setfield(L, -2, "__metatable");
    lua_setmetatable(L, -2);
  }
  if (t->preset_name == NULL) return;
  char buf[4096];
  if (t->size > sizeof buf) return;
  for (int i = 0;; i++) {
    const char *name = t->preset_name(i);
    if (name == NULL) break;
    if (t->preset(name, buf) != POD_OK) continue;
    lpod_push(L, t, buf);
    lua_setfield(L, -2, name);
  }
}

void lpod_open_type(lua_State *L, int podsim, const lpod_type *t) {
  podsim = lua_absindex(L, podsim);
  lpod_type_register(L, t);
  if (t->presets == NULL) return;
  lpod_push_presets(L, t);
  lua_setfield(L, podsim, t->presets);
  if (t->preset_source == NULL || t->preset_name == NULL) return;
  if (lua_getfield(L, podsim, "_sources") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, podsim, "_sources");
  }
  lua_newtable(L); /* stack: _sources, srcs */
  for (int i = 0; t->preset_name(i); i++) {
    const char *src = t->preset_source(i);
    lua_pushstring(L, src ? src : "");
    lua_setfield(L, -2, t->preset_name(i));
  }
  lua_setfield(L, -2, t->presets);
  lua_pop(L, 1);
}

void lpod_register_kernel(lua_State *L, const char *name, const pod_kernel *k,
                          const lpod_type *cfg_type) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.kernels") != LUA_TTABLE) {
    lua_pop(L, 1);
    lua_newtable(L);
    lua_pushvalue(L, -1);
    lua_setfield(L, LUA_REGISTRYINDEX, "lpod.kernels");
  }
  lua_createtable(L, 2, 0); /* stack: kernels, entry */
  lua_pushlightuserdata(L, (void *)k);
  lua_rawseti(L, -2, 1);
  lua_pushlightuserdata(L, (void *)cfg_type);
  lua_rawseti(L, -2, 2);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
  lpod_type_register(L, cfg_type);
}

int lpod_find_kernel(lua_State *L, const char *name, const pod_kernel **k,
                     const lpod_type **cfg_type) {
  int top = lua_gettop(L), found = 0;
  if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.kernels") == LUA_TTABLE &&
      lua_getfield(L, -1, name) == LUA_TTABLE) {
    lua_rawgeti(L, -1, 1);
    lua_rawgeti(L, -2, 2);
    *k = lua_touserdata(L, -2);
    *cfg_type = lua_touserdata(L, -1);
    found = 1;
  }
  lua_settop(L, top);
  return found;
}
