/*
** l_study.c: Monte Carlo studies (DESIGN.md 3, 4.6; lua/README.md).
**
**   local s = podsim.study{name=, samples=, seed=, params={name=dist},
**                          grid={key={values}}, eval=function(p) ... end
**                          | podsim.kernel.<name>{base fields},
**                          metrics=, sensitivity=, target=, keep_samples=,
**                          chunk_size=}
**   local r = s:run()            -- s:start() then s:wait()
**   podsim.all{s1:start(), s2:start()}   -- several at once
**
** The plan (core/mc_*.c) samples the parameters and merges chunks in chunk
** order; the runner (core/run.c) runs chunks on the libuv thread pool.
** This file binds the two to Lua:
**
** - Built-in evaluators: one config struct per grid point is built from
**   the kernel's base table merged with the grid point's values
**   (lpod_build), and parameters bind to dotted config fields by offset.
**   No Lua runs per sample.
** - Lua evaluators run in worker states, one per pool worker, never in the
**   main state.  The study copies `eval` (bytecode and upvalues), the grid
**   points and the labels of choice distributions into a template state on
**   the loop thread when it is built; each worker copies them from the
**   template under `tmpl_mu` (the only lock here: held only while copying,
**   never while evaluating).  So the scenario's top-level code runs once.
** - s:wait() yields the scenario coroutine (lua_yieldk); the run's done
**   callback resumes it; the continuation builds the results table inside
**   the coroutine, so errors raised there are located at the scenario line.
*/
#include "l_study.h"

/* ---------------------------------------------------------------------- */
/* study construction                                                      */
/* ---------------------------------------------------------------------- */

static void study_release(study *s) {
  if (s->plan) pod_mc_plan_free(s->plan);
  s->plan = NULL;
  if (s->results) pod_mc_results_free(s->results);
  s->results = NULL;
  if (s->kernel && s->ev.eval) pod_mc_kernel_evaluator_free(&s->ev);
  lpod_traced_free(s->traced);
  s->traced = NULL;
  s->ev.eval = NULL;
  for (int i = 0; s->pnames && i < s->P; i++) free(s->pnames[i]);
  for (int i = 0; s->mnames && i < s->M; i++) free(s->mnames[i]);
  free(s->pnames);
  free(s->mnames);
  s->pnames = s->mnames = NULL;
  for (int i = 0; s->dists && i < s->P; i++) pod_dist_free(&s->dists[i]);
  free(s->dists);
  s->dists = NULL;
  free(s->labeled);
  s->labeled = NULL;
  free(s->base_cfgs);
  s->base_cfgs = NULL;
  free(s->binds);
  s->binds = NULL;
  for (int g = 0; s->glabels && g < s->G; g++) free(s->glabels[g]);
  free(s->glabels);
  s->glabels = NULL;
  if (s->tmpl) {
    void *aud;
    lua_getallocf(s->tmpl, &aud);
    lua_close(s->tmpl);
    free(aud);
    s->tmpl = NULL;
  }
  if (s->has_mu) uv_mutex_destroy(&s->tmpl_mu);
  s->has_mu = 0;
}

static int study_gc(lua_State *L) {
  study *s = luaL_checkudata(L, 1, STUDY_T);
  if (s->state == ST_RUNNING) {
    /* cannot happen while the registry holds running studies */
    return 0;
  }
  study_release(s);
  return 0;
}

static char *dupstr(const char *x) {
  size_t n = strlen(x) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, x, n);
  return p;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Push the sorted string keys of the table at idx as a list. */
void lpod_study__push_sorted_keys(lua_State *L, int idx, const char *ctx,
                                  const char *path) {
  idx = lua_absindex(L, idx);
  int n = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      lpod_error(L, ctx, path, "keys must be names (strings)");
    n++;
  }
  const char **keys = lua_newuserdatauv(L, sizeof(char *) * (size_t)(n + 1), 0);
  int i = 0;
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    lua_pop(L, 1);
    keys[i++] = lua_tostring(L, -1); /* anchored by the table */
  }
  qsort(keys, (size_t)n, sizeof(char *), cmp_str);
  lua_createtable(L, n, 0);
  for (i = 0; i < n; i++) {
    lua_pushstring(L, keys[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_remove(L, -2); /* the scratch userdata */
}

static const char *const study_keys[] = {
    "name",   "samples",      "seed",       "params",
    "grid",   "eval",         "metrics",    "sensitivity",
    "target", "keep_samples", "chunk_size", "threads",
    "unfit",  "nonfinite",    "trace",      NULL};

/* Every table among the grid values at idx carries a string `label` (or
** `name`): it names the grid point in files and tables, where a table's
** address would differ from run to run.  [-0, +0, v] */
static void check_grid_labels(lua_State *L, int idx, const char *ctx,
                              const char *path) {
  idx = lua_absindex(L, idx);
  lua_Integer n = (lua_Integer)lua_rawlen(L, idx);
  for (lua_Integer i = 1; i <= n; i++) {
    if (lua_rawgeti(L, idx, i) == LUA_TTABLE) {
      int ok = lua_getfield(L, -1, "label") == LUA_TSTRING;
      lua_pop(L, 1);
      if (!ok) {
        ok = lua_getfield(L, -1, "name") == LUA_TSTRING;
        lua_pop(L, 1);
      }
      if (!ok) {
        char p[128];
        snprintf(p, sizeof p, "%s[%lld]", path, (long long)i);
        lpod_error(L, ctx, p,
                   "a table as a grid value needs a string `label` (or `name`) "
                   "field: it "
                   "names the grid point in results and files");
      }
    }
    lua_pop(L, 1);
  }
}

/* Build the grid: stack gets a list of G tables (key -> value), keys
** sorted, the last key varying fastest.  Returns G. */
static int build_grid(lua_State *L, int spec, const char *ctx) {
  lua_getfield(L, spec, "grid"); /* stack: grid|nil */
  int grid = lua_gettop(L);
  lua_newtable(L); /* points */
  int points = lua_gettop(L);
  if (lua_isnil(L, grid)) {
    lua_newtable(L);
    lua_rawseti(L, points, 1);
    lua_remove(L, grid);
    return 1;
  }
  if (!lua_istable(L, grid))
    lpod_error(L, ctx, "grid", "expected a table {key = {values}}");
  lpod_study__push_sorted_keys(L, grid, ctx,
                               "grid"); /* stack: grid, points, keys */
  int keys = lua_gettop(L);
  int nk = (int)lua_rawlen(L, keys);
  int64_t G = 1;
  for (int i = 1; i <= nk; i++) {
    lua_rawgeti(L, keys, i);
    const char *k = lua_tostring(L, -1);
    lua_gettable(L, grid);
    char path[96];
    snprintf(path, sizeof path, "grid.%s", k);
    if (!lua_istable(L, -1) || lua_rawlen(L, -1) == 0)
      lpod_error(L, ctx, path, "expected a non-empty list of values");
    check_grid_labels(L, -1, ctx, path);
    G *= (int64_t)lua_rawlen(L, -1);
    if (G > MAX_GRID)
      lpod_error(L, ctx, "grid", "more than %d grid points", MAX_GRID);
    lua_pop(L, 1);
  }
  for (int64_t g = 0; g < G; g++) {
    lua_createtable(L, 0, nk); /* point */
    int64_t rem = g;
    for (int i = nk; i >= 1; i--) {
      lua_rawgeti(L, keys, i); /* key */
      lua_pushvalue(L, -1);
      lua_gettable(L, grid); /* key, values */
      int64_t n = (int64_t)lua_rawlen(L, -1);
      lua_rawgeti(L, -1, (lua_Integer)(rem % n) + 1); /* key, values, v */
      rem /= n;
      lua_remove(L, -2);
      lua_rawset(L, -3);
    }
    lua_rawseti(L, points, (lua_Integer)g + 1);
  }
  lua_pop(L, 1);       /* keys */
  lua_remove(L, grid); /* stack: points */
  return (int)G;
}

/* podsim.study: a grid key named like a sampled parameter is an error
** (the sample would overwrite the grid value while the rows stay labelled
** with it).  [-0, +0, e] */
static void study_check_grid_params(lua_State *L, study *s, const char *ctx) {
  lua_getfield(L, 1, "grid");
  if (lua_istable(L, -1)) {
    for (int i = 0; i < s->P; i++) {
      lua_getfield(L, -1, s->pnames[i]);
      int clash = !lua_isnil(L, -1);
      lua_pop(L, 1);
      if (clash) {
        char path[128];
        snprintf(path, sizeof path, "grid.%s", s->pnames[i]);
        lpod_error(
            L, ctx, path,
            "is also a sampled parameter (params.%s): the sample would replace "
            "the grid "
            "value while the rows are labelled with it; rename one of them",
            s->pnames[i]);
      }
    }
  }
  lua_pop(L, 1);
}

/* The label "key=value key=value" (keys sorted) of every grid point in the
** list at points, for errors: numbers as %.10g, specs by name.
** [-0, +0, m] */
static void study_grid_labels(lua_State *L, study *s, int points) {
  s->glabels = calloc((size_t)s->G, sizeof(char *));
  if (s->glabels == NULL) luaL_error(L, "out of memory");
  for (int g = 0; g < s->G; g++) {
    char buf[512];
    size_t len = 0;
    buf[0] = '\0';
    lua_rawgeti(L, points, g + 1);                               /* pt */
    lpod_study__push_sorted_keys(L, -1, "podsim.study", "grid"); /* pt, keys */
    int nk = (int)lua_rawlen(L, -1);
    for (int i = 1; i <= nk && len < sizeof buf; i++) {
      lua_rawgeti(L, -1, i); /* pt, keys, k */
      lua_pushvalue(L, -1);
      lua_rawget(L, -4); /* pt, keys, k, v */
      char val[128];
      if (lua_type(L, -1) == LUA_TNUMBER) {
        snprintf(val, sizeof val, "%.10g", lua_tonumber(L, -1));
      } else if (lua_type(L, -1) == LUA_TSTRING) {
        snprintf(val, sizeof val, "%s", lua_tostring(L, -1));
      } else if (lua_type(L, -1) == LUA_TUSERDATA &&
                 lua_getfield(L, -1, "name") == LUA_TSTRING) {
        snprintf(val, sizeof val, "%s", lua_tostring(L, -1));
        lua_pop(L, 1);
      } else {
        if (lua_type(L, -1) == LUA_TUSERDATA) lua_pop(L, 1);
        snprintf(val, sizeof val, "%s", luaL_typename(L, -1));
      }
      len += (size_t)snprintf(buf + len, sizeof buf - len, "%s%s=%s",
                              i > 1 ? " " : "", lua_tostring(L, -2), val);
      lua_pop(L, 2);
    }
    lua_pop(L, 2);
    s->glabels[g] = dupstr(buf);
    if (s->glabels[g] == NULL) luaL_error(L, "out of memory");
  }
}

/* The core bound of spec member `name` (pod_mc_spec_fields; NULL when
** unknown: lpod_opt_field reports that as an internal error). */
static const pod_field *spec_bound(const char *name) {
  return pod_field_find(pod_mc_spec_fields, name);
}
static const pod_field *stop_bound(const char *name) {
  return pod_field_find(pod_mc_stop_fields, name);
}

/* podsim.study: name, samples, seed, chunk_size, keep_samples, threads,
** sensitivity of the spec at 1 into s. */
static int study_read_options(lua_State *L, study *s, const pod_host_opts *o,
                              const char *ctx) {
  lua_getfield(L, 1, "name");
  if (lua_isnil(L, -1)) {
    snprintf(s->name, sizeof s->name, "study");
  } else {
    size_t len;
    const char *nm = lua_tolstring(L, -1, &len);
    if (lua_type(L, -1) != LUA_TSTRING || len == 0 || len >= NAME_MAX_LEN)
      return lpod_error(L, ctx, "name",
                        "expected a non-empty string of at most %d characters",
                        NAME_MAX_LEN - 1);
    for (size_t i = 0; i < len; i++)
      if (!(nm[i] == '_' || nm[i] == '-' || nm[i] == '.' ||
            (nm[i] >= '0' && nm[i] <= '9') || (nm[i] >= 'a' && nm[i] <= 'z') ||
            (nm[i] >= 'A' && nm[i] <= 'Z')) ||
          nm[0] == '.')
        return lpod_error(
            L, ctx, "name",
            "use letters, digits, '_', '-' and '.' only (it names a folder)");
    memcpy(s->name, nm, len + 1);
  }
  lua_pop(L, 1);
  /* the bounds and the enum names are core's (pod_mc.h) */
  double samples = lpod_opt_field(L, 1, "samples", 10000, spec_bound("samples"),
                                  0, ctx, NULL);
  s->samples = o->samples > 0 ? o->samples : (int64_t)samples;
  double seed =
      lpod_opt_field(L, 1, "seed", 1, spec_bound("seed"), 0, ctx, NULL);
  s->seed = o->seed >= 0 ? (uint64_t)o->seed : (uint64_t)seed;
  s->chunk_size = (int)lpod_opt_field(L, 1, "chunk_size", POD_MC_CHUNK_DEFAULT,
                                      spec_bound("chunk_size"), 0, ctx, NULL);
  s->keep_samples = lpod_opt_bool(L, 1, "keep_samples", 0, ctx, NULL);
  {
    int pool = o->threads > 0 ? o->threads : 1;
    s->threads = (int)lpod_opt_field(L, 1, "threads", pool, &pod_run_threads, 0,
                                     ctx, NULL);
    if (s->threads > pool)
      s->threads = pool; /* the pool is sized by --threads */
  }
  s->sens =
      (pod_mc_sens)lpod_opt_enum(L, 1, "sensitivity", POD_MC_SENS_SPEARMAN,
                                 pod_mc_sens_names, 0, ctx, NULL);
  lua_getfield(L, 1, "unfit");
  s->unfit_given = !lua_isnil(L, -1);
  lua_pop(L, 1);
  s->unfit = (pod_mc_unfit)lpod_opt_enum(L, 1, "unfit", POD_MC_UNFIT_KEEP,
                                         pod_mc_unfit_names, 0, ctx, NULL);
  s->nonfinite =
      (pod_mc_nonfinite)lpod_opt_enum(L, 1, "nonfinite", POD_MC_NONFINITE_COUNT,
                                      pod_mc_nonfinite_names, 0, ctx, NULL);

  return 0;
}

/* podsim.study: the params (sorted names, each a dist or a number) into
** s; pushes params, pnames (sorted list) and labels (per param: a list of
** labels or false).  [-0, +3, e] */
static int study_read_params(lua_State *L, study *s, const char *ctx) {
  lua_getfield(L, 1, "params"); /* stack: spec, s, params */
  if (lua_isnil(L, -1)) {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  if (!lua_istable(L, -1))
    return lpod_error(L, ctx, "params",
                      "expected a table {name = podsim.dist.<kind>{...}}");
  int params = lua_gettop(L);
  lpod_study__push_sorted_keys(L, params, ctx,
                               "params"); /* stack: ..., params, pnames */
  int pnames = lua_gettop(L);
  s->P = (int)lua_rawlen(L, pnames);
  if (s->P > MAX_PARAMS)
    return lpod_error(L, ctx, "params", "at most %d parameters", MAX_PARAMS);
  s->pnames = calloc((size_t)s->P + 1, sizeof(char *));
  s->dists = calloc((size_t)s->P + 1, sizeof(pod_dist));
  s->labeled = calloc((size_t)s->P + 1, sizeof(int));
  if (!s->pnames || !s->dists || !s->labeled)
    return luaL_error(L, "out of memory");
  lua_newtable(L); /* labels list */
  int labels = lua_gettop(L);
  for (int i = 0; i < s->P; i++) {
    lua_rawgeti(L, pnames, i + 1);
    const char *pn = lua_tostring(L, -1);
    s->pnames[i] = dupstr(pn);
    char path[128];
    snprintf(path, sizeof path, "params.%s", pn);
    lua_gettable(L, params);
    int has_labels = 0;
    const pod_dist *d = lpod_dist_test(L, -1, &has_labels);
    pod_err e;
    pod_err_clear(&e);
    if (d == NULL && lua_type(L, -1) == LUA_TNUMBER) {
      double v = lpod_check_range(L, -1, -HUGE_VAL, HUGE_VAL, 0, ctx, path);
      s->dists[i] = pod_dist_fixed(v);
    } else if (d == NULL) {
      return lpod_error(L, ctx, path,
                        "expected a distribution (podsim.dist.<kind>{...}) or "
                        "a number, got %s",
                        luaL_typename(L, -1));
    } else if (pod_dist_copy(&s->dists[i], d, &e) != POD_OK) {
      return lpod_error_core(L, ctx, path, &e);
    }
    s->labeled[i] = has_labels;
    if (has_labels)
      lpod_dist_push_labels(L, -1);
    else
      lua_pushboolean(L, 0);
    lua_rawseti(L, labels, i + 1);
    lua_pop(L, 1);
  }
  return 0;
}

/* podsim.study with a kernel evaluator k: the metrics at index `metrics`,
** all of the kernel's (the list is stored there) or the subset named, in
** that order: then returns the selection, a userdata left on the stack
** (freed with it), else NULL.  Sets s->M.  [-0, +(0|1), v] */
static int *kernel_metrics(lua_State *L, study *s, const pod_kernel *k,
                           int metrics, const char *ctx) {
  int *sel = NULL;
  if (!lua_isnil(L, metrics)) {
    if (!lua_istable(L, metrics) || lua_rawlen(L, metrics) == 0)
      lpod_error(L, ctx, "metrics",
                 "expected a non-empty list of the %s kernel's metrics",
                 k->name);
    s->M = (int)lua_rawlen(L, metrics);
    if (s->M > k->nmetrics)
      lpod_error(L, ctx, "metrics", "the %s kernel has %d metrics", k->name,
                 k->nmetrics);
    sel = lua_newuserdatauv(L, sizeof(int) * (size_t)s->M,
                            0); /* freed with the stack */
    for (int m = 0; m < s->M; m++) {
      lua_rawgeti(L, metrics, m + 1);
      const char *nm = lua_tostring(L, -1);
      sel[m] = -1;
      for (int j = 0; nm && j < k->nmetrics; j++)
        if (strcmp(nm, k->metric_names[j]) == 0) sel[m] = j;
      for (int j = 0; j < m && sel[m] >= 0; j++)
        if (sel[j] == sel[m])
          lpod_error(L, ctx, "metrics", "'%s' named twice", nm);
      if (sel[m] < 0) {
        luaL_Buffer b;
        luaL_buffinit(L, &b);
        for (int j = 0; j < k->nmetrics; j++) {
          if (j) luaL_addstring(&b, ", ");
          luaL_addstring(&b, k->metric_names[j]);
        }
        luaL_pushresult(&b);
        lpod_error(
            L, ctx, "metrics", "'%s' is not a metric of the %s kernel (%s)",
            nm ? nm : luaL_typename(L, -2), k->name, lua_tostring(L, -1));
      }
      lua_pop(L, 1);
    }
  } else {
    s->M = k->nmetrics;
    lua_createtable(L, s->M, 0);
    for (int m = 0; m < s->M; m++) {
      lua_pushstring(L, k->metric_names[m]);
      lua_rawseti(L, -2, m + 1);
    }
    lua_replace(L, metrics);
  }
  return sel;
}

/* podsim.study: a built-in evaluator (podsim.kernel.<name>{...} at
** evalidx; its metatable was pushed and is popped here): one config per
** grid point, the parameter bindings; sets the list at `metrics`.
** [-1, +0, e] */
static int study_kernel_eval(lua_State *L, study *s, int evalidx, int points,
                             int metrics, const char *ctx) {
  lua_getfield(L, -1, "__podsim_kernel");
  int is_kernel = lua_toboolean(L, -1);
  lua_pop(L, 2);
  if (!is_kernel)
    return lpod_error(L, ctx, "eval",
                      "expected a function or podsim.kernel.<name>{...}");
  lua_getfield(L, evalidx, "name");
  const pod_kernel *k;
  const lpod_type *ct;
  if (!lpod_find_kernel(L, lua_tostring(L, -1), &k, &ct))
    return lpod_error(L, ctx, "eval", "unknown kernel '%s'",
                      lua_tostring(L, -1));
  lua_pop(L, 1);
  s->kernel = k;
  /* metrics: all of the kernel's, or the subset named (in that order) */
  int *sel = kernel_metrics(L, s, k, metrics, ctx);
  /* one config per grid point: base fields overridden by the point */
  s->base_cfgs = calloc((size_t)s->G, k->cfg_size);
  s->binds = calloc((size_t)s->P + 1, sizeof(pod_bind));
  if (!s->base_cfgs || !s->binds) return luaL_error(L, "out of memory");
  lua_getfield(L, evalidx, "base"); /* stack: ..., base */
  int base = lua_gettop(L);
  for (int g = 0; g < s->G; g++) {
    lua_newtable(L);
    int merged = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, base)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, merged);
    }
    lua_rawgeti(L, points, g + 1);
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, merged);
    }
    lua_pop(L, 1);
    lpod_build_in(L, merged, ct, (char *)s->base_cfgs + (size_t)g * k->cfg_size,
                  "eval", ctx);
    lua_pop(L, 1);
  }
  lua_pop(L, 1);
  for (int i = 0; i < s->P; i++) {
    char path[128];
    snprintf(path, sizeof path, "params.%s", s->pnames[i]);
    if (s->labeled[i])
      return lpod_error(L, ctx, path,
                        "a kernel evaluator needs numeric parameters");
    if (lpod_field_bind(ct, s->pnames[i], &s->binds[i]) != 0)
      return lpod_error(L, ctx, path,
                        "is not a numeric field of the %s kernel's config "
                        "(e.g. 'system.up_eff', 'bytes')",
                        k->name);
  }
  pod_err e;
  pod_err_clear(&e);
  if (pod_mc_kernel_evaluator_select(k, s->base_cfgs, s->G, s->binds, s->P, sel,
                                     sel ? s->M : 0, &s->ev) != POD_OK)
    return lpod_error_core(L, ctx, "eval", &e);
  if (sel) lua_pop(L, 1); /* the selection, copied */
  return 0;
}

/* podsim.study: metric names and the target {metric=, rel_ci95=,
** min_samples=} into s.  [-0, +0, e] */
static int study_read_target(lua_State *L, study *s, int metrics,
                             const char *ctx) {
  /* metric names */
  s->mnames = calloc((size_t)s->M + 1, sizeof(char *));
  if (s->mnames == NULL) return luaL_error(L, "out of memory");
  for (int m = 0; m < s->M; m++) {
    lua_rawgeti(L, metrics, m + 1);
    if (lua_type(L, -1) != LUA_TSTRING)
      return lpod_error(L, ctx, "metrics", "metric names must be strings");
    s->mnames[m] = dupstr(lua_tostring(L, -1));
    lua_pop(L, 1);
  }
  /* target: {metric=, rel_ci95=, min_samples=} */
  lua_getfield(L, 1, "target");
  if (!lua_isnil(L, -1)) {
    static const char *const tkeys[] = {"metric", "rel_ci95", "min_samples",
                                        NULL};
    if (!lua_istable(L, -1))
      return lpod_error(L, ctx, "target", "expected {metric=, rel_ci95=}");
    lpod_check_keys(L, -1, ctx, "target", tkeys);
    lua_getfield(L, -1, "metric");
    const char *tm = lua_tostring(L, -1);
    for (int m = 0; tm && m < s->M; m++)
      if (strcmp(tm, s->mnames[m]) == 0) s->stop_metric = m;
    if (s->stop_metric < 0)
      return lpod_error(L, ctx, "target.metric",
                        "expected one of the study's metrics");
    lua_pop(L, 1);
    s->stop_rel = lpod_opt_field(L, -1, "rel_ci95", 0,
                                 stop_bound("stop_rel_ci95"), 1, ctx, "target");
    s->stop_min = (int64_t)lpod_opt_field(
        L, -1, "min_samples", 2 * (double)s->chunk_size,
        stop_bound("stop_min_samples"), 0, ctx, "target");
  }
  lua_pop(L, 1);
  return 0;
}

/* podsim.study: keep the description for the results in uservalue 1 of
** the study at sidx.  [-0, +0, e] */
static void study_keep_description(lua_State *L, int sidx, int metrics,
                                   int pnames, int points, int params,
                                   const char *ctx) {
  /* keep the description for the results: uservalue 1 = {metrics, pnames,
   * points, params} */
  lua_createtable(L, 0, 4);
  lua_pushvalue(L, metrics);
  lua_setfield(L, -2, "metrics");
  lua_pushvalue(L, pnames);
  lua_setfield(L, -2, "params");
  lua_pushvalue(L, points);
  lua_setfield(L, -2, "grid");
  lua_pushvalue(L, params);
  lua_setfield(L, -2, "dists");
  lua_getfield(L, 1, "grid");
  if (!lua_isnil(L, -1)) {
    lpod_study__push_sorted_keys(L, -1, ctx, "grid");
    lua_remove(L, -2);
  } else {
    lua_pop(L, 1);
    lua_newtable(L);
  }
  lua_setfield(L, -2, "grid_keys");
  lua_setiuservalue(L, sidx, 1);
}

/* podsim.study: compile the Lua evaluator at evalidx (l_trace.h) unless
** trace = false or --no-trace; when it cannot be compiled, say why once
** (on stdout, with podsim's other notes; not with --quiet) and keep the
** per-sample Lua evaluator.  [-0, +0, e] */
static void study_trace(lua_State *L, study *s, const pod_host_opts *o,
                        int evalidx, int points, int labels, const char *ctx) {
  if (!lpod_opt_bool(L, 1, "trace", 1, ctx, NULL) || o->no_trace) return;
  lpod_trace_in in = {o,          &s->sb, s->P, s->pnames, s->dists,
                      s->labeled, s->G,   s->M, s->mnames};
  int rc = lpod_trace_study(L, evalidx, points, labels, &in, &s->traced,
                            s->trace_why, sizeof s->trace_why);
  if (rc == 0) {
    lpod_traced_evaluator(s->traced, &s->ev);
  } else if (rc == 1 && !o->quiet) {
    lpod_where(L);
    const char *w = lua_tostring(L, -1);
    printf("%s%sstudy '%s': eval runs in Lua per sample: %s\n", w,
           w[0] ? " " : "podsim: ", s->name, s->trace_why);
    fflush(stdout);
    lua_pop(L, 1);
  }
}

/* podsim.study{...}; exact: the spec's samples and seed stand even under
** --samples/--seed (the library's one-point re-evaluations for the swing
** tornado, which the override would multiply by its sample count). */
static int study_new(lua_State *L, int exact) {
  static const char ctx[] = "podsim.study";
  if (!lua_istable(L, 1))
    return lpod_error(
        L, ctx, NULL,
        "expected a table {name=, samples=, params=, eval=, ...}");
  lua_settop(L, 1);
  lpod_check_keys(L, 1, ctx, NULL, study_keys);
  pod_host *h = lpod_host(L);
  if (h == NULL)
    return lpod_error(L, ctx, NULL,
                      "studies cannot run inside a worker's evaluator");
  const pod_host_opts *o = lpod_host_opts(h);
  pod_host_opts plain;
  if (exact) {
    plain = *o;
    plain.samples = 0;
    plain.seed = -1;
  }

  study *s = lua_newuserdatauv(L, sizeof *s, 2); /* stack: spec, s */
  memset(s, 0, sizeof *s);
  luaL_setmetatable(L, STUDY_T);
  int sidx = lua_gettop(L);
  s->host = h;
  s->opts = o;
  s->stop_metric = -1;
  s->cancel_id = -1;
  atomic_init(&s->cancel, 0);
  atomic_init(&s->cancel_ns, 0);

  study_read_options(L, s, exact ? &plain : o, ctx);
  study_read_params(L, s, ctx); /* stack: spec, s, params, pnames, labels */
  int params = lua_gettop(L) - 2, pnames = params + 1, labels = params + 2;

  /* grid */
  s->G = build_grid(L, 1, ctx); /* stack: ..., points */
  int points = lua_gettop(L);
  study_check_grid_params(L, s, ctx);
  study_grid_labels(L, s, points);

  /* eval: a Lua function or podsim.kernel.<name>{...} */
  lua_getfield(L, 1, "eval");
  int evalidx = lua_gettop(L);
  lua_getfield(L, 1, "metrics");
  int metrics = lua_gettop(L);
  if (lua_isfunction(L, evalidx)) {
    lpod_study__lua_eval(L, s, o, evalidx, points, labels, pnames, metrics,
                         ctx);
  } else if (lua_istable(L, evalidx) && lua_getmetatable(L, evalidx)) {
    study_kernel_eval(L, s, evalidx, points, metrics, ctx);
  } else {
    return lpod_error(
        L, ctx, "eval",
        "expected a function or podsim.kernel.<name>{...}, got %s",
        luaL_typename(L, evalidx));
  }
  study_read_target(L, s, metrics, ctx);
  if (s->tmpl) study_trace(L, s, o, evalidx, points, labels, ctx);
  study_keep_description(L, sidx, metrics, pnames, points, params, ctx);
  lua_pushvalue(L, sidx);
  return 1;
}

static int study_tostring(lua_State *L) {
  study *s = luaL_checkudata(L, 1, STUDY_T);
  lua_pushfstring(L, "study %s", s->name);
  return 1;
}

static int study_index(lua_State *L) {
  study *s = luaL_checkudata(L, 1, STUDY_T);
  const char *k = luaL_checkstring(L, 2);
  if (strcmp(k, "name") == 0) {
    lua_pushstring(L, s->name);
    return 1;
  }
  if (strcmp(k, "done") == 0) {
    lua_pushboolean(L, s->state == ST_DONE);
    return 1;
  }
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "methods");
  lua_getfield(L, -1, k);
  return 1;
}

static int l_study(lua_State *L) {
  return study_new(L, 0);
}
static int l_study_exact(lua_State *L) {
  return study_new(L, 1);
}

void lpod_open_study(lua_State *L) {
  int podsim = lua_gettop(L);
  luaL_newmetatable(L, STUDY_T);
  lua_pushcfunction(L, study_gc);
  lua_setfield(L, -2, "__gc");
  lua_pushcfunction(L, study_tostring);
  lua_setfield(L, -2, "__tostring");
  lua_pushcfunction(L, study_index);
  lua_setfield(L, -2, "__index");
  lua_pushliteral(L, "study");
  lua_setfield(L, -2, "__name");
  lua_pushboolean(L, 0); /* getmetatable(study) is false: no __gc by hand */
  lua_setfield(L, -2, "__metatable");
  static const luaL_Reg methods[] = {{"start", lpod_study__start},
                                     {"wait", lpod_study__wait},
                                     {"run", lpod_study__run},
                                     {NULL, NULL}};
  luaL_newlib(L, methods);
  lua_pushvalue(L, -1);
  lua_setfield(L, podsim, "_study_methods");
  lua_setfield(L, -2, "methods");
  lua_pop(L, 1);
  lua_pushcfunction(L, l_study);
  lua_setfield(L, podsim, "study");
  lua_pushcfunction(L, l_study_exact);
  lua_setfield(L, podsim, "_study_exact");
  lua_pushcfunction(L, lpod_study__hist);
  lua_setfield(L, podsim, "_results_hist");
  lua_pushcfunction(L, lpod_study__write_samples);
  lua_setfield(L, podsim, "_write_samples");
  /* kernel names for podsim.kernel.<name> */
  lua_newtable(L);
  if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.kernels") == LUA_TTABLE) {
    lua_pushnil(L);
    while (lua_next(L, -2)) {
      lua_pop(L, 1);
      lua_pushvalue(L, -1);
      lua_pushboolean(L, 1);
      lua_rawset(L, -5);
    }
  }
  lua_pop(L, 1);
  lua_setfield(L, podsim, "_kernels");
}
