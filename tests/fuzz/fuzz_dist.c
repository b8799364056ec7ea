/*
** fuzz_dist.c: distributions with arbitrary parameters.  Every kind is
** built from fuzzed parameters (in range, at the edges, non-finite,
** arbitrary bits); discrete and empirical ones from fuzzed lists.
** Properties: pod_dist_check refuses non-finite parameters; a checked
** distribution gives finite, ordered quantiles for u in (0, 1), finite
** samples inside its support, and a finite mean; copies behave the same;
** nothing leaks or crashes.
*/
#include <gsl/gsl_errno.h>
#include <gsl/gsl_rng.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_dist.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Support [lo, hi] of a checked distribution (infinite when unbounded). */
static void support(const pod_dist *d, double *lo, double *hi) {
  const double *p = d->p;
  *lo = -INFINITY;
  *hi = INFINITY;
  switch (d->kind) {
    case POD_DIST_FIXED:
      *lo = *hi = p[0];
      break;
    case POD_DIST_UNIFORM:
    case POD_DIST_LOGUNIFORM:
      *lo = p[0];
      *hi = p[1];
      break;
    case POD_DIST_TRUNCNORMAL:
      *lo = p[2];
      *hi = p[3];
      break;
    case POD_DIST_TRIANGULAR:
      *lo = p[0];
      *hi = p[2];
      break;
    case POD_DIST_BETA:
      *lo = p[2];
      *hi = p[3];
      break;
    case POD_DIST_LOGNORMAL:
    case POD_DIST_GAMMA:
    case POD_DIST_WEIBULL:
    case POD_DIST_EXPONENTIAL:
      *lo = 0;
      break;
    case POD_DIST_DISCRETE:
    case POD_DIST_EMPIRICAL:
      *lo = INFINITY;
      *hi = -INFINITY;
      for (int i = 0; i < d->n; i++) {
        if (d->values[i] < *lo) *lo = d->values[i];
        if (d->values[i] > *hi) *hi = d->values[i];
      }
      break;
    default:
      break;
  }
}

static void exercise(const pod_dist *d, fz *f, gsl_rng *rng) {
  double lo, hi;
  support(d, &lo, &hi);
  double prev = -INFINITY;
  for (int j = 1; j < 16; j++) {
    double u = j / 16.0;
    if (j == 15) u = 1 - 1e-12;
    if (j == 1) u = 1e-12;
    double q = pod_dist_quantile(d, u);
    if (!isfinite(q))
      FZ_FAIL("%s quantile(%g) = %g (p = %g %g %g %g)",
              pod_dist_kind_name(d->kind), u, q, d->p[0], d->p[1], d->p[2],
              d->p[3]);
    /* every kind, discrete included (its CDF follows the values' order) */
    if (q < prev)
      FZ_FAIL(
          "%s quantile not monotone at u=%g: %.17g < %.17g (p = %.17g "
          "%.17g %.17g %.17g)",
          pod_dist_kind_name(d->kind), u, q, prev, d->p[0], d->p[1], d->p[2],
          d->p[3]);
    if (q < lo || q > hi)
      FZ_FAIL("%s quantile(%g) = %g outside [%g, %g]",
              pod_dist_kind_name(d->kind), u, q, lo, hi);
    prev = q;
  }
  double q1 = pod_dist_quantile(d, 1.0);
  if (isnan(q1)) FZ_FAIL("%s quantile(1) is NaN", pod_dist_kind_name(d->kind));
  gsl_rng_set(rng, fz_u64(f));
  for (int i = 0; i < 32; i++) {
    double x = pod_dist_sample(d, rng);
    if (!isfinite(x) || x < lo || x > hi)
      FZ_FAIL("%s sample %g outside [%g, %g] (p = %g %g %g %g)",
              pod_dist_kind_name(d->kind), x, lo, hi, d->p[0], d->p[1], d->p[2],
              d->p[3]);
  }
  double m = pod_dist_mean(d), v = pod_dist_variance(d);
  if (isnan(m))
    FZ_FAIL("%s mean is NaN (p = %g %g %g %g)", pod_dist_kind_name(d->kind),
            d->p[0], d->p[1], d->p[2], d->p[3]);
  if (isnan(v) || v < 0)
    FZ_FAIL("%s variance %g (p = %g %g %g %g)", pod_dist_kind_name(d->kind), v,
            d->p[0], d->p[1], d->p[2], d->p[3]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static gsl_rng *rng;
  if (rng == NULL) {
    pod_init();
    rng = gsl_rng_alloc(gsl_rng_mt19937);
  }
  fz f = {data, size};
  int kind = fz_u8(&f) % POD_DIST_NKINDS;
  double range = ldexp(1.0, fz_u8(&f) % 80);
  double p[4];
  for (int i = 0; i < 4; i++) p[i] = fz_double(&f, -range, range);
  pod_dist d;
  pod_err e;
  pod_err_clear(&e);
  int rc = POD_OK;
  switch (kind) {
    case POD_DIST_FIXED:
      d = pod_dist_fixed(p[0]);
      break;
    case POD_DIST_UNIFORM:
      d = pod_dist_uniform(p[0], p[1]);
      break;
    case POD_DIST_LOGUNIFORM:
      d = pod_dist_loguniform(p[0], p[1]);
      break;
    case POD_DIST_NORMAL:
      d = pod_dist_normal(p[0], p[1]);
      break;
    case POD_DIST_TRUNCNORMAL:
      d = pod_dist_truncnormal(p[0], p[1], p[2], p[3]);
      break;
    case POD_DIST_LOGNORMAL:
      if (p[3] > 0)
        rc = pod_dist_lognormal_median_p90(p[0], p[1], &d, &e);
      else if (p[3] < 0)
        rc = pod_dist_lognormal_p5_p95(p[0], p[1], &d, &e);
      else
        d = pod_dist_lognormal(p[0], p[1]);
      break;
    case POD_DIST_TRIANGULAR:
      d = pod_dist_triangular(p[0], p[1], p[2]);
      break;
    case POD_DIST_BETA:
      d = pod_dist_beta(p[0], p[1], p[2], p[3]);
      break;
    case POD_DIST_GAMMA:
      d = pod_dist_gamma(p[0], p[1]);
      break;
    case POD_DIST_WEIBULL:
      d = pod_dist_weibull(p[0], p[1]);
      break;
    case POD_DIST_EXPONENTIAL:
      d = pod_dist_exponential(p[0]);
      break;
    default: {
      int n = fz_u8(&f) % 40;
      double v[40], w[40];
      for (int i = 0; i < n; i++) {
        v[i] = fz_double(&f, -range, range);
        w[i] = fz_double(&f, 0, 10);
      }
      if (kind == POD_DIST_DISCRETE)
        rc = pod_dist_discrete(v, w, n, &d, &e);
      else
        rc = pod_dist_empirical(v, n, &d, &e);
      if (rc == POD_OK) {
        for (int i = 0; i < n; i++)
          if (!isfinite(v[i]) ||
              (kind == POD_DIST_DISCRETE && !(isfinite(w[i]) && w[i] >= 0)))
            FZ_FAIL("%s accepted value %g weight %g", pod_dist_kind_name(kind),
                    v[i], w[i]);
      }
    }
  }
  if (rc != POD_OK) {
    if (e.msg[0] == '\0')
      FZ_FAIL("constructor status %d without a message", rc);
    return 0;
  }
  pod_err_clear(&e);
  if (pod_dist_check(&d, &e) == POD_OK) {
    for (int i = 0; i < 4 && kind < POD_DIST_DISCRETE; i++)
      if (isnan(d.p[i]))
        FZ_FAIL("%s check accepted NaN parameter %d", pod_dist_kind_name(kind),
                i);
    exercise(&d, &f, rng);
    pod_dist c;
    if (pod_dist_copy(&c, &d, &e) != POD_OK) FZ_FAIL("copy failed: %s", e.msg);
    for (int j = 1; j < 8; j++)
      if (pod_dist_quantile(&c, j / 8.0) != pod_dist_quantile(&d, j / 8.0))
        FZ_FAIL("copy differs");
    pod_dist_free(&c);
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("check failed without a message");
  }
  pod_dist_free(&d);
  return 0;
}
