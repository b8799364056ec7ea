/*
** l_study_worker.c: the Lua evaluator of podsim.study: one worker state per
** pool worker, copied from the study's template state under tmpl_mu, and
** the evaluation of one sample in it (see l_study.c).
*/
#include "l_study.h"

typedef struct lworker {
  lua_State *L;
  int cur_grid; /* grid point whose values are in p, -1: none */
  study *s;
} lworker;
/* Worker stack slots (fixed for its life). */
enum { W_FN = 1, W_GRID, W_LABELS, W_PNAMES, W_MNAMES, W_P, W_TOP = W_P };

static void worker_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.worker_study");
  study *s = lua_touserdata(L, -1);
  lua_pop(L, 1);
  /* Running chunks may finish after a cancel; only an evaluator still
  ** busy CANCEL_GRACE_NS later (an endless loop) is stopped here. */
  if (s && atomic_load(&s->cancel) &&
      uv_hrtime() - atomic_load(&s->cancel_ns) > CANCEL_GRACE_NS) {
    lpod_state_doom(L); /* a pcall inside eval cannot swallow this */
    luaL_error(L,
               "study '%s' stopped: its evaluator kept running after the run "
               "was interrupted",
               s->name);
  }
}

/* The same check at the entry of long C calls (string patterns; see
** host_sandbox.c), registered as "lpod.budget_check". */
static int worker_budget_check(lua_State *L) {
  worker_hook(L, NULL);
  return 0;
}

void *lpod_study__lw_new(void *ud, pod_err *err) {
  study *s = ud;
  lworker *w = calloc(1, sizeof *w);
  if (w == NULL) {
    pod_err_set(err, POD_ENOMEM, "eval", "out of memory for a worker");
    return NULL;
  }
  w->s = s;
  w->cur_grid = -1;
  w->L = lpod_worker_state(s->opts, &s->sb);
  if (w->L == NULL) {
    free(w);
    pod_err_set(err, POD_ENOMEM, "eval", "cannot create a worker Lua state");
    return NULL;
  }
  lua_State *L = w->L;
  lua_settop(L, 0);
  uv_mutex_lock(&s->tmpl_mu);
  int ok = 1;
  for (int i = T_FN; i <= T_N && ok; i++) {
    if (lpod_copy_value(s->tmpl, i, L, NULL) != 0) {
      pod_err_set(err, POD_EINVAL, "eval", "%s", lua_tostring(L, -1));
      ok = 0;
    }
  }
  uv_mutex_unlock(&s->tmpl_mu);
  if (!ok) {
    void *aud;
    lua_getallocf(L, &aud);
    lua_close(L);
    free(aud); /* the worker state's memory budget (host_sandbox.c) */
    free(w);
    return NULL;
  }
  lua_newtable(L); /* stack: fn, grid, labels, pnames, mnames, p */
  lua_pushlightuserdata(L, s);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.worker_study");
  /* per-chunk resets (lpod_study__lw_chunk_begin): the globals as they are
  ** now, and math.randomseed as it is now */
  lua_newtable(L);
  lua_pushglobaltable(L);
  lua_pushnil(L);
  while (lua_next(L, -2)) { /* stack: ..., snap, G, k, v */
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -5);
  }
  lua_pop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.globals0");
  lua_getglobal(L, "math");
  lua_getfield(L, -1, "randomseed");
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.randomseed");
  lua_pop(L, 1);
  lua_sethook(L, worker_hook, LUA_MASKCOUNT, 1 << 20);
  lua_pushcfunction(L, worker_budget_check);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.budget_check");
  return w;
}

/* Restore the worker's globals to the snapshot taken at its creation
** (added keys removed, changed ones reset).  [-0, +0, m] */
static void restore_globals(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.globals0");
  int snap = lua_gettop(L);
  lua_pushglobaltable(L);
  int g = snap + 1;
  lua_pushnil(L);
  while (lua_next(L, g)) { /* stack: snap, G, k, v */
    lua_pushvalue(L, -2);
    lua_rawget(L, snap); /* stack: snap, G, k, v, v0 */
    if (!lua_rawequal(L, -1, -2)) {
      /* setting an existing key during lua_next is allowed (nil too) */
      lua_pushvalue(L, -3);
      lua_pushvalue(L, -2);
      lua_rawset(L, g);
    }
    lua_pop(L, 2);
  }
  lua_pushnil(L);
  while (lua_next(L, snap)) { /* keys the eval removed */
    lua_pushvalue(L, -2);
    lua_rawget(L, g);
    int gone = lua_isnil(L, -1);
    lua_pop(L, 1);
    if (gone) {
      lua_pushvalue(L, -2);
      lua_pushvalue(L, -2);
      lua_rawset(L, g);
    }
    lua_pop(L, 1);
  }
  lua_settop(L, snap - 1);
}

/* A chunk starts: a fresh copy of eval (and its upvalues) from the
** template, a fresh p, the globals of the worker's creation and
** math.random seeded from the chunk's seed.  So nothing an eval keeps
** (upvalues, p, globals, the generator) carries from one chunk to the
** next, and every chunk computes the same values on any thread. */
static int chunk_begin_protected(lua_State *L) {
  uint32_t seed = (uint32_t)lua_tointeger(L, 1);
  restore_globals(L);
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.randomseed");
  lua_pushinteger(L, (lua_Integer)seed);
  lua_call(L, 1, 0);
  return 0;
}

int lpod_study__lw_chunk_begin(void *ud, void *worker, int64_t k, uint32_t seed,
                               pod_err *err) {
  (void)k;
  study *s = ud;
  lworker *w = worker;
  lua_State *L = w->L;
  lua_settop(L, W_TOP);
  uv_mutex_lock(&s->tmpl_mu);
  int rc = lpod_copy_value(s->tmpl, T_FN, L, NULL);
  uv_mutex_unlock(&s->tmpl_mu);
  if (rc != 0) {
    pod_err_set(err, POD_EINVAL, "eval", "%s", lua_tostring(L, -1));
    lua_settop(L, W_TOP);
    return POD_EINVAL;
  }
  lua_replace(L, W_FN);
  w->cur_grid = -1; /* a fresh p at the first eval */
  lua_pushcfunction(L, chunk_begin_protected);
  lua_pushinteger(L, (lua_Integer)seed);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    pod_err_set(
        err, POD_EINVAL, "eval", "%s",
        lua_isstring(L, -1) ? lua_tostring(L, -1) : "cannot reset the worker");
    lua_settop(L, W_TOP);
    return POD_EINVAL;
  }
  return POD_OK;
}

void lpod_study__lw_free(void *ud, void *worker) {
  (void)ud;
  lworker *w = worker;
  if (w == NULL) return;
  void *aud;
  lua_getallocf(w->L, &aud);
  lua_close(w->L);
  free(aud); /* the worker state's memory budget (host_sandbox.c) */
  free(w);
}

/* One evaluation, as a lua_CFunction run protected in the worker state:
** arguments 1..W_TOP are copies of the worker's slots (so the W_* indices
** hold inside), then the light userdata eval_ctx.  Returns p (rebuilt
** when the grid point changed).  Scenario code (eval and the metamethods
** of what it returns) runs only in here. */
typedef struct eval_ctx {
  study *s;
  int new_grid; /* grid point whose values p needs, -1: p is current */
  const double *x;
  double *y;
  pod_err *err;
  int rc;
} eval_ctx;

static int eval_in_worker(lua_State *L) {
  eval_ctx *c = lua_touserdata(L, W_TOP + 1);
  study *s = c->s;
  lua_settop(L, W_TOP);
  if (c->new_grid >= 0) {
    /* fresh p with the grid point's values */
    lua_newtable(L);
    lua_replace(L, W_P);
    lua_rawgeti(L, W_GRID, c->new_grid + 1);
    lua_pushnil(L);
    while (lua_next(L, -2)) { /* stack: ..., gp, k, v */
      lua_pushvalue(L, -2);
      lua_insert(L, -2);
      lua_rawset(L, W_P);
    }
    lua_pop(L, 1);
  }
  for (int i = 0; i < s->P; i++) {
    lua_rawgeti(L, W_PNAMES, i + 1);
    if (s->labeled[i]) {
      lua_rawgeti(L, W_LABELS, i + 1);
      lua_rawgeti(L, -1, (lua_Integer)c->x[i] + 1);
      lua_remove(L, -2);
    } else {
      lua_pushnumber(L, c->x[i]);
    }
    lua_rawset(L, W_P);
  }
  lua_pushvalue(L, W_FN);
  lua_pushvalue(L, W_P);
  lua_call(L, 1, 1);
  if (lua_type(L, -1) == LUA_TNUMBER && s->M == 1) {
    c->y[0] = lua_tonumber(L, -1);
  } else if (lua_istable(L, -1)) {
    for (int m = 0; m < s->M; m++) {
      lua_rawgeti(L, W_MNAMES, m + 1);
      lua_gettable(L, -2);                   /* may run __index */
      if (lua_type(L, -1) == LUA_TBOOLEAN) { /* e.g. fits: 1 or 0 */
        c->y[m] = lua_toboolean(L, -1) ? 1.0 : 0.0;
        lua_pop(L, 1);
        continue;
      }
      if (lua_type(L, -1) != LUA_TNUMBER) {
        c->rc =
            pod_err_set(c->err, POD_EINVAL, s->mnames[m],
                        "eval returned %s for metric '%s' (a number is needed)",
                        luaL_typename(L, -1), s->mnames[m]);
        break;
      }
      c->y[m] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
  } else {
    c->rc = pod_err_set(c->err, POD_EINVAL, "eval",
                        "eval must return a table of metrics (got %s)",
                        luaL_typename(L, -1));
  }
  lua_pushvalue(L, W_P);
  return 1;
}

int lpod_study__lw_eval(void *ud, void *worker, int grid, const double *x,
                        double *y, pod_err *err) {
  study *s = ud;
  lworker *w = worker;
  lua_State *L = w->L;
  eval_ctx c = {s, grid != w->cur_grid ? grid : -1, x, y, err, POD_OK};
  lua_settop(L, W_TOP);
  lua_pushcfunction(L, eval_in_worker);
  for (int i = 1; i <= W_TOP; i++) lua_pushvalue(L, i);
  lua_pushlightuserdata(L, &c);
  int st = lua_pcall(L, W_TOP + 1, 1, 0);
  if (st == LUA_OK) {
    lua_replace(L, W_P);
    w->cur_grid = grid;
    return c.rc;
  }
  w->cur_grid = -1; /* p may be half built */
  if (st == LUA_ERRMEM || lpod_state_out_of_memory(L)) {
    pod_err_set(err, POD_ENOMEM, "eval",
                "memory budget of %.0f MB exceeded in a worker's Lua state "
                "(--max-memory)",
                s->opts->max_memory_mb);
    lua_settop(L, W_TOP);
    return POD_ENOMEM;
  }
  const char *msg = lua_tostring(L, -1);
  pod_err_set(err, POD_EINVAL, "eval", "%s",
              msg ? msg : "error object is not a string");
  lua_settop(L, W_TOP);
  return POD_EINVAL;
}

/* ---------------------------------------------------------------------- */
/* building a Lua evaluator (l_study.c calls it)                          */
/* ---------------------------------------------------------------------- */

/* lua_CFunction run protected in the template state T (light userdata
** study at 1): calls eval once for grid point 1 at the parameters'
** medians and returns the sorted list of the metric names it returned
** ({"value"} for a number), or a string saying what is wrong.  Scenario
** code runs here (eval, its metamethods), so nothing of it runs outside a
** protected call. */
static int probe_in_template(lua_State *T) {
  study *s = lua_touserdata(T, 1);
  lua_settop(T, 0);
  lua_pushvalue(T, lua_upvalueindex(1)); /* fn */
  lua_newtable(T);                       /* p: a copy of grid point 1 */
  lua_pushvalue(T, lua_upvalueindex(2));
  lua_rawgeti(T, -1, 1);
  lua_remove(T, -2);
  lua_pushnil(T);
  while (lua_next(T, -2)) {
    lua_pushvalue(T, -2);
    lua_insert(T, -2);
    lua_rawset(T, 2);
  }
  lua_pop(T, 1);
  for (int i = 0; i < s->P; i++) {
    lua_rawgeti(T, lua_upvalueindex(4), i + 1);
    double med = pod_dist_quantile(&s->dists[i], 0.5);
    if (s->labeled[i]) {
      lua_rawgeti(T, lua_upvalueindex(3), i + 1);
      lua_rawgeti(T, -1, (lua_Integer)med + 1);
      lua_remove(T, -2);
    } else {
      lua_pushnumber(T, med);
    }
    lua_rawset(T, 2);
  }
  lua_call(T, 1, 1);
  if (lua_type(T, -1) == LUA_TNUMBER) {
    lua_createtable(T, 1, 0);
    lua_pushliteral(T, "value");
    lua_rawseti(T, -2, 1);
    return 1;
  }
  if (!lua_istable(T, -1)) {
    lua_pushfstring(T, "must return a table of metrics (got %s)",
                    luaL_typename(T, -1));
    return 1;
  }
  lua_pushnil(T);
  while (lua_next(T, -2)) {
    lua_pop(T, 1);
    if (lua_type(T, -1) != LUA_TSTRING) {
      lua_pushliteral(T, "keys must be names (strings)");
      return 1;
    }
  }
  lpod_study__push_sorted_keys(T, -1, NULL, NULL);
  return 1;
}

/* podsim.study with a Lua eval and no metrics: the keys eval returns for
** grid point 1 at the parameters' medians (run in the template state, not
** the scenario's, protected and under the run's time budget) replace the
** value at `metrics`.  [-0, +0, e] */
static int study_probe_metrics(lua_State *L, study *s, int metrics,
                               const char *ctx) {
  lua_State *T = s->tmpl;
  for (int i = T_FN; i <= T_PNAMES; i++) lua_pushvalue(T, i);
  lua_pushcclosure(T, probe_in_template, 4);
  lua_pushlightuserdata(T, s);
  uint64_t deadline = lpod_host_deadline_ns(s->host);
  char msg[128];
  snprintf(msg, sizeof msg, "time budget of %g s exceeded (--timeout)",
           s->opts->timeout_s);
  lpod_state_deadline(T, deadline, msg);
  int st = lua_pcall(T, 1, 1, 0);
  lpod_state_deadline(T, 0, "");
  if (st == LUA_ERRMEM || (st != LUA_OK && lpod_state_out_of_memory(T))) {
    lua_settop(T, T_PNAMES);
    return lpod_error(
        L, ctx, "eval",
        "failed on a probe call at the parameters' medians: memory budget of "
        "%.0f MB exceeded (--max-memory)",
        s->opts->max_memory_mb);
  }
  if (st != LUA_OK || lua_type(T, -1) == LUA_TSTRING) {
    char err[512];
    snprintf(err, sizeof err, "%s",
             lua_type(T, -1) == LUA_TSTRING ? lua_tostring(T, -1)
                                            : "error object is not a string");
    lua_settop(T, T_PNAMES);
    if (st != LUA_OK)
      return lpod_error(L, ctx, "eval",
                        "failed on a probe call at the parameters' medians: %s",
                        err);
    return lpod_error(L, ctx, "eval", "%s", err);
  }
  lua_newtable(L);
  int n = (int)lua_rawlen(T, -1);
  for (int i = 1; i <= n; i++) {
    lua_rawgeti(T, -1, i);
    lua_pushstring(L, lua_tostring(T, -1));
    lua_rawseti(L, -2, i);
    lua_pop(T, 1);
  }
  lua_replace(L, metrics);
  lua_settop(T, T_PNAMES);
  return 0;
}

/* podsim.study: a Lua evaluator (the function at evalidx): the template
** state and, unless given, the metrics at `metrics`.  [-0, +0, e] */
int lpod_study__lua_eval(lua_State *L, study *s, const pod_host_opts *o,
                         int evalidx, int points, int labels, int pnames,
                         int metrics, const char *ctx) {
  if (s->sens == POD_MC_SENS_SOBOL) {
    for (int i = 0; i < s->P; i++)
      if (s->labeled[i])
        return lpod_error(
            L, ctx, "sensitivity",
            "sobol needs numeric parameters ('%s' is a choice of labels)",
            s->pnames[i]);
  }
  /* template state: fn, grid points, labels, pnames, mnames */
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb == NULL)
    return luaL_error(L, "no sandbox in this Lua state (internal error)");
  s->sb = *sb;
  s->tmpl = lpod_worker_state(o, &s->sb);
  if (s->tmpl == NULL)
    return luaL_error(L, "cannot create a Lua state for the evaluator");
  uv_mutex_init(&s->tmpl_mu);
  s->has_mu = 1;
  /* math.random in the probe (the template state) draws from the study's
  ** seed; workers reseed per chunk (lpod_study__lw_chunk_begin) */
  lua_getglobal(s->tmpl, "math");
  lua_getfield(s->tmpl, -1, "randomseed");
  lua_pushinteger(s->tmpl, (lua_Integer)s->seed);
  if (lua_pcall(s->tmpl, 1, 0, 0) != LUA_OK) lua_pop(s->tmpl, 1);
  lua_pop(s->tmpl, 1); /* math */
  int srcs[4] = {evalidx, points, labels, pnames};
  for (int i = 0; i < 4; i++) {
    if (lpod_copy_value(L, srcs[i], s->tmpl, i == 0 ? "eval" : NULL) != 0)
      return lpod_error(L, ctx, "eval", "%s", lua_tostring(s->tmpl, -1));
  }
  /* metrics: given, or the keys eval returns at the medians */
  if (lua_isnil(L, metrics)) study_probe_metrics(L, s, metrics, ctx);
  if (!lua_istable(L, metrics) || lua_rawlen(L, metrics) == 0)
    return lpod_error(L, ctx, "metrics",
                      "expected a non-empty list of metric names");
  s->M = (int)lua_rawlen(L, metrics);
  if (s->M > MAX_METRICS)
    return lpod_error(L, ctx, "metrics", "at most %d metrics", MAX_METRICS);
  if (lpod_copy_value(L, metrics, s->tmpl, "metrics") != 0)
    return lpod_error(L, ctx, "metrics", "%s", lua_tostring(s->tmpl, -1));
  s->ev.ud = s;
  s->ev.worker_new = lpod_study__lw_new;
  s->ev.worker_free = lpod_study__lw_free;
  s->ev.eval = lpod_study__lw_eval;
  s->ev.chunk_begin = lpod_study__lw_chunk_begin;
  return 0;
}
