/*
** l_study_run.c: running a study (see l_study.c): s:start() hands the
** plan to the runner on the libuv pool, s:wait() yields the scenario
** coroutine until the run's done callback resumes it, s:run() is both.
** Progress and cancellation callbacks run on the loop thread.
*/
#include "l_study.h"

/* ---------------------------------------------------------------------- */
/* running                                                                 */
/* ---------------------------------------------------------------------- */

static void clear_progress(study *s) {
  if (s->progress_shown) {
    fprintf(stderr, "\r\033[K");
    fflush(stderr);
    s->progress_shown = 0;
  }
}

static void on_progress(pod_run *run, const pod_run_progress *p, void *ud) {
  (void)run;
  study *s = ud;
  if (!s->opts->progress || s->opts->quiet || p->samples_total == 0) return;
  double frac = (double)p->samples_done / (double)p->samples_total;
  double eta =
      p->rate_per_s > 0
          ? (double)(p->samples_total - p->samples_done) / p->rate_per_s
          : 0;
  fprintf(stderr, "\r\033[K%s %5.1f%% %lld/%lld samples  %.3g/s  ETA %.0f s",
          s->name, 100 * frac, (long long)p->samples_done,
          (long long)p->samples_total, p->rate_per_s, eta);
  fflush(stderr);
  s->progress_shown = 1;
}

static void on_cancel(void *ud) {
  study *s = ud;
  atomic_store(&s->cancel_ns, uv_hrtime());
  atomic_store(&s->cancel, 1);
  if (s->run) pod_run_cancel(s->run);
}

static void on_done(pod_run *run, pod_run_status status, void *ud) {
  study *s = ud;
  clear_progress(s);
  s->status = status;
  s->results = pod_run_take_results(run);
  const pod_err *e = pod_run_error(run);
  if (e) s->err = *e;
  if (status == POD_RUN_FAILED)
    lpod_study__scale_failed(s, pod_run_failed_chunk(run));
  /* a worker's memory budget stopped the run: the results so far come back
  ** incomplete, and the run exits 1 (DESIGN.md 10) */
  if (status == POD_RUN_CANCELED && s->err.code == POD_ENOMEM) {
    char msg[POD_ERR_MSG_MAX + NAME_MAX_LEN + 352];
    snprintf(msg, sizeof msg,
             "%s%sstudy '%s' stopped: %s; results so far are marked incomplete",
             s->where[0] ? s->where : "podsim:", " ", s->name,
             s->err.msg[0] ? s->err.msg : pod_strerror(s->err.code));
    lpod_host_fail(s->host, msg);
  }
  pod_run_free(run);
  s->run = NULL;
  lpod_host_off_cancel(s->host, s->cancel_id);
  s->cancel_id = -1;
  s->wall_s = (double)(uv_now(lpod_host_loop(s->host)) - s->t0_ms) / 1000.0;
  s->state = ST_DONE;
  /* unpin: the registry kept the study alive while it ran */
  lua_State *L = lpod_host_main_state(s->host);
  lua_pushlightuserdata(L, s);
  lua_pushnil(L);
  lua_rawset(L, LUA_REGISTRYINDEX);
  if (s->waiter) {
    s->waiter = NULL;
    lpod_host_resume(s->host, 0);
  }
}

static study *check_study(lua_State *L, const char *what) {
  study *s = luaL_testudata(L, 1, STUDY_T);
  if (s == NULL) lpod_error(L, what, NULL, "call it as study:%s()", what + 6);
  return s;
}

int lpod_study__start(lua_State *L) {
  study *s = check_study(L, "study:start");
  if (s->state != ST_NEW)
    return lpod_error(L, "study:start", NULL, "study '%s' was already started",
                      s->name);
  lpod_where(L);
  snprintf(s->where, sizeof s->where, "%s", lua_tostring(L, -1));
  lua_pop(L, 1);
  pod_mc_spec spec;
  pod_mc_spec_init(&spec);
  spec.nparams = s->P;
  spec.param_names = (const char *const *)s->pnames;
  spec.dists = s->dists;
  spec.nmetrics = s->M;
  spec.metric_names = (const char *const *)s->mnames;
  spec.grid = s->G;
  spec.samples = s->samples;
  spec.chunk_size = s->chunk_size;
  spec.seed = s->seed;
  spec.eval = s->ev;
  spec.keep_samples = s->keep_samples;
  spec.max_samples_mb = s->opts->max_samples_mb;
  spec.sensitivity = s->sens;
  spec.stop_metric = s->stop_metric;
  spec.stop_rel_ci95 = s->stop_rel;
  spec.stop_min_samples = s->stop_min;
  spec.nonfinite = s->nonfinite;
  spec.unfit = s->unfit;
  for (int m = 0; m < s->M; m++)
    if (strcmp(s->mnames[m], "fits") == 0) spec.fits_metric = m + 1;
  spec.grid_labels = (const char *const *)s->glabels;
  spec.hist_bins = 100; /* CDFs with enough points (podsim.plot) */
  pod_err e;
  pod_err_clear(&e);
  if (pod_mc_plan_new(&spec, &s->plan, &e) != POD_OK)
    return lpod_error_core(L, "podsim.study", NULL, &e);
  pod_run_opts ro;
  memset(&ro, 0, sizeof ro);
  ro.threads = s->threads;
  ro.progress_cb = on_progress;
  ro.interval_ms = 200;
  ro.done_cb = on_done;
  ro.ud = s;
  uv_loop_t *loop = lpod_host_loop(s->host);
  uv_update_time(loop);
  s->t0_ms = uv_now(loop);
  int sc = lpod_study__scale_start(s, &ro, &e); /* shards, merge, MPI */
  if (sc < 0) return lpod_error_core(L, "study:start", NULL, &e);
  if (sc > 0) { /* done (merged from shard files), or MPI rank > 0 */
    if (s->state == ST_RUNNING) { /* pinned for good: see l_study_scale.c */
      lua_pushlightuserdata(L, s);
      lua_pushvalue(L, 1);
      lua_rawset(L, LUA_REGISTRYINDEX);
    }
    lua_settop(L, 1);
    return 1;
  }
  if (pod_run_start(loop, s->plan, &ro, &s->run, &e) != POD_OK)
    return lpod_error_core(L, "study:start", NULL, &e);
  s->state = ST_RUNNING;
  /* pin the study while it runs */
  lua_pushlightuserdata(L, s);
  lua_pushvalue(L, 1);
  lua_rawset(L, LUA_REGISTRYINDEX);
  s->cancel_id = lpod_host_on_cancel(s->host, on_cancel, s);
  if (lpod_host_interrupted(s->host)) on_cancel(s);
  lua_settop(L, 1);
  return 1;
}

/* Continuation of s:wait(), inside the scenario coroutine. */
static int wait_k(lua_State *L, int status, lua_KContext ctx) {
  (void)status;
  (void)ctx;
  study *s = luaL_checkudata(L, 1, STUDY_T);
  if (s->state != ST_DONE)
    return lpod_error(L, "study:wait", NULL,
                      "study '%s' is not done (internal error)", s->name);
  if (s->status == POD_RUN_FAILED) {
    /* "study 'name': field: message (grid g, sample i: params)" */
    char what[NAME_MAX_LEN + 16];
    snprintf(what, sizeof what, "study '%s'", s->name);
    return lpod_error(L, what, s->err.field[0] ? s->err.field : "eval", "%s",
                      s->err.msg[0] ? s->err.msg : pod_strerror(s->err.code));
  }
  lua_settop(L, 1);
  lpod_study__push_results(L, 1, s);
  return 1;
}

int lpod_study__wait(lua_State *L) {
  study *s = check_study(L, "study:wait");
  lua_settop(L, 1);
  if (s->state == ST_NEW)
    return lpod_error(
        L, "study:wait", NULL,
        "study '%s' was not started (use study:run() or study:start())",
        s->name);
  if (s->state == ST_RUNNING && s->mpi_wait) lpod_study__scale_wait(s);
  if (s->state == ST_DONE) return wait_k(L, LUA_OK, 0);
  if (s->waiter)
    return lpod_error(L, "study:wait", NULL,
                      "study '%s' is already being waited for", s->name);
  lpod_host_check_yield(L, "study:wait");
  s->waiter = L;
  return lua_yieldk(L, 0, 0, wait_k);
}

int lpod_study__run(lua_State *L) {
  lua_settop(L, 1);
  check_study(L, "study:run");
  lua_pushcfunction(L, lpod_study__start);
  lua_pushvalue(L, 1);
  lua_call(L, 1, 0);
  return lpod_study__wait(L);
}
