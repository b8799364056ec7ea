/*
** pod_dist.h: probability distributions of uncertain inputs (GSL samplers).
**
** A `pod_dist` is a small value: a kind and up to four parameters.  Plain
** kinds are built by the `pod_dist_<kind>()` value constructors, which do
** not validate; call pod_dist_check() (the Monte Carlo plan does it when it
** is created, so bad parameters fail when a study is built, not mid-run).
** The lognormal-by-quantiles constructors convert and therefore validate
** at once.
**
** Ownership: `discrete` and `empirical` own heap copies of their arrays
** (made by pod_dist_discrete / pod_dist_empirical) and must be released
** with pod_dist_free(); pod_dist_copy() makes an independent deep copy.
** pod_dist_free() is a harmless no-op for every other kind, so callers may
** free every dist unconditionally.  Never copy a dist with `=` and free
** both copies.
**
** Discrete quantiles follow the values' numeric order (a true inverse
** CDF), whatever order they were given in.
**
** Thread-safety: a checked dist is read-only; any number of threads may call
** pod_dist_sample/quantile/mean/variance on it at once, each with its own
** gsl_rng.  Field names in errors use 1-based indices ("weights[3]") since
** they are shown to Lua users.
*/
#ifndef POD_DIST_H
#define POD_DIST_H

#include <gsl/gsl_rng.h>

#include "pod_err.h"

typedef enum pod_dist_kind {
  POD_DIST_FIXED,       /* p[0]=value */
  POD_DIST_UNIFORM,     /* p[0]=lo, p[1]=hi, lo < hi */
  POD_DIST_LOGUNIFORM,  /* p[0]=lo, p[1]=hi, 0 < lo < hi; log x uniform */
  POD_DIST_NORMAL,      /* p[0]=mean, p[1]=sd > 0 */
  POD_DIST_TRUNCNORMAL, /* p[0]=mean, p[1]=sd > 0, p[2]=lo < p[3]=hi
                           (lo may be -inf, hi +inf; mass must not underflow) */
  POD_DIST_LOGNORMAL,   /* p[0]=mu, p[1]=sigma > 0 of log x */
  POD_DIST_TRIANGULAR,  /* p[0]=lo <= p[1]=mode <= p[2]=hi, lo < hi */
  POD_DIST_BETA,  /* p[0]=a, p[1]=b in [1e-3, 1e6], scaled to [p[2]=lo, p[3]=hi]
                   */
  POD_DIST_GAMMA, /* p[0]=shape k > 0, p[1]=scale theta > 0 */
  POD_DIST_WEIBULL,     /* p[0]=shape k > 0, p[1]=scale lambda > 0 */
  POD_DIST_EXPONENTIAL, /* p[0]=mean > 0 (rate = 1/mean) */
  POD_DIST_DISCRETE,    /* n values with weights >= 0 (sum > 0) */
  POD_DIST_EMPIRICAL,   /* n values, resampled uniformly */
  POD_DIST_NKINDS
} pod_dist_kind;

typedef struct pod_dist {
  pod_dist_kind kind;
  double p[4];
  /* discrete / empirical only (owned, see above): */
  int n;
  double *values;  /* n values; empirical: sorted ascending copy */
  double *weights; /* discrete: n weights as given */
  double *svals;   /* discrete: the values sorted ascending */
  double *cum;     /* discrete: cumulative probability along svals (last = 1) */
  /* loguniform: log(p[0]), log(p[1]) from pod_dist_loguniform, used while
  ** lg_of still equals p[0], p[1] (so a changed p is never stale) */
  double lg[2], lg_of[2];
} pod_dist;

/* Value constructors (no validation, nothing to free). */
pod_dist pod_dist_fixed(double value);
pod_dist pod_dist_uniform(double lo, double hi);
pod_dist pod_dist_loguniform(double lo, double hi);
pod_dist pod_dist_normal(double mean, double sd);
pod_dist pod_dist_truncnormal(double mean, double sd, double lo, double hi);
pod_dist pod_dist_lognormal(double mu, double sigma);
pod_dist pod_dist_triangular(double lo, double mode, double hi);
pod_dist pod_dist_beta(double a, double b, double lo, double hi);
pod_dist pod_dist_gamma(double shape, double scale);
pod_dist pod_dist_weibull(double shape, double scale);
pod_dist pod_dist_exponential(double mean);

/* Lognormal from its median and 90th percentile (0 < median < p90):
** mu = ln median, sigma = (ln p90 - mu) / z_0.9.  Fields "median", "p90". */
int pod_dist_lognormal_median_p90(double median, double p90, pod_dist *out,
                                  pod_err *err);

/* Lognormal from its 5th and 95th percentiles (0 < p5 < p95):
** mu = (ln p5 + ln p95)/2, sigma = (ln p95 - ln p5) / (2 z_0.95). */
int pod_dist_lognormal_p5_p95(double p5, double p95, pod_dist *out,
                              pod_err *err);

/* Discrete choice: value values[i] with probability weights[i]/sum.
** Copies both arrays (weights NULL means equal weights), validates
** ("values[i]", "weights[i]", "weights" for a zero sum) and builds the
** cumulative table.  Sampling inverts it by binary search (O(log n); GSL's
** gsl_ran_discrete_preproc is not used because it does not check its own
** allocations).  On success *out must be released with pod_dist_free. */
int pod_dist_discrete(const double *values, const double *weights, int n,
                      pod_dist *out, pod_err *err);

/* Empirical: resamples the n given values uniformly (bootstrap).  Copies
** and sorts them.  On success *out must be released with pod_dist_free. */
int pod_dist_empirical(const double *values, int n, pod_dist *out,
                       pod_err *err);

/* Deep copy of a checked dist into *dst (which must not own anything). */
int pod_dist_copy(pod_dist *dst, const pod_dist *src, pod_err *err);

/* Release what a dist owns and reset it to fixed(0).  NULL is fine. */
void pod_dist_free(pod_dist *d);

/* Validate every parameter; err->field names the first bad one ("sd",
** "lo", "weights[3]", ...).  Non-finite parameters are rejected (except
** infinite truncation bounds of truncnormal). */
int pod_dist_check(const pod_dist *d, pod_err *err);

/* One draw using `r`.  The dist must have passed pod_dist_check. */
double pod_dist_sample(const pod_dist *d, gsl_rng *r);

/* n rows of P draws, row j of d[0..P-1] at x + j * P: the values of
** pod_dist_sample in that order (row by row, parameter by parameter), the
** same uniforms, without a call per draw. */
void pod_dist_sample_rows(const pod_dist *d, int P, gsl_rng *r, int n,
                          double *x);

/* Inverse CDF: the value x with P(X <= x) = u, for u in (0,1) (u is
** clamped to [1e-300, 1-2^-53]).  Available for every kind (discrete and
** empirical use the left-continuous inverse of their step CDF), so
** quasi-random designs can map Sobol points through it. */
double pod_dist_quantile(const pod_dist *d, double u);

/* The bounded support of a checked dist: 1 with [*lo, *hi] holding every
** value pod_dist_sample and pod_dist_quantile return (uniform,
** loguniform, triangular, beta, truncnormal with finite bounds, fixed,
** discrete, empirical), else 0 (unbounded kinds). */
int pod_dist_support(const pod_dist *d, double *lo, double *hi);

/* Exact mean and variance (NaN where undefined). */
double pod_dist_mean(const pod_dist *d);
double pod_dist_variance(const pod_dist *d);

/* Static lower-case name of a kind ("truncnormal", ...), "?" if unknown. */
/* Kind names, indexed by pod_dist_kind, NULL-terminated. */
extern const char *const pod_dist_kind_names[];
const char *pod_dist_kind_name(pod_dist_kind k);

#endif
