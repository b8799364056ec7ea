/*
** stats.c: moments, quantiles, histogram, correlation, Sobol sums
** (see pod_stats.h).  The sketch lives in stats_sketch.c, ranks and
** correlation in stats_rank.c.
*/
#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE /* madvise */
#endif
#include "pod_stats.h"
#include "stats_int.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_statistics_double.h>

const double pod_stats_qprobs[POD_STATS_NQ] = {0.01, 0.05, 0.25, 0.50,
                                               0.75, 0.95, 0.99};

#define HUGE_PAGE ((size_t)2 << 20) /* x86-64 and arm64 transparent pages */

void *pod_stats_column_alloc(size_t bytes) {
  if (bytes < 2 * HUGE_PAGE) return malloc(bytes ? bytes : 1);
  size_t n = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE;
  void *p = NULL;
  if (n < bytes || posix_memalign(&p, HUGE_PAGE, n)) return NULL;
  /* No MADV_HUGEPAGE advice: under THP's default defrag policy
  ** ("madvise") an advised region compacts memory on its first touch,
  ** which measured here (1 M-sample kernel study, 12 alternating runs)
  ** made the study 0.22-0.74 s against a steady 0.24-0.25 s without it;
  ** aligned, the column still gets huge pages where THP is "always". */
  return p;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE \
  23 /* Linux 5.14: include/uapi/asm-generic/mman-common.h */
#endif
#define POP_PAGE ((uintptr_t)4096)  /* the pages populated: whole 4 kB ones */
#define POP_MIN ((size_t)256 << 10) /* smaller buffers: not worth a call */

/* Populate the whole pages of [p, p + n); a kernel without
** MADV_POPULATE_WRITE refuses it (EINVAL) and the pages fault as usual. */
static void populate(void *p, size_t n) {
#if defined(__linux__)
  uintptr_t a = ((uintptr_t)p + POP_PAGE - 1) & ~(POP_PAGE - 1);
  uintptr_t z = ((uintptr_t)p + n) & ~(POP_PAGE - 1);
  if (z > a) (void)madvise((void *)a, z - a, MADV_POPULATE_WRITE);
#else
  (void)p;
  (void)n;
#endif
}

void *pod_stats_column_alloc_full(size_t bytes) {
  void *p = pod_stats_column_alloc(bytes);
  if (p && bytes >= POP_MIN) populate(p, bytes);
  return p;
}

void pod_stats_column_touch(void *col, size_t col_bytes, size_t from,
                            size_t to) {
  if (col_bytes < 2 * HUGE_PAGE || from >= to) return;
  size_t b = (from + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE; /* first start */
  for (; b < to && b < col_bytes; b += HUGE_PAGE)
    populate((char *)col + b,
             col_bytes - b < HUGE_PAGE ? col_bytes - b : HUGE_PAGE);
}

void pod_moments_init(pod_moments *m) {
  memset(m, 0, sizeof *m);
  m->min = NAN;
  m->max = NAN;
  m->scale = m->inv = 1.0;
}

/* Multiply the scale by 2^k (k > 0): the sums shrink by 2^k, 2^2k, ... */
static void moments_scale_up(pod_moments *m, int k) {
  m->scale = ldexp(m->scale, k);
  m->inv = ldexp(m->inv, -k);
  m->mean = ldexp(m->mean, -k);
  m->m2 = ldexp(m->m2, -2 * k);
  m->m3 = ldexp(m->m3, -3 * k);
  m->m4 = ldexp(m->m4, -4 * k);
}

void pod_moments_rescale(pod_moments *m, double x) {
  if (!isfinite(x)) return; /* callers pass finite values; keep the sums */
  int e;
  frexp(x, &e); /* |x| < 2^e */
  int k = e - 64 - ilogb(m->scale);
  if (k > 0) moments_scale_up(m, k);
}

/* 1 when rows y of M values may take the block path of
** pod_moments_add_rows: every moment counts the same values, and every
** value is within its moment's +-scale x POD_MOMENTS_LIM (so none
** rescales: pod_moments_add's test, failed by NaN). */
static int rows_fast(const pod_moments *m, int M, int n, const double *y) {
  int ok = 1;
  for (int k = 0; k < M; k++) {
    double lim = m[k].scale * POD_MOMENTS_LIM;
    ok &= m[k].n == m[0].n;
    for (int j = 0; j < n; j++) {
      double x = y[(size_t)j * (size_t)M + (size_t)k];
      ok &= (x <= lim) & (x >= -lim);
    }
  }
  return ok;
}

#ifdef __SSE2__
#define ROWS_GROUP 4 /* lane pairs a step: 8 moments */
/* rows_group inline with its pair count constant (below), so that one or
** two pairs' sums stay in registers across the rows */
#if defined(__GNUC__)
#define ROWS_INLINE static inline __attribute__((always_inline))
#else
#define ROWS_INLINE static inline
#endif
/* pod_moments_add of rows j < n, moments k < g (g <= 2 ROWS_GROUP) of
** m, values y[j M + k], two moments per SSE2 lane pair (the last one
** twice when g is odd): the same operations in the same order as
** pod_moments_add on each lane, its counts shared.  The moments count
** the same values (cnt > 0) and need no rescale. */
ROWS_INLINE void rows_group(pod_moments *m, int g, int M, int n,
                            const double *y, const int np) {
  __m128d mean[ROWS_GROUP], m2[ROWS_GROUP], m3[ROWS_GROUP], m4[ROWS_GROUP];
  __m128d lo[ROWS_GROUP], hi[ROWS_GROUP], inv[ROWS_GROUP];
  for (int p = 0; p < np; p++) {
    const pod_moments *a = &m[2 * p], *b = 2 * p + 1 < g ? a + 1 : a;
    mean[p] = _mm_set_pd(b->mean, a->mean);
    m2[p] = _mm_set_pd(b->m2, a->m2);
    m3[p] = _mm_set_pd(b->m3, a->m3);
    m4[p] = _mm_set_pd(b->m4, a->m4);
    lo[p] = _mm_set_pd(b->min, a->min);
    hi[p] = _mm_set_pd(b->max, a->max);
    inv[p] = _mm_set_pd(b->inv, a->inv);
  }
  const __m128d three = _mm_set1_pd(3.0), four = _mm_set1_pd(4.0);
  const __m128d six = _mm_set1_pd(6.0);
  int64_t cnt = m[0].n;
  for (int j = 0; j < n; j++, cnt++) {
    const double *yj = y + (size_t)j * (size_t)M;
    double n1 = (double)cnt, nn = n1 + 1;
    __m128d vn = _mm_set1_pd(nn), vn1 = _mm_set1_pd(n1);
    __m128d c4 = _mm_set1_pd(nn * nn - 3 * nn + 3);
    __m128d c3 = _mm_set1_pd(nn - 2);
    for (int p = 0; p < np; p++) {
      __m128d x =
          2 * p + 1 < g ? _mm_loadu_pd(yj + 2 * p) : _mm_set1_pd(yj[2 * p]);
      __m128d delta = _mm_sub_pd(_mm_mul_pd(x, inv[p]), mean[p]);
      __m128d dn = _mm_div_pd(delta, vn);
      __m128d dn2 = _mm_mul_pd(dn, dn);
      __m128d t1 = _mm_mul_pd(_mm_mul_pd(delta, dn), vn1);
      mean[p] = _mm_add_pd(mean[p], dn);
      __m128d u4 = _mm_add_pd(_mm_mul_pd(_mm_mul_pd(t1, dn2), c4),
                              _mm_mul_pd(_mm_mul_pd(six, dn2), m2[p]));
      u4 = _mm_sub_pd(u4, _mm_mul_pd(_mm_mul_pd(four, dn), m3[p]));
      m4[p] = _mm_add_pd(m4[p], u4);
      __m128d u3 = _mm_sub_pd(_mm_mul_pd(_mm_mul_pd(t1, dn), c3),
                              _mm_mul_pd(_mm_mul_pd(three, dn), m2[p]));
      m3[p] = _mm_add_pd(m3[p], u3);
      m2[p] = _mm_add_pd(m2[p], t1);
      /* min: x when x < min (minpd's first operand), max likewise */
      lo[p] = _mm_min_pd(x, lo[p]);
      hi[p] = _mm_max_pd(x, hi[p]);
    }
  }
  for (int p = 0; p < np; p++) {
    double v[6][2];
    _mm_storeu_pd(v[0], mean[p]);
    _mm_storeu_pd(v[1], m2[p]);
    _mm_storeu_pd(v[2], m3[p]);
    _mm_storeu_pd(v[3], m4[p]);
    _mm_storeu_pd(v[4], lo[p]);
    _mm_storeu_pd(v[5], hi[p]);
    for (int h = 0; h < 2 && 2 * p + h < g; h++) {
      pod_moments *a = &m[2 * p + h];
      a->mean = v[0][h];
      a->m2 = v[1][h];
      a->m3 = v[2][h];
      a->m4 = v[3][h];
      a->min = v[4][h];
      a->max = v[5][h];
      a->n = cnt;
    }
  }
}
#endif

void pod_moments_add_rows(pod_moments *m, int M, int n, const double *y) {
  if (M < 1 || n < 1) return;
  int j0 = 0;
#ifdef __SSE2__
  if (rows_fast(m, M, n, y)) {
    if (m[0].n == 0) { /* the first value sets min and max */
      for (int k = 0; k < M; k++) pod_moments_add(&m[k], y[k]);
      j0 = 1;
    }
    for (int k0 = 0; k0 < M && j0 < n; k0 += 2 * ROWS_GROUP) {
      int g = M - k0 < 2 * ROWS_GROUP ? M - k0 : 2 * ROWS_GROUP;
      const double *yk = y + (size_t)j0 * (size_t)M + k0;
      if (g <= 2)
        rows_group(m + k0, g, M, n - j0, yk, 1);
      else if (g <= 4)
        rows_group(m + k0, g, M, n - j0, yk, 2);
      else
        rows_group(m + k0, g, M, n - j0, yk, (g + 1) / 2);
    }
    return;
  }
#else
  (void)rows_fast;
#endif
  for (int j = j0; j < n; j++)
    for (int k = 0; k < M; k++)
      pod_moments_add(&m[k], y[(size_t)j * (size_t)M + (size_t)k]);
}

void pod_moments_merge(pod_moments *a, const pod_moments *b) {
  if (b->n == 0) return;
  if (a->n == 0) {
    *a = *b;
    return;
  }
  pod_moments bb = *b;
  if (bb.scale > a->scale)
    moments_scale_up(a, ilogb(bb.scale) - ilogb(a->scale));
  else if (a->scale > bb.scale)
    moments_scale_up(&bb, ilogb(a->scale) - ilogb(bb.scale));
  b = &bb;
  double na = (double)a->n, nb = (double)b->n, n = na + nb;
  double d = b->mean - a->mean;
  double d2 = d * d, d3 = d2 * d, d4 = d2 * d2;
  double m2 = a->m2 + b->m2 + d2 * na * nb / n;
  double m3 = a->m3 + b->m3 + d3 * na * nb * (na - nb) / (n * n) +
              3 * d * (na * b->m2 - nb * a->m2) / n;
  double m4 = a->m4 + b->m4 +
              d4 * na * nb * (na * na - na * nb + nb * nb) / (n * n * n) +
              6 * d2 * (na * na * b->m2 + nb * nb * a->m2) / (n * n) +
              4 * d * (na * b->m3 - nb * a->m3) / n;
  a->mean += d * nb / n;
  a->m2 = m2;
  a->m3 = m3;
  a->m4 = m4;
  if (b->min < a->min) a->min = b->min;
  if (b->max > a->max) a->max = b->max;
  a->n += b->n;
}

double pod_moments_mean(const pod_moments *m) {
  return m->n ? m->mean * m->scale : NAN;
}

/* sd in units of the scale */
static double moments_sd_scaled(const pod_moments *m) {
  return m->n >= 2 ? sqrt(m->m2 / (double)(m->n - 1)) : NAN;
}

double pod_moments_variance(const pod_moments *m) {
  double sd = pod_moments_sd(m);
  return sd * sd;
}

double pod_moments_sd(const pod_moments *m) {
  return moments_sd_scaled(m) * m->scale;
}

double pod_moments_se(const pod_moments *m) {
  return pod_moments_sd(m) / sqrt((double)m->n);
}

double pod_moments_skew(const pod_moments *m) {
  double sd = moments_sd_scaled(m);
  return (m->m3 / (double)m->n) / (sd * sd * sd);
}

double pod_moments_kurtosis(const pod_moments *m) {
  double sd = moments_sd_scaled(m);
  double v = sd * sd;
  return (m->m4 / (double)m->n) / (v * v) - 3.0;
}

int pod_moments_ci95(const pod_moments *m, double *lo, double *hi) {
  if (m->n < 2) {
    *lo = *hi = NAN;
    return POD_EINVAL;
  }
  double t = gsl_cdf_tdist_Pinv(0.975, (double)(m->n - 1));
  double h = t * pod_moments_se(m);
  double mean = pod_moments_mean(m);
  *lo = mean - h;
  *hi = mean + h;
  return POD_OK;
}

double pod_stats_quantile_sorted(const double *sorted, size_t n, double p) {
  if (n == 0) return NAN;
  if (!(p >= 0)) p = 0; /* also NaN */
  if (p > 1) p = 1;
  double q = gsl_stats_quantile_from_sorted_data(sorted, 1, n, p);
  /* GSL interpolates (1-d) a + d b, which rounds outside [a, b] near the
  ** ends of double range (a = b = DBL_MAX): keep it between its neighbours
  ** so quantiles stay ordered and inside [min, max]. */
  size_t i = (size_t)floor((double)(n - 1) * p);
  if (i > n - 1) i = n - 1;
  double a = sorted[i], b = sorted[i + 1 < n ? i + 1 : i];
  if (q < a) q = a;
  if (q > b) q = b;
  return q;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

#define dkey pod_stats__dkey
#define dval pod_stats__dval

#define RADIX_BITS 11
#define RADIX_SIZE (1u << RADIX_BITS)
#define RADIX_PASSES 6 /* 6 x 11 bits cover 64 */

/* LSD radix sort of keys (with an optional uint32 payload moved along):
** 6 passes of 11 bits (2048 buckets stay in cache), all histograms from
** one read; passes whose digit is the same for every key are skipped.
** Stable.  Returns POD_ENOMEM when the buffers cannot be had. */
static int radix_sort(uint64_t *k, uint32_t *pay, size_t n) {
  uint64_t *k2 = malloc(n * sizeof *k2);
  uint32_t *p2 = pay ? malloc(n * sizeof *p2) : NULL;
  size_t *cnt = calloc((size_t)RADIX_PASSES * RADIX_SIZE, sizeof *cnt);
  if (!k2 || (pay && !p2) || !cnt) {
    free(k2);
    free(p2);
    free(cnt);
    return POD_ENOMEM;
  }
  for (size_t i = 0; i < n; i++) {
    uint64_t v = k[i];
    for (int p = 0; p < RADIX_PASSES; p++)
      cnt[(size_t)p * RADIX_SIZE +
          ((v >> (p * RADIX_BITS)) & (RADIX_SIZE - 1))]++;
  }
  uint64_t *src = k, *dst = k2;
  uint32_t *psrc = pay, *pdst = p2;
  for (int pass = 0; pass < RADIX_PASSES; pass++) {
    int shift = pass * RADIX_BITS;
    size_t *c = cnt + (size_t)pass * RADIX_SIZE;
    if (c[(src[0] >> shift) & (RADIX_SIZE - 1)] == n) continue;
    size_t sum = 0;
    for (size_t d = 0; d < RADIX_SIZE; d++) {
      size_t t = c[d];
      c[d] = sum;
      sum += t;
    }
    for (size_t i = 0; i < n; i++) {
      size_t at = c[(src[i] >> shift) & (RADIX_SIZE - 1)]++;
      dst[at] = src[i];
      if (pay) pdst[at] = psrc[i];
    }
    uint64_t *t = src;
    src = dst;
    dst = t;
    uint32_t *pt = psrc;
    psrc = pdst;
    pdst = pt;
  }
  if (src != k) {
    memcpy(k, src, n * sizeof *k);
    if (pay) memcpy(pay, psrc, n * sizeof *pay);
  }
  free(k2);
  free(p2);
  free(cnt);
  return POD_OK;
}

void pod_stats_sort(double *x, size_t n) {
  /* radix for large inputs (it is ~10x faster than qsort at 1e6 values);
  ** qsort when small or when the scratch cannot be allocated */
  if (n >= 4096) {
    uint64_t *k = malloc(n * sizeof *k);
    if (k) {
      for (size_t i = 0; i < n; i++) k[i] = dkey(x[i]);
      int rc = radix_sort(k, NULL, n);
      if (rc == POD_OK)
        for (size_t i = 0; i < n; i++) x[i] = dval(k[i]);
      free(k);
      if (rc == POD_OK) return;
    }
  }
  qsort(x, n, sizeof(double), cmp_double);
}

/* ---- quantiles by radix selection ---- */

#define SEL_BITS 16
#define SEL_SIZE (1u << SEL_BITS)
#define SEL_MAXR (2 * POD_STATS_NQ + 2)

/* GSL's gsl_stats_quantile_from_sorted_data formula on the two order
** statistics it reads (same operations, so the same bytes). */
static double gsl_formula(double f, size_t n, double x_lhs, double x_next) {
  const double index = f * (double)(n - 1);
  const size_t lhs = (size_t)(int)index;
  const double delta = index - (double)lhs;
  if (lhs == n - 1) return x_lhs;
  return (1 - delta) * x_lhs + delta * x_next;
}

/* The ranks the quantiles of probs need (r, two per probability) and the
** digit holding each (rd: the last d with cnt[d] <= rank, cnt the prefix
** sums); returns the number of ranks. */
static int wanted_ranks(const size_t *cnt, size_t n, const double *probs,
                        int np, size_t *r, size_t *rd) {
  int nr = 0;
  for (int q = 0; q < np; q++) {
    size_t lhs = (size_t)(int)(probs[q] * (double)(n - 1));
    r[nr++] = lhs;
    r[nr++] = lhs + 1 < n ? lhs + 1 : lhs;
  }
  for (int j = 0; j < nr; j++) {
    size_t lo = 0, hi = SEL_SIZE - 1;
    while (lo < hi) {
      size_t mid = (lo + hi + 1) / 2;
      if (cnt[mid] <= r[j])
        lo = mid;
      else
        hi = mid - 1;
    }
    rd[j] = lo;
  }
  return nr;
}

void pod_stats_quantiles(double *x, size_t n, const double *probs, int np,
                         double *out) {
  if (n == 0) {
    for (int q = 0; q < np; q++) out[q] = NAN;
    return;
  }
  /* Radix selection: bucket the order-preserving keys by the 16 bits
  ** below their common prefix, find the buckets holding the wanted ranks,
  ** and sort only the values that fall in those buckets.  Falls back to a
  ** full sort when there are many probabilities, little data, or when the
  ** wanted buckets hold more than a quarter of the values. */
  size_t *cnt = NULL;
  double *cand = NULL;
  if (n < 4096 || np > POD_STATS_NQ + 1) goto full;
  uint64_t kmin = UINT64_MAX, kmax = 0;
  for (size_t i = 0; i < n; i++) {
    uint64_t k = dkey(x[i]);
    if (k < kmin) kmin = k;
    if (k > kmax) kmax = k;
  }
  if (kmin == kmax) {
    for (int q = 0; q < np; q++) out[q] = gsl_formula(probs[q], n, x[0], x[0]);
    return;
  }
  int top = 63;
  while (!(((kmin ^ kmax) >> top) & 1)) top--;
  int shift = top + 1 - SEL_BITS;
  if (shift < 0) shift = 0;
  cnt = calloc(SEL_SIZE + 1, sizeof *cnt);
  if (!cnt) goto full;
#define SEL_DIGIT(k) ((size_t)((((k)-kmin) >> shift) & (SEL_SIZE - 1)))
  /* (k - kmin) >> shift < 2^SEL_BITS since k - kmin < 2^(top+1) */
  for (size_t i = 0; i < n; i++) cnt[SEL_DIGIT(dkey(x[i]))]++;
  /* prefix sums: cnt[d] becomes the number of values in digits < d */
  size_t sum = 0;
  for (size_t d = 0; d <= SEL_SIZE; d++) {
    size_t c = d < SEL_SIZE ? cnt[d] : 0;
    cnt[d] = sum;
    sum += c;
  }
  size_t r[SEL_MAXR];
  size_t rd[SEL_MAXR];
  int nr = wanted_ranks(cnt, n, probs, np, r, rd);
  size_t total = 0;
  /* distinct wanted digits, their candidate segments */
  size_t ud[SEL_MAXR], useg[SEL_MAXR];
  int nu = 0;
  for (int j = 0; j < nr; j++) {
    int seen = 0;
    for (int u = 0; u < nu; u++) seen |= ud[u] == rd[j];
    if (!seen) {
      ud[nu] = rd[j];
      useg[nu] = total;
      total += cnt[rd[j] + 1] - cnt[rd[j]];
      nu++;
    }
  }
  if (total > n / 4) goto full;
  cand = malloc((total ? total : 1) * sizeof *cand);
  if (!cand) goto full;
  size_t fill[SEL_MAXR];
  for (int u = 0; u < nu; u++) fill[u] = useg[u];
  for (size_t i = 0; i < n; i++) {
    size_t d = SEL_DIGIT(dkey(x[i]));
    for (int u = 0; u < nu; u++) {
      if (ud[u] == d) {
        cand[fill[u]++] = x[i];
        break;
      }
    }
  }
#undef SEL_DIGIT
  for (int u = 0; u < nu; u++)
    pod_stats_sort(cand + useg[u], cnt[ud[u] + 1] - cnt[ud[u]]);
  for (int q = 0; q < np; q++) {
    double v[2];
    for (int t = 0; t < 2; t++) {
      int j = 2 * q + t;
      int u = 0;
      while (ud[u] != rd[j]) u++;
      v[t] = cand[useg[u] + (r[j] - cnt[rd[j]])];
    }
    out[q] = gsl_formula(probs[q], n, v[0], v[1]);
  }
  free(cand);
  free(cnt);
  return;
full:
  free(cand);
  free(cnt);
  pod_stats_sort(x, n);
  for (int q = 0; q < np; q++)
    out[q] = gsl_stats_quantile_from_sorted_data(x, 1, n, probs[q]);
}

/* ---- histogram ---- */

int pod_hist_init(pod_hist *h, int nbins, double lo, double hi, int logbins,
                  pod_err *err) {
  memset(h, 0, sizeof *h);
  if (nbins < 1)
    return pod_err_set(err, POD_EINVAL, "bins", "must be >= 1 (got %d)", nbins);
  if (!pod_finite(lo) || (logbins && lo <= 0))
    return pod_err_set(err, POD_EINVAL, "lo", "must be finite%s (got %g)",
                       logbins ? " and > 0 for log bins" : "", lo);
  if (!pod_finite(hi) || hi < lo)
    return pod_err_set(err, POD_EINVAL, "hi",
                       "must be finite and >= lo (got %g)", hi);
  /* bin edges come from hi - lo (or hi / lo): they must be finite too */
  if (!pod_finite(hi - lo) || (logbins && !pod_finite(log(hi / lo))))
    return pod_err_set(err, POD_EINVAL, "hi",
                       "range [%g, %g] too wide for bins", lo, hi);
  h->counts = calloc((size_t)nbins, sizeof(int64_t));
  if (!h->counts) return pod_err_set(err, POD_ENOMEM, "bins", NULL);
  h->nbins = nbins;
  h->logbins = logbins;
  h->lo = lo;
  h->hi = hi;
  return POD_OK;
}

void pod_hist_add(pod_hist *h, double x, int64_t count) {
  h->total += count;
  if (!(x >= h->lo)) { /* NaN counts as under: never dropped */
    h->under += count;
    return;
  }
  if (x > h->hi) {
    h->over += count;
    return;
  }
  int i = 0;
  if (h->hi > h->lo) {
    double f = h->logbins ? log(x / h->lo) / log(h->hi / h->lo)
                          : (x - h->lo) / (h->hi - h->lo);
    i = (int)(f * h->nbins);
    if (i >= h->nbins) i = h->nbins - 1;
    if (i < 0) i = 0;
  }
  h->counts[i] += count;
}

void pod_hist_add_n(pod_hist *h, const double *x, size_t n) {
  if (!(h->hi > h->lo) || h->logbins) { /* one bin, or logs: one by one */
    for (size_t j = 0; j < n; j++) pod_hist_add(h, x[j], 1);
    return;
  }
  /* pod_hist_add's arithmetic on each value, its loads and tests hoisted */
  const double lo = h->lo, hi = h->hi, w = hi - lo;
  const int nb = h->nbins;
  int64_t *c = h->counts, under = 0, over = 0;
  for (size_t j = 0; j < n; j++) {
    double v = x[j];
    if (!(v >= lo)) {
      under++;
    } else if (v > hi) {
      over++;
    } else {
      int i = (int)((v - lo) / w * nb);
      c[i >= nb ? nb - 1 : i < 0 ? 0 : i]++;
    }
  }
  h->under += under;
  h->over += over;
  h->total += (int64_t)n;
}

/* A value's class under pod_hist_add's rules: -1 below lo (or NaN), its
** bin, nbins above hi; with linear bins it does not decrease as v grows. */
static inline int hist_class(const pod_hist *h, double v) {
  if (!(v >= h->lo)) return -1;
  if (v > h->hi) return h->nbins;
  if (!(h->hi > h->lo)) return 0;
  int i = (int)((v - h->lo) / (h->hi - h->lo) * h->nbins);
  return i >= h->nbins ? h->nbins - 1 : i < 0 ? 0 : i;
}

/* The first place in [a, z) of pod_hist_add_sorted's order whose value's
** class is >= k (z if none). */
static size_t sorted_first(const pod_hist *h, const double *x,
                           const uint32_t *o, int desc, size_t n, size_t a,
                           size_t z, int k) {
  while (a < z) {
    size_t mid = a + (z - a) / 2;
    if (hist_class(h, x[o[desc ? n - 1 - mid : mid]]) < k)
      a = mid + 1;
    else
      z = mid;
  }
  return a;
}

void pod_hist_add_sorted(pod_hist *h, const double *x, const uint32_t *order,
                         int desc, size_t n) {
  if (h->logbins) { /* log(): not relied on to be monotone */
    for (size_t t = 0; t < n; t++) pod_hist_add(h, x[order[t]], 1);
    return;
  }
  size_t s = sorted_first(h, x, order, desc, n, 0, n, 0); /* past under */
  h->under += (int64_t)s;
  for (int b = 0; b < h->nbins && s < n; b++) {
    size_t e = sorted_first(h, x, order, desc, n, s, n, b + 1);
    h->counts[b] += (int64_t)(e - s);
    s = e;
  }
  h->over += (int64_t)(n - s);
  h->total += (int64_t)n;
}

double pod_hist_edge(const pod_hist *h, int i) {
  if (i <= 0) return h->lo;
  if (i >= h->nbins) return h->hi;
  double f = (double)i / h->nbins;
  if (h->logbins) return h->lo * pow(h->hi / h->lo, f);
  return h->lo + f * (h->hi - h->lo);
}

void pod_hist_free(pod_hist *h) {
  if (!h) return;
  free(h->counts);
  h->counts = NULL;
  h->nbins = 0;
}

/* ---- Sobol ---- */

void pod_sobol_indices(const pod_sobol_acc *a, double var, double *s1,
                       double *st) {
  if (a->n == 0 || !(var > 0)) {
    *s1 = *st = NAN;
    return;
  }
  *s1 = a->first / (double)a->n / var;
  *st = a->total / (2.0 * (double)a->n) / var;
}
