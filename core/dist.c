/*
** dist.c: distributions of uncertain inputs (see pod_dist.h): checks,
** sampling, quantiles and supports (mean and variance: dist_moments.c).
*/
#include "dist_int.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>

static pod_dist mk(pod_dist_kind k, double a, double b, double c, double d) {
  pod_dist x;
  memset(&x, 0, sizeof x);
  x.kind = k;
  x.p[0] = a;
  x.p[1] = b;
  x.p[2] = c;
  x.p[3] = d;
  return x;
}

pod_dist pod_dist_fixed(double v) {
  return mk(POD_DIST_FIXED, v, 0, 0, 0);
}
pod_dist pod_dist_uniform(double lo, double hi) {
  return mk(POD_DIST_UNIFORM, lo, hi, 0, 0);
}
pod_dist pod_dist_loguniform(double lo, double hi) {
  pod_dist d = mk(POD_DIST_LOGUNIFORM, lo, hi, 0, 0);
  d.lg[0] = log(lo);
  d.lg[1] = log(hi);
  d.lg_of[0] = lo;
  d.lg_of[1] = hi;
  return d;
}

pod_dist pod_dist_normal(double mean, double sd) {
  return mk(POD_DIST_NORMAL, mean, sd, 0, 0);
}
pod_dist pod_dist_truncnormal(double mean, double sd, double lo, double hi) {
  return mk(POD_DIST_TRUNCNORMAL, mean, sd, lo, hi);
}
pod_dist pod_dist_lognormal(double mu, double sigma) {
  return mk(POD_DIST_LOGNORMAL, mu, sigma, 0, 0);
}
pod_dist pod_dist_triangular(double lo, double mode, double hi) {
  return mk(POD_DIST_TRIANGULAR, lo, mode, hi, 0);
}
pod_dist pod_dist_beta(double a, double b, double lo, double hi) {
  return mk(POD_DIST_BETA, a, b, lo, hi);
}
pod_dist pod_dist_gamma(double shape, double scale) {
  return mk(POD_DIST_GAMMA, shape, scale, 0, 0);
}
pod_dist pod_dist_weibull(double shape, double scale) {
  return mk(POD_DIST_WEIBULL, shape, scale, 0, 0);
}
pod_dist pod_dist_exponential(double mean) {
  return mk(POD_DIST_EXPONENTIAL, mean, 0, 0, 0);
}

const char *const pod_dist_kind_names[POD_DIST_NKINDS + 1] = {
    "fixed",       "uniform",    "loguniform", "normal", "truncnormal",
    "lognormal",   "triangular", "beta",       "gamma",  "weibull",
    "exponential", "discrete",   "empirical",  NULL};

const char *pod_dist_kind_name(pod_dist_kind k) {
  if ((int)k < 0 || k >= POD_DIST_NKINDS) return "?";
  return pod_dist_kind_names[k];
}

int pod_dist_lognormal_median_p90(double median, double p90, pod_dist *out,
                                  pod_err *err) {
  if (!pod_finite(median) || median <= 0)
    return pod_err_set(err, POD_EINVAL, "median",
                       "must be finite and > 0 (got %g)", median);
  if (!pod_finite(p90) || p90 <= median)
    return pod_err_set(err, POD_EINVAL, "p90",
                       "must be finite and > median (got %g)", p90);
  double mu = log(median);
  double sigma = (log(p90) - mu) / gsl_cdf_ugaussian_Pinv(0.9);
  *out = pod_dist_lognormal(mu, sigma);
  return pod_dist_check(out, err);
}

int pod_dist_lognormal_p5_p95(double p5, double p95, pod_dist *out,
                              pod_err *err) {
  if (!pod_finite(p5) || p5 <= 0)
    return pod_err_set(err, POD_EINVAL, "p5", "must be finite and > 0 (got %g)",
                       p5);
  if (!pod_finite(p95) || p95 <= p5)
    return pod_err_set(err, POD_EINVAL, "p95",
                       "must be finite and > p5 (got %g)", p95);
  double mu = 0.5 * (log(p5) + log(p95));
  double sigma = (log(p95) - log(p5)) / (2.0 * gsl_cdf_ugaussian_Pinv(0.95));
  *out = pod_dist_lognormal(mu, sigma);
  return pod_dist_check(out, err);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int check_array(const double *v, int n, const char *name, pod_err *err) {
  char field[POD_ERR_FIELD_MAX];
  for (int i = 0; i < n; i++) {
    if (!pod_finite(v[i])) {
      snprintf(field, sizeof field, "%s[%d]", name, i + 1);
      return pod_err_set(err, POD_EINVAL, field, "must be finite");
    }
  }
  return POD_OK;
}

int pod_dist_discrete(const double *values, const double *weights, int n,
                      pod_dist *out, pod_err *err) {
  *out = pod_dist_fixed(0);
  if (n < 1 || values == NULL)
    return pod_err_set(err, POD_EINVAL, "values", "needs at least one value");
  int rc = check_array(values, n, "values", err);
  if (rc) return rc;
  pod_dist d = mk(POD_DIST_DISCRETE, 0, 0, 0, 0);
  d.n = n;
  d.values = malloc(sizeof(double) * (size_t)n);
  d.weights = malloc(sizeof(double) * (size_t)n);
  d.cum = malloc(sizeof(double) * (size_t)n);
  d.svals = malloc(sizeof(double) * (size_t)n);
  if (!d.values || !d.weights || !d.cum || !d.svals) {
    pod_dist_free(&d);
    return pod_err_set(err, POD_ENOMEM, "values", NULL);
  }
  memcpy(d.values, values, sizeof(double) * (size_t)n);
  for (int i = 0; i < n; i++) d.weights[i] = weights ? weights[i] : 1.0;
  rc = pod_dist_check(&d, err); /* validates weights, builds nothing */
  if (rc) {
    pod_dist_free(&d);
    return rc;
  }
  /* CDF along the values in ascending order (stable for equal values) */
  int *idx = malloc(sizeof(int) * (size_t)n);
  if (!idx) {
    free(idx);
    pod_dist_free(&d);
    return pod_err_set(err, POD_ENOMEM, "values", NULL);
  }
  for (int i = 0; i < n; i++) idx[i] = i;
  for (int i = 1; i < n; i++) { /* insertion sort: choice lists are short */
    int t = idx[i], j = i;
    while (j > 0 && d.values[idx[j - 1]] > d.values[t]) {
      idx[j] = idx[j - 1];
      j--;
    }
    idx[j] = t;
  }
  double tot = 0;
  for (int i = 0; i < n; i++) tot += d.weights[i];
  double acc = 0;
  for (int i = 0; i < n; i++) {
    acc += d.weights[idx[i]];
    d.svals[i] = d.values[idx[i]];
    d.cum[i] = acc / tot;
  }
  d.cum[n - 1] = 1.0;
  free(idx);
  *out = d;
  return POD_OK;
}

int pod_dist_empirical(const double *values, int n, pod_dist *out,
                       pod_err *err) {
  *out = pod_dist_fixed(0);
  if (n < 1 || values == NULL)
    return pod_err_set(err, POD_EINVAL, "values", "needs at least one value");
  int rc = check_array(values, n, "values", err);
  if (rc) return rc;
  pod_dist d = mk(POD_DIST_EMPIRICAL, 0, 0, 0, 0);
  d.n = n;
  d.values = malloc(sizeof(double) * (size_t)n);
  if (!d.values) return pod_err_set(err, POD_ENOMEM, "values", NULL);
  memcpy(d.values, values, sizeof(double) * (size_t)n);
  qsort(d.values, (size_t)n, sizeof(double), cmp_double);
  *out = d;
  return POD_OK;
}

int pod_dist_copy(pod_dist *dst, const pod_dist *src, pod_err *err) {
  if (src->kind == POD_DIST_DISCRETE)
    return pod_dist_discrete(src->values, src->weights, src->n, dst, err);
  if (src->kind == POD_DIST_EMPIRICAL)
    return pod_dist_empirical(src->values, src->n, dst, err);
  *dst = *src;
  dst->n = 0;
  dst->values = dst->weights = dst->cum = dst->svals = NULL;
  return POD_OK;
}

void pod_dist_free(pod_dist *d) {
  if (d == NULL) return;
  free(d->values);
  free(d->weights);
  free(d->cum);
  free(d->svals);
  *d = pod_dist_fixed(0);
}

/* dist_int.h */
double pod_dist__tn_mass(double a, double b) {
  if (a > 0) return gsl_cdf_ugaussian_Q(a) - gsl_cdf_ugaussian_Q(b);
  return gsl_cdf_ugaussian_P(b) - gsl_cdf_ugaussian_P(a);
}

static int bad(pod_err *err, const char *field, const char *what, double v) {
  return pod_err_set(err, POD_EINVAL, field, "%s (got %g)", what, v);
}

#define NEED(cond, field, what, v)                \
  do {                                            \
    if (!(cond)) return bad(err, field, what, v); \
  } while (0)

#define BETA_MIN 1e-3
#define BETA_MAX 1e6

static int check_params(const pod_dist *d, pod_err *err) {
  const double *p = d->p;
  switch (d->kind) {
    case POD_DIST_FIXED:
      NEED(pod_finite(p[0]), "value", "must be finite", p[0]);
      return POD_OK;
    case POD_DIST_UNIFORM:
      NEED(pod_finite(p[0]), "lo", "must be finite", p[0]);
      NEED(pod_finite(p[1]), "hi", "must be finite", p[1]);
      NEED(p[1] > p[0], "hi", "must be greater than lo", p[1]);
      return POD_OK;
    case POD_DIST_LOGUNIFORM:
      NEED(pod_finite(p[0]) && p[0] > 0, "lo", "must be finite and > 0", p[0]);
      NEED(pod_finite(p[1]), "hi", "must be finite", p[1]);
      NEED(p[1] > p[0], "hi", "must be greater than lo", p[1]);
      return POD_OK;
    case POD_DIST_NORMAL:
      NEED(pod_finite(p[0]), "mean", "must be finite", p[0]);
      NEED(pod_finite(p[1]) && p[1] > 0, "sd", "must be finite and > 0", p[1]);
      return POD_OK;
    case POD_DIST_TRUNCNORMAL: {
      NEED(pod_finite(p[0]), "mean", "must be finite", p[0]);
      NEED(pod_finite(p[1]) && p[1] > 0, "sd", "must be finite and > 0", p[1]);
      NEED(!isnan(p[2]) && p[2] < INFINITY, "lo", "must be a number below +inf",
           p[2]);
      NEED(!isnan(p[3]) && p[3] > -INFINITY, "hi",
           "must be a number above -inf", p[3]);
      NEED(p[3] > p[2], "hi", "must be greater than lo", p[3]);
      double a = (p[2] - p[0]) / p[1], b = (p[3] - p[0]) / p[1];
      NEED(pod_dist__tn_mass(a, b) > 1e-300, "lo",
           "leaves no probability mass below hi", p[2]);
      return POD_OK;
    }
    case POD_DIST_LOGNORMAL:
      NEED(pod_finite(p[0]), "mu", "must be finite", p[0]);
      NEED(pod_finite(p[1]) && p[1] > 0, "sigma", "must be finite and > 0",
           p[1]);
      return POD_OK;
    case POD_DIST_TRIANGULAR:
      NEED(pod_finite(p[0]), "lo", "must be finite", p[0]);
      NEED(pod_finite(p[2]), "hi", "must be finite", p[2]);
      NEED(p[2] > p[0], "hi", "must be greater than lo", p[2]);
      NEED(pod_finite(p[1]) && p[1] >= p[0] && p[1] <= p[2], "mode",
           "must lie in [lo, hi]", p[1]);
      return POD_OK;
    case POD_DIST_BETA:
      /* Beyond these shapes the distribution is two points or one, and
      ** GSL's beta quantile loops or fails (a = b = 5e-324 never returns) */
      NEED(p[0] >= BETA_MIN && p[0] <= BETA_MAX, "a", "must be in [0.001, 1e6]",
           p[0]);
      NEED(p[1] >= BETA_MIN && p[1] <= BETA_MAX, "b", "must be in [0.001, 1e6]",
           p[1]);
      NEED(pod_finite(p[2]), "lo", "must be finite", p[2]);
      NEED(pod_finite(p[3]), "hi", "must be finite", p[3]);
      NEED(p[3] > p[2], "hi", "must be greater than lo", p[3]);
      return POD_OK;
    case POD_DIST_GAMMA:
    case POD_DIST_WEIBULL:
      /* outside these shapes the distribution is a point (or all its mass
      ** sits at 0) and GSL's gamma quantile stops being monotone (shape
      ** 1e300 or 2e-308) */
      NEED(p[0] >= 1e-3 && p[0] <= 1e6, "shape", "must be in [0.001, 1e6]",
           p[0]);
      /* a scale far below any physical one (fuzz_dist: 3e-319, subnormal)
      ** underflows GSL's inversion to 0 past smaller quantiles */
      NEED(pod_finite(p[1]) && p[1] >= 1e-100, "scale",
           "must be finite and >= 1e-100", p[1]);
      return POD_OK;
    case POD_DIST_EXPONENTIAL:
      NEED(pod_finite(p[0]) && p[0] > 0, "mean", "must be finite and > 0",
           p[0]);
      return POD_OK;
    case POD_DIST_DISCRETE: {
      if (d->n < 1 || !d->values || !d->weights || !d->cum || !d->svals)
        return pod_err_set(err, POD_EINVAL, "values",
                           "needs at least one value");
      int rc = check_array(d->values, d->n, "values", err);
      if (rc) return rc;
      rc = check_array(d->weights, d->n, "weights", err);
      if (rc) return rc;
      double tot = 0;
      for (int i = 0; i < d->n; i++) {
        if (d->weights[i] < 0) {
          char f[POD_ERR_FIELD_MAX];
          snprintf(f, sizeof f, "weights[%d]", i + 1);
          return bad(err, f, "must be >= 0", d->weights[i]);
        }
        tot += d->weights[i];
      }
      NEED(tot > 0 && pod_finite(tot), "weights",
           "must have a positive finite sum", tot);
      return POD_OK;
    }
    case POD_DIST_EMPIRICAL:
      if (d->n < 1 || !d->values)
        return pod_err_set(err, POD_EINVAL, "values",
                           "needs at least one value");
      return check_array(d->values, d->n, "values", err);
    default:
      return pod_err_set(err, POD_EINVAL, "kind",
                         "unknown distribution kind %d", (int)d->kind);
  }
}

/* The parameter that scales a kind's values, named when they overflow. */
static const char *scale_field(pod_dist_kind k) {
  switch (k) {
    case POD_DIST_NORMAL:
    case POD_DIST_TRUNCNORMAL:
      return "sd";
    case POD_DIST_LOGNORMAL:
      return "sigma";
    case POD_DIST_GAMMA:
    case POD_DIST_WEIBULL:
      return "scale";
    case POD_DIST_EXPONENTIAL:
      return "mean";
    case POD_DIST_FIXED:
      return "value";
    case POD_DIST_DISCRETE:
    case POD_DIST_EMPIRICAL:
      return "values";
    default:
      return "hi";
  }
}

int pod_dist_check(const pod_dist *d, pod_err *err) {
  int rc = check_params(d, err);
  if (rc != POD_OK) return rc;
  /* lists: each value is checked finite; pod_dist_discrete calls this
  ** before its CDF is filled in, so no quantiles here, only the mean
  ** (from values and weights), which overflows for values near 1e308 */
  if (d->kind == POD_DIST_DISCRETE || d->kind == POD_DIST_EMPIRICAL) {
    double m = pod_dist_mean(d);
    if (!pod_finite(m))
      return pod_err_set(err, POD_EINVAL, "values",
                         "are too large: their mean is %g", m);
    return POD_OK;
  }
  /* Valid parameters can still put the values beyond double range
  ** (exponential{1e308}, uniform{-1e308, 1e308}, lognormal{0, 40}): then
  ** samples, their spread or the mean would be infinite or NaN. */
  double lo = pod_dist__quantile_raw(d, 1e-15),
         hi = pod_dist__quantile_raw(d, 1 - 1e-15);
  double m = pod_dist_mean(d), v = pod_dist_variance(d);
  if (!(pod_finite(lo) && pod_finite(hi) && pod_finite(hi - lo) &&
        pod_finite(m)) ||
      isnan(v))
    return pod_err_set(err, POD_EINVAL, scale_field(d->kind),
                       "puts the values beyond the range of doubles (quantiles "
                       "%g to %g, mean %g)",
                       lo, hi, m);
  return POD_OK;
}

static double sample_raw(const pod_dist *d, gsl_rng *r);

/* The state of GSL's MT19937 (gsl_rng_mt19937, GSL 2.7 rng/mt.c): the
** 624 words of the generator and the index of the next one to temper. */
#define MT_N 624
typedef struct mt_words {
  unsigned long mt[MT_N];
  int mti;
} mt_words;

/* MT19937's next words (Matsumoto and Nishimura, ACM TOMACS 8(1), 1998):
** mt[k] = mt[k + 397] ^ (y >> 1) ^ (y odd ? 0x9908b0df : 0) with y the
** top bit of mt[k] and the low 31 of mt[k + 1], indices mod 624, then the
** next word is mt[0].  The same words as GSL's own regeneration (the
** recurrence is the generator; tests/unit/test_dist_rng.c checks the
** stream), without its branch on y's low bit. */
#define MT_M 397
static inline unsigned long mt_twist(unsigned long a, unsigned long b,
                                     unsigned long m) {
  unsigned long y = (a & 0x80000000UL) | (b & 0x7fffffffUL);
  return m ^ (y >> 1) ^ ((0UL - (y & 1UL)) & 0x9908b0dfUL);
}

static void mt_regen(mt_words *s) {
  unsigned long *mt = s->mt;
  int k = 0;
  for (; k < MT_N - MT_M; k++) mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M]);
  for (; k < MT_N - 1; k++)
    mt[k] = mt_twist(mt[k], mt[k + 1], mt[k + MT_M - MT_N]);
  mt[MT_N - 1] = mt_twist(mt[MT_N - 1], mt[0], mt[MT_M - 1]);
  s->mti = 0;
}

/* The state of r when it is GSL's MT19937 in the layout above, else NULL. */
static inline mt_words *mt_of(gsl_rng *r) {
  if (r->type == gsl_rng_mt19937 && r->type->size == sizeof(mt_words))
    return r->state;
  return NULL;
}

/* gsl_rng_uniform(r) without the library call.  For MT19937 (a study's
** generator, s = mt_of(r)) the next word tempered here (the paper's y ^= y
** >> 11; y ^= (y << 7) & 0x9d2c5680; y ^= (y << 15) & 0xefc60000; y ^= y
** >> 18) over 2^32, as GSL's get_double does, regenerating the words when
** they are used up as GSL does (mti = 624).  Any other generator (s NULL),
** or an index out of range: its get_double.  The same values. */
static inline double uniform_word(mt_words *s) {
  if (s->mti == MT_N) mt_regen(s);
  unsigned long y = s->mt[s->mti++];
  y ^= y >> 11;
  y ^= (y << 7) & 0x9d2c5680UL;
  y ^= (y << 15) & 0xefc60000UL;
  y ^= y >> 18;
  /* y < 2^32 (the words are): as a signed integer, the same double */
  return (double)(int64_t)y / 4294967296.0;
}

static inline int mt_ok(const mt_words *s) {
  return s && s->mti >= 0 && s->mti <= MT_N;
}

static inline double uniform_mt(mt_words *s, gsl_rng *r) {
  if (mt_ok(s)) return uniform_word(s);
  return r->type->get_double(r->state);
}

static inline double uniform01(gsl_rng *r) {
  return uniform_mt(mt_of(r), r);
}

/* gsl_rng_uniform_pos(r) inline: draws until one is not 0 (GSL 2.7,
** rng/gsl_rng.h), so the same values. */
static inline double uniform_pos01(gsl_rng *r) {
  double u;
  do u = uniform01(r);
  while (u == 0);
  return u;
}

/* gsl_ran_flat(r, a, b), inline: GSL's formula a (1 - u) + b u on one
** gsl_rng_uniform draw (GSL 2.7, randist/flat.c), so the same values. */
static inline double flat(gsl_rng *r, double a, double b) {
  double u = uniform01(r);
  return a * (1 - u) + b * u;
}

static inline double clamp(double x, double lo, double hi) {
  return x < lo ? lo : x > hi ? hi : x;
}

/* sample1 of a lognormal (sample_raw's, unclamped) */
static inline double lognormal1(const pod_dist *d, gsl_rng *r) {
  return exp(d->p[0] + gsl_ran_gaussian_ziggurat(r, d->p[1]));
}

static inline double sample1(const pod_dist *d, gsl_rng *r) {
  const double *p = d->p;
  switch (d->kind) { /* the common kinds inline, clamped as
                        pod_dist__clamp_support */
    case POD_DIST_UNIFORM:
      return clamp(flat(r, p[0], p[1]), p[0], p[1]);
    case POD_DIST_LOGUNIFORM:
      return clamp(exp(flat(r, pod_dist__lg(d, 0), pod_dist__lg(d, 1))), p[0],
                   p[1]);
    case POD_DIST_TRIANGULAR:
      return clamp(pod_dist__triangular_q(p, uniform01(r)), p[0], p[2]);
    case POD_DIST_LOGNORMAL:
      return lognormal1(d, r);
    default:
      return pod_dist__clamp_support(d, sample_raw(d, r));
  }
}

double pod_dist_sample(const pod_dist *d, gsl_rng *r) {
  return sample1(d, r);
}

/* The kinds whose draw is one transform of one uniform01 (sample1). */
static inline int one_uniform(pod_dist_kind k) {
  return k == POD_DIST_UNIFORM || k == POD_DIST_LOGUNIFORM ||
         k == POD_DIST_TRIANGULAR;
}

/* Column i of n rows (stride P) holding uniform01 draws u, in place into
** sample1's values of d: the same operations on each value, one kind per
** loop (triangular's two ratios computed once, the same doubles). */
static void transform_column(const pod_dist *d, int P, int n, double *x) {
  const double *p = d->p;
  size_t st = (size_t)P;
  if (d->kind == POD_DIST_UNIFORM) {
    double a = p[0], b = p[1];
    for (int j = 0; j < n; j++) {
      double u = x[j * st];
      x[j * st] = clamp(a * (1 - u) + b * u, a, b);
    }
  } else if (d->kind == POD_DIST_LOGUNIFORM) {
    double a = pod_dist__lg(d, 0), b = pod_dist__lg(d, 1);
    for (int j = 0; j < n; j++) {
      double u = x[j * st];
      x[j * st] = clamp(exp(a * (1 - u) + b * u), p[0], p[1]);
    }
  } else { /* triangular */
    double a = p[0], c = p[1], b = p[2], w = b - a;
    double lo = (c - a) / w, hi = (b - c) / w;
    for (int j = 0; j < n; j++) {
      double u = x[j * st];
      double v = u < lo ? a + w * sqrt(u * lo) : b - w * sqrt((1 - u) * hi);
      x[j * st] = clamp(v, a, b);
    }
  }
}

/* Rows of P draws in row order (the stream of pod_dist_sample per value):
** the one-uniform kinds keep their uniform here and are transformed a
** column at a time after; the other kinds draw in place.  More than 64
** columns: per value. */
void pod_dist_sample_rows(const pod_dist *d, int P, gsl_rng *r, int n,
                          double *x) {
  if (P > 64 || P < 1) {
    for (int j = 0; j < n; j++, x += P)
      for (int i = 0; i < P; i++) x[i] = sample1(&d[i], r);
    return;
  }
  unsigned char cls[64];
  int nu = 0;
  for (int i = 0; i < P; i++)
    nu += cls[i] = (unsigned char)one_uniform(d[i].kind);
  mt_words *s = mt_of(r);
  double *row = x;
  if (mt_ok(s)) /* it stays so: GSL's MT19937 and mt_regen keep the index
                ** in [0, 624] */
    for (int j = 0; j < n; j++, row += P)
      for (int i = 0; i < P; i++)
        row[i] = cls[i]                            ? uniform_word(s)
                 : d[i].kind == POD_DIST_LOGNORMAL ? lognormal1(&d[i], r)
                                                   : sample1(&d[i], r);
  else
    for (int j = 0; j < n; j++, row += P)
      for (int i = 0; i < P; i++)
        row[i] = cls[i] ? uniform_mt(s, r) : sample1(&d[i], r);
  for (int i = 0; i < P && nu > 0; i++)
    if (cls[i]) transform_column(&d[i], P, n, x + i);
}

static double sample_raw(const pod_dist *d, gsl_rng *r) {
  const double *p = d->p;
  switch (d->kind) {
    case POD_DIST_FIXED:
      return p[0];
    case POD_DIST_UNIFORM:
      return gsl_ran_flat(r, p[0], p[1]);
    case POD_DIST_LOGUNIFORM:
      return exp(gsl_ran_flat(r, log(p[0]), log(p[1])));
    case POD_DIST_NORMAL:
      return p[0] + gsl_ran_gaussian_ziggurat(r, p[1]);
    case POD_DIST_TRUNCNORMAL:
      /* Rejection from the parent normal is cheap when the window holds
      ** most of the mass; after 8 misses fall back to the inverse CDF, so
      ** the cost stays bounded for narrow or far-tail windows. */
      for (int i = 0; i < 8; i++) {
        double x = p[0] + gsl_ran_gaussian_ziggurat(r, p[1]);
        if (x >= p[2] && x <= p[3]) return x;
      }
      return pod_dist__truncnormal_q(p, uniform_pos01(r));
    case POD_DIST_LOGNORMAL: /* = gsl_ran_lognormal, with the faster normal
                                sampler */
      return exp(p[0] + gsl_ran_gaussian_ziggurat(r, p[1]));
    case POD_DIST_TRIANGULAR:
      return pod_dist__triangular_q(p, uniform01(r));
    case POD_DIST_BETA:
      return p[2] + (p[3] - p[2]) * gsl_ran_beta(r, p[0], p[1]);
    case POD_DIST_GAMMA:
      return gsl_ran_gamma(r, p[0], p[1]);
    case POD_DIST_WEIBULL:
      return gsl_ran_weibull(r, p[1], p[0]);
    case POD_DIST_EXPONENTIAL:
      return gsl_ran_exponential(r, p[0]);
    case POD_DIST_DISCRETE:
      return pod_dist_quantile(d, uniform_pos01(r));
    case POD_DIST_EMPIRICAL:
      return d->values[gsl_rng_uniform_int(r, (unsigned long)d->n)];
    default:
      return NAN;
  }
}
