/*
** l_trace.h: compiling a study's Lua `eval` into a graph (pod_graph.h).
**
** At study build time `eval` runs once per grid point in a private,
** sandboxed Lua state whose podsim constructors, kernel calls and math
** functions record what they compute when handed tracing values.  The
** recorded graphs are then evaluated in C per sample, with no Lua.  Kernel
** calls build their configs with the bindings' own readers (l_read.h); a
** traced value's place in the config is found by re-reading with that
** value varied and comparing the configs, so a traced call builds exactly
** the config the binding would.
**
** Data-dependent control flow (comparing a traced value, using one as a
** string or a table key, reading a data-dependent result field such as
** `fits` or `algo`, math.random) stops the trace; the study then runs
** `eval` in Lua per sample, and the reason names the scenario line.
** Before a trace is used, graph and Lua are compared bit for bit at
** several parameter points; any difference also falls back to Lua.
*/
#ifndef LPOD_L_TRACE_H
#define LPOD_L_TRACE_H

#include <lua.h>
#include <stddef.h>

#include "host.h"
#include "pod_dist.h"
#include "pod_mc.h"

typedef struct lpod_traced lpod_traced;

/* What the study knows about its evaluator. */
typedef struct lpod_trace_in {
  const pod_host_opts *opts; /* for the trace state (budget) */
  const pod_sandbox *sb;     /* the study's sandbox (paths, --timeout) */
  int P;                     /* parameters */
  char *const *pnames;       /* P names */
  const pod_dist *dists;     /* P distributions (probe at the medians) */
  const int *labeled;        /* P flags: choice over labels */
  int G;                     /* grid points */
  int M;                     /* metrics */
  char *const *mnames;       /* M names */
} lpod_trace_in;

/* Trace the eval function at fn (in L) over the grid point tables in the
** list at points; labels is the list of each parameter's labels (a list
** for a choice over labels, false otherwise): a graph is traced per grid
** point and combination of labels, the labels being constants in it.
** Returns 0 and *out on success; 1 when eval cannot be
** traced, with the reason ("file:line: comparison of a traced value ...")
** in why; 2 when eval itself failed while being traced (its error in
** why: the per-sample run reports it).  Never raises. */
int lpod_trace_study(lua_State *L, int fn, int points, int labels,
                     const lpod_trace_in *in, lpod_traced **out, char *why,
                     size_t whylen);
void lpod_traced_free(lpod_traced *t);

/* The plan evaluator over the traced graphs (t must outlive the plan). */
void lpod_traced_evaluator(lpod_traced *t, pod_mc_evaluator *ev);

/* Nodes evaluated per sample at grid point g, and how many of them are
** spec builds or kernel calls. */
int lpod_traced_nodes(const lpod_traced *t, int g, int *blobs);

#endif
