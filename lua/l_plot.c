/*
** l_plot.c: podsim's internal plot functions (lib/podsim.lua takes them
** out of the podsim table; scenarios never see them):
**
**   _gnuplot_decls(template [, udir, mode])
**                                 -> {name = "number"|"string"|"file"},
**                                    user_text | nil, message
**   _gnuplot_script(template, vars, svg, mode, base [, udir])
**                                 -> script, user | nil, field, message
**   _gnuplot_run(script)          -> true | nil, message   (yields)
**   _gnuplot_run(scripts)         -> {true | message, ...}  (yields)
**   _gnuplot_run_jailed(script, mode)  (both in lua/plot_jail.c)
**   _recipe_parse(text)           -> {template =, vars =} | nil, message
**   _recipe_format(template, vars) -> text | nil, message
**
** Templates: a user's `<udir>/<name>.gp` (udir the scenario's folder, or
** the recipe's folder for `podsim plot DIR`), checked as the embedded
** ones are and run jailed (lua/plot_jail.h), else the embedded
** plots/<name>.gp; every variable is
** checked and encoded by plot_gp.c, every file variable resolved through
** the sandbox (mode "read", or "out": below the output folder only;
** relative names from `base`) and must be a regular file.  gnuplot runs
** with -d (no init files), a fixed environment and the output folder as
** its working directory.
*/
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "host.h"
#include "lpod.h"
#include "plot_gp.h"
#include "plot_jail.h"

/* ---------------------------------------------------------------------- */
/* scripts and recipes                                                     */
/* ---------------------------------------------------------------------- */

static const char *type_name(pod_gp_type t) {
  return t == POD_GP_NUMBER ? "number" : t == POD_GP_STRING ? "string" : "file";
}

/* A user template: `<udir>/<name>.gp` readable through the sandbox for
** `mode`, at most 64 KiB.  Pushes its text and returns it; NULL (nothing
** pushed) when there is no such file. */
static const char *user_template(lua_State *L, const char *udir,
                                 const char *name, int mode, size_t *len) {
  char path[PATH_MAX], real[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/%s.gp", udir, name) >= (int)sizeof path)
    return NULL;
  if (!lpod_sandbox_check(lpod_sandbox(L), path, mode, real, sizeof real))
    return NULL;
  struct stat st;
  if (stat(real, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size > 65536)
    return NULL;
  FILE *f = fopen(real, "rb");
  if (f == NULL) return NULL;
  char buf[65536];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  lua_pushlstring(L, buf, n);
  return lua_tolstring(L, -1, len);
}

/* Template `name` and its declarations: `<udir>/<name>.gp` when udir is
** given and that file exists (its text pushed, *user = 1; it must pass
** pod_gp_template_check), else the embedded plots/<name>.gp (nothing
** pushed).  NULL with a message in err when there is none or it is bad
** (a pushed text stays pushed). */
static const char *get_template(lua_State *L, const char *name,
                                const char *udir, int mode, size_t *len,
                                pod_gp_decl *d, int *nd, int *user, char *err,
                                size_t errn) {
  char file[64];
  *user = 0;
  if (!pod_gp_name_ok(name, strlen(name))) {
    snprintf(err, errn, "no plot template '%s'", name);
    return NULL;
  }
  const char *tpl = udir ? user_template(L, udir, name, mode, len) : NULL;
  if (tpl != NULL) {
    *user = 1;
    char why[200];
    if (pod_gp_template_check(tpl, *len, why, sizeof why) != 0) {
      snprintf(err, errn, "user template '%s.gp': %s", name, why);
      return NULL;
    }
  } else {
    snprintf(file, sizeof file, "plots/%s.gp", name);
    tpl = lpod_host_embedded(file, len);
  }
  if (tpl == NULL) {
    snprintf(err, errn, "no plot template '%s'", name);
    return NULL;
  }
  if (pod_gp_template_vars(tpl, *len, d, nd, err, errn) != 0) return NULL;
  return tpl;
}

static int path_mode(const char *m) {
  return strcmp(m, "out") == 0 ? LPOD_PATH_OUT : LPOD_PATH_READ;
}

/* _gnuplot_decls(name [, udir, mode]) -> decls, user_text | nil, message */
static int l_gnuplot_decls(lua_State *L) {
  size_t len;
  pod_gp_decl d[POD_GP_MAX_VARS];
  int nd, user;
  char err[300];
  const char *name = luaL_checkstring(L, 1);
  const char *udir = luaL_optstring(L, 2, NULL);
  int mode = path_mode(luaL_optstring(L, 3, "read"));
  lua_settop(L, 3);
  if (get_template(L, name, udir, mode, &len, d, &nd, &user, err, sizeof err) ==
      NULL) {
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_createtable(L, 0, nd);
  for (int i = 0; i < nd; i++) {
    lua_pushstring(L, type_name(d[i].type));
    lua_setfield(L, -2, d[i].name);
  }
  if (!user) return 1;
  lua_pushvalue(L, 4); /* the user template's text */
  return 2;
}

static int script_fail(lua_State *L, const char *field, const char *msg) {
  lua_pushnil(L);
  lua_pushstring(L, field);
  lua_pushstring(L, msg);
  return 3;
}

/* Resolve file variable `v` (relative names from base) for `mode`: a
** regular file inside the sandbox.  Its real path goes to real. */
static int resolve_file(lua_State *L, const char *v, const char *base, int mode,
                        char *real, size_t n, char *err, size_t errn) {
  char joined[PATH_MAX];
  if (v[0] != '/' && base != NULL) {
    if (snprintf(joined, sizeof joined, "%s/%s", base, v) >=
        (int)sizeof joined) {
      snprintf(err, errn, "path too long");
      return -1;
    }
    v = joined;
  }
  if (!lpod_sandbox_check(lpod_sandbox(L), v, mode, real, n)) {
    snprintf(err, errn, "'%.300s' is outside the %s", v,
             mode == LPOD_PATH_OUT ? "folder being plotted"
                                   : "scenario's folder and the output folder");
    return -1;
  }
  struct stat st;
  if (stat(real, &st) != 0 || !S_ISREG(st.st_mode)) {
    snprintf(err, errn, "'%.300s' is not a regular file", v);
    return -1;
  }
  return 0;
}

/* _gnuplot_script(name, vars, svg, mode, base [, udir])
**   -> script, user | nil, field, message */
static int l_gnuplot_script(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  const char *svg = luaL_checkstring(L, 3);
  int mode = path_mode(luaL_optstring(L, 4, "read"));
  const char *base = luaL_optstring(L, 5, NULL);
  const char *udir = luaL_optstring(L, 6, NULL);
  lua_settop(L, 6);
  char err[512];
  size_t tlen;
  pod_gp_decl d[POD_GP_MAX_VARS];
  int nd, user;
  const char *tpl =
      get_template(L, name, udir, mode, &tlen, d, &nd, &user, err, sizeof err);
  if (tpl == NULL) return script_fail(L, "template", err);
  if (!user) lua_pushnil(L); /* slot 7: the user template's text, kept */
  char out[PATH_MAX];
  if (!lpod_sandbox_check(lpod_sandbox(L), svg, LPOD_PATH_WRITE, out,
                          sizeof out))
    return script_fail(L, "output", "outside the output folder");
  /* real paths of file variables live in this userdata while we build */
  char(*paths)[PATH_MAX] =
      lua_newuserdatauv(L, sizeof(char[PATH_MAX]) * POD_GP_MAX_VARS, 0);
  pod_gp_value v[POD_GP_MAX_VARS];
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, 2)) { /* stack: ..., paths, key, value */
    if (lua_type(L, -2) != LUA_TSTRING)
      return script_fail(L, "vars", "variable names must be strings");
    if (n >= POD_GP_MAX_VARS)
      return script_fail(L, "vars", "too many variables");
    const char *k = lua_tostring(L, -2);
    int t = lua_type(L, -1);
    v[n].name = k;
    if (t == LUA_TNUMBER) {
      v[n].type = POD_GP_NUMBER;
      v[n].num = lua_tonumber(L, -1);
    } else if (t == LUA_TSTRING) {
      v[n].type = POD_GP_STRING;
      v[n].str = lua_tolstring(L, -1, &v[n].len);
    } else {
      snprintf(err, sizeof err, "expected a number or a string, got %s",
               luaL_typename(L, -1));
      return script_fail(L, k, err);
    }
    for (int i = 0; i < nd; i++)
      if (strcmp(d[i].name, k) == 0 && d[i].type == POD_GP_FILE &&
          t == LUA_TSTRING) {
        if (resolve_file(L, v[n].str, base, mode, paths[n], PATH_MAX, err,
                         sizeof err) != 0)
          return script_fail(L, k, err);
        v[n].str = paths[n];
        v[n].len = strlen(paths[n]);
      }
    /* the key stays referenced by the table: its string outlives the pop */
    lua_pop(L, 1);
    n++;
  }
  pod_gp_buf b = {0};
  if (pod_gp_script(tpl, tlen, out, v, n, &b, err, sizeof err) != 0) {
    pod_gp_buf_free(&b);
    const char *colon = strchr(err, ':');
    if (colon && pod_gp_name_ok(err, (size_t)(colon - err))) {
      lua_pushlstring(L, err, (size_t)(colon - err));
      const char *msg = colon + 1 + (colon[1] == ' ');
      lua_pushnil(L);
      lua_insert(L, -2);
      lua_pushstring(L, msg);
      return 3;
    }
    return script_fail(L, "vars", err);
  }
  lua_pushlstring(L, b.p, b.len);
  pod_gp_buf_free(&b);
  lua_pushboolean(L, user);
  return 2;
}

static int l_recipe_parse(lua_State *L) {
  size_t len;
  const char *text = luaL_checklstring(L, 1, &len);
  pod_gp_recipe *r = lua_newuserdatauv(L, sizeof *r, 0);
  char err[300];
  if (pod_gp_recipe_parse(text, len, r, err, sizeof err) != 0) {
    pod_gp_recipe_free(r);
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_createtable(L, 0, 2);
  lua_pushstring(L, r->tmpl);
  lua_setfield(L, -2, "template");
  lua_createtable(L, 0, r->nvars);
  for (int i = 0; i < r->nvars; i++) {
    if (r->vars[i].is_number)
      lua_pushnumber(L, r->vars[i].num);
    else
      lua_pushlstring(L, r->vars[i].str, r->vars[i].len);
    lua_setfield(L, -2, r->vars[i].name);
  }
  lua_setfield(L, -2, "vars");
  pod_gp_recipe_free(r);
  return 1;
}

/* Recipe variables in name order (stable bytes). */
static int cmp_rvar(const void *a, const void *b) {
  return strcmp(a, b);
}

static int l_recipe_format(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  pod_gp_recipe *r = lua_newuserdatauv(L, sizeof *r, 0);
  memset(r, 0, sizeof *r);
  if (strlen(name) >= sizeof r->tmpl)
    return luaL_error(L, "template name too long");
  strcpy(r->tmpl, name);
  lua_pushnil(L);
  while (lua_next(L, 2)) {
    size_t kl;
    const char *k =
        lua_type(L, -2) == LUA_TSTRING ? lua_tolstring(L, -2, &kl) : NULL;
    if (k == NULL || !pod_gp_name_ok(k, kl) || r->nvars >= POD_GP_MAX_VARS) {
      lua_pushnil(L);
      lua_pushliteral(L, "recipe variables must be identifiers (at most 16)");
      return 2;
    }
    int i = r->nvars++;
    memcpy(r->vars[i].name, k, kl + 1);
    if (lua_type(L, -1) == LUA_TNUMBER) {
      r->vars[i].is_number = 1;
      r->vars[i].num = lua_tonumber(L, -1);
    } else {
      /* strings point into the table's values, alive until we return */
      r->vars[i].str = (char *)lua_tolstring(L, -1, &r->vars[i].len);
      if (r->vars[i].str == NULL) {
        lua_pushnil(L);
        lua_pushfstring(L, "%s: expected a number or a string", k);
        return 2;
      }
    }
    lua_pop(L, 1);
  }
  qsort(r->vars, (size_t)r->nvars, sizeof r->vars[0], cmp_rvar);
  pod_gp_buf b = {0};
  char err[256];
  int rc = pod_gp_recipe_format(r, &b, err, sizeof err);
  r->nvars = 0; /* the strings belong to Lua */
  if (rc != 0) {
    pod_gp_buf_free(&b);
    lua_pushnil(L);
    lua_pushstring(L, err);
    return 2;
  }
  lua_pushlstring(L, b.p, b.len);
  pod_gp_buf_free(&b);
  return 1;
}

void lpod_open_plot(lua_State *L) {
  static const luaL_Reg fns[] = {{"_gnuplot_run", lpod_plot_run},
                                 {"_gnuplot_run_jailed", lpod_plot_run_jailed},
                                 {"_gnuplot_script", l_gnuplot_script},
                                 {"_gnuplot_decls", l_gnuplot_decls},
                                 {"_recipe_parse", l_recipe_parse},
                                 {"_recipe_format", l_recipe_format},
                                 {NULL, NULL}};
  luaL_setfuncs(L, fns, 0);
}
