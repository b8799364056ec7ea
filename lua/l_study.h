/*
** l_study.h: internals of podsim.study (lua/l_study*.c), shared by
** l_study.c (building a study, running it, s:start/s:wait), l_study_worker.c
** (the Lua evaluator's worker states) and l_study_results.c (results to
** Lua, histograms, samples files).  Not an API: the binding is
** lpod_open_study (lpod.h).
**
** Convention: a non-static function shared between these files carries the
** prefix lpod_study__ (double underscore, as libuv's uv__).
*/
#ifndef LPOD_L_STUDY_H
#define LPOD_L_STUDY_H

#include <lauxlib.h>
#include <lua.h>
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uv.h>

#include "host.h"
#include "l_dist.h"
#include "l_trace.h"
#include "lpod.h"
#include "pod_mc.h"
#include "pod_run.h"

#define STUDY_T "podsim.study"
#define RESULTS_T "podsim.results"
#define NAME_MAX_LEN 64
/* the spec's size limits live in core (pod_mc.h) */
#define MAX_PARAMS POD_MC_PARAMS_MAX
#define MAX_METRICS POD_MC_METRICS_MAX
#define MAX_GRID POD_MC_GRID_MAX
#define CANCEL_GRACE_NS 3000000000ull

typedef enum { ST_NEW, ST_RUNNING, ST_DONE } study_state;

typedef struct study {
  char name[NAME_MAX_LEN];
  char where[256]; /* "file:line:" of the scenario's start/run call */
  pod_host *host;
  const pod_host_opts *opts;
  int P, M, G;
  char **pnames, **mnames;
  pod_dist *dists; /* P deep copies (plan copies again) */
  int *labeled;    /* per param: choice over labels */
  int64_t samples;
  uint64_t seed;
  int chunk_size;
  int keep_samples;
  int threads; /* workers for this study (<= --threads) */
  pod_mc_sens sens;
  int stop_metric;
  double stop_rel;
  int64_t stop_min;
  pod_mc_nonfinite nonfinite; /* nonfinite = "count" | "error" */
  pod_mc_unfit unfit;         /* unfit = "keep" | "exclude" | "error" */
  int unfit_given;            /* unfit was given (else: keep, with a warning) */
  char **glabels;             /* G labels "key=value ..." for errors */
  /* built-in evaluator */
  const pod_kernel *kernel;
  void *base_cfgs;
  pod_bind *binds;
  /* Lua evaluator */
  pod_sandbox sb;  /* of the state that built the study: template, workers */
  lua_State *tmpl; /* holds: fn, grid list, labels list, pnames, mnames */
  uv_mutex_t tmpl_mu;
  int has_mu;
  atomic_int cancel;          /* set on SIGINT / timeout */
  _Atomic uint64_t cancel_ns; /* uv_hrtime() when cancel was set */
  pod_mc_evaluator ev;
  /* the Lua evaluator compiled to graphs (l_trace.h), or NULL */
  lpod_traced *traced;
  char trace_why[512]; /* why eval runs in Lua per sample, or "" */
  /* run */
  study_state state;
  pod_mc_plan *plan;
  pod_run *run;
  pod_run_status status;
  pod_err err;
  pod_mc_results *results;
  int cancel_id;
  lua_State *waiter; /* coroutine waiting in s:wait(), or NULL */
  uint64_t t0_ms;
  double wall_s;
  int progress_shown;
  int seq;      /* start order in the scenario: names it across processes */
  int mpi_wait; /* MPI rank > 0: s:wait() receives the state from rank 0 */
} study;

/* Template stack slots. */
enum { T_FN = 1, T_GRID, T_LABELS, T_PNAMES, T_MNAMES, T_N = T_MNAMES };

/* Lua evaluator (pod_mc_evaluator callbacks, ud = the study): a worker
** state copied from the template, its evaluation of one sample, its end. */
void *lpod_study__lw_new(void *ud, pod_err *err);
void lpod_study__lw_free(void *ud, void *worker);
int lpod_study__lw_eval(void *ud, void *worker, int grid, const double *x,
                        double *y, pod_err *err);
int lpod_study__lw_chunk_begin(void *ud, void *worker, int64_t k, uint32_t seed,
                               pod_err *err);

/* Scale-out (l_study_scale.c, scale.h).  scale_start, in s:start() once
** the plan exists: numbers the study, then either finishes it (podsim
** merge: chunks from the shard files), or leaves it running for rank 0's
** state (MPI rank > 0; the caller pins it), and returns 1; or sets the
** run options (shard sink, MPI remote executor and merged_cb) and returns
** 0; -1 with err on failure.  scale_wait: MPI rank > 0, receive the state
** and finish.  scale_failed: after a failed run, name the rank and chunk
** in the error under MPI. */
int lpod_study__scale_start(study *s, pod_run_opts *ro, pod_err *err);
void lpod_study__scale_wait(study *s);
void lpod_study__scale_failed(study *s, int64_t chunk);

/* Push the results table of the finished study s, at sidx (see
** lua/README.md).  [-0, +1, e] */
void lpod_study__push_results(lua_State *L, int sidx, study *s);
/* podsim._results_hist(study, metric_index, grid_index) and
** podsim._write_samples(study, path, prefixes). */
int lpod_study__hist(lua_State *L);
int lpod_study__write_samples(lua_State *L);

/* l_study.c: push the sorted string keys of the table at idx as a list
** (errors name ctx and path).  [-0, +1, e] */
void lpod_study__push_sorted_keys(lua_State *L, int idx, const char *ctx,
                                  const char *path);
/* l_study_worker.c: build the Lua evaluator of s (template state, the
** probe call for the metric names, workers).  Raises on bad input.
** [-0, +0, e] */
int lpod_study__lua_eval(lua_State *L, study *s, const pod_host_opts *o,
                         int evalidx, int points, int labels, int pnames,
                         int metrics, const char *ctx);

/* l_study_run.c: the study methods s:start(), s:wait() (yields the
** running coroutine) and s:run().  [-0, +1, e] (wait, run: [-0, +1, e]
** after resuming) */
int lpod_study__start(lua_State *L);
int lpod_study__wait(lua_State *L);
int lpod_study__run(lua_State *L);

#endif
