/*
** pod_stats.h: mergeable statistics for Monte Carlo results.
**
** - pod_moments: n, mean, M2..M4, min, max; one-pass (Welford/Pebay) and
**   pairwise merge (Chan et al. 1979, Pebay 2008).  Conventions match GSL:
**   variance uses n-1, skew = (M3/n)/sd^3, kurtosis = (M4/n)/sd^4 - 3.
** - exact quantiles from sorted data, GSL's convention
**   (gsl_stats_quantile_from_sorted_data: rank p*(n-1), linear interpolation).
** - pod_sketch: a DDSketch-style log-bucket quantile sketch (Masson, Rim &
**   Lee, VLDB 2019) for positive and negative values plus an exact zero
**   bucket.  Error bound: for p in [0,1] let r = floor(p*(n-1)) and x_(r)
**   the r-th smallest value (0-based); pod_sketch_quantile returns v with
**   |v - x_(r)| <= alpha*|x_(r)| (values with |x| < POD_SKETCH_TINY count
**   as zero, absolute error below that).  Buckets are never collapsed, so
**   the bound holds for every p.  Merge adds integer bucket counts, so the
**   result does not depend on merge order or split.
** - pod_hist: fixed linear or log bins with explicit under/overflow counts.
** - ranks, Pearson and Spearman correlation (average ranks for ties).
**   Spearman from integer ranks with exact sums (pod_ranks).
** - Sobol sensitivity sums for Saltelli designs (Saltelli et al. 2010,
**   first order; Jansen 1999, total).
**
** Nothing here is shared between threads: each value belongs to its caller;
** functions are reentrant.  Allocation happens only in *_init / growth of a
** sketch / ranks; every function that allocates returns a status.
*/
#ifndef POD_STATS_H
#define POD_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "pod_err.h"

/* ---- memory ----------------------------------------------------------- */

/* Memory for a large column of samples, ranks or sort words, released
** with free(); NULL when out of memory.  From 4 MB on it is 2 MB-aligned
** and rounded up to 2 MB, so where transparent huge pages are on for
** every mapping its first touch faults once per 2 MB.  It is not advised
** (MADV_HUGEPAGE): under the default defrag policy that compacts memory
** on first touch, intermittently several times slower (core/stats.c). */
void *pod_stats_column_alloc(size_t bytes);
/* pod_stats_column_alloc with every page populated at once (Linux >= 5.14:
** MADV_POPULATE_WRITE; elsewhere, or when refused, the pages fault on
** first touch as usual): for a buffer that is written whole right away,
** one call instead of a page fault per 4 kB. */
void *pod_stats_column_alloc_full(size_t bytes);
/* Bytes [from, to) of column `col` (col_bytes long, page-aligned, as from
** pod_stats_column_alloc) are about to be written: the 2 MB blocks (of
** offsets from col) that this range starts, a block whose first byte lies
** in it, are populated in one call each as above, the whole pages of the
** block within col_bytes; nothing for a column under 4 MB.  Pages already
** present are left as they are, so writers of neighbouring ranges may
** call it in any order, on any thread. */
void pod_stats_column_touch(void *col, size_t col_bytes, size_t from,
                            size_t to);

/* ---- moments ---------------------------------------------------------- */

/* Sums are kept in units of `scale`, a power of two that stays 1 until a
** value's magnitude passes POD_MOMENTS_LIM; then every sum is rescaled
** (exactly, by powers of two), so finite inputs up to the double limit
** never overflow M2..M4 (1e200 squared would).  The accessors undo the
** scale; a variance beyond the double range is +inf, its sd finite. */
typedef struct pod_moments {
  int64_t n;
  double mean, m2, m3, m4; /* mean/scale, M_k/scale^k: M_k = sum (x - mean)^k */
  double min, max;         /* unscaled */
  double scale, inv;       /* a power of two and its inverse */
} pod_moments;

#define POD_MOMENTS_LIM 0x1p64

void pod_moments_init(pod_moments *m);
/* Raise m's scale so that |x| / scale <= POD_MOMENTS_LIM (internal to
** pod_moments_add). */
void pod_moments_rescale(pod_moments *m, double x);

/* Add one value (finite values only; the caller checks).  O(1), no
** allocation.  Inline because it sits on the per-sample path. */
static inline void pod_moments_add(pod_moments *m, double x) {
  if (!(x <= m->scale * POD_MOMENTS_LIM && x >= -m->scale * POD_MOMENTS_LIM))
    pod_moments_rescale(m, x);
  double xs = x * m->inv;
  double n1 = (double)m->n;
  double n = n1 + 1;
  double delta = xs - m->mean;
  double dn = delta / n;
  double dn2 = dn * dn;
  double t1 = delta * dn * n1;
  m->mean += dn;
  m->m4 += t1 * dn2 * (n * n - 3 * n + 3) + 6 * dn2 * m->m2 - 4 * dn * m->m3;
  m->m3 += t1 * dn * (n - 2) - 3 * dn * m->m2;
  m->m2 += t1;
  if (m->n == 0 || x < m->min) m->min = x;
  if (m->n == 0 || x > m->max) m->max = x;
  m->n++;
}

/* Rows of M values (row j's value k at y[j M + k]) added in row order:
** pod_moments_add(&m[k], y[j M + k]) for j = 0..n-1 and every k, bit for
** bit.  Faster over a block of rows where the M moments count the same
** values and no value needs a rescale (sums kept in registers, two
** metrics a step where SSE2 has them); any other rows value by value. */
void pod_moments_add_rows(pod_moments *m, int M, int n, const double *y);

/* a := a merged with b (Chan/Pebay pairwise formulas).  b is unchanged. */
void pod_moments_merge(pod_moments *a, const pod_moments *b);

double pod_moments_mean(const pod_moments *m);     /* NaN when n == 0 */
double pod_moments_variance(const pod_moments *m); /* n-1; NaN when n < 2 */
double pod_moments_sd(const pod_moments *m);
double pod_moments_se(const pod_moments *m);       /* sd / sqrt(n) */
double pod_moments_skew(const pod_moments *m);     /* GSL convention */
double pod_moments_kurtosis(const pod_moments *m); /* excess, GSL convention */

/* Student-t 95% confidence interval of the mean:
** mean -/+ t_{0.975, n-1} * sd / sqrt(n) (gsl_cdf_tdist_Pinv).
** NaN bounds and POD_EINVAL when n < 2. */
int pod_moments_ci95(const pod_moments *m, double *lo, double *hi);

/* ---- quantiles ---------------------------------------------------------- */

#define POD_STATS_NQ 7
/* 0.01 0.05 0.25 0.50 0.75 0.95 0.99 */
extern const double pod_stats_qprobs[POD_STATS_NQ];

/* Quantile p in [0,1] of n >= 1 sorted values, GSL's convention. */
double pod_stats_quantile_sorted(const double *sorted, size_t n, double p);

/* Quantiles at probs[0..np-1] of n unsorted values, equal to sorting
** then gsl_stats_quantile_from_sorted_data (same bytes): a radix
** selection finds only the order statistics GSL's formula reads (two
** passes over x, several times faster than a sort).  May reorder x (it
** sorts x when n < 4096, when more than POD_STATS_NQ+1 probabilities are
** asked, or when the data are too concentrated).  NaN when n == 0. */
void pod_stats_quantiles(double *x, size_t n, const double *probs, int np,
                         double *out);

/* Sort n doubles ascending in place (non-finite values are not allowed). */
void pod_stats_sort(double *x, size_t n);

/* ---- sketch ---------------------------------------------------------------
 */

#define POD_SKETCH_ALPHA 0.005 /* default relative accuracy */
#define POD_SKETCH_TINY 1e-300 /* |x| below this counts as zero */

typedef struct pod_sketch_store {
  int32_t off; /* bucket index of c[0] */
  int32_t len; /* allocated buckets */
  int64_t *c;
} pod_sketch_store;

typedef struct pod_sketch {
  double alpha, gamma, inv_log_gamma;
  int64_t n, zero;
  double min, max;
  pod_sketch_store pos, neg; /* bucket k holds |x| in (gamma^(k-1), gamma^k] */
} pod_sketch;

/* Empty sketch with relative accuracy alpha in [1e-4, 0.5) (smaller alphas
** would need bucket indices and stores beyond what a sketch may hold). */
int pod_sketch_init(pod_sketch *s, double alpha, pod_err *err);
void pod_sketch_free(pod_sketch *s);

/* Add one finite value x (POD_EINVAL for NaN or infinity, nothing added).
** May grow a bucket store, which happens O(log range) times, not per
** sample.  POD_ENOMEM on failure. */
int pod_sketch_add(pod_sketch *s, double x);

/* a := a + b (same alpha required, else POD_EINVAL). */
int pod_sketch_merge(pod_sketch *a, const pod_sketch *b, pod_err *err);

/* Estimate of quantile p in [0,1] (see the bound above); NaN when empty.
** Empty ranges of buckets are skipped a block at a time. */
double pod_sketch_quantile(const pod_sketch *s, double p);

/* out[k] = pod_sketch_quantile(s, probs[k]) for k < np, the same values,
** from one walk over the buckets (in the order of the ranks; the first
** POD_SKETCH_QMAX probabilities in (0, 1), the rest one by one). */
#define POD_SKETCH_QMAX 64
void pod_sketch_quantiles(const pod_sketch *s, const double *probs, int np,
                          double *out);

/* Visit the non-empty buckets in ascending value order: fn(value, count)
** with the bucket's representative value clamped to [min, max]. */
void pod_sketch_foreach(const pod_sketch *s,
                        void (*fn)(double value, int64_t count, void *ud),
                        void *ud);

/* ---- histogram --------------------------------------------------------------
 */

typedef struct pod_hist {
  int nbins;
  int logbins;         /* bins equal in log(x); needs 0 < lo */
  double lo, hi;       /* [lo, hi]; the last bin includes hi */
  int64_t *counts;     /* nbins */
  int64_t under, over; /* values below lo / above hi, never dropped */
  int64_t total;       /* everything added, including under/over */
} pod_hist;

/* nbins >= 1, lo <= hi finite (lo == hi: one point, everything equal to lo
** goes to bin 0); logbins needs lo > 0.  Fields "bins", "lo", "hi". */
int pod_hist_init(pod_hist *h, int nbins, double lo, double hi, int logbins,
                  pod_err *err);
void pod_hist_add(pod_hist *h, double x, int64_t count);
/* pod_hist_add(h, x[j], 1) for j < n, the same counts, faster. */
void pod_hist_add_n(pod_hist *h, const double *x, size_t n);
/* pod_hist_add_n(h, x, n), the same counts, when x is in order: with
** desc 0, x[order[t]] is non-decreasing in t (-0 and +0 in any order
** among themselves), with desc 1 non-increasing; no NaN (a ranking's
** order, pod_ranks.order).  Linear bins are cut at their boundaries by
** bisection (a value's bin, (x - lo) / (hi - lo) * nbins truncated, does
** not decrease as x grows: each operation is monotone), O(nbins log n)
** reads instead of n; log bins value by value. */
void pod_hist_add_sorted(pod_hist *h, const double *x, const uint32_t *order,
                         int desc, size_t n);
/* Edge i in 0..nbins (edge 0 = lo, edge nbins = hi). */
double pod_hist_edge(const pod_hist *h, int i);
void pod_hist_free(pod_hist *h);

/* ---- correlation ------------------------------------------------------------
 */

/* 1-based ranks of x (ties get their average rank).  POD_ENOMEM (also
** when n > POD_RANKS_MAX). */
int pod_stats_ranks(const double *x, size_t n, double *ranks);

/* Pearson correlation of a and b; NaN when n < 2 or either is constant. */
double pod_stats_pearson(const double *a, const double *b, size_t n);

/* Spearman rank correlation = Pearson of the ranks (gsl_stats_spearman's
** value, from exact integer sums: see pod_ranks_spearman).  POD_ENOMEM. */
int pod_stats_spearman(const double *x, const double *y, size_t n, double *rho);

/* Ranks kept for correlating one column with several others: r2[i] is
** twice the 1-based rank of x[i] (ties: twice their average rank, so an
** integer), ss the sum of r2^2 as a 128-bit integer (hi, lo).  Ranks
** shared with another ranking (pod_ranks_reuse_shared) have no r2: they
** are `same`'s, or with flip 2 (n + 1) - same's. */
typedef struct pod_ranks {
  size_t n;
  uint32_t *r2;
  uint64_t ss_hi, ss_lo;
  uint32_t *order; /* pod_ranks_init_ordered: the indices of x in ascending
                      order of their values, else NULL */
  const struct pod_ranks *same; /* shared ranks: whose (r2 NULL), else NULL */
  int flip;
} pod_ranks;

#define POD_RANKS_MAX ((size_t)INT32_MAX) /* 2n fits in r2 */

/* Ranks of n values (finite; -0 ties with +0), and when np > 0 the
** quantiles q[0..np-1] at probs (GSL's convention, the values of
** pod_stats_quantiles, which sorts -0 below +0 too; NaN when n == 0).  An LSD
** radix sort of (32-bit key prefix, index) words in up to three passes,
** then one ranking pass (the rare runs of equal prefixes with different
** values are sorted by their full keys); O(n), equal values (ties) cost
** no extra pass.  POD_ENOMEM (r is then empty), also when
** n > POD_RANKS_MAX. */
int pod_ranks_init(pod_ranks *r, const double *x, size_t n, const double *probs,
                   int np, double *q);
/* The same, keeping r->order. */
int pod_ranks_init_ordered(pod_ranks *r, const double *x, size_t n,
                           const double *probs, int np, double *q);

/* Ranks (and quantiles) of y from the order of another column, without a
** sort, when y is monotone along it: y[like->order[t]] non-decreasing or
** non-increasing in t (a metric that is a monotone function of another,
** as a throughput of a time), with no -0.  The same ranks and quantiles
** as pod_ranks_init; r->order stays NULL.  POD_ERANGE (r empty) when y
** is not monotone along the order, found by one pass that usually ends
** within a few values; POD_EINVAL without an order or with another n;
** POD_ENOMEM. */
int pod_ranks_reuse(pod_ranks *r, const double *y, size_t n,
                    const pod_ranks *like, const double *probs, int np,
                    double *q);
/* Frees r2 and order; r may be NULL. */
void pod_ranks_free(pod_ranks *r);

/* Scratch memory for rankings done in turn (not shared between threads):
** a 1 M-value ranking needs 16 MB of sort buffers, and fresh buffers
** cost a page fault per 4 KB touched; a work keeps them, and the rank and
** order buffers that pod_ranks_recycle hands back, for the next call.
** NULL from pod_ranks_work_new when out of memory. */
typedef struct pod_ranks_work pod_ranks_work;
pod_ranks_work *pod_ranks_work_new(void);
void pod_ranks_work_free(pod_ranks_work *w); /* NULL is fine */

/* pod_ranks_init (keep_order 0) or pod_ranks_init_ordered (1) with the
** buffers of `work` (NULL: fresh ones); the same results.  keep_order
** POD_RANKS_ORDER_WORK leaves the order in work's sort scratch instead of
** a buffer of its own (r->order stays NULL): pod_ranks_work_order reads
** it until work's next ranking (POD_EINVAL without a work).  bounds (or
** NULL): finite {lo, hi} with lo <= every x <= hi known beforehand (a
** metric's min and max, a parameter's support), which spares a pass over
** x; wrong bounds are detected and cost that pass again, never a wrong
** rank. */
int pod_ranks_init_with(pod_ranks *r, const double *x, size_t n,
                        const double *bounds, const double *probs, int np,
                        double *q, int keep_order, pod_ranks_work *work);
#define POD_RANKS_ORDER_WORK 2
/* The order (n indices, ascending values) that the last
** pod_ranks_init_with on work left there (POD_RANKS_ORDER_WORK), or NULL
** (another keep_order, a failed call); valid until work's next ranking
** (pod_ranks_init_with, pod_ranks_spearman_col). */
const uint32_t *pod_ranks_work_order(const pod_ranks_work *work);

/* 0 when none of the ny columns ys[k] (n values each) can be monotone
** along the ascending order of x (pod_ranks_reuse would refuse each
** against x's ranks), found on a sample of rows: 256 rows sorted as
** x's order sorts them, on which every y goes both up and down or has a
** -0; 1 when one may be (then only pod_ranks_reuse tells).  A study keeps
** a metric's order only for the metrics after it that may follow it. */
int pod_ranks_may_follow(const double *x, size_t n, const double *const *ys,
                         int ny);

/* Ranks of x when every value is one of nlev known levels (ascending,
** -0 and +0 one level, as in pod_ranks_init; a discrete parameter's
** values): the same r2 and sums as pod_ranks_init by counting, in two
** passes over x instead of a sort; r->order stays NULL.  POD_ERANGE (r
** empty) when a value is not a level, POD_EINVAL when nlev is not in
** [1, POD_RANKS_LEVELS_MAX] or the levels are not ascending, POD_ENOMEM.
** work: as in pod_ranks_init_with (NULL: a fresh buffer). */
#define POD_RANKS_LEVELS_MAX 64
int pod_ranks_init_levels(pod_ranks *r, const double *x, size_t n,
                          const double *levels, int nlev, pod_ranks_work *work);
/* pod_ranks_reuse with the buffers of `work` (NULL: a fresh one). */
int pod_ranks_reuse_with(pod_ranks *r, const double *y, size_t n,
                         const pod_ranks *like, const double *probs, int np,
                         double *q, pod_ranks_work *work);
/* pod_ranks_reuse_with, sharing like's ranks when they have no ties and
** y is strictly monotone along like's order (its ranks are like's, or
** like's reversed: r->r2 NULL, r->same = like, r->flip 1 when y falls):
** one pass that reads y and writes nothing, no rank buffer.  Shared ranks
** live as long as like's and are read only by pod_ranks_spearman and
** pod_ranks_spearman_n (the same coefficients bit for bit as from the
** ranks written out); else as pod_ranks_reuse_with. */
int pod_ranks_reuse_shared(pod_ranks *r, const double *y, size_t n,
                           const pod_ranks *like, const double *probs, int np,
                           double *q, pod_ranks_work *work);
/* Like pod_ranks_free, handing r's buffers to `work` for reuse (frees
** them when work is NULL). */
void pod_ranks_recycle(pod_ranks *r, pod_ranks_work *work);

/* Spearman coefficient of two rank sets of the same n: the sums of the
** centred products and squares are exact integers (twice the ranks sum
** to n(n+1)), so the result is rounded once (within a few ulps of the
** exact Pearson coefficient of the ranks, below gsl_stats_spearman's own
** rounding).  NaN when n < 2, the sizes differ or either is constant. */
double pod_ranks_spearman(const pod_ranks *a, const pod_ranks *b);

/* rho[k] = pod_ranks_spearman(&a[k], b) for k < na, the same values, in
** one pass over b's ranks (blocks of b read once per group of a's). */
void pod_ranks_spearman_n(const pod_ranks *a, int na, const pod_ranks *b,
                          double *rho);

/* rho[k] = pod_ranks_spearman(&ranks of x, &b[k]) for k < nb, the same
** values bit for bit, without keeping x's ranks: x is ranked as by
** pod_ranks_init_with (bounds and work as there) into a rank buffer that
** goes back to `work` for the next call, so a study's parameters reuse one
** buffer instead of touching fresh memory each (b[k] of another n gives
** NaN, as does n < 2).  POD_EINVAL when nb < 0; POD_ENOMEM (also when
** n > POD_RANKS_MAX). */
int pod_ranks_spearman_col(const double *x, size_t n, const double *bounds,
                           const pod_ranks *b, int nb, double *rho,
                           pod_ranks_work *work);
/* The same for a column of levels, ranked by pod_ranks_init_levels (with
** its POD_ERANGE and POD_EINVAL) into a buffer handed back to `work`. */
int pod_ranks_spearman_levels(const double *x, size_t n, const double *levels,
                              int nlev, const pod_ranks *b, int nb, double *rho,
                              pod_ranks_work *work);

/* ---- Sobol indices
 * ------------------------------------------------------------- */

/* Sums over Saltelli rows j for one (parameter i, metric):
**   first += fB_j * (fABi_j - fA_j)     (Saltelli 2010, eq. (b) of table 2)
**   total += (fA_j - fABi_j)^2          (Jansen 1999)
** f(B) may be shifted by any constant that does not depend on the rows
** (the expectation of the first-order sum does not change since
** E[fABi - fA] = 0; the total sum is shift-free), which keeps the sums
** well conditioned when the metric has a large mean.
** Merge = add the fields. */
typedef struct pod_sobol_acc {
  int64_t n;
  double first, total;
} pod_sobol_acc;

/* First-order and total index from the sums and the output variance
** `var` (of f(A) and f(B) together).  NaN when n == 0 or var <= 0. */
void pod_sobol_indices(const pod_sobol_acc *a, double var, double *s1,
                       double *st);

#endif
