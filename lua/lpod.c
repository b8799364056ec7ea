/*
** lpod.c: binding infrastructure (see lpod.h).
*/
#include "lpod.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define LPOD_PATH_MAX 160

/* ---------------------------------------------------------------------- */
/* errors                                                                  */
/* ---------------------------------------------------------------------- */

/* A script frame is a Lua function loaded from a file ("@path"); podsim's
** embedded library is loaded as "=[podsim] name" and never counts. */
static int is_script_frame(lua_Debug *ar) {
  return ar->source[0] == '@' && ar->currentline > 0;
}

void lpod_where(lua_State *L) {
  lua_Debug ar;
  for (int level = 0; lua_getstack(L, level, &ar); level++) {
    lua_getinfo(L, "Sl", &ar);
    if (is_script_frame(&ar)) {
      lua_pushfstring(L, "%s:%d:", ar.short_src, ar.currentline);
      return;
    }
  }
  lua_pushliteral(L, "");
}

static int raise_located(lua_State *L, const char *ctx, const char *path,
                         const char *msg) {
  luaL_Buffer b;
  lpod_where(L);
  const char *where = lua_tostring(L, -1);
  luaL_buffinit(L, &b);
  if (where[0]) {
    luaL_addstring(&b, where);
    luaL_addchar(&b, ' ');
  }
  if (ctx && ctx[0]) {
    luaL_addstring(&b, ctx);
    luaL_addstring(&b, ": ");
  }
  if (path && path[0]) {
    luaL_addstring(&b, path);
    luaL_addstring(&b, ": ");
  }
  luaL_addstring(&b, msg);
  luaL_pushresult(&b);
  /* Remember the message so the host can tell podsim's input errors
  ** (shown alone) from runtime errors (shown with a traceback). */
  lua_pushvalue(L, -1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.input_error");
  return lua_error(L);
}

int lpod_error(lua_State *L, const char *ctx, const char *path,
               const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return raise_located(L, ctx, path, msg);
}

int lpod_error_core(lua_State *L, const char *ctx, const char *prefix,
                    const pod_err *e) {
  char path[LPOD_PATH_MAX];
  if (prefix && prefix[0] && e->field[0])
    snprintf(path, sizeof path, "%s.%s", prefix, e->field);
  else
    snprintf(path, sizeof path, "%s", e->field[0] ? e->field : (prefix ? prefix : ""));
  return raise_located(L, ctx, path,
                       e->msg[0] ? e->msg : pod_strerror(e->code));
}

/* Levenshtein distance, bounded to short words (names are short). */
static size_t edit_distance(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b);
  if (la > 63 || lb > 63) return (size_t)-1;
  size_t row[64];
  for (size_t j = 0; j <= lb; j++) row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t prev = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t cur = row[j];
      size_t sub = prev + (a[i - 1] != b[j - 1]);
      size_t del = row[j] + 1, ins = row[j - 1] + 1;
      row[j] = sub < del ? (sub < ins ? sub : ins) : (del < ins ? del : ins);
      prev = cur;
    }
  }
  return row[lb];
}

const char *lpod_default_preset_name(int i) { return i == 0 ? "default" : NULL; }

const char *lpod_nearest(const char *word, const char *const *names) {
  const char *best = NULL;
  size_t bestd = (size_t)-1;
  for (int i = 0; names[i]; i++) {
    size_t d = edit_distance(word, names[i]);
    if (d < bestd) {
      bestd = d;
      best = names[i];
    }
  }
  size_t len = strlen(word);
  size_t limit = len < 6 ? 2 : len / 3 + 1;
  return (best && bestd <= limit) ? best : NULL;
}

void lpod_push_names(lua_State *L, const char *const *names) {
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 0; names[i]; i++) {
    if (i) luaL_addstring(&b, ", ");
    luaL_addstring(&b, names[i]);
  }
  luaL_pushresult(&b);
}

int lpod_error_unknown(lua_State *L, const char *ctx, const char *path,
                       const char *what, const char *name,
                       const char *const *names, const char *label) {
  const char *near = lpod_nearest(name, names);
  if (near)
    return lpod_error(L, ctx, path, "unknown %s '%s' (did you mean '%s'?)", what, name, near);
  lpod_push_names(L, names);
  return lpod_error(L, ctx, path, "unknown %s '%s' (%s: %s)", what, name, label,
                    lua_tostring(L, -1));
}

static void join_path(char *out, size_t n, const char *path, const char *key) {
  if (path && path[0])
    snprintf(out, n, "%s.%s", path, key);
  else
    snprintf(out, n, "%s", key);
}

int lpod_count_keys(lua_State *L, int idx) {
  int n = 0;
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    n++;
  }
  return n;
}

void lpod_check_keys(lua_State *L, int idx, const char *ctx,
                     const char *path, const char *const *allowed) {
  idx = lua_absindex(L, idx);
  lua_pushnil(L);
  while (lua_next(L, idx)) { /* stack: key, value */
    if (lua_type(L, -2) != LUA_TSTRING) {
      lpod_error(L, ctx, path, "fields are named; got a %s key",
                 luaL_typename(L, -2));
    }
    const char *k = lua_tostring(L, -2);
    int ok = 0;
    for (int i = 0; allowed[i]; i++)
      if (strcmp(k, allowed[i]) == 0) {
        ok = 1;
        break;
      }
    if (!ok) {
      char full[LPOD_PATH_MAX];
      join_path(full, sizeof full, path, k);
      const char *near = lpod_nearest(k, allowed);
      if (near) lpod_error(L, ctx, full, "unknown field (did you mean '%s'?)", near);
      /* nothing close: list the valid names */
      lpod_push_names(L, allowed);
      lpod_error(L, ctx, full, "unknown field (one of %s)", lua_tostring(L, -1));
    }
    lua_pop(L, 1);
  }
}

static const char *fmt_bound(char *buf, size_t n, double v) {
  snprintf(buf, n, "%.10g", v);
  return buf;
}

double lpod_check_range(lua_State *L, int idx, double min, double max,
                        int min_open, const char *ctx, const char *path) {
  if (lua_type(L, idx) != LUA_TNUMBER)
    lpod_error(L, ctx, path, "expected a number, got %s",
               luaL_typename(L, idx));
  double v = lua_tonumber(L, idx);
  char a[32], b[32];
  if (!isfinite(v))
    lpod_error(L, ctx, path, "must be a finite number (got %s)",
               isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
  if ((min_open ? !(v > min) : !(v >= min)) || v > max) {
    if (max == HUGE_VAL)
      lpod_error(L, ctx, path, "must be %s %s (got %.10g)",
                 min_open ? ">" : ">=", fmt_bound(a, sizeof a, min), v);
    lpod_error(L, ctx, path, "must be in %s%s, %s] (got %.10g)",
               min_open ? "(" : "[", fmt_bound(a, sizeof a, min),
               fmt_bound(b, sizeof b, max), v);
  }
  return v;
}

/* The field path "path.key" is built only when an error needs it: the
** option readers sit on hot paths (podsim.collective from Lua). */
static int get_opt(lua_State *L, int idx, const char *key, int required,
                   const char *ctx, const char *path) {
  if (lua_getfield(L, idx, key) == LUA_TNIL) {
    lua_pop(L, 1);
    if (required) {
      char full[LPOD_PATH_MAX];
      join_path(full, sizeof full, path, key);
      lpod_error(L, ctx, full, "required field is missing");
    }
    return 0;
  }
  return 1;
}

/* Value on the top as a number in [min, max], raising with the path. */
static double opt_range(lua_State *L, const char *key, double min, double max,
                        const char *ctx, const char *path) {
  int isnum;
  double v = lua_tonumberx(L, -1, &isnum);
  if (!isnum || lua_type(L, -1) != LUA_TNUMBER || !(v >= min) || !(v <= max)) {
    char full[LPOD_PATH_MAX];
    join_path(full, sizeof full, path, key);
    lpod_check_range(L, -1, min, max, 0, ctx, full);
  }
  return v;
}

double lpod_opt_number(lua_State *L, int idx, const char *key, double def,
                       double min, double max, int required,
                       const char *ctx, const char *path) {
  idx = lua_absindex(L, idx);
  if (!get_opt(L, idx, key, required, ctx, path)) return def;
  double v = opt_range(L, key, min, max, ctx, path);
  lua_pop(L, 1);
  return v;
}

int lpod_opt_int(lua_State *L, int idx, const char *key, int def, int min,
                 int max, int required, const char *ctx, const char *path) {
  idx = lua_absindex(L, idx);
  if (!get_opt(L, idx, key, required, ctx, path)) return def;
  double v = opt_range(L, key, min, max, ctx, path);
  if (v != floor(v)) {
    char full[LPOD_PATH_MAX];
    join_path(full, sizeof full, path, key);
    lpod_error(L, ctx, full, "must be an integer (got %.10g)", v);
  }
  lua_pop(L, 1);
  return (int)v;
}

int lpod_opt_bool(lua_State *L, int idx, const char *key, int def,
                  const char *ctx, const char *path) {
  idx = lua_absindex(L, idx);
  if (!get_opt(L, idx, key, 0, ctx, path)) return def;
  if (!lua_isboolean(L, -1)) {
    char full[LPOD_PATH_MAX];
    join_path(full, sizeof full, path, key);
    lpod_error(L, ctx, full, "expected a boolean, got %s", luaL_typename(L, -1));
  }
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

static int enum_index(lua_State *L, int idx, const char *const *names,
                      const char *ctx, const char *full) {
  if (lua_type(L, idx) != LUA_TSTRING)
    lpod_error(L, ctx, full, "expected a string, got %s", luaL_typename(L, idx));
  const char *s = lua_tostring(L, idx);
  for (int i = 0; names[i]; i++)
    if (strcmp(s, names[i]) == 0) return i;
  lpod_push_names(L, names);
  const char *near = lpod_nearest(s, names);
  if (near)
    lpod_error(L, ctx, full, "unknown value '%s' (did you mean '%s'? one of %s)",
               s, near, lua_tostring(L, -1));
  return lpod_error(L, ctx, full, "unknown value '%s' (one of %s)", s,
                    lua_tostring(L, -1));
}

int lpod_opt_enum(lua_State *L, int idx, const char *key, int def,
                  const char *const *names, int required, const char *ctx,
                  const char *path) {
  idx = lua_absindex(L, idx);
  if (!get_opt(L, idx, key, required, ctx, path)) return def;
  if (lua_type(L, -1) == LUA_TSTRING) {
    const char *v = lua_tostring(L, -1);
    for (int i = 0; names[i]; i++)
      if (strcmp(v, names[i]) == 0) {
        lua_pop(L, 1);
        return i;
      }
  }
  char full[LPOD_PATH_MAX];
  join_path(full, sizeof full, path, key);
  return enum_index(L, -1, names, ctx, full); /* raises */
}

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
    case LPOD_DOUBLE: lua_pushnumber(L, *(const double *)p); break;
    case LPOD_INT: lua_pushinteger(L, *(const int *)p); break;
    case LPOD_BOOL: lua_pushboolean(L, *(const int *)p); break;
    case LPOD_STRING: lua_pushstring(L, p); break;
    case LPOD_ENUM: lua_pushstring(L, f->names[*(const int *)p]); break;
    case LPOD_STRUCT: lpod_push(L, f->sub, p); break;
  }
}

static int spec_index(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = lua_touserdata(L, 1);
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
  return lpod_error(L, t->ctor, luaL_optstring(L, 2, "?"),
                    "%s specs are read-only; derive a new one with %s{base=..., ...}",
                    t->kind, t->ctor);
}

/* __pairs: iterate fields in declaration order. */
static int spec_next(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = lua_touserdata(L, 1);
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
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushcclosure(L, spec_next, 1);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

static int spec_tostring(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  const char *base = lua_touserdata(L, 1);
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
  static const struct { const char *name; lua_CFunction fn; } mm[] = {
      {"__index", spec_index},       {"__newindex", spec_newindex},
      {"__pairs", spec_pairs},       {"__tostring", spec_tostring},
      {"__eq", spec_eq},             {NULL, NULL}};
  for (int i = 0; mm[i].name; i++) {
    lua_pushlightuserdata(L, (void *)t);
    lua_pushcclosure(L, mm[i].fn, 1);
    lua_setfield(L, -2, mm[i].name);
  }
  lua_pushlightuserdata(L, (void *)t);
  lua_setfield(L, -2, "__lpod_type");
  lua_pushstring(L, t->kind);
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  for (const lpod_field *f = t->fields; f->name; f++)
    if (f->type == LPOD_STRUCT) lpod_type_register(L, f->sub);
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
  lpod_error(L, ctx, path, "expected a %s (a preset name, %s{...} or a table), got %s",
             t->kind, t->ctor, luaL_typename(L, idx));
}

void lpod_to_value(lua_State *L, int idx, const lpod_type *t, void *out,
                   const char *path) {
  to_value_ctx(L, idx, t, out, path, t->ctor);
}

static void set_field(lua_State *L, int vidx, const lpod_field *f, char *base,
                      const char *ctor, const char *full) {
  char *p = base + f->offset;
  switch (f->type) {
    case LPOD_DOUBLE:
      *(double *)p = lpod_check_range(L, vidx, f->min, f->max, f->min_open,
                                      ctor, full);
      break;
    case LPOD_INT: {
      double v = lpod_check_range(L, vidx, f->min, f->max, f->min_open, ctor, full);
      if (v != floor(v)) lpod_error(L, ctor, full, "must be an integer (got %.10g)", v);
      *(int *)p = (int)v;
      break;
    }
    case LPOD_BOOL:
      if (!lua_isboolean(L, vidx))
        lpod_error(L, ctor, full, "expected a boolean, got %s", luaL_typename(L, vidx));
      *(int *)p = lua_toboolean(L, vidx);
      break;
    case LPOD_STRING: {
      if (lua_type(L, vidx) != LUA_TSTRING)
        lpod_error(L, ctor, full, "expected a string, got %s", luaL_typename(L, vidx));
      size_t len;
      const char *s = lua_tolstring(L, vidx, &len);
      if (len >= f->size)
        lpod_error(L, ctor, full, "string too long (%d bytes at most)", (int)f->size - 1);
      memcpy(p, s, len + 1);
      break;
    }
    case LPOD_ENUM:
      *(int *)p = enum_index(L, vidx, f->names, ctor, full);
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
    join_path(full, sizeof full, path, "base");
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
  for (const lpod_field *f = t->fields; f->name && n < 94; f++) names[n++] = f->name;
  names[n++] = "base";
  names[n] = NULL;
  lpod_check_keys(L, idx, ctx, path, names);
  for (const lpod_field *f = t->fields; f->name; f++) {
    lua_getfield(L, idx, f->name); /* stack: value */
    if (!lua_isnil(L, -1)) {
      join_path(full, sizeof full, path, f->name);
      set_field(L, lua_gettop(L), f, out, ctx, full);
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
    if (f->type == LPOD_DOUBLE) b->type = POD_BIND_DOUBLE;
    else if (f->type == LPOD_INT) b->type = POD_BIND_INT;
    else return -1;
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

/* ---------------------------------------------------------------------- */
/* copying between states                                                  */
/* ---------------------------------------------------------------------- */

typedef struct copy_ctx {
  lua_State *from, *to;
  int seen_from; /* table in `from`: value -> integer id */
  int seen_to;   /* table in `to`: id -> copied value */
  int nseen;
  int depth;     /* nesting of copy_rec: bounds the C stack */
  char path[LPOD_PATH_MAX];
} copy_ctx;

/* Tables and functions nested deeper than this are refused instead of
** overflowing the C stack (copy_rec recurses once per level). */
#define COPY_MAX_DEPTH 200

static int copy_rec(copy_ctx *c, int idx);

static int copy_fail(copy_ctx *c, const char *what) {
  lua_pushfstring(c->to, "%s (at '%s') cannot be copied into a worker's Lua state",
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
    case LUA_TNIL: lua_pushnil(T); return 0;
    case LUA_TBOOLEAN: lua_pushboolean(T, lua_toboolean(F, idx)); return 0;
    case LUA_TNUMBER:
      if (lua_isinteger(F, idx)) lua_pushinteger(T, lua_tointeger(F, idx));
      else lua_pushnumber(T, lua_tonumber(F, idx));
      return 0;
    case LUA_TSTRING: {
      size_t len;
      const char *s = lua_tolstring(F, idx, &len);
      lua_pushlstring(T, s, len);
      return 0;
    }
    default: break;
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
    case LUA_TTABLE: return copy_table(c, idx);
    case LUA_TFUNCTION: return copy_function(c, idx);
    case LUA_TUSERDATA: {
      if (!lua_getmetatable(F, idx)) return copy_fail(c, "a userdata");
      lua_getfield(F, -1, "__lpod_type");
      const lpod_type *t = lua_touserdata(F, -1);
      lua_pop(F, 2);
      if (t == NULL) return copy_fail(c, "a userdata (file handle or similar)");
      lpod_push(T, t, lua_touserdata(F, idx));
      return 0;
    }
    case LUA_TTHREAD: return copy_fail(c, "a coroutine");
    default: return copy_fail(c, "a light userdata");
  }
}

int lpod_copy_value(lua_State *from, int idx, lua_State *to,
                    const char *path) {
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
