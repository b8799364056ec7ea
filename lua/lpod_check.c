/*
** lpod_check.c: located errors (lpod_error, lpod_error_core, nearest-name
** hints) and the checks of keys, numbers and options of a spec table (see
** lpod.h).
*/
#include "lpod_int.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

int lpod_error(lua_State *L, const char *ctx, const char *path, const char *fmt,
               ...) {
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
    snprintf(path, sizeof path, "%s",
             e->field[0] ? e->field : (prefix ? prefix : ""));
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

const char *lpod_default_preset_name(int i) {
  return i == 0 ? "default" : NULL;
}

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
    return lpod_error(L, ctx, path, "unknown %s '%s' (did you mean '%s'?)",
                      what, name, near);
  lpod_push_names(L, names);
  return lpod_error(L, ctx, path, "unknown %s '%s' (%s: %s)", what, name, label,
                    lua_tostring(L, -1));
}

void lpod__join_path(char *out, size_t n, const char *path, const char *key) {
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

void lpod_check_keys(lua_State *L, int idx, const char *ctx, const char *path,
                     const char *const *allowed) {
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
      lpod__join_path(full, sizeof full, path, k);
      const char *near = lpod_nearest(k, allowed);
      if (near)
        lpod_error(L, ctx, full, "unknown field (did you mean '%s'?)", near);
      /* nothing close: list the valid names */
      lpod_push_names(L, allowed);
      lpod_error(L, ctx, full, "unknown field (one of %s)",
                 lua_tostring(L, -1));
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

double lpod_check_field(lua_State *L, int idx, const pod_field *f,
                        const char *ctx, const char *path) {
  if (f->type == POD_F_BOOL && lua_isboolean(L, idx))
    return lua_toboolean(L, idx);
  if (lua_type(L, idx) != LUA_TNUMBER)
    lpod_error(L, ctx, path, "expected a %s, got %s",
               f->type == POD_F_BOOL ? "boolean" : "number",
               luaL_typename(L, idx));
  double v = lua_tonumber(L, idx);
  if (!pod_field_ok(f, v)) {
    pod_err e;
    pod_err_clear(&e);
    pod_field_error(f, v, NULL, &e); /* the message names the bound */
    lpod_error(L, ctx, path, "%s", e.msg);
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
      lpod__join_path(full, sizeof full, path, key);
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
    lpod__join_path(full, sizeof full, path, key);
    lpod_check_range(L, -1, min, max, 0, ctx, full);
  }
  return v;
}

double lpod_opt_number(lua_State *L, int idx, const char *key, double def,
                       double min, double max, int required, const char *ctx,
                       const char *path) {
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
    lpod__join_path(full, sizeof full, path, key);
    lpod_error(L, ctx, full, "must be an integer (got %.10g)", v);
  }
  lua_pop(L, 1);
  return (int)v;
}

double lpod_opt_field(lua_State *L, int idx, const char *key, double def,
                      const pod_field *f, int required, const char *ctx,
                      const char *path) {
  idx = lua_absindex(L, idx);
  if (f == NULL)
    return lpod_error(L, ctx, path, "internal error: no bound for '%s'", key);
  if (!get_opt(L, idx, key, required, ctx, path)) return def;
  double v;
  if (lua_type(L, -1) == LUA_TNUMBER &&
      pod_field_ok(f, v = lua_tonumber(L, -1))) {
    lua_pop(L, 1);
    return v;
  }
  char full[LPOD_PATH_MAX];
  lpod__join_path(full, sizeof full, path, key);
  lpod_check_field(L, -1, f, ctx, full); /* raises */
  lua_pop(L, 1);
  return def;
}

int lpod_opt_bool(lua_State *L, int idx, const char *key, int def,
                  const char *ctx, const char *path) {
  idx = lua_absindex(L, idx);
  if (!get_opt(L, idx, key, 0, ctx, path)) return def;
  if (!lua_isboolean(L, -1)) {
    char full[LPOD_PATH_MAX];
    lpod__join_path(full, sizeof full, path, key);
    lpod_error(L, ctx, full, "expected a boolean, got %s",
               luaL_typename(L, -1));
  }
  int v = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return v;
}

int lpod__enum_index(lua_State *L, int idx, const char *const *names,
                     const char *ctx, const char *full) {
  if (lua_type(L, idx) != LUA_TSTRING)
    lpod_error(L, ctx, full, "expected a string, got %s",
               luaL_typename(L, idx));
  const char *s = lua_tostring(L, idx);
  for (int i = 0; names[i]; i++)
    if (strcmp(s, names[i]) == 0) return i;
  lpod_push_names(L, names);
  const char *near = lpod_nearest(s, names);
  if (near)
    lpod_error(L, ctx, full,
               "unknown value '%s' (did you mean '%s'? one of %s)", s, near,
               lua_tostring(L, -1));
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
  lpod__join_path(full, sizeof full, path, key);
  return lpod__enum_index(L, -1, names, ctx, full); /* raises */
}
