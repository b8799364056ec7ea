/*
** graph_fixture.h: graph values shared by the graph unit tests:
** fl(d) a float value, in(i) an integer value.
*/
#ifndef POD_TEST_GRAPH_FIXTURE_H
#define POD_TEST_GRAPH_FIXTURE_H

#include <stdint.h>

#include "pod_graph.h"

static inline pod_gval fl(double d) {
  pod_gval v;
  v.u.d = d;
  v.isint = 0;
  return v;
}

static inline pod_gval in(int64_t i) {
  pod_gval v;
  v.u.i = i;
  v.isint = 1;
  return v;
}

#endif
