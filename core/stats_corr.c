/*
** stats_corr.c: ranks of discrete columns, rank correlation from ranks,
** and the double-valued rank API (see pod_stats.h; the sort that ranks a
** column is in stats_rank.c).
*/
#include "pod_stats.h"
#include "stats_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define SP_GROUP 8    /* rank sets summed together */
#define SP_BLOCK 2048 /* rows per block (in L1 while the group reads) */

/* sum of x[i] y[i] for i < n, where the caller's blocking keeps the sum
** below 2^64: integer sums, so any order gives the same value.  With SSE2
** (every x86-64) four products a step in two 64-bit lanes (pmuludq on the
** even and the odd elements), the rest one by one. */
static inline uint64_t dot_u32(const uint32_t *x, const uint32_t *y, size_t n) {
  uint64_t acc = 0;
  size_t i = 0;
#ifdef __SSE2__
  __m128i s0 = _mm_setzero_si128(), s1 = _mm_setzero_si128();
  for (; i + 4 <= n; i += 4) {
    __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(x + i));
    __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(y + i));
    s0 = _mm_add_epi64(s0, _mm_mul_epu32(a, b));
    s1 = _mm_add_epi64(
        s1, _mm_mul_epu32(_mm_srli_epi64(a, 32), _mm_srli_epi64(b, 32)));
  }
  s0 = _mm_add_epi64(s0, s1);
  uint64_t lane[2];
  _mm_storeu_si128((__m128i *)(void *)lane, s0);
  acc = lane[0] + lane[1];
#endif
  for (; i < n; i++) acc += (uint64_t)x[i] * y[i];
  return acc;
}

/* ---- discrete columns: ranks by counting levels ---- */

/* The distinct keys of nlev ascending levels into key; their number, or
** -1 when the levels are not ascending. */
static int level_keys(const double *levels, int nlev, uint64_t *key) {
  int k = 0;
  for (int j = 0; j < nlev; j++) {
    uint64_t v = pod_stats__rkey(levels[j]);
    if (k > 0 && v < key[k - 1]) return -1; /* not sorted */
    if (k == 0 || v != key[k - 1]) key[k++] = v;
  }
  return k;
}

/* The level of x among the k keys, or -1 when x is none: a branch-free
** lower bound (levels come at random). */
static inline int level_of(const uint64_t *key, int k, double x) {
  uint64_t v = pod_stats__rkey(x);
  int a = 0, len = k;
  while (len > 1) {
    int half = len / 2;
    a += key[a + half - 1] < v ? half : 0;
    len -= half;
  }
  return key[a] == v ? a : -1;
}

/* Twice the average rank of each level's ties, 2 below + c + 1 (below:
** the values under it, c: its count), into v2; their squares' sum. */
static u128 level_ranks(const uint64_t *cnt, int k, uint32_t *v2) {
  u128 ss = {0, 0};
  uint64_t below = 0;
  for (int j = 0; j < k; j++) {
    uint64_t v = 2 * below + cnt[j] + 1; /* ranks below+1..below+cnt[j] */
    v2[j] = (uint32_t)v;
    if (cnt[j]) ss = u128_add_squares(ss, v, cnt[j]);
    below += cnt[j];
  }
  return ss;
}

/* Ranks of a column of a few known values (a discrete parameter): each
** value's level, the count per level, then each level's twice-rank: the
** ranks of the sort, in two passes and without one. */
int pod_ranks_init_levels(pod_ranks *r, const double *x, size_t n,
                          const double *levels, int nlev,
                          pod_ranks_work *work) {
  memset(r, 0, sizeof *r);
  if (nlev < 1 || nlev > POD_RANKS_LEVELS_MAX || n > POD_RANKS_MAX)
    return POD_EINVAL;
  uint64_t key[POD_RANKS_LEVELS_MAX];
  uint64_t cnt[POD_RANKS_LEVELS_MAX] = {0};
  int k = level_keys(levels, nlev, key);
  if (k < 0) return POD_EINVAL;
  if (!(r->r2 = pod_ranks__take(work, n ? n : 1))) return POD_ENOMEM;
  r->n = n;
  uint32_t *r2 = r->r2;
  for (size_t i = 0; i < n; i++) {
    int a = level_of(key, k, x[i]);
    if (a < 0) { /* not a level: the caller sorts instead */
      pod_ranks_recycle(r, work);
      return POD_ERANGE;
    }
    r2[i] = (uint32_t)a;
    cnt[a]++;
  }
  uint32_t v2[POD_RANKS_LEVELS_MAX];
  u128 ss = level_ranks(cnt, k, v2);
  for (size_t i = 0; i < n; i++) r2[i] = v2[r2[i]];
  r->ss_hi = ss.hi;
  r->ss_lo = ss.lo;
  return POD_OK;
}

int pod_ranks_spearman_levels(const double *x, size_t n, const double *levels,
                              int nlev, const pod_ranks *b, int nb, double *rho,
                              pod_ranks_work *work) {
  for (int j = 0; j < nb; j++) rho[j] = NAN;
  if (nb < 0) return POD_EINVAL;
  pod_ranks a;
  int rc = pod_ranks_init_levels(&a, x, n, levels, nlev, work);
  if (rc) return rc;
  /* the sums of products and rho are symmetric in the two rank sets,
  ** so this is rho(a, b[j]) bit for bit, one block of a per group of b */
  pod_ranks_spearman_n(b, nb, &a, rho);
  pod_ranks_recycle(&a, work);
  return POD_OK;
}

/* ---- which columns may take their ranks from another's order ---- */

#define FOLLOW_ROWS 256 /* rows sampled by pod_ranks_may_follow */

typedef struct {
  uint64_t key;
  size_t i;
} row_key;

static int cmp_row(const void *pa, const void *pb) { /* as a ranking orders */
  const row_key *a = pa, *b = pb;
  if (a->key != b->key) return a->key < b->key ? -1 : 1;
  return a->i < b->i ? -1 : a->i > b->i;
}

/* 1 when y along the sampled rows s (sorted) goes one way only (or not
** at all) and holds no -0. */
static int one_way(const double *y, const row_key *s, size_t m) {
  int up = 0, down = 0;
  for (size_t t = 0; t < m; t++) {
    double b = y[s[t].i];
    if (b == 0 && signbit(b)) return 0; /* reuse refuses a -0 */
    if (t > 0) {
      double a = y[s[t - 1].i];
      up |= b > a;
      down |= b < a;
    }
  }
  return !(up && down);
}

/* The sampled rows are a subsequence of x's order (sorted by key, ties by
** index as the ranking keeps them): a column monotone along the order is
** monotone along them, so one that goes both ways on them is not. */
int pod_ranks_may_follow(const double *x, size_t n, const double *const *ys,
                         int ny) {
  if (n == 0 || ny <= 0) return 0;
  row_key s[FOLLOW_ROWS];
  size_t m = n < FOLLOW_ROWS ? n : FOLLOW_ROWS;
  for (size_t j = 0; j < m; j++) {
    s[j].i = (size_t)((uint64_t)j * n / m);
    s[j].key = pod_stats__rkey(x[s[j].i]);
  }
  qsort(s, m, sizeof *s, cmp_row);
  for (int k = 0; k < ny; k++)
    if (one_way(ys[k], s, m)) return 1;
  return 0;
}

/* ---- correlation of rank sets ---- */

int pod_ranks_spearman_col(const double *x, size_t n, const double *bounds,
                           const pod_ranks *b, int nb, double *rho,
                           pod_ranks_work *work) {
  for (int j = 0; j < nb; j++) rho[j] = NAN;
  if (nb < 0) return POD_EINVAL;
  pod_ranks a;
  int rc = pod_ranks_init_with(&a, x, n, bounds, NULL, 0, NULL, 0, work);
  if (rc) return rc;
  /* the sums of products and rho are symmetric in the two rank sets,
  ** so this is rho(a, b[j]) bit for bit, one block of a per group of b */
  pod_ranks_spearman_n(b, nb, &a, rho);
  pod_ranks_recycle(&a, work);
  return POD_OK;
}

/* sum of a[i] b[i], exact: uint64 sums over blocks short enough not to
** overflow (each product is below (2n)^2 < 2^64, n <= POD_RANKS_MAX) */
static u128 sum_products(const uint32_t *a, const uint32_t *b, size_t n) {
  u128 sab = {0, 0};
  if (n == 0) return sab;
  uint64_t pmax = 4 * (uint64_t)n * (uint64_t)n;
  size_t blk = (size_t)(UINT64_MAX / pmax);
  if (blk > n) blk = n;
  for (size_t i0 = 0; i0 < n; i0 += blk) {
    size_t i1 = n - i0 < blk ? n : i0 + blk;
    uint64_t s = dot_u32(a + i0, b + i0, i1 - i0);
    sab = u128_add(sab, s);
  }
  return sab;
}

double pod_ranks__rho(u128 sab, const pod_ranks *a, const pod_ranks *b,
                      size_t n) {
  /* sum (a - n - 1)(b - n - 1) = sab - n (n+1)^2, as sum a = sum b = n(n+1) */
  u128 c = u128_mul((uint64_t)n * (n + 1), n + 1);
  u128 saa = {a->ss_hi, a->ss_lo}, sbb = {b->ss_hi, b->ss_lo};
  double va = u128_diff(saa, c), vb = u128_diff(sbb, c);
  if (!(va > 0) || !(vb > 0)) return NAN;
  double rho = u128_diff(sab, c) / sqrt(va * vb);
  return rho > 1 ? 1 : rho < -1 ? -1 : rho;
}

/* The ranks that r2 holds for r: its own, or those it shares (*flip
** toggled when they are read reversed). */
static const uint32_t *own_r2(const pod_ranks *r, int *flip) {
  if (r->r2 || !r->same) return r->r2;
  *flip ^= r->flip;
  return r->same->r2;
}

/* The sum of products with one side's ranks reversed, 2 (n + 1) - a,
** from that of the ranks as read: sum (2 (n+1) - a) b = 2 n (n+1)^2 - sab
** (sum b = n (n + 1)); reversing both gives sab back. */
static u128 flip_sab(u128 sab, size_t n, int flip) {
  if (!flip) return sab;
  return u128_sub(u128_mul(2 * (uint64_t)n * (n + 1), n + 1), sab);
}

double pod_ranks_spearman(const pod_ranks *a, const pod_ranks *b) {
  size_t n = a->n;
  if (n < 2 || b->n != n) return NAN;
  int flip = 0;
  const uint32_t *x = own_r2(a, &flip), *y = own_r2(b, &flip);
  return pod_ranks__rho(flip_sab(sum_products(x, y, n), n, flip), a, b, n);
}

void pod_ranks_spearman_n(const pod_ranks *a, int na, const pod_ranks *b,
                          double *rho) {
  size_t n = b->n;
  for (int k = 0; k < na; k++) rho[k] = NAN;
  if (n < 2) return;
  /* uint64 partial sums over blocks short enough not to overflow (each
  ** product is below (2n)^2 <= 2^64, n <= POD_RANKS_MAX) */
  size_t blk = (size_t)(UINT64_MAX / (4 * (uint64_t)n * (uint64_t)n));
  if (blk > SP_BLOCK) blk = SP_BLOCK;
  int fb = 0;
  const uint32_t *y = own_r2(b, &fb);
  for (int k0 = 0; k0 < na; k0 += SP_GROUP) {
    int k1 = na - k0 < SP_GROUP ? na : k0 + SP_GROUP;
    u128 sab[SP_GROUP];
    const uint32_t *x[SP_GROUP];
    int flip[SP_GROUP], dup[SP_GROUP];
    memset(sab, 0, sizeof sab);
    for (int k = k0; k < k1; k++) { /* shared ranks: those they share, */
      int j = k - k0;               /* summed once in the group */
      flip[j] = fb;
      x[j] = own_r2(&a[k], &flip[j]);
      dup[j] = -1;
      for (int i = 0; i < j && dup[j] < 0 && a[k].n == n; i++)
        if (x[i] == x[j] && a[k0 + i].n == n) dup[j] = i;
    }
    for (size_t i0 = 0; i0 < n; i0 += blk) {
      size_t i1 = n - i0 < blk ? n : i0 + blk;
      for (int k = k0; k < k1; k++) {
        if (a[k].n != n || dup[k - k0] >= 0) continue;
        uint64_t acc = dot_u32(x[k - k0] + i0, y + i0, i1 - i0);
        sab[k - k0] = u128_add(sab[k - k0], acc);
      }
    }
    for (int k = k0; k < k1; k++) {
      int j = k - k0;
      u128 raw = dup[j] >= 0 ? sab[dup[j]] : sab[j];
      if (a[k].n == n)
        rho[k] = pod_ranks__rho(flip_sab(raw, n, flip[j]), &a[k], b, n);
    }
  }
}

/* ---- the double-valued API ---- */

int pod_stats_ranks(const double *x, size_t n, double *ranks) {
  pod_ranks r;
  int rc = pod_ranks_init(&r, x, n, NULL, 0, NULL);
  if (rc) return rc;
  for (size_t i = 0; i < n; i++) ranks[i] = 0.5 * r.r2[i];
  pod_ranks_free(&r);
  return POD_OK;
}

int pod_stats_spearman(const double *x, const double *y, size_t n,
                       double *rho) {
  pod_ranks a, b;
  int rc = pod_ranks_init(&a, x, n, NULL, 0, NULL);
  if (rc) return rc;
  if ((rc = pod_ranks_init(&b, y, n, NULL, 0, NULL))) {
    pod_ranks_free(&a);
    return rc;
  }
  *rho = pod_ranks_spearman(&a, &b);
  pod_ranks_free(&a);
  pod_ranks_free(&b);
  return POD_OK;
}

double pod_stats_pearson(const double *a, const double *b, size_t n) {
  if (n < 2) return NAN;
  double ma = 0, mb = 0;
  for (size_t i = 0; i < n; i++) {
    ma += a[i];
    mb += b[i];
  }
  ma /= (double)n;
  mb /= (double)n;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < n; i++) {
    double da = a[i] - ma, db = b[i] - mb;
    sab += da * db;
    saa += da * da;
    sbb += db * db;
  }
  if (saa <= 0 || sbb <= 0) return NAN;
  return sab / sqrt(saa * sbb);
}
