/*
** stats_int.h: internals shared by core/stats*.c (callers use pod_stats.h).
*/
#ifndef POD_STATS_INT_H
#define POD_STATS_INT_H

#include <stdint.h>
#include <string.h>

/* Order-preserving map of a double to an unsigned key (IEEE 754: flip all
** bits of negatives, the sign bit of the rest), and back.  -0 maps just
** below +0. */
static inline uint64_t pod_stats__dkey(double x) {
  uint64_t u;
  memcpy(&u, &x, sizeof u);
  return (u >> 63) ? ~u : (u | 0x8000000000000000ULL);
}

static inline double pod_stats__dval(uint64_t k) {
  uint64_t u = (k >> 63) ? (k & 0x7fffffffffffffffULL) : ~k;
  double x;
  memcpy(&x, &u, sizeof x);
  return x;
}

#endif
