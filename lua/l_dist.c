/*
** l_dist.c: podsim.dist.<kind>{...}: distributions of uncertain inputs
** (DESIGN.md 4.6).  Parameters are given by position or by name; they are
** checked here, when the study is written, not mid-run.
**
**   fixed{v}                 value=
**   uniform{lo, hi}          loguniform{lo, hi}
**   normal{mean, sd}         truncnormal{mean, sd, lo, hi}
**   lognormal{mu, sigma} | {median=, p90=} | {p5=, p95=}
**   triangular{lo, mode, hi} beta{a, b, lo=0, hi=1}
**   gamma{shape, scale}      weibull{shape, scale}   exponential{mean}
**   choice{v1, v2, ...} | {values={...}, weights={...}}  (any Lua values)
**   empirical{x1, x2, ...} | {values={...}}              (numbers)
*/
#include "l_dist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "lpod.h"

#define DIST_T "podsim.dist"
#define MAX_VALUES (1 << 20)

typedef struct ldist {
  pod_dist d;
  int has_labels; /* choice over non-numbers: uservalue 1 holds labels */
} ldist;

const pod_dist *lpod_dist_test(lua_State *L, int idx, int *has_labels) {
  ldist *ld = luaL_testudata(L, idx, DIST_T);
  if (ld == NULL) return NULL;
  if (has_labels) *has_labels = ld->has_labels;
  return &ld->d;
}

void lpod_dist_push_labels(lua_State *L, int idx) {
  lua_getiuservalue(L, idx, 1);
}

static int dist_gc(lua_State *L) {
  ldist *ld = luaL_checkudata(L, 1, DIST_T);
  pod_dist_free(&ld->d);
  memset(&ld->d, 0, sizeof ld->d); /* a second call frees nothing */
  return 0;
}

typedef struct kind_def {
  const char *name;
  const char *params[5]; /* positional names, NULL-terminated */
  int nrequired;
} kind_def;

static const kind_def kinds[] = {
    {"fixed", {"value", NULL}, 1},
    {"uniform", {"lo", "hi", NULL}, 2},
    {"loguniform", {"lo", "hi", NULL}, 2},
    {"normal", {"mean", "sd", NULL}, 2},
    {"truncnormal", {"mean", "sd", "lo", "hi", NULL}, 4},
    {"lognormal", {"mu", "sigma", NULL}, 2},
    {"triangular", {"lo", "mode", "hi", NULL}, 3},
    {"beta", {"a", "b", "lo", "hi", NULL}, 2},
    {"gamma", {"shape", "scale", NULL}, 2},
    {"weibull", {"shape", "scale", NULL}, 2},
    {"exponential", {"mean", NULL}, 1},
    {NULL, {NULL}, 0}};

static void push_new(lua_State *L, const pod_dist *d, int labels_idx) {
  ldist *ld = lua_newuserdatauv(L, sizeof *ld, 1);
  ld->d = *d;
  ld->has_labels = 0;
  if (labels_idx) {
    lua_pushvalue(L, labels_idx);
    lua_setiuservalue(L, -2, 1);
    ld->has_labels = 1;
  }
  luaL_setmetatable(L, DIST_T);
}

static void check_dist(lua_State *L, const char *ctx, pod_dist *d) {
  pod_err e;
  pod_err_clear(&e);
  if (pod_dist_check(d, &e) != POD_OK) {
    pod_dist_free(d);
    lpod_error_core(L, ctx, NULL, &e);
  }
}

/* Reads parameter i (1-based position or name) of a plain kind. */
static int read_param(lua_State *L, const char *ctx, const char *name, int pos,
                      double *out) {
  lua_getfield(L, 1, name);
  lua_rawgeti(L, 1, pos);
  if (!lua_isnil(L, -1) && !lua_isnil(L, -2))
    lpod_error(L, ctx, name, "given both by position (%d) and by name", pos);
  if (lua_isnil(L, -1))
    lua_pop(L, 1);
  else
    lua_remove(L, -2);
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    return 0;
  }
  *out = lpod_check_range(L, -1, -HUGE_VAL, HUGE_VAL, 0, ctx, name);
  lua_pop(L, 1);
  return 1;
}

static void check_no_extra(lua_State *L, const char *ctx,
                           const char *const *names, int npos) {
  lua_pushnil(L);
  while (lua_next(L, 1)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) == LUA_TNUMBER) {
      lua_Integer i = lua_tointeger(L, -1);
      if (i < 1 || i > npos)
        lpod_error(L, ctx, NULL, "takes at most %d positional parameters",
                   npos);
      continue;
    }
    if (lua_type(L, -1) != LUA_TSTRING) lpod_error(L, ctx, NULL, "bad key");
    const char *k = lua_tostring(L, -1);
    int ok = 0;
    for (int i = 0; names[i]; i++)
      if (strcmp(k, names[i]) == 0) ok = 1;
    if (!ok) {
      const char *near = lpod_nearest(k, names);
      if (near)
        lpod_error(L, ctx, k, "unknown parameter (did you mean '%s'?)", near);
      lpod_push_names(L, names);
      lpod_error(L, ctx, k, "unknown parameter (one of %s)",
                 lua_tostring(L, -1));
    }
  }
}

/* podsim.dist.<plain kind>{...}; upvalue 1: index into kinds[] */
static int l_plain(lua_State *L) {
  const kind_def *k = &kinds[lua_tointeger(L, lua_upvalueindex(1))];
  char ctx[48];
  snprintf(ctx, sizeof ctx, "podsim.dist.%s", k->name);
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL,
                      "expected a table of parameters, e.g. %s{...}", ctx);
  pod_dist d;
  pod_err e;
  pod_err_clear(&e);
  if (strcmp(k->name, "lognormal") == 0) {
    static const char *const names[] = {"mu", "sigma", "median", "p90",
                                        "p5", "p95",   NULL};
    check_no_extra(L, ctx, names, 2);
    double a, b;
    int has_mu = read_param(L, ctx, "mu", 1, &a);
    int has_sigma = read_param(L, ctx, "sigma", 2, &b);
    double med, p90, p5, p95;
    int has_med = read_param(L, ctx, "median", 0, &med);
    int has_p90 = read_param(L, ctx, "p90", 0, &p90);
    int has_p5 = read_param(L, ctx, "p5", 0, &p5);
    int has_p95 = read_param(L, ctx, "p95", 0, &p95);
    int forms =
        (has_mu || has_sigma) + (has_med || has_p90) + (has_p5 || has_p95);
    if (forms != 1)
      return lpod_error(
          L, ctx, NULL,
          "give exactly one of {mu, sigma}, {median=, p90=} or {p5=, p95=}");
    int rc;
    if (has_mu || has_sigma) {
      if (!has_mu || !has_sigma)
        return lpod_error(L, ctx, has_mu ? "sigma" : "mu",
                          "required parameter is missing");
      d = pod_dist_lognormal(a, b);
      rc = POD_OK;
    } else if (has_med || has_p90) {
      if (!has_med || !has_p90)
        return lpod_error(L, ctx, has_med ? "p90" : "median",
                          "required parameter is missing");
      rc = pod_dist_lognormal_median_p90(med, p90, &d, &e);
    } else {
      if (!has_p5 || !has_p95)
        return lpod_error(L, ctx, has_p5 ? "p95" : "p5",
                          "required parameter is missing");
      rc = pod_dist_lognormal_p5_p95(p5, p95, &d, &e);
    }
    if (rc != POD_OK) return lpod_error_core(L, ctx, NULL, &e);
    check_dist(L, ctx, &d);
    push_new(L, &d, 0);
    return 1;
  }
  int np = 0;
  while (k->params[np]) np++;
  check_no_extra(L, ctx, k->params, np);
  double p[4] = {0, 0, 0, 1};
  for (int i = 0; i < np; i++) {
    if (!read_param(L, ctx, k->params[i], i + 1, &p[i]) && i < k->nrequired)
      return lpod_error(L, ctx, k->params[i], "required parameter is missing");
  }
  switch ((int)(k - kinds)) {
    case 0:
      d = pod_dist_fixed(p[0]);
      break;
    case 1:
      d = pod_dist_uniform(p[0], p[1]);
      break;
    case 2:
      d = pod_dist_loguniform(p[0], p[1]);
      break;
    case 3:
      d = pod_dist_normal(p[0], p[1]);
      break;
    case 4:
      d = pod_dist_truncnormal(p[0], p[1], p[2], p[3]);
      break;
    case 6:
      d = pod_dist_triangular(p[0], p[1], p[2]);
      break;
    case 7:
      d = pod_dist_beta(p[0], p[1], p[2], p[3]);
      break;
    case 8:
      d = pod_dist_gamma(p[0], p[1]);
      break;
    case 9:
      d = pod_dist_weibull(p[0], p[1]);
      break;
    default:
      d = pod_dist_exponential(p[0]);
      break;
  }
  check_dist(L, ctx, &d);
  push_new(L, &d, 0);
  return 1;
}

/* Values from {v1, v2, ...} or {values = {...}}; pushes the list. */
static int values_list(lua_State *L, const char *ctx, int allow_weights) {
  lua_getfield(L, 1, "values");
  int named = !lua_isnil(L, -1);
  if (!named) {
    lua_pop(L, 1);
    lua_pushvalue(L, 1);
  } else if (!lua_istable(L, -1)) {
    lpod_error(L, ctx, "values", "expected a list");
  }
  static const char *const with_w[] = {"values", "weights", NULL};
  static const char *const without_w[] = {"values", NULL};
  if (named) check_no_extra(L, ctx, allow_weights ? with_w : without_w, 0);
  int n = (int)lua_rawlen(L, -1);
  if (n < 1) lpod_error(L, ctx, "values", "needs at least one value");
  if (n > MAX_VALUES)
    lpod_error(L, ctx, "values", "at most %d values", MAX_VALUES);
  if (!named) {
    /* positional form: only the list part */
    lua_pushnil(L);
    while (lua_next(L, 1)) {
      lua_pop(L, 1);
      if (!lua_isinteger(L, -1) || lua_tointeger(L, -1) < 1 ||
          lua_tointeger(L, -1) > n)
        lpod_error(L, ctx, lua_isstring(L, -1) ? lua_tostring(L, -1) : NULL,
                   "expected a list of values (or values=, weights=)");
    }
  }
  return n;
}

static int l_choice(lua_State *L) {
  static const char ctx[] = "podsim.dist.choice";
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL, "expected a table of values");
  int n = values_list(L, ctx, 1);
  int list = lua_gettop(L);
  double *vals = malloc(sizeof(double) * (size_t)n);
  double *w = NULL;
  if (vals == NULL) return luaL_error(L, "out of memory");
  int numeric = 1;
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, list, i);
    if (lua_type(L, -1) != LUA_TNUMBER)
      numeric = 0;
    else
      vals[i - 1] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  if (!numeric)
    for (int i = 0; i < n; i++) vals[i] = i; /* sampled index into labels */
  lua_getfield(L, 1, "weights");
  if (!lua_isnil(L, -1)) {
    if (!lua_istable(L, -1) || (int)lua_rawlen(L, -1) != n) {
      free(vals);
      return lpod_error(L, ctx, "weights",
                        "expected a list of %d weights, one per value", n);
    }
    w = malloc(sizeof(double) * (size_t)n);
    if (w == NULL) {
      free(vals);
      return luaL_error(L, "out of memory");
    }
    for (int i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, i);
      if (lua_type(L, -1) != LUA_TNUMBER) {
        free(vals);
        free(w);
        return lpod_error(L, ctx, "weights", "weight %d is not a number", i);
      }
      w[i - 1] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  pod_dist d;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_dist_discrete(vals, w, n, &d, &e);
  free(vals);
  free(w);
  if (rc != POD_OK) return lpod_error_core(L, ctx, NULL, &e);
  push_new(L, &d, numeric ? 0 : list);
  return 1;
}

static int l_empirical(lua_State *L) {
  static const char ctx[] = "podsim.dist.empirical";
  if (!lua_istable(L, 1))
    return lpod_error(L, ctx, NULL, "expected a list of numbers");
  int n = values_list(L, ctx, 0);
  double *vals = malloc(sizeof(double) * (size_t)n);
  if (vals == NULL) return luaL_error(L, "out of memory");
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(L, -1, i);
    if (lua_type(L, -1) != LUA_TNUMBER || !isfinite(lua_tonumber(L, -1))) {
      free(vals);
      return lpod_error(L, ctx, "values", "value %d is not a finite number", i);
    }
    vals[i - 1] = lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  pod_dist d;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_dist_empirical(vals, n, &d, &e);
  free(vals);
  if (rc != POD_OK) return lpod_error_core(L, ctx, NULL, &e);
  check_dist(L, ctx, &d); /* the whole list: its mean must not overflow */
  push_new(L, &d, 0);
  return 1;
}

void lpod_dist_push_description(lua_State *L, int idx) {
  int labels = 0;
  const pod_dist *d = lpod_dist_test(L, idx, &labels);
  idx = lua_absindex(L, idx);
  lua_newtable(L);
  if (d == NULL) return;
  const char *kind = pod_dist_kind_name(d->kind);
  if (d->kind == POD_DIST_DISCRETE) kind = "choice";
  lua_pushstring(L, kind);
  lua_setfield(L, -2, "kind");
  if (d->kind == POD_DIST_DISCRETE || d->kind == POD_DIST_EMPIRICAL) {
    if (labels) {
      lpod_dist_push_labels(L, idx);
    } else {
      lua_createtable(L, d->n, 0);
      for (int i = 0; i < d->n; i++) {
        lua_pushnumber(L, d->values[i]);
        lua_rawseti(L, -2, i + 1);
      }
    }
    lua_setfield(L, -2, "values");
    if (d->weights) {
      lua_createtable(L, d->n, 0);
      for (int i = 0; i < d->n; i++) {
        lua_pushnumber(L, d->weights[i]);
        lua_rawseti(L, -2, i + 1);
      }
      lua_setfield(L, -2, "weights");
    }
    return;
  }
  for (int k = 0; kinds[k].name; k++) {
    if (strcmp(kinds[k].name, kind) != 0) continue;
    for (int i = 0; kinds[k].params[i]; i++) {
      lua_pushnumber(L, d->p[i]);
      lua_setfield(L, -2, kinds[k].params[i]);
    }
  }
}

static int dist_tostring(lua_State *L) {
  const pod_dist *d = &((ldist *)luaL_checkudata(L, 1, DIST_T))->d;
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  const char *kind =
      d->kind == POD_DIST_DISCRETE ? "choice" : pod_dist_kind_name(d->kind);
  luaL_addstring(&b, kind);
  luaL_addchar(&b, '{');
  if (d->kind == POD_DIST_DISCRETE || d->kind == POD_DIST_EMPIRICAL) {
    lua_pushfstring(L, "%d values", d->n);
    luaL_addvalue(&b);
  } else {
    for (int k = 0; kinds[k].name; k++) {
      if (strcmp(kinds[k].name, kind) != 0) continue;
      for (int i = 0; kinds[k].params[i]; i++) {
        lua_pushfstring(L, "%s%s=%f", i ? ", " : "", kinds[k].params[i],
                        d->p[i]);
        luaL_addvalue(&b);
      }
    }
  }
  luaL_addchar(&b, '}');
  luaL_pushresult(&b);
  return 1;
}

static int dist_index(lua_State *L) {
  const pod_dist *d = &((ldist *)luaL_checkudata(L, 1, DIST_T))->d;
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "mean") == 0)
    lua_pushnumber(L, pod_dist_mean(d));
  else if (strcmp(k, "variance") == 0)
    lua_pushnumber(L, pod_dist_variance(d));
  else if (strcmp(k, "kind") == 0)
    lua_pushstring(L, d->kind == POD_DIST_DISCRETE
                          ? "choice"
                          : pod_dist_kind_name(d->kind));
  else if (strcmp(k, "quantile") == 0) {
    lua_pushvalue(L, lua_upvalueindex(1));
  } else
    return 0;
  return 1;
}

static int dist_quantile(lua_State *L) {
  const pod_dist *d = lpod_dist_test(L, 1, NULL);
  if (d == NULL)
    return lpod_error(L, "dist:quantile", NULL, "call as dist:quantile(u)");
  double u = lpod_check_range(L, 2, 0, 1, 1, "dist:quantile", "u");
  lua_pushnumber(L, pod_dist_quantile(d, u));
  return 1;
}

/* __index of podsim.dist: an unknown kind is an error with a suggestion. */
static int dist_kinds_index(lua_State *L) {
  if (lua_type(L, 2) != LUA_TSTRING) return 0;
  const char *names[32];
  int n = 0;
  for (int i = 0; kinds[i].name && n < 29; i++) names[n++] = kinds[i].name;
  names[n++] = "choice";
  names[n++] = "empirical";
  names[n] = NULL;
  const char *k = lua_tostring(L, 2);
  const char *near = lpod_nearest(k, names);
  if (near)
    return lpod_error(L, "podsim.dist", k,
                      "unknown distribution (did you mean '%s'?)", near);
  lpod_push_names(L, names); /* the kinds, from the one table above */
  return lpod_error(L, "podsim.dist", k, "unknown distribution (%s)",
                    lua_tostring(L, -1));
}

void lpod_open_dist(lua_State *L) {
  int podsim = lua_gettop(L);
  luaL_newmetatable(L, DIST_T);
  lua_pushcfunction(L, dist_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, dist_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, dist_quantile);
  lua_pushcclosure(L, dist_index, 1);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "dist");
  lua_setfield(L, -2, "__name");
  lua_pushboolean(L, 0); /* getmetatable(d) is false: no __gc to call twice */
  lua_setfield(L, -2, "__metatable");
  lua_pop(L, 1);
  lua_newtable(L); /* stack: podsim, dist */
  for (int i = 0; kinds[i].name; i++) {
    lua_pushinteger(L, i);
    lua_pushcclosure(L, l_plain, 1);
    lua_setfield(L, -2, kinds[i].name);
  }
  lua_pushcfunction(L, l_choice);
  lua_setfield(L, -2, "choice");
  lua_pushcfunction(L, l_empirical);
  lua_setfield(L, -2, "empirical");
  lua_createtable(L, 0, 2); /* stack: podsim, dist, mt */
  lua_pushcfunction(L, dist_kinds_index);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "podsim.dist"); /* copied into workers by name */
  lua_setfield(L, -2, "__lpod_global");
  lua_pushboolean(L, 0);
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_setfield(L, podsim, "dist");
}
