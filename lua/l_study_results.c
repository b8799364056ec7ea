/*
** l_study_results.c: a finished study's results to Lua (the results
** table, podsim._results_hist, podsim._write_samples; see l_study.c).
*/
#include "l_study.h"

#include <errno.h>

static void set_num(lua_State *L, const char *k, double v) {
  lua_pushnumber(L, v);
  lua_setfield(L, -2, k);
}

/* Set the study's description (metrics, params, grid, grid_keys, dists)
** from uservalue 1 of the study at sidx on the results table at res.
** [-0, +0, e] */
static void push_description(lua_State *L, int sidx, const study *s, int res) {
  lua_getiuservalue(L, sidx, 1); /* desc */
  static const char *const copy[] = {"metrics", "params", "grid", "grid_keys",
                                     NULL};
  for (int i = 0; copy[i]; i++) {
    lua_getfield(L, -1, copy[i]);
    lua_setfield(L, res, copy[i]);
  }
  /* distributions described */
  lua_getfield(L, -1, "dists");
  int dists = lua_gettop(L);
  lua_newtable(L);
  for (int i = 0; i < s->P; i++) {
    lua_getfield(L, dists, s->pnames[i]);
    if (lpod_dist_test(L, -1, NULL)) {
      lpod_dist_push_description(L, -1);
    } else {
      lua_createtable(L, 0, 2);
      lua_pushliteral(L, "fixed");
      lua_setfield(L, -2, "kind");
      lua_pushvalue(L, -3);
      lua_setfield(L, -2, "value");
    }
    lua_setfield(L, -3, s->pnames[i]);
    lua_pop(L, 1);
  }
  lua_setfield(L, res, "dists");
  lua_pop(L, 2); /* dists, desc */
}

/* results.stats[metric][g] and results.quantiles_exact on the table at
** res.  [-0, +0, e] */
static void push_stats(lua_State *L, const study *s, const pod_mc_results *r,
                       int res) {
  static const char *const qnames[POD_STATS_NQ] = {"p1",  "p5",  "p25", "p50",
                                                   "p75", "p95", "p99"};
  /* stats[metric][g] */
  lua_createtable(L, 0, s->M);
  int exact_all = 1;
  for (int m = 0; m < s->M; m++) {
    lua_createtable(L, s->G, 0);
    for (int g = 0; g < s->G; g++) {
      pod_mc_summary sm;
      if (pod_mc_results_summary(r, m, g, &sm) != POD_OK) continue;
      lua_createtable(L, 0, 20);
      set_num(L, "n", (double)sm.n);
      set_num(L, "mean", sm.mean);
      set_num(L, "sd", sm.sd);
      set_num(L, "se", sm.se);
      set_num(L, "ci95_lo", sm.ci95_lo);
      set_num(L, "ci95_hi", sm.ci95_hi);
      set_num(L, "min", sm.min);
      set_num(L, "max", sm.max);
      set_num(L, "skew", sm.skew);
      set_num(L, "kurtosis", sm.kurtosis);
      for (int q = 0; q < POD_STATS_NQ; q++) set_num(L, qnames[q], sm.q[q]);
      lua_pushboolean(L, sm.quantiles_exact);
      lua_setfield(L, -2, "exact");
      lua_pushinteger(L, pod_mc_results_nonfinite(r, g, m));
      lua_setfield(L, -2, "nonfinite");
      lua_pushinteger(L, pod_mc_results_unfit(r, g));
      lua_setfield(L, -2, "unfit");
      if (!sm.quantiles_exact) exact_all = 0;
      lua_rawseti(L, -2, g + 1);
    }
    lua_setfield(L, -2, s->mnames[m]);
  }
  lua_setfield(L, res, "stats");
  lua_pushboolean(L, exact_all);
  lua_setfield(L, res, "quantiles_exact");
}

/* results.sens[metric][g][param] on the table at res.  [-0, +0, e] */
static void push_sens(lua_State *L, const study *s, const pod_mc_results *r,
                      int res) {
  /* sens[metric][g][param] */
  lua_createtable(L, 0, s->M);
  for (int m = 0; m < s->M; m++) {
    lua_createtable(L, s->G, 0);
    for (int g = 0; g < s->G; g++) {
      lua_createtable(L, 0, s->P);
      for (int p = 0; p < s->P; p++) {
        pod_mc_sens_value sv;
        if (pod_mc_results_sensitivity(r, g, p, m, &sv) != POD_OK) continue;
        lua_createtable(L, 0, 3);
        set_num(L, "spearman", sv.spearman);
        set_num(L, "sobol_first", sv.sobol_first);
        set_num(L, "sobol_total", sv.sobol_total);
        lua_setfield(L, -2, s->pnames[p]);
      }
      lua_rawseti(L, -2, g + 1);
    }
    lua_setfield(L, -2, s->mnames[m]);
  }
  lua_setfield(L, res, "sens");
}

/* Push the results table of a finished study at sidx (see lua/README.md). */
void lpod_study__push_results(lua_State *L, int sidx, study *s) {
  pod_mc_results *r = s->results;
  lua_createtable(L, 0, 24); /* stack: res */
  int res = lua_gettop(L);
  lua_pushstring(L, s->name);
  lua_setfield(L, res, "name");
  push_description(L, sidx, s, res);
  int complete = r ? pod_mc_results_complete(r) : 0;
  lua_pushboolean(L, complete || s->status == POD_RUN_STOPPED);
  lua_setfield(L, res, "complete");
  lua_pushboolean(L, s->status == POD_RUN_STOPPED);
  lua_setfield(L, res, "stopped");
  lua_pushboolean(L, s->status == POD_RUN_CANCELED);
  lua_setfield(L, res, "interrupted");
  set_num(L, "samples", (double)s->samples);
  set_num(L, "seed", (double)s->seed);
  set_num(L, "chunk_size", s->chunk_size);
  set_num(L, "threads", s->threads);
  set_num(L, "wall_s", s->wall_s);
  lua_pushboolean(L, s->keep_samples);
  lua_setfield(L, res, "keep_samples");
  lua_pushstring(L, pod_mc_sens_name(s->sens)); /* core's names */
  lua_setfield(L, res, "sensitivity");
  lua_pushstring(L, s->kernel ? s->kernel->name : s->traced ? "traced" : "lua");
  lua_setfield(L, res, "evaluator");
  if (s->trace_why[0]) {
    lua_pushstring(L, s->trace_why);
    lua_setfield(L, res, "trace_stop");
  }
  if (r == NULL) return;
  set_num(L, "samples_done", (double)pod_mc_results_samples_done(r));
  set_num(L, "chunks_done", (double)pod_mc_results_chunks_done(r));
  set_num(L, "chunks_total", (double)pod_mc_results_chunks_total(r));
  lua_pushboolean(L, pod_mc_results_spearman_partial(r));
  lua_setfield(L, res, "spearman_partial");
  lua_pushboolean(L, pod_mc_results_samples_partial(r));
  lua_setfield(L, res, "samples_partial");
  push_stats(L, s, r, res);
  /* nonfinite[metric] = total dropped samples; unfit[g] = non-fitting */
  lua_createtable(L, 0, s->M);
  for (int m = 0; m < s->M; m++) {
    int64_t n = 0;
    for (int g = 0; g < s->G; g++) n += pod_mc_results_nonfinite(r, g, m);
    lua_pushinteger(L, n);
    lua_setfield(L, -2, s->mnames[m]);
  }
  lua_setfield(L, res, "nonfinite");
  lua_createtable(L, s->G, 0);
  for (int g = 0; g < s->G; g++) {
    lua_pushinteger(L, pod_mc_results_unfit(r, g));
    lua_rawseti(L, -2, g + 1);
  }
  lua_setfield(L, res, "unfit");
  {
    lua_pushstring(L, pod_mc_unfit_name(s->unfit));
    lua_setfield(L, res, "unfit_mode");
    lua_pushboolean(L, s->unfit_given);
    lua_setfield(L, res, "_unfit_given");
    lua_pushboolean(L, 0);
    for (int m = 0; m < s->M; m++)
      if (strcmp(s->mnames[m], "fits") == 0) {
        lua_pop(L, 1);
        lua_pushboolean(L, 1);
      }
    lua_setfield(L, res, "_has_fits");
  }
  push_sens(L, s, r, res);
  /* the study itself, for histograms and samples */
  lua_pushvalue(L, sidx);
  lua_setfield(L, res, "_study");
}

/* podsim._results_hist(study, metric_index, grid_index) -> {lo, hi, counts,
 * under, over, log} */
int lpod_study__hist(lua_State *L) {
  study *s = luaL_checkudata(L, 1, STUDY_T);
  int m = (int)luaL_checkinteger(L, 2) - 1,
      g = (int)luaL_checkinteger(L, 3) - 1;
  if (s->results == NULL) return 0;
  const pod_hist *hh = pod_mc_results_hist(s->results, m, g);
  if (hh == NULL) return 0;
  lua_createtable(L, 0, 6);
  lua_createtable(L, hh->nbins + 1, 0);
  for (int i = 0; i <= hh->nbins; i++) {
    lua_pushnumber(L, pod_hist_edge(hh, i));
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "edges");
  lua_createtable(L, hh->nbins, 0);
  for (int i = 0; i < hh->nbins; i++) {
    lua_pushinteger(L, hh->counts[i]);
    lua_rawseti(L, -2, i + 1);
  }
  lua_setfield(L, -2, "counts");
  lua_pushinteger(L, hh->under);
  lua_setfield(L, -2, "under");
  lua_pushinteger(L, hh->over);
  lua_setfield(L, -2, "over");
  lua_pushboolean(L, hh->logbins);
  lua_setfield(L, -2, "log");
  return 1;
}

/* Number formatting shared with lib/podsim.lua's podsim.num. */
static int fmt_num(char *buf, size_t n, double v) {
  if (v == floor(v) && fabs(v) < 1e15) return snprintf(buf, n, "%.0f", v);
  return snprintf(buf, n, "%.10g", v);
}

/* podsim._write_samples(study, path, prefixes) -> rows written.
** prefixes[g] is the grid point's leading CSV cells (with a trailing
** comma, or ""); the header is written by the caller's first line arg. */
int lpod_study__write_samples(lua_State *L) {
  study *s = luaL_checkudata(L, 1, STUDY_T);
  const char *path = luaL_checkstring(L, 2);
  const char *header = luaL_checkstring(L, 3);
  luaL_checktype(L, 4, LUA_TTABLE);
  if (!lpod_path_allowed(L, path, LPOD_PATH_WRITE))
    return lpod_error(L, "podsim.write", NULL,
                      "'%s' is outside the output folder", path);
  if (s->results == NULL) return 0;
  char tmp[4096];
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
  FILE *f = fopen(tmp, "wb");
  if (f == NULL)
    return lpod_error(L, "podsim.write", NULL, "cannot write '%s'", tmp);
  fputs(header, f);
  fputc('\n', f);
  int64_t total = 0;
  char buf[64];
  for (int g = 0; g < s->G; g++) {
    int64_t rows = pod_mc_results_rows(s->results, g);
    lua_rawgeti(L, 4, g + 1);
    const char *prefix = lua_tostring(L, -1);
    /* this grid point's columns, looked up once */
    const double **cols = malloc(sizeof(double *) * (size_t)(s->P + s->M + 1));
    if (cols == NULL) {
      fclose(f);
      remove(tmp);
      return luaL_error(L, "out of memory");
    }
    for (int p = 0; p < s->P; p++)
      cols[p] = pod_mc_results_param_column(s->results, g, p);
    for (int m = 0; m < s->M; m++)
      cols[s->P + m] = pod_mc_results_metric_column(s->results, g, m);
    int ncol = s->P + s->M;
    for (int64_t i = 0; i < rows && !ferror(f); i++) {
      fputs(prefix ? prefix : "", f);
      for (int c = 0; c < ncol; c++) {
        fmt_num(buf, sizeof buf, cols[c] ? cols[c][i] : NAN);
        fputs(buf, f);
        fputc(c + 1 < ncol ? ',' : '\n', f);
      }
    }
    free(cols);
    total += rows;
    lua_pop(L, 1);
  }
  /* every write is checked at once through the stream's error flag (it
  ** sticks), then the close, which flushes the rest */
  int bad = ferror(f);
  int err = bad ? errno : 0;
  if (fclose(f) != 0 && !bad) {
    bad = 1;
    err = errno;
  }
  if (!bad && rename(tmp, path) != 0) {
    bad = 1;
    err = errno;
  }
  if (bad) {
    remove(tmp);
    return lpod_error(L, "podsim.write", NULL, "cannot write '%s': %s", path,
                      err ? strerror(err) : "write error");
  }
  lua_pushinteger(L, total);
  return 1;
}
