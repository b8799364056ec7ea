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

/* Prefetch for reading / writing (GCC and Clang; nothing elsewhere): the
** ranking passes write ranks in random order, and the reuse pass reads
** a column in another column's order; a prefetch some places ahead keeps
** several of those cache misses in flight (measured: the ranking pass
** about 20% faster on 1 M values). */
#if defined(__GNUC__) || defined(__clang__)
#define POD_STATS_PREFETCH(p) __builtin_prefetch((p), 0)
#define POD_STATS_PREFETCH_W(p) __builtin_prefetch((p), 1)
#else
#define POD_STATS_PREFETCH(p) ((void)(p))
#define POD_STATS_PREFETCH_W(p) ((void)(p))
#endif
#define POD_STATS_AHEAD 16 /* places ahead */

/* 128-bit unsigned arithmetic, portable C11 (the rank sums) */
typedef struct {
  uint64_t hi, lo;
} u128;

static inline u128 u128_add(u128 a, uint64_t b) {
  a.lo += b;
  a.hi += a.lo < b;
  return a;
}

static inline u128 u128_mul(uint64_t a, uint64_t b) {
  uint64_t a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu,
           b1 = b >> 32;
  uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  uint64_t mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
  u128 r;
  r.lo = (mid << 32) | (p00 & 0xffffffffu);
  r.hi = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
  return r;
}

static inline int u128_lt(u128 a, u128 b) {
  return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}

static inline u128 u128_sub(u128 a, u128 b) { /* a >= b */
  u128 r;
  r.lo = a.lo - b.lo;
  r.hi = a.hi - b.hi - (a.lo < b.lo);
  return r;
}

static inline double u128_double(u128 a) {
  return (double)a.hi * 0x1p64 + (double)a.lo;
}

/* a - b as a double, either sign */
static inline double u128_diff(u128 a, u128 b) {
  return u128_lt(a, b) ? -u128_double(u128_sub(b, a))
                       : u128_double(u128_sub(a, b));
}

static inline u128 u128_add2(u128 a, u128 b) {
  a = u128_add(a, b.lo);
  a.hi += b.hi;
  return a;
}

/* sum of (2k)^2 for k = 1..n = 2 n (n+1) (2n+1) / 3, exact (n < 2^31):
** the squares of twice the ranks when no two values tie */
static inline u128 u128_sum_r2sq(uint64_t n) {
  uint64_t a = n, b = n + 1, c = 2 * n + 1;
  if (a % 2 == 0)
    a /= 2;
  else
    b /= 2;
  if (a % 3 == 0)
    a /= 3;
  else if (b % 3 == 0)
    b /= 3;
  else
    c /= 3;
  u128 p = u128_mul(a * b, c); /* n (n+1) (2n+1) / 6 */
  p.hi = p.hi << 2 | p.lo >> 62;
  p.lo <<= 2;
  return p;
}

/* The running sum of the squares of twice the ranks: v^2 < 2^64 added
** `count` times. */
static inline u128 u128_add_squares(u128 ss, uint64_t v, size_t count) {
  u128 p = u128_mul(v * v, count);
  ss.hi += p.hi;
  ss = u128_add(ss, p.lo);
  return ss;
}

/* ---- shared by stats_rank.c and stats_corr.c ---- */

#include "pod_stats.h"

/* The ranking key: x + 0.0 turns -0 into +0 (ties), nothing else. */
static inline uint64_t pod_stats__rkey(double x) {
  return pod_stats__dkey(x + 0.0);
}

/* A buffer of m uint32 from work's released ones when one is large
** enough, else new (work may be NULL); NULL when out of memory. */
uint32_t *pod_ranks__take(pod_ranks_work *work, size_t m);

/* The Spearman coefficient from the exact sum of products sab of a's
** and b's twice-ranks (n >= 2), as pod_ranks_spearman. */
double pod_ranks__rho(u128 sab, const pod_ranks *a, const pod_ranks *b,
                      size_t n);
#endif
