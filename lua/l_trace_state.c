/*
** l_trace_state.c: the trace state and the study's graphs (lpod_trace_study:
** tracing eval at each grid point and label combination, checking each
** graph against the Lua eval) and the plan evaluator that runs them (see
** l_trace.h; the tracing values are in l_trace.c, the traced podsim calls
** in l_trace_calls.c).
*/
#include "l_trace.h"
#include "l_trace_int.h"

#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "lpod.h"
#include "pod_graph.h"

#define NCHECK 8
/* Grid points traced at most (a graph each, with its config templates). */
#define TRACE_MAX_GRID 4096
/* Instructions one eval call may run in the trace state (hook calls of
** TRACE_HOOK_EVERY instructions): an eval this long is not traced. */
#define TRACE_HOOK_EVERY (1 << 16)
#define TRACE_MAX_STEPS 256

/* ---------------------------------------------------------------------- */
/* the study's graphs                                                      */
/* ---------------------------------------------------------------------- */

static void trace_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_getfield(L, LUA_REGISTRYINDEX, TRACE_KEY);
  trace *t = lua_touserdata(L, -1);
  lua_pop(L, 1);
  if (t == NULL) return;
  /* the trace state's own time budget (this hook replaces the one
  ** lpod_worker_state sets) */
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb && sb->deadline_ns && uv_hrtime() > sb->deadline_ns)
    luaL_error(L, "time budget of %g s exceeded (--timeout)", sb->timeout_s);
  if (++t->steps <= TRACE_MAX_STEPS) return;
  if (!t->stopped) {
    t->stopped = 1;
    lpod_where(L);
    snprintf(t->stop, sizeof t->stop,
             "%s%seval runs more than %d million Lua instructions per call "
             "(too long to trace)",
             lua_tostring(L, -1), lua_tostring(L, -1)[0] ? " " : "",
             TRACE_MAX_STEPS * TRACE_HOOK_EVERY / 1000000);
    lua_pop(L, 1);
  }
  luaL_error(L, "%s", t->stop);
}

/* One graph per grid point and combination of labels (choice parameters
** over labels are constants in each trace): graph g * K + c, where c is
** the mixed-radix number of the label indices (first labeled parameter
** varying slowest). */
struct lpod_traced {
  int G, M, P, K;
  pod_graph **graphs;
  int *nlab;    /* per parameter: number of labels, 0 when numeric */
  int nlabeled; /* parameters with labels: with none, a grid point's rows
                   all take its one graph (no lookup per row) */
};

void lpod_traced_free(lpod_traced *t) {
  if (t == NULL) return;
  for (int g = 0; t->graphs && g < t->G * t->K; g++)
    pod_graph_free(t->graphs[g]);
  free(t->graphs);
  free(t->nlab);
  free(t);
}

int lpod_traced_nodes(const lpod_traced *t, int g, int *blobs) {
  if (blobs) *blobs = pod_graph_blobs(t->graphs[g * t->K]);
  return pod_graph_live(t->graphs[g * t->K]);
}

/* Stack: fn, points.  Trace grid point g into *out; 0 or 1 with why. */
typedef struct gtrace {
  const lpod_trace_in *in;
  int g;
  const int *li; /* per parameter: label index, or -1 */
  const double *probe;
  pod_graph *graph;
  char *why;
  size_t whylen;
} gtrace;

static int trace_point(lua_State *L) {
  gtrace *gt = lua_touserdata(L, 1);
  const lpod_trace_in *in = gt->in;
  trace *tr = lpod_trace__get(L);
  pod_err e;
  pod_err_clear(&e);
  /* p: the grid point's values and a tracing number per parameter */
  lua_newtable(L);
  int p = lua_gettop(L);
  lua_rawgeti(L, 3, gt->g + 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, p);
  }
  lua_pop(L, 1);
  for (int i = 0; i < in->P; i++) {
    if (gt->li[i] >= 0) { /* a label: a constant of this graph */
      lua_rawgeti(L, 4, i + 1);
      lua_rawgeti(L, -1, gt->li[i] + 1);
      lua_setfield(L, p, in->pnames[i]);
      lua_pop(L, 1);
      continue;
    }
    int n = pod_graph_param(tr->g, i, &e);
    if (n < 0) return luaL_error(L, "%s", e.msg);
    lpod_trace__push_num(L, n);
    lua_setfield(L, p, in->pnames[i]);
  }
  lua_pushvalue(L, 2);
  lua_pushvalue(L, p);
  lua_call(L, 1, 1);
  /* metrics */
  int *outs = lua_newuserdatauv(L, sizeof(int) * (size_t)in->M, 0);
  int ret = lua_gettop(L) - 1;
  for (int m = 0; m < in->M; m++) {
    if (lua_type(L, ret) == LUA_TNUMBER || lpod_trace__test(L, ret)) {
      if (in->M != 1)
        return luaL_error(L, "eval returned a number for %d metrics", in->M);
      lua_pushvalue(L, ret);
    } else if (lua_istable(L, ret)) {
      lua_getfield(L, ret, in->mnames[m]);
    } else {
      return luaL_error(L, "eval must return a table of metrics (got %s)",
                        luaL_typename(L, ret));
    }
    tval *v = lpod_trace__test(L, -1);
    if (v && v->kind != TV_NUM)
      return luaL_error(L, "metric '%s' is a %s", in->mnames[m],
                        lpod_trace__noun(v));
    if (v == NULL && lua_type(L, -1) != LUA_TNUMBER)
      return luaL_error(L,
                        "eval returned %s for metric '%s' (a number is needed)",
                        luaL_typename(L, -1), in->mnames[m]);
    outs[m] = lpod_trace__num_node(L, -1);
    lua_pop(L, 1);
  }
  if (pod_graph_finish(tr->g, outs, in->M, &e) != POD_OK)
    return luaL_error(L, "%s", e.msg);
  return 0;
}

/* Lua's eval at x in L (stack: fn, points, labels) into y; 0, or 1 when
** it fails. */
/* Lua's eval at one point (protected; arguments: the eval_at_args, the
** points, fn, the labels).  Raises when eval fails or returns no number
** for a metric. */
typedef struct eval_at_args {
  const lpod_trace_in *in;
  int g;
  const double *x;
  double *y;
} eval_at_args;

static int eval_at_protected(lua_State *L) {
  const eval_at_args *a = lua_touserdata(L, 1);
  const lpod_trace_in *in = a->in;
  lua_newtable(L);
  int p = lua_gettop(L);
  lua_rawgeti(L, 2, a->g + 1);
  lua_pushnil(L);
  while (lua_next(L, -2)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, p);
  }
  lua_pop(L, 1);
  for (int i = 0; i < in->P; i++) {
    if (in->labeled[i]) { /* the label, as the Lua evaluator passes it */
      lua_rawgeti(L, 4, i + 1);
      lua_rawgeti(L, -1, (lua_Integer)a->x[i] + 1);
      lua_setfield(L, p, in->pnames[i]);
      lua_pop(L, 1);
    } else {
      lua_pushnumber(L, a->x[i]);
      lua_setfield(L, p, in->pnames[i]);
    }
  }
  lua_pushvalue(L, 3);
  lua_insert(L, p);
  lua_call(L, 1, 1);
  for (int m = 0; m < in->M; m++) {
    if (lua_type(L, -1) == LUA_TNUMBER && in->M == 1) {
      a->y[m] = lua_tonumber(L, -1);
    } else if (lua_istable(L, -1)) {
      lua_getfield(L, -1, in->mnames[m]);
      if (lua_type(L, -1) != LUA_TNUMBER) return luaL_error(L, "not a number");
      a->y[m] = lua_tonumber(L, -1);
      lua_pop(L, 1);
    } else {
      return luaL_error(L, "not a table");
    }
  }
  return 0;
}

/* Lua's eval at x in L (stack: fn, points, labels) into y; 0, or 1 when
** it fails. */
static int lua_eval_at(lua_State *L, const lpod_trace_in *in, int g,
                       const double *x, double *y) {
  eval_at_args a = {in, g, x, y};
  lua_pushcfunction(L, eval_at_protected);
  lua_pushlightuserdata(L, &a);
  lua_pushvalue(L, 2); /* points at 2 in the callee */
  lua_pushvalue(L, 1); /* fn at 3 */
  lua_pushvalue(L, 3); /* labels at 4 */
  int bad = lua_pcall(L, 4, 0, 0) != LUA_OK;
  lua_settop(L, 3);
  return bad;
}

/* Label indices of combination c (-1 for numeric parameters). */
static void combo_labels(const lpod_traced *t, int c, int *li) {
  for (int i = t->P - 1; i >= 0; i--) {
    if (t->nlab[i] == 0) {
      li[i] = -1;
      continue;
    }
    li[i] = c % t->nlab[i];
    c /= t->nlab[i];
  }
}

/* Check points: the probe, then quantiles spread over the parameters;
** labeled parameters hold the graph's label index. */
static void check_point(const lpod_trace_in *in, const int *li, int k,
                        double *x) {
  static const double q[NCHECK] = {0.5, 0.1, 0.9, 0.25, 0.75, 0.02, 0.98, 0.6};
  for (int i = 0; i < in->P; i++) {
    int j = (k + i * (k % 3 + 1)) % NCHECK;
    x[i] = li[i] >= 0 ? (double)li[i]
                      : pod_dist_quantile(&in->dists[i], k == 0 ? 0.5 : q[j]);
  }
}

/* Compare graph gi (grid point g, labels li) with Lua's eval (in T: fn,
** points, labels) at the check points, bit for bit; 0, or 1 with the
** first difference in why. */
static int check_graph(lua_State *T, pod_graph *graph, const lpod_trace_in *in,
                       int g, const int *li, int npoints, trace *tr, double *x,
                       double *y1, double *y2, char *why, size_t whylen) {
  pod_graph_ws *ws = NULL;
  pod_err e;
  pod_err_clear(&e);
  if (pod_graph_ws_new(graph, &ws, &e) != POD_OK) {
    snprintf(why, whylen, "%s", e.msg);
    return 1;
  }
  for (int k = 0; k < npoints; k++) {
    check_point(in, li, k, x);
    int bad_g = pod_graph_eval(graph, ws, x, y1, &e) != POD_OK;
    tr->steps = 0;
    int bad_l = lua_eval_at(T, in, g, x, y2);
    if (tr->stopped) {
      snprintf(why, whylen, "%s", tr->stop);
      pod_graph_ws_free(ws);
      return 1;
    }
    int same = bad_g == bad_l, m = 0;
    for (; same && !bad_g && m < in->M; m++)
      if (memcmp(&y1[m], &y2[m], sizeof(double)) != 0) same = 0;
    if (!same) {
      char detail[POD_ERR_MSG_MAX + 64];
      if (bad_g != bad_l)
        snprintf(detail, sizeof detail, "%s", bad_g ? e.msg : "Lua failed");
      else
        snprintf(detail, sizeof detail,
                 "metric '%s': %.17g traced, %.17g in Lua", in->mnames[m - 1],
                 y1[m - 1], y2[m - 1]);
      snprintf(why, whylen,
               "the traced eval and Lua disagree at grid point %d (check point "
               "%d, %s); an == test or a table lookup on a traced value?",
               g + 1, k + 1, detail);
      pod_graph_ws_free(ws);
      return 1;
    }
  }
  pod_graph_ws_free(ws);
  return 0;
}

/* Trace every (grid point, label combination) into t->graphs, then check
** each against Lua; 0, 1 (not traceable: why) or 2 (eval failed). */
static int trace_all(lua_State *T, lpod_traced *t, const lpod_trace_in *in,
                     trace *tr, int *li, double *x, double *y1, double *y2,
                     char *why, size_t whylen) {
  for (int gi = 0; gi < t->G * t->K; gi++) {
    int g = gi / t->K;
    combo_labels(t, gi % t->K, li);
    check_point(in, li, 0, x);
    pod_err e;
    pod_err_clear(&e);
    tr->stopped = 0;
    tr->stop[0] = '\0';
    tr->steps = 0;
    if (pod_graph_new(in->P, x, &tr->g, &e) != POD_OK) {
      snprintf(why, whylen, "%s", e.msg);
      return 1;
    }
    t->graphs[gi] = tr->g;
    gtrace gt = {in, g, li, x, tr->g, why, whylen};
    lua_pushcfunction(T, trace_point);
    lua_pushlightuserdata(T, &gt);
    lua_pushvalue(T, 1);
    lua_pushvalue(T, 2);
    lua_pushvalue(T, 3);
    int st = lua_pcall(T, 4, 0, 0);
    if (tr->stopped || st != LUA_OK) {
      snprintf(why, whylen, "%s",
               tr->stopped           ? tr->stop
               : lua_tostring(T, -1) ? lua_tostring(T, -1)
                                     : "eval failed");
      lua_settop(T, 3);
      return tr->stopped ? 1 : 2;
    }
  }
  tr->g = NULL;
  /* the same metrics, bit for bit, from the graphs and from Lua: every
  ** check point at the first graphs, two at the others */
  for (int gi = 0; gi < t->G * t->K; gi++) {
    combo_labels(t, gi % t->K, li);
    if (check_graph(T, t->graphs[gi], in, gi / t->K, li, gi < 4 ? NCHECK : 2,
                    tr, x, y1, y2, why, whylen))
      return 1;
  }
  return 0;
}

int lpod_trace_study(lua_State *L, int fn, int points, int labels,
                     const lpod_trace_in *in, lpod_traced **out, char *why,
                     size_t whylen) {
  *out = NULL;
  why[0] = '\0';
  lpod_traced *t = calloc(1, sizeof *t);
  double *x = calloc((size_t)in->P + 1, sizeof(double));
  double *y1 = calloc((size_t)in->M + 1, sizeof(double));
  double *y2 = calloc((size_t)in->M + 1, sizeof(double));
  int *li = calloc((size_t)in->P + 1, sizeof(int));
  lua_State *T = NULL;
  int rc = 1;
  if (!t || !x || !y1 || !y2 || !li ||
      !(t->nlab = calloc((size_t)in->P + 1, sizeof(int)))) {
    snprintf(why, whylen, "out of memory for the trace");
    goto done;
  }
  t->G = in->G;
  t->M = in->M;
  t->P = in->P;
  t->K = 1;
  labels = lua_absindex(L, labels);
  for (int i = 0; i < in->P; i++) {
    if (!in->labeled[i]) continue;
    lua_rawgeti(L, labels, i + 1);
    t->nlab[i] = (int)lua_rawlen(L, -1);
    lua_pop(L, 1);
    if (t->nlab[i] < 1 || (double)t->K * t->nlab[i] * in->G > TRACE_MAX_GRID) {
      t->K = TRACE_MAX_GRID + 1;
      break;
    }
    t->K *= t->nlab[i];
    t->nlabeled++;
  }
  if ((double)in->G * t->K > TRACE_MAX_GRID) {
    snprintf(why, whylen,
             "more than %d grid points and label combinations (one graph each)",
             TRACE_MAX_GRID);
    t->K = 0; /* no graphs to free */
    goto done;
  }
  t->graphs = calloc((size_t)(in->G * t->K), sizeof(pod_graph *));
  T = lpod_worker_state(in->opts, in->sb);
  if (!t->graphs || !T) {
    snprintf(why, whylen, "out of memory for the trace");
    goto done;
  }
  lua_pushcfunction(T, lpod_trace__install);
  if (lua_pcall(T, 0, 0, 0) != LUA_OK) {
    snprintf(why, whylen, "cannot set up the trace state: %s",
             lua_tostring(T, -1));
    goto done;
  }
  lua_settop(T, 0);
  if (lpod_copy_value(L, fn, T, "eval") != 0 ||
      lpod_copy_value(L, points, T, "grid") != 0 ||
      lpod_copy_value(L, labels, T, "labels") != 0) {
    snprintf(why, whylen, "%s", lua_tostring(T, -1));
    goto done;
  }
  trace tr;
  memset(&tr, 0, sizeof tr);
  lua_pushlightuserdata(T, &tr);
  lua_setfield(T, LUA_REGISTRYINDEX, TRACE_KEY);
  lua_sethook(T, trace_hook, LUA_MASKCOUNT, TRACE_HOOK_EVERY);
  rc = trace_all(T, t, in, &tr, li, x, y1, y2, why, whylen);
  if (rc == 0) {
    *out = t;
    t = NULL;
  }
done:
  if (T) {
    void *aud;
    lua_getallocf(T, &aud);
    lua_close(T);
    free(aud); /* the worker state's memory budget (host_sandbox.c) */
  }
  lpod_traced_free(t);
  free(x);
  free(y1);
  free(y2);
  free(li);
  return rc;
}

/* ---------------------------------------------------------------------- */
/* the plan evaluator                                                      */
/* ---------------------------------------------------------------------- */

/* A worker keeps one workspace per graph it has evaluated: a choice
** parameter with labels switches graphs from sample to sample, and a
** workspace is only scratch (built once, reused while the graph is). */
typedef struct tworker {
  int n;                  /* graphs: G * K */
  pod_graph_ws **ws;      /* n, NULL until that graph is first evaluated */
  pod_graph_bws **bws;    /* n, the same for blocks */
  int *gi, *idx;          /* POD_MC_BLOCK: rows' graph groups, rows by group */
  int *slot;              /* n: a graph's group in the block, or -1 */
  int *ggi, *gcnt, *gend; /* POD_MC_BLOCK: per group its graph, rows, end */
} tworker;

static void tw_free(void *ud, void *worker) {
  (void)ud;
  tworker *w = worker;
  if (w == NULL) return;
  for (int i = 0; w->ws && i < w->n; i++) pod_graph_ws_free(w->ws[i]);
  for (int i = 0; w->bws && i < w->n; i++) pod_graph_bws_free(w->bws[i]);
  free(w->ws);
  free(w->bws);
  free(w->gi);
  free(w->idx);
  free(w->slot);
  free(w->ggi);
  free(w->gcnt);
  free(w->gend);
  free(w);
}

static void *tw_new(void *ud, pod_err *err) {
  const lpod_traced *t = ud;
  tworker *w = calloc(1, sizeof *w);
  if (w != NULL) {
    w->n = t->G * t->K;
    w->ws = calloc((size_t)w->n, sizeof *w->ws);
    w->bws = calloc((size_t)w->n, sizeof *w->bws);
    w->gi = malloc(sizeof(int) * POD_MC_BLOCK);
    w->idx = malloc(sizeof(int) * POD_MC_BLOCK);
    w->slot = malloc(sizeof(int) * (size_t)w->n);
    w->ggi = malloc(sizeof(int) * POD_MC_BLOCK);
    w->gcnt = malloc(sizeof(int) * POD_MC_BLOCK);
    w->gend = malloc(sizeof(int) * POD_MC_BLOCK);
    for (int i = 0; w->slot && i < w->n; i++) w->slot[i] = -1;
    if (!w->ws || !w->bws || !w->gi || !w->idx || !w->slot || !w->ggi ||
        !w->gcnt || !w->gend) {
      tw_free(ud, w);
      w = NULL;
    }
  }
  if (w == NULL)
    pod_err_set(err, POD_ENOMEM, "eval", "out of memory for a worker");
  return w;
}

/* The graph of this grid point and these labels (x holds their indices,
** as the per-sample Lua evaluator reads them), or a status. */
static int graph_of(const lpod_traced *t, int grid, const double *x,
                    pod_err *err) {
  int gi = grid * t->K, stride = 1;
  for (int i = t->P - 1; i >= 0; i--) {
    if (t->nlab[i] == 0) continue;
    int l = (int)x[i];
    if (l < 0 || l >= t->nlab[i])
      return pod_err_set(err, POD_EINVAL, "eval", "label index %d out of range",
                         l);
    gi += l * stride;
    stride *= t->nlab[i];
  }
  return gi;
}

static int tw_eval(void *ud, void *worker, int grid, const double *x, double *y,
                   pod_err *err) {
  lpod_traced *t = ud;
  tworker *w = worker;
  int gi = graph_of(t, grid, x, err);
  if (gi < 0) return gi;
  if (w->ws[gi] == NULL) {
    int rc = pod_graph_ws_new(t->graphs[gi], &w->ws[gi], err);
    if (rc != POD_OK) return rc;
  }
  return pod_graph_eval(t->graphs[gi], w->ws[gi], x, y, err);
}

/* Group the rows [0, lim) by graph (w->gi[j] its graph, then its
** group), in order of first appearance; the rows of group s end at
** w->gend[s] in w->idx, ascending.  A counting sort: no branch per row on
** its graph.  Returns the number of groups. */
static int tw_groups(tworker *w, int lim) {
  int ng = 0;
  for (int j = 0; j < lim; j++) {
    int s = w->slot[w->gi[j]];
    if (s < 0) {
      s = w->slot[w->gi[j]] = ng;
      w->ggi[ng] = w->gi[j];
      w->gcnt[ng++] = 0;
    }
    w->gi[j] = s;
    w->gcnt[s]++;
  }
  for (int s = 0, at = 0; s < ng; s++) {
    w->gend[s] = at;
    at += w->gcnt[s];
    w->slot[w->ggi[s]] = -1;
  }
  for (int j = 0; j < lim; j++) w->idx[w->gend[w->gi[j]]++] = j;
  return ng;
}

/* Graph gi's block workspace with lanes for c <= POD_MC_BLOCK rows: made
** at its first block with the lanes that block needs (a study of a few
** samples, as the swing tornado's one-point re-evaluations are, copies
** its kernels' configs into no more lanes than it uses), made again with
** POD_MC_BLOCK lanes when a later block has more rows.  Lanes are
** independent: their number changes no result. */
static int tw_bws(const lpod_traced *t, tworker *w, int gi, int c,
                  pod_err *err) {
  pod_graph_bws *b = w->bws[gi];
  if (b != NULL && pod_graph_bws_lanes(b) >= c) return POD_OK;
  pod_graph_bws_free(b);
  w->bws[gi] = NULL;
  return pod_graph_bws_new(t->graphs[gi], b ? POD_MC_BLOCK : c, &w->bws[gi],
                           err);
}

/* eval_block without labels: every row takes the grid point's one graph,
** as one block in row order. */
static int tw_eval_block1(lpod_traced *t, tworker *w, int grid, int n,
                          const double *x, double *y, int *nok, pod_err *err) {
  pod_err ge;
  pod_err_clear(&ge);
  int k = 0, st = tw_bws(t, w, grid, n, &ge);
  if (st == POD_OK)
    st = pod_graph_eval_rows(t->graphs[grid], w->bws[grid], n, NULL, x, y, &k,
                             &ge);
  *nok = st == POD_OK ? n : k;
  if (st != POD_OK && err) *err = ge;
  return st;
}

/* eval_block: the rows of each graph (grid point and labels) as one
** block; the first failing row of all (an invalid label index or a
** failing sample of any graph) ends it. */
static int tw_eval_block(void *ud, void *worker, int grid, int n,
                         const double *x, double *y, int *nok, pod_err *err) {
  lpod_traced *t = ud;
  tworker *w = worker;
  size_t P = (size_t)t->P;
  int lim = n, rc = POD_OK;
  if (n > POD_MC_BLOCK)
    return pod_err_set(err, POD_EINVAL, "eval", "a block of %d samples", n);
  if (t->nlabeled == 0 && n > 0)
    return tw_eval_block1(t, w, grid, n, x, y, nok, err);
  for (int j = 0; j < n; j++) {
    w->gi[j] = graph_of(t, grid, x + (size_t)j * P, err);
    if (w->gi[j] < 0) {
      rc = w->gi[j];
      lim = j;
      break;
    }
  }
  int ng = tw_groups(w, lim);
  for (int s = 0; s < ng; s++) {
    int c = w->gcnt[s], gi = w->ggi[s];
    const int *rows = w->idx + w->gend[s] - c;
    while (c > 0 && rows[c - 1] >= lim) c--; /* after an earlier failure */
    if (c == 0) continue;
    pod_err ge;
    pod_err_clear(&ge);
    int k = 0, st = tw_bws(t, w, gi, c, &ge);
    if (st == POD_OK)
      st =
          pod_graph_eval_rows(t->graphs[gi], w->bws[gi], c,
                              ng == 1 && c == lim ? NULL : rows, x, y, &k, &ge);
    if (st != POD_OK && rows[k] < lim) {
      lim = rows[k];
      rc = st;
      if (err) *err = ge;
    }
  }
  *nok = lim;
  return lim < n ? rc : POD_OK;
}

void lpod_traced_evaluator(lpod_traced *t, pod_mc_evaluator *ev) {
  memset(ev, 0, sizeof *ev); /* no chunk_begin: a graph keeps no state */
  ev->ud = t;
  ev->worker_new = tw_new;
  ev->worker_free = tw_free;
  ev->eval = tw_eval;
  ev->eval_block = tw_eval_block;
}
