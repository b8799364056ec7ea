/*
** stats_rank.c: ranks and rank correlation (see pod_stats.h).
**
** Keys are the order-preserving integer image of the doubles.  Ranks come
** from an LSD radix sort (three 11-bit digits, a digit every value shares
** skipped) of 64-bit words (prefix << 32 | index), the prefix being the
** top 32 bits of key - min (exact when the key range is below 2^32); the
** ranking pass walks the sorted words, gives each value of its own its
** rank at once, and sorts the rare runs of equal prefixes whose keys
** differ by their full keys (an MSD radix sort of (key, index) pairs, in
** cache) before ranking their ties.  The order and the quantiles come
** from the same pass; the sum of squares is that of n untied ranks in
** closed form (2 n (n+1) (2n+1) / 3), corrected by the runs only.  A
** discrete column may be ranked by counting its levels instead
** (pod_ranks_init_levels), and a column strictly monotone along an untied
** ranking's order may share its ranks (pod_ranks_reuse_shared in
** stats_reuse.c: no rank
** buffer, no rank written).  Spearman then needs no
** floating-point sums: twice the ranks are integers, their sum is n(n+1)
** whatever the ties, and the sums of squares and of products are exact in
** 128-bit integers, so the coefficient is rounded once, at the end.
*/
#include "pod_stats.h"
#include "stats_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#define INS_MAX 24   /* buckets up to this size: insertion sort */
#define SUB_BITS 11  /* of the later levels, at most */
#define MAX_DEPTH 24 /* a level drops >= 3 bits of range (m > INS_MAX) */
#define CNT_SUB ((1u << SUB_BITS) + 1)

/* ---- MSD radix sort of (key, index) pairs ---- */

static int floor_log2(uint64_t v) { /* v > 0 */
  int b = 0;
  while (v >>= 1) b++;
  return b;
}

static void ins_sort(uint64_t *k, uint32_t *ix, size_t n) {
  for (size_t i = 1; i < n; i++) {
    uint64_t v = k[i];
    uint32_t w = ix[i];
    size_t j = i;
    while (j > 0 && k[j - 1] > v) {
      k[j] = k[j - 1];
      ix[j] = ix[j - 1];
      j--;
    }
    k[j] = v;
    ix[j] = w;
  }
}

static void copy_pairs(uint64_t *dk, uint32_t *di, const uint64_t *k,
                       const uint32_t *ix, size_t n) {
  memcpy(dk, k, n * sizeof *dk);
  memcpy(di, ix, n * sizeof *di);
}

static void key_range(const uint64_t *k, size_t n, uint64_t *lo, uint64_t *hi) {
  uint64_t a = k[0], b = k[0];
  for (size_t i = 1; i < n; i++) {
    if (k[i] < a) a = k[i];
    if (k[i] > b) b = k[i];
  }
  *lo = a;
  *hi = b;
}

/* The key range of bucket d of a split of [lo, hi] by `shift` bits. */
static void bucket_range(uint64_t lo, uint64_t hi, size_t d, int shift,
                         uint64_t *blo, uint64_t *bhi) {
  uint64_t off = ((uint64_t)d << shift), end = off + ((uint64_t)1 << shift) - 1;
  *blo = lo + off;
  *bhi = end >= hi - lo ? hi : lo + end;
}

/* Sort the n pairs (k, ix), whose keys lie in [lo, hi], by key, in place;
** (tk, ti) is scratch of n pairs, cnt MAX_DEPTH * CNT_SUB counters.  One
** level scatters by the top bits of the range, sorts the sub-buckets
** larger than INS_MAX the same way, copies back, and lets one insertion
** sort put the small sub-buckets in order (each value moves only within
** its sub-bucket).  Sub-buckets get their nominal range; when every key
** falls in one, the actual range is taken instead (so equal keys end the
** recursion at once). */
static void msd_sort(uint64_t *k, uint32_t *ix, uint64_t *tk, uint32_t *ti,
                     size_t n, uint64_t lo, uint64_t hi, int depth,
                     uint32_t *cnt) {
  if (lo == hi) return;
  if (n <= INS_MAX || depth >= MAX_DEPTH) { /* depth: never reached */
    ins_sort(k, ix, n);
    return;
  }
  int top = floor_log2(hi - lo);
  int b = floor_log2(n) + 1; /* about one value per sub-bucket */
  if (b > SUB_BITS) b = SUB_BITS;
  if (b > top + 1) b = top + 1;
  int shift = top + 1 - b; /* (key - lo) >> shift < 2^b */
  size_t nb = (size_t)1 << b;
  uint32_t *c = cnt + (size_t)depth * CNT_SUB;
  memset(c, 0, (nb + 1) * sizeof *c);
  for (size_t i = 0; i < n; i++) c[((k[i] - lo) >> shift) + 1]++;
  if (c[((k[0] - lo) >> shift) + 1] == n) { /* one bucket: its real range */
    uint64_t a, z;
    key_range(k, n, &a, &z);
    msd_sort(k, ix, tk, ti, n, a, z, depth + 1, cnt);
    return;
  }
  for (size_t d = 1; d <= nb; d++) c[d] += c[d - 1]; /* c[d]: start of d */
  for (size_t i = 0; i < n; i++) {
    uint32_t at = c[(k[i] - lo) >> shift]++;
    tk[at] = k[i];
    ti[at] = ix[i];
  }
  /* now c[d] is the end of bucket d (the start of d + 1) */
  size_t s = 0;
  for (size_t d = 0; d < nb; d++) {
    size_t e = c[d], m = e - s;
    if (m > INS_MAX) {
      uint64_t blo, bhi;
      bucket_range(lo, hi, d, shift, &blo, &bhi);
      msd_sort(tk + s, ti + s, k + s, ix + s, m, blo, bhi, depth + 1, cnt);
    }
    s = e;
  }
  copy_pairs(k, ix, tk, ti, n);
  ins_sort(k, ix, n);
}

/* ---- ranks ---- */

#define POS0_KEY 0x8000000000000000ULL /* pod_stats__dkey(+0.0) */
#define NEG0_KEY 0x7fffffffffffffffULL /* pod_stats__dkey(-0.0) */

#define rkey pod_stats__rkey

/* ---- ranks: LSD radix sort on a 32-bit prefix of the keys ---- */

#define DIG_BITS 11 /* three digits of a 32-bit prefix */
#define DIG_N (1u << DIG_BITS)
#define NDIG 3

/* Scratch of rankings (pod_stats.h): the packed words (prefix << 32 |
** index) and their copy (wcap words each); for a run of equal prefixes
** with different keys (rare: values that the prefix does not resolve) the
** run's keys and indices with the MSD sort's scratch, grown on demand;
** up to two released rank or order buffers (spare_n entries each); and
** the order of the last ranking asked to leave it here (in t, the sort's
** spare words), or NULL. */
struct pod_ranks_work {
  uint64_t *w, *t;
  size_t wcap;
  uint64_t *rk, *sk;
  uint32_t *ri, *si, *cnt;
  size_t cap;
  uint32_t *spare[2];
  size_t spare_n[2];
  const uint32_t *worder;
};

pod_ranks_work *pod_ranks_work_new(void) {
  return calloc(1, sizeof(pod_ranks_work));
}

void pod_ranks_work_free(pod_ranks_work *a) {
  if (!a) return;
  free(a->w);
  free(a->t);
  free(a->rk);
  free(a->sk);
  free(a->ri);
  free(a->si);
  free(a->cnt);
  free(a->spare[0]);
  free(a->spare[1]);
  free(a);
}

/* Room for m packed words in w and t. */
static int work_words(pod_ranks_work *a, size_t m) {
  if (m <= a->wcap) return POD_OK;
  free(a->w);
  free(a->t);
  a->w = pod_stats_column_alloc_full(m * sizeof *a->w); /* written whole */
  a->t = pod_stats_column_alloc_full(m * sizeof *a->t);
  a->wcap = a->w && a->t ? m : 0;
  return a->wcap ? POD_OK : POD_ENOMEM;
}

static int work_run(pod_ranks_work *a, size_t m) {
  if (m <= a->cap) return POD_OK;
  free(a->rk);
  free(a->sk);
  free(a->ri);
  free(a->si);
  a->rk = malloc(m * sizeof *a->rk);
  a->sk = malloc(m * sizeof *a->sk);
  a->ri = malloc(m * sizeof *a->ri);
  a->si = malloc(m * sizeof *a->si);
  if (!a->cnt) a->cnt = malloc((size_t)MAX_DEPTH * CNT_SUB * sizeof *a->cnt);
  a->cap = m;
  if (a->rk && a->sk && a->ri && a->si && a->cnt) return POD_OK;
  a->cap = 0;
  return POD_ENOMEM;
}

/* A buffer of m uint32: a released one that is large enough, else new. */
uint32_t *pod_ranks__take(pod_ranks_work *a, size_t m) {
  for (int i = 0; a && i < 2; i++)
    if (a->spare[i] && a->spare_n[i] >= m) {
      uint32_t *b = a->spare[i];
      a->spare[i] = NULL;
      a->spare_n[i] = 0;
      return b;
    }
  return pod_stats_column_alloc_full(m * sizeof(uint32_t)); /* written whole */
}

/* Keep buffer b of n entries for later (the two largest are kept). */
static void work_give(pod_ranks_work *a, uint32_t *b, size_t n) {
  if (!b) return;
  int i = a->spare_n[0] <= a->spare_n[1] ? 0 : 1; /* the smaller slot */
  if (a->spare[i] && a->spare_n[i] >= n) {
    free(b);
    return;
  }
  free(a->spare[i]);
  a->spare[i] = b;
  a->spare_n[i] = n;
}

void pod_ranks_recycle(pod_ranks *r, pod_ranks_work *a) {
  if (!r) return;
  if (!a) {
    pod_ranks_free(r);
    return;
  }
  size_t m = r->n ? r->n : 1;
  work_give(a, r->r2, m);
  work_give(a, r->order, m);
  r->r2 = NULL;
  r->order = NULL;
  r->n = 0;
}

/* Ranks of the sorted run [s, e) of equal prefixes: twice their average
** rank per group of equal keys into r2, the run's indices put in key
** order in w.  Keys differ within a run only when the prefix dropped
** bits (shift > 0): then they are read back and sorted. */
static int rank_run(const double *x, pod_ranks_work *a, size_t s, size_t e,
                    int shift, uint32_t *r2, uint32_t *order, u128 *ss) {
  uint64_t *w = a->w;
  size_t m = e - s;
  if (m == 1 || shift == 0) { /* one key */
    uint32_t v = (uint32_t)(s + 1 + e);
    for (size_t t = s; t < e; t++) {
      if (t + POD_STATS_AHEAD < e)
        POD_STATS_PREFETCH_W(&r2[(uint32_t)w[t + POD_STATS_AHEAD]]);
      r2[(uint32_t)w[t]] = v;
    }
    if (order)
      for (size_t t = s; t < e; t++) order[t] = (uint32_t)w[t];
    *ss = u128_add_squares(*ss, v, m);
    return POD_OK;
  }
  if (work_run(a, m)) return POD_ENOMEM;
  uint64_t *k = a->rk;
  uint32_t *ix = a->ri;
  int sorted = 1;
  uint64_t lo = UINT64_MAX, hi = 0;
  for (size_t j = 0; j < m; j++) {
    if (j + POD_STATS_AHEAD < m)
      POD_STATS_PREFETCH(&x[(uint32_t)w[s + j + POD_STATS_AHEAD]]);
    ix[j] = (uint32_t)w[s + j];
    k[j] = rkey(x[ix[j]]);
    sorted &= j == 0 || k[j - 1] <= k[j];
    if (k[j] < lo) lo = k[j];
    if (k[j] > hi) hi = k[j];
  }
  if (!sorted) {
    msd_sort(k, ix, a->sk, a->si, m, lo, hi, 0, a->cnt);
    uint64_t pre = w[s] & 0xffffffff00000000ULL;
    for (size_t j = 0; j < m; j++) w[s + j] = pre | ix[j];
  }
  size_t i = 0;
  while (i < m) {
    size_t j = i + 1;
    while (j < m && k[j] == k[i]) j++;
    uint32_t v = (uint32_t)(s + i + 1 + s + j); /* ranks s+i+1..s+j */
    for (size_t t = i; t < j; t++) {
      if (t + POD_STATS_AHEAD < m)
        POD_STATS_PREFETCH_W(&r2[ix[t + POD_STATS_AHEAD]]);
      r2[ix[t]] = v;
    }
    *ss = u128_add_squares(*ss, v, j - i);
    i = j;
  }
  if (order) memcpy(order + s, ix, m * sizeof *ix);
  return POD_OK;
}

/* A scatter writes each of its 2048 buckets in sequence, so far apart
** that no hardware prefetcher follows them: a word that starts a cache
** line waits for that line (from L3, in order of the stores).  A
** prefetch for writing SCATTER_AHEAD words past each store fetches the
** bucket's next line while its current one fills (measured on 1 M random
** words, 11-bit digits: a pass 6-7 ms before, 3.1-4.2 ms with it; 8 to
** 24 words ahead alike).  The address is formed as an integer: it may lie
** past the buffer, which a prefetch never faults on.  Below
** SCATTER_PF_MIN words the two buffers stay in L2 and the prefetch only
** costs (a pass on 100 k words 0.24 -> 0.31 ms; even at 150 k, ahead from
** 250 k). */
#define SCATTER_AHEAD 16
#define SCATTER_PF_MIN ((size_t)150000)

static inline const void *prefetch_at(const uint64_t *t, size_t i) {
  return (const void *)((uintptr_t)t + i * sizeof *t);
}

/* The words w by their digit at shift sh into t (c: the digits' next
** places); two a step, which halves the loop's own instructions. */
static inline void scatter(const uint64_t *w, uint64_t *t, size_t n, int sh,
                           uint32_t *c) {
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    uint64_t v0 = w[i], v1 = w[i + 1];
    t[c[(v0 >> sh) & (DIG_N - 1)]++] = v0;
    t[c[(v1 >> sh) & (DIG_N - 1)]++] = v1;
  }
  if (i < n) t[c[(w[i] >> sh) & (DIG_N - 1)]++] = w[i];
}

/* scatter with a prefetch for writing ahead of each store (see above). */
static inline void scatter_pf(const uint64_t *w, uint64_t *t, size_t n, int sh,
                              uint32_t *c) {
  size_t i = 0;
  for (; i + 2 <= n; i += 2) {
    uint64_t v0 = w[i], v1 = w[i + 1];
    uint32_t a0 = c[(v0 >> sh) & (DIG_N - 1)]++;
    POD_STATS_PREFETCH_W(prefetch_at(t, a0 + SCATTER_AHEAD));
    t[a0] = v0;
    uint32_t a1 = c[(v1 >> sh) & (DIG_N - 1)]++;
    POD_STATS_PREFETCH_W(prefetch_at(t, a1 + SCATTER_AHEAD));
    t[a1] = v1;
  }
  if (i < n) t[c[(w[i] >> sh) & (DIG_N - 1)]++] = w[i];
}

/* The packed words in a->t (index order) into a->w sorted by their
** prefix (bits 32..63), stable, by up to three LSD passes of DIG_BITS
** (a digit that every word shares is skipped); h: the digits' counts. */
static void lsd_sort(pod_ranks_work *a, size_t n, uint32_t (*h)[DIG_N]) {
  for (int d = 0; d < NDIG; d++) {
    uint32_t *c = h[d];
    int one = 0;
    uint32_t sum = 0;
    for (size_t b = 0; b < DIG_N; b++) {
      one |= c[b] == n;
      uint32_t v = c[b];
      c[b] = sum;
      sum += v;
    }
    if (one) continue;
    uint64_t *w = a->t, *t = a->w; /* the current words in a->t */
    /* each digit's own copy: its shift a constant */
    if (n < SCATTER_PF_MIN) /* in L2: the prefetches only cost */
      switch (d) {
        case 0:
          scatter(w, t, n, 32, c);
          break;
        case 1:
          scatter(w, t, n, 32 + DIG_BITS, c);
          break;
        default:
          scatter(w, t, n, 32 + 2 * DIG_BITS, c);
          break;
      }
    else
      switch (d) {
        case 0:
          scatter_pf(w, t, n, 32, c);
          break;
        case 1:
          scatter_pf(w, t, n, 32 + DIG_BITS, c);
          break;
        default:
          scatter_pf(w, t, n, 32 + 2 * DIG_BITS, c);
          break;
      }
    a->t = t;
    a->w = w;
  }
  uint64_t *t = a->t; /* the sorted words into a->w */
  a->t = a->w;
  a->w = t;
}

#define HIST3(p)                             \
  do {                                       \
    h[0][(p) & (DIG_N - 1)]++;               \
    h[1][((p) >> DIG_BITS) & (DIG_N - 1)]++; \
    h[2][(p) >> (2 * DIG_BITS)]++;           \
  } while (0)

/* The packed words of x (prefix (key - lo) >> shift, index) into t, in
** index order, and the digit counts h of their prefixes.  With `check`,
** 1 when a value falls outside [blo, bhi] or is NaN (the bounds were
** wrong: the keys' order is that of the values, -0 as +0), else 0.  With
** SSE2 the keys and words two at a time (the same integers). */
static int count(const double *x, size_t n, uint64_t lo, int shift,
                 uint32_t (*h)[DIG_N], uint64_t *t, int check, double blo,
                 double bhi) {
  int bad = 0;
  size_t i = 0;
  memset(h, 0, NDIG * sizeof *h);
#ifdef __SSE2__
  const __m128i sign = _mm_set1_epi64x((long long)0x8000000000000000ULL);
  const __m128i lo2 = _mm_set1_epi64x((long long)lo), two = _mm_set1_epi64x(2);
  const __m128i sh = _mm_cvtsi32_si128(shift);
  const __m128d lod = _mm_set1_pd(blo), hid = _mm_set1_pd(bhi);
  __m128i idx = _mm_set_epi64x(1, 0);
  __m128d out = _mm_setzero_pd();
  for (; i + 2 <= n; i += 2) {
    __m128d v = _mm_add_pd(_mm_loadu_pd(x + i), _mm_setzero_pd());
    out =
        _mm_or_pd(out, _mm_or_pd(_mm_cmpnge_pd(v, lod), _mm_cmpnle_pd(v, hid)));
    __m128i u = _mm_castpd_si128(v); /* the key: negatives flipped */
    __m128i neg =
        _mm_shuffle_epi32(_mm_srai_epi32(u, 31), _MM_SHUFFLE(3, 3, 1, 1));
    __m128i p = _mm_srl_epi64(
        _mm_sub_epi64(_mm_xor_si128(u, _mm_or_si128(neg, sign)), lo2), sh);
    _mm_storeu_si128((__m128i *)(void *)(t + i),
                     _mm_or_si128(_mm_slli_epi64(p, 32), idx));
    idx = _mm_add_epi64(idx, two);
    uint32_t p0 = (uint32_t)_mm_cvtsi128_si32(p);
    uint32_t p1 = (uint32_t)_mm_cvtsi128_si32(_mm_srli_si128(p, 8));
    HIST3(p0);
    HIST3(p1);
  }
  bad = _mm_movemask_pd(out) != 0;
#endif
  for (; i < n; i++) {
    double v = x[i] + 0.0;
    bad |= !(v >= blo) || !(v <= bhi);
    uint32_t p = (uint32_t)((rkey(v) - lo) >> shift);
    t[i] = (uint64_t)p << 32 | i;
    HIST3(p);
  }
  return check && bad;
}
#undef HIST3

static int prefix_shift(uint64_t lo, uint64_t hi) {
  int bits = lo == hi ? 0 : floor_log2(hi - lo) + 1;
  return bits > 32 ? bits - 32 : 0;
}

/* The range of x's keys into *lo, *hi. */
static void key_bounds(const double *x, size_t n, uint64_t *lo, uint64_t *hi) {
  uint64_t a = UINT64_MAX, b = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t v = rkey(x[i]);
    a = v < a ? v : a;
    b = v > b ? v : b;
  }
  *lo = a;
  *hi = b;
}

/* Twice the ranks of the sorted words w[s..) up to the first run of
** equal prefixes (or the end) into r2 and the order (unless NULL); the
** place reached.  The values of their own: one test per value. */
static size_t rank_own(const uint64_t *w, size_t s, size_t n, uint32_t *r2,
                       uint32_t *order) {
  size_t lim = n > POD_STATS_AHEAD + 4 ? n - POD_STATS_AHEAD - 4 : 0;
  /* four places a step while none starts a run: one test for the four */
  for (; s < lim; s += 4) {
    const uint64_t one = (uint64_t)1 << 32; /* (a ^ b) < one: same prefix */
    uint64_t c0 = w[s], c1 = w[s + 1], c2 = w[s + 2], c3 = w[s + 3];
    if (((c0 ^ c1) < one) | ((c1 ^ c2) < one) | ((c2 ^ c3) < one) |
        ((c3 ^ w[s + 4]) < one))
      break; /* a run among them: place by place */
    const uint64_t *f = w + s + POD_STATS_AHEAD;
    POD_STATS_PREFETCH_W(&r2[(uint32_t)f[0]]);
    POD_STATS_PREFETCH_W(&r2[(uint32_t)f[1]]);
    POD_STATS_PREFETCH_W(&r2[(uint32_t)f[2]]);
    POD_STATS_PREFETCH_W(&r2[(uint32_t)f[3]]);
    r2[(uint32_t)c0] = (uint32_t)(2 * s + 2);
    r2[(uint32_t)c1] = (uint32_t)(2 * s + 4);
    r2[(uint32_t)c2] = (uint32_t)(2 * s + 6);
    r2[(uint32_t)c3] = (uint32_t)(2 * s + 8);
    if (order) {
      order[s] = (uint32_t)c0;
      order[s + 1] = (uint32_t)c1;
      order[s + 2] = (uint32_t)c2;
      order[s + 3] = (uint32_t)c3;
    }
  }
  lim = n > POD_STATS_AHEAD + 1 ? n - POD_STATS_AHEAD - 1 : 0;
  for (; s < lim; s++) {
    uint64_t c = w[s];
    if (((c ^ w[s + 1]) >> 32) == 0) return s; /* a run */
    POD_STATS_PREFETCH_W(&r2[(uint32_t)w[s + POD_STATS_AHEAD]]);
    r2[(uint32_t)c] = (uint32_t)(2 * s + 2);
    if (order) order[s] = (uint32_t)c;
  }
  for (; s < n; s++) {
    uint64_t c = w[s];
    if (s + 1 < n && ((c ^ w[s + 1]) >> 32) == 0) return s; /* a run */
    r2[(uint32_t)c] = (uint32_t)(2 * s + 2);
    if (order) order[s] = (uint32_t)c;
  }
  return n;
}

/* Sort x (zeros as +0) into a->w, write twice the ranks to r2, the order
** to `order` (unless NULL) and the sum of squares of r2 to *ss (n >= 1).
** Keys map to the 32-bit prefix (key - lo) >> shift, which keeps their
** order, lo and shift from the keys' range: from bounds (lo <= every x <=
** hi, which spares a pass) or a pass over x.  Then one pass that packs
** the words and counts their digits, up to three scatters, and one pass
** over the runs of equal prefixes that ranks them. */
static int ranks_build(const double *x, size_t n, const double *bounds,
                       pod_ranks_work *a, uint32_t *r2, uint32_t *order,
                       int order_in_work, u128 *ss) {
  uint64_t lo, hi;
  int have = bounds && isfinite(bounds[0]) && isfinite(bounds[1]) &&
             bounds[0] <= bounds[1];
  if (have) {
    lo = rkey(bounds[0]);
    hi = rkey(bounds[1]);
  } else {
    key_bounds(x, n, &lo, &hi);
  }
  uint32_t(*h)[DIG_N] = malloc(NDIG * sizeof *h);
  if (!h) return POD_ENOMEM;
  if (count(x, n, lo, prefix_shift(lo, hi), h, a->t, have, have ? bounds[0] : 0,
            have ? bounds[1] : 0)) {
    key_bounds(x, n, &lo, &hi); /* the bounds were wrong: the real range */
    count(x, n, lo, prefix_shift(lo, hi), h, a->t, 0, 0, 0);
  }
  int shift = prefix_shift(lo, hi);
  lsd_sort(a, n, h);
  free(h);
  if (order_in_work) /* the spare words hold 2 n indices: in it */
    a->worder = order = (uint32_t *)(void *)a->t;
  /* the sum of squares: that of n values of their own, less the squares
  ** the runs' places would have had, plus what the runs have (the runs
  ** are rare: no sum in the pass over the values of their own) */
  u128 runs = {0, 0}, untied = {0, 0};
  uint64_t *w = a->w;
  size_t s = 0;
  while ((s = rank_own(w, s, n, r2, order)) < n) {
    uint64_t pre = w[s] >> 32;
    size_t e = s + 2;
    while (e < n && w[e] >> 32 == pre) e++;
    for (size_t t = s; t < e; t++) {
      uint64_t v = 2 * (uint64_t)t + 2;
      untied = u128_add(untied, v * v);
    }
    if (rank_run(x, a, s, e, shift, r2, order, &runs)) return POD_ENOMEM;
    s = e;
  }
  *ss = u128_sub(u128_add2(u128_sum_r2sq(n), runs), untied);
  return POD_OK;
}

/* The number of -0 in x. */
static size_t count_neg0(const double *x, size_t n) {
  size_t nz = 0;
  for (size_t i = 0; i < n; i++) nz += pod_stats__dkey(x[i]) == NEG0_KEY;
  return nz;
}

/* The value at place t of the sorted words w, -0 below +0 (the -0 were
** sorted as +0: the first *neg0 zeros are -0; counted when first needed,
** SIZE_MAX before). */
static double key_value(const double *x, const uint64_t *w, size_t n, size_t t,
                        size_t *neg0p) {
  uint64_t k = rkey(x[(uint32_t)w[t]]);
  if (k != POS0_KEY) return pod_stats__dval(k);
  if (*neg0p == SIZE_MAX) *neg0p = count_neg0(x, n);
  size_t neg0 = *neg0p;
  if (neg0 == 0) return 0.0;
  size_t a = 0, z = n; /* first place of a zero */
  while (a < z) {
    size_t mid = a + (z - a) / 2;
    if (rkey(x[(uint32_t)w[mid]]) < POS0_KEY)
      a = mid + 1;
    else
      z = mid;
  }
  return t - a < neg0 ? -0.0 : 0.0;
}

/* GSL's gsl_stats_quantile_from_sorted_data on the sorted words w. */
static double key_quantile(const double *x, const uint64_t *w, size_t n,
                           size_t *neg0, double p) {
  const double index = p * (double)(n - 1);
  const size_t lhs = (size_t)(int)index;
  const double delta = index - (double)lhs;
  if (lhs >= n - 1) return key_value(x, w, n, n - 1, neg0);
  return (1 - delta) * key_value(x, w, n, lhs, neg0) +
         delta * key_value(x, w, n, lhs + 1, neg0);
}

int pod_ranks_init_with(pod_ranks *r, const double *x, size_t n,
                        const double *bounds, const double *probs, int np,
                        double *q, int keep_order, pod_ranks_work *work) {
  memset(r, 0, sizeof *r);
  for (int t = 0; t < np; t++) q[t] = NAN;
  if (work) work->worder = NULL;
  if (keep_order == POD_RANKS_ORDER_WORK && !work) return POD_EINVAL;
  if (n > POD_RANKS_MAX) return POD_ENOMEM;
  size_t m = n ? n : 1, neg0 = SIZE_MAX;
  pod_ranks_work *a = work ? work : pod_ranks_work_new();
  int rc = POD_ENOMEM, own = keep_order && keep_order != POD_RANKS_ORDER_WORK;
  if (!a || work_words(a, m)) goto out;
  r->r2 = pod_ranks__take(a, m);
  if (own) r->order = pod_ranks__take(a, m);
  if (!r->r2 || (own && !r->order)) goto out;
  r->n = n;
  rc = POD_OK;
  if (n == 0) goto out;
  u128 ss;
  if ((rc = ranks_build(x, n, bounds, a, r->r2, r->order, !own && keep_order,
                        &ss)))
    goto out;
  r->ss_hi = ss.hi;
  r->ss_lo = ss.lo;
  for (int t = 0; t < np; t++) q[t] = key_quantile(x, a->w, n, &neg0, probs[t]);
out:
  if (a != work) pod_ranks_work_free(a);
  if (rc) {
    pod_ranks_free(r);
    if (work) work->worder = NULL;
  }
  return rc;
}

const uint32_t *pod_ranks_work_order(const pod_ranks_work *work) {
  return work->worder;
}

int pod_ranks_init(pod_ranks *r, const double *x, size_t n, const double *probs,
                   int np, double *q) {
  return pod_ranks_init_with(r, x, n, NULL, probs, np, q, 0, NULL);
}

int pod_ranks_init_ordered(pod_ranks *r, const double *x, size_t n,
                           const double *probs, int np, double *q) {
  return pod_ranks_init_with(r, x, n, NULL, probs, np, q, 1, NULL);
}

void pod_ranks_free(pod_ranks *r) {
  if (!r) return;
  free(r->r2);
  free(r->order);
  r->r2 = NULL;
  r->order = NULL;
  r->n = 0;
}
