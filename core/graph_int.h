/*
** graph_int.h: internals shared by graph.c (building and evaluating
** graphs) and graph_arith.c (Lua 5.4 number semantics); callers use
** pod_graph.h only.
*/
#ifndef POD_GRAPH_INT_H
#define POD_GRAPH_INT_H

#include "pod_graph.h"

static inline double tonum(pod_gval v) {
  return v.isint ? (double)v.u.i : v.u.d;
}

static inline pod_gval mkflt(double d) {
  pod_gval r;
  r.u.d = d;
  r.isint = 0;
  return r;
}

static inline pod_gval mkint(int64_t i) {
  pod_gval r;
  r.u.i = i;
  r.isint = 1;
  return r;
}

#endif
