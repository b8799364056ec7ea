/*
** test_mc.c: the Monte Carlo plan (pod_mc.h) run serially.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <stdatomic.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pod_err.h"
#include "pod_mc.h"
#include "near.h"

/* ---- evaluators ---- */

/* y0 = x0 + x1, y1 = x0 * x1 (+ grid index * 10 on y0). */
static int eval_sum_prod(void *ud, void *w, int g, const double *x, double *y,
                         pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  y[0] = x[0] + x[1] + 10.0 * g;
  y[1] = x[0] * x[1];
  return POD_OK;
}

static const char *const pn2[] = {"a", "b"};
static const char *const mn2[] = {"sum", "prod"};

static void spec2(pod_mc_spec *s, pod_dist *d) {
  pod_mc_spec_init(s);
  d[0] = pod_dist_uniform(0, 1);
  d[1] = pod_dist_normal(2, 0.5);
  s->nparams = 2;
  s->param_names = pn2;
  s->dists = d;
  s->nmetrics = 2;
  s->metric_names = mn2;
  s->grid = 2;
  s->samples = 5000;
  s->chunk_size = 300;
  s->seed = 42;
  s->eval.eval = eval_sum_prod;
}

static pod_mc_results *run(const pod_mc_spec *s) {
  pod_mc_plan *pl;
  pod_err e;
  int rc = pod_mc_plan_new(s, &pl, &e);
  if (rc) fail_msg("plan: %s: %s", e.field, e.msg);
  pod_mc_results *r;
  rc = pod_mc_run_serial(pl, &r, &e);
  if (rc) fail_msg("run: %s: %s", e.field, e.msg);
  pod_mc_plan_free(pl);
  return r;
}

static void test_basic_stats(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.keep_samples = 1;
  pod_mc_results *r = run(&s);
  assert_true(pod_mc_results_complete(r));
  assert_false(pod_mc_results_stopped(r));
  assert_int_equal(pod_mc_results_samples_done(r), 10000);
  assert_int_equal(pod_mc_results_chunks_total(r), 2 * 17);
  for (int g = 0; g < 2; g++) {
    assert_int_equal(pod_mc_results_rows(r, g), 5000);
    for (int m = 0; m < 2; m++) {
      pod_mc_summary sm;
      assert_int_equal(pod_mc_results_summary(r, m, g, &sm), POD_OK);
      assert_int_equal(sm.n, 5000);
      assert_true(sm.quantiles_exact);
      const double *col = pod_mc_results_metric_column(r, g, m);
      assert_non_null(col);
      /* moments and quantiles against GSL on the same stored samples */
      assert_near(sm.mean, gsl_stats_mean(col, 1, 5000), 1e-12 * fabs(sm.mean));
      assert_near(sm.sd, gsl_stats_sd(col, 1, 5000), 1e-10 * sm.sd);
      assert_near(sm.skew, gsl_stats_skew(col, 1, 5000), 1e-8);
      assert_near(sm.kurtosis, gsl_stats_kurtosis(col, 1, 5000), 1e-8);
      assert_near(sm.se, sm.sd / sqrt(5000), 1e-15);
      assert_true(sm.ci95_lo < sm.mean && sm.mean < sm.ci95_hi);
      double *sorted = malloc(5000 * sizeof(double));
      memcpy(sorted, col, 5000 * sizeof(double));
      gsl_sort(sorted, 1, 5000);
      assert_true(sm.min == sorted[0] && sm.max == sorted[4999]);
      for (int q = 0; q < POD_STATS_NQ; q++)
        assert_true(sm.q[q] == gsl_stats_quantile_from_sorted_data(
                                   sorted, 1, 5000, pod_stats_qprobs[q]));
      free(sorted);
      const pod_hist *h = pod_mc_results_hist(r, m, g);
      assert_non_null(h);
      int64_t tot = 0;
      for (int i = 0; i < h->nbins; i++) tot += h->counts[i];
      assert_int_equal(tot, 5000);
      assert_int_equal(h->under + h->over, 0);
    }
    /* analytic means: E[a+b] = 2.5 (+10 g), E[ab] = 1 */
    pod_mc_summary sm;
    pod_mc_results_summary(r, 0, g, &sm);
    assert_near(sm.mean, 2.5 + 10 * g, 5 * sm.se);
    pod_mc_results_summary(r, 1, g, &sm);
    assert_near(sm.mean, 1.0, 5 * sm.se);
    /* stored parameters: row 0 of sum == a + b + 10 g */
    const double *a = pod_mc_results_param_column(r, g, 0);
    const double *b = pod_mc_results_param_column(r, g, 1);
    const double *y = pod_mc_results_metric_column(r, g, 0);
    for (int i = 0; i < 5000; i += 997)
      assert_true(y[i] == a[i] + b[i] + 10.0 * g);
  }
  assert_string_equal(pod_mc_results_param_name(r, 1), "b");
  assert_string_equal(pod_mc_results_metric_name(r, 1), "prod");
  assert_null(pod_mc_results_param_name(r, 2));
  assert_false(pod_mc_results_samples_partial(r));
  pod_mc_summary sm;
  pod_mc_sens_value sv;
  assert_int_equal(pod_mc_results_summary(r, 2, 0, &sm), POD_EINVAL);
  assert_int_equal(pod_mc_results_summary(r, 0, 2, &sm), POD_EINVAL);
  assert_int_equal(pod_mc_results_sensitivity(r, 0, 2, 0, &sv), POD_EINVAL);
  assert_null(pod_mc_results_hist(r, -1, 0));
  assert_null(pod_mc_results_param_column(r, 0, 5));
  assert_null(pod_mc_results_metric_column(r, 3, 0));
  assert_int_equal(pod_mc_results_rows(r, 9), 0);
  pod_mc_results_free(r);
}

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return (x > y) - (x < y);
}

static void test_determinism_and_seeds(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  pod_mc_results *r1 = run(&s), *r2 = run(&s);
  s.seed = 43;
  pod_mc_results *r3 = run(&s);
  pod_mc_summary a, b, c;
  pod_mc_results_summary(r1, 1, 1, &a);
  pod_mc_results_summary(r2, 1, 1, &b);
  pod_mc_results_summary(r3, 1, 1, &c);
  assert_memory_equal(&a, &b, sizeof a);
  assert_true(a.mean != c.mean);
  pod_mc_results_free(r1);
  pod_mc_results_free(r2);
  pod_mc_results_free(r3);

  /* 2^20 chunks: seeds collide by the birthday bound and must be re-mixed */
  s.samples = 1 << 20;
  s.chunk_size = 1;
  s.grid = 1;
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  int64_t n = pod_mc_plan_chunks(pl);
  assert_int_equal(n, 1 << 20);
  uint32_t *seeds = malloc(sizeof(uint32_t) * (size_t)n);
  for (int64_t k = 0; k < n; k++) {
    seeds[k] = pod_mc_chunk_seed(pl, k);
    assert_true(seeds[k] != 0 && seeds[k] != 4357u);
  }
  qsort(seeds, (size_t)n, sizeof(uint32_t), cmp_u32);
  for (int64_t k = 1; k < n; k++) assert_true(seeds[k] != seeds[k - 1]);
  free(seeds);
  assert_int_equal(pod_mc_chunk_seed(pl, -1), 0);
  assert_int_equal(pod_mc_chunk_samples(pl, n), 0);
  pod_mc_plan_free(pl);
}

/* ---- Sobol on the Ishigami function ---- */

/* f = sin x1 + a sin^2 x2 + b x3^4 sin x1, x_i ~ U(-pi, pi), a = 7, b = 0.1.
** Analytic indices (Ishigami & Homma 1990; Saltelli et al. 2010, sec. 4):
** V = a^2/8 + b pi^4/5 + b^2 pi^8/18 + 1/2, V1 = (1 + b pi^4/5)^2 / 2,
** V2 = a^2/8, V3 = 0, V13 = b^2 pi^8 (1/18 - 1/50). */
static int eval_ishigami(void *ud, void *w, int g, const double *x, double *y,
                         pod_err *err) {
  (void)ud;
  (void)w;
  (void)g;
  (void)err;
  double s1 = sin(x[0]), s2 = sin(x[1]), x3 = x[2] * x[2];
  y[0] = s1 + 7.0 * s2 * s2 + 0.1 * x3 * x3 * s1;
  y[1] = 1e6 + y[0]; /* same indices, large mean: checks the shifted sums */
  return POD_OK;
}

static void test_sobol_ishigami(void **st) {
  (void)st;
  const double a = 7, b = 0.1, pi4 = pow(M_PI, 4), pi8 = pi4 * pi4;
  double V = a * a / 8 + b * pi4 / 5 + b * b * pi8 / 18 + 0.5;
  double V1 = 0.5 * pow(1 + b * pi4 / 5, 2), V2 = a * a / 8;
  double V13 = b * b * pi8 * (1.0 / 18 - 1.0 / 50);
  double S[3] = {V1 / V, V2 / V, 0}, ST[3] = {(V1 + V13) / V, V2 / V, V13 / V};
  static const char *const pn[] = {"x1", "x2", "x3", "fixed"};
  static const char *const mn[] = {"f", "f_shifted"};
  pod_dist d[4] = {pod_dist_uniform(-M_PI, M_PI), pod_dist_uniform(-M_PI, M_PI),
                   pod_dist_uniform(-M_PI, M_PI), pod_dist_fixed(1)};
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 4;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 2;
  s.metric_names = mn;
  s.samples = 1 << 14;
  s.sensitivity = POD_MC_SENS_SOBOL;
  s.eval.eval = eval_ishigami;
  for (int prng = 0; prng < 2; prng++) {
    /* chunk_size 1: one saved Sobol state per sample would exceed the
    ** limit, so the design falls back to the chunks' pseudo-random streams;
    ** one-sample chunks also check that the first-order sums are unbiased
    ** (their shift must not come from the rows) */
    s.chunk_size = prng ? 1 : 1000;
    double tol = prng ? 0.04 : 0.005;
    pod_mc_plan *pl;
    assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
    assert_int_equal(pod_mc_plan_qrng(pl), !prng); /* 2P = 8 <= 40 */
    pod_mc_results *r;
    assert_int_equal(pod_mc_run_serial(pl, &r, NULL), POD_OK);
    pod_mc_plan_free(pl);
    for (int m = 0; m < 2; m++) {
      for (int p = 0; p < 3; p++) {
        pod_mc_sens_value v;
        assert_int_equal(pod_mc_results_sensitivity(r, 0, p, m, &v), POD_OK);
        assert_near(v.sobol_first, S[p], tol);
        assert_near(v.sobol_total, ST[p], tol);
        assert_true(isfinite(v.spearman));
      }
      pod_mc_sens_value v;
      pod_mc_results_sensitivity(r, 0, 3, m, &v);
      assert_true(v.sobol_first == 0 &&
                  v.sobol_total == 0); /* fixed parameter */
      assert_true(isnan(v.spearman));
    }
    pod_mc_summary sm;
    pod_mc_results_summary(r, 0, 0, &sm);
    assert_int_equal(sm.n, 1 << 14);
    assert_near(sm.mean, 3.5, 0.05); /* E f = a/2 */
    pod_mc_results_free(r);
  }
}

/* y = sum c_i x_i with 21 standard normal inputs: S_i = ST_i = c_i^2 / sum c^2.
** 2P = 42 > 40: the design falls back to the chunk's pseudo-random stream. */
static double lin_c[21];
static int eval_linear(void *ud, void *w, int g, const double *x, double *y,
                       pod_err *err) {
  (void)ud;
  (void)w;
  (void)g;
  (void)err;
  double s = 0;
  for (int i = 0; i < 21; i++) s += lin_c[i] * x[i];
  y[0] = s;
  return POD_OK;
}

static void test_sobol_pseudo_random(void **st) {
  (void)st;
  char names[21][8];
  const char *pn[21];
  pod_dist d[21];
  double tot = 0;
  for (int i = 0; i < 21; i++) {
    snprintf(names[i], sizeof names[i], "x%d", i);
    pn[i] = names[i];
    d[i] = pod_dist_normal(0, 1);
    lin_c[i] = i < 3 ? 3.0 - i : 0.2;
    tot += lin_c[i] * lin_c[i];
  }
  static const char *const mn[] = {"y"};
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 21;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 1;
  s.metric_names = mn;
  s.samples = 20000;
  s.sensitivity = POD_MC_SENS_SOBOL;
  s.eval.eval = eval_linear;
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_false(pod_mc_plan_qrng(pl));
  pod_mc_results *r;
  assert_int_equal(pod_mc_run_serial(pl, &r, NULL), POD_OK);
  pod_mc_plan_free(pl);
  for (int p = 0; p < 21; p++) {
    pod_mc_sens_value v;
    pod_mc_results_sensitivity(r, 0, p, 0, &v);
    double want = lin_c[p] * lin_c[p] / tot;
    assert_near(v.sobol_first, want, 0.05);
    assert_near(v.sobol_total, want, 0.03);
  }
  pod_mc_results_free(r);
}

/* ---- sketch mode, Spearman, partial flags ---- */

/* A discrete parameter is ranked by counting its levels (pod_ranks_init_
** levels): its Spearman against each metric is the sorting one's. */
static void test_spearman_discrete(void **st) {
  (void)st;
  static const double dv[] = {2.5, -1.0, 0.0, 2.5}, dw[] = {1, 2, 3, 1};
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  assert_int_equal(pod_dist_discrete(dv, dw, 4, &d[0], NULL), POD_OK);
  s.keep_samples = 1;
  s.sensitivity = POD_MC_SENS_SPEARMAN;
  pod_mc_results *r = run(&s);
  for (int g = 0; g < 2; g++)
    for (int m = 0; m < 2; m++) {
      const double *x = pod_mc_results_param_column(r, g, 0);
      const double *y = pod_mc_results_metric_column(r, g, m);
      double rho;
      assert_int_equal(pod_stats_spearman(x, y, 5000, &rho), POD_OK);
      pod_mc_sens_value v;
      pod_mc_results_sensitivity(r, g, 0, m, &v);
      assert_true(rho == v.spearman && fabs(rho) > 0.1);
    }
  pod_mc_results_free(r);
  pod_dist_free(&d[0]);
}

static void test_sketch_mode_and_spearman(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.keep_samples = 1;
  s.sensitivity = POD_MC_SENS_SPEARMAN;
  pod_mc_results *exact = run(&s);
  s.max_samples_mb = 0.05; /* 50 kB: some chunks stored, the rest sketched */
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_false(pod_mc_plan_exact(pl));
  pod_mc_plan_free(pl);
  pod_mc_results *sk = run(&s);
  assert_true(pod_mc_results_spearman_partial(sk));
  assert_true(pod_mc_results_samples_partial(sk));
  assert_false(pod_mc_results_spearman_partial(exact));
  int64_t stored = pod_mc_results_rows(sk, 0) + pod_mc_results_rows(sk, 1);
  assert_true(stored > 0 && stored * 8 * 4 <= 50000);
  for (int g = 0; g < 2; g++) {
    for (int m = 0; m < 2; m++) {
      pod_mc_summary a, b;
      pod_mc_results_summary(exact, m, g, &a);
      pod_mc_results_summary(sk, m, g, &b);
      assert_false(b.quantiles_exact);
      /* same samples: identical moments, quantiles within the bound */
      assert_true(a.n == b.n && a.mean == b.mean && a.sd == b.sd &&
                  a.min == b.min);
      for (int q = 0; q < POD_STATS_NQ; q++)
        assert_near(b.q[q], a.q[q], 0.006 * fabs(a.q[q]) + 0.01 * a.sd);
      const pod_hist *h = pod_mc_results_hist(sk, m, g);
      int64_t tot = h->under + h->over;
      for (int i = 0; i < h->nbins; i++) tot += h->counts[i];
      assert_int_equal(tot, 5000);
      assert_int_equal(h->under + h->over, 0);
    }
    /* sum = a + b: monotone in b (sd 0.5) more than in a (sd 0.29) */
    pod_mc_sens_value va, vb;
    pod_mc_results_sensitivity(exact, g, 0, 0, &va);
    pod_mc_results_sensitivity(exact, g, 1, 0, &vb);
    assert_true(vb.spearman > va.spearman && va.spearman > 0.3);
    assert_true(isnan(va.sobol_first));
    const double *x = pod_mc_results_param_column(exact, g, 1);
    const double *y = pod_mc_results_metric_column(exact, g, 0);
    double rho;
    pod_stats_spearman(x, y, 5000, &rho);
    assert_true(rho == vb.spearman);
  }
  pod_mc_results_free(exact);
  pod_mc_results_free(sk);

  /* log bins where the metric is positive (prod = a*b may be negative) */
  spec2(&s, d);
  s.hist_log = 1;
  s.hist_bins = 7;
  pod_mc_results *lg = run(&s);
  const pod_hist *h0 = pod_mc_results_hist(lg, 0, 1); /* sum + 10 > 0 */
  assert_true(h0->logbins && h0->nbins == 7);
  int64_t tot = h0->under + h0->over;
  for (int i = 0; i < h0->nbins; i++) tot += h0->counts[i];
  assert_int_equal(tot, 5000);
  assert_near(pod_hist_edge(h0, 7) / pod_hist_edge(h0, 6),
              pod_hist_edge(h0, 1) / pod_hist_edge(h0, 0), 1e-9);
  const pod_hist *h1 = pod_mc_results_hist(lg, 1, 0);
  pod_mc_summary sm1;
  pod_mc_results_summary(lg, 1, 0, &sm1);
  assert_int_equal(h1->logbins, sm1.min > 0);
  pod_mc_results_free(lg);

  /* no stored samples at all: budget 0 and nothing asked */
  spec2(&s, d);
  s.max_samples_mb = 0;
  pod_mc_results *r = run(&s);
  assert_int_equal(pod_mc_results_rows(r, 0), 0);
  assert_null(pod_mc_results_metric_column(r, 0, 0));
  pod_mc_summary sm;
  pod_mc_results_summary(r, 0, 0, &sm);
  assert_int_equal(sm.n, 5000);
  assert_false(sm.quantiles_exact);
  assert_true(sm.q[0] < sm.q[3] && sm.q[3] < sm.q[6]);
  pod_mc_results_free(r);
}

/* ---- stopping rule ---- */

static void test_stopping(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.samples = 1000000;
  s.chunk_size = 100;
  s.stop_metric = 1;
  s.stop_rel_ci95 = 0.02;
  s.stop_min_samples = 500;
  pod_mc_results *r = run(&s), *r2 = run(&s);
  assert_true(pod_mc_results_stopped(r));
  assert_false(pod_mc_results_complete(r));
  assert_int_equal(pod_mc_results_chunks_done(r),
                   pod_mc_results_chunks_done(r2));
  assert_int_equal(pod_mc_results_chunks_done(r) % 2, 0);
  for (int g = 0; g < 2; g++) {
    pod_mc_summary sm;
    pod_mc_results_summary(r, 1, g, &sm);
    assert_true(sm.n >= 500 && sm.n < 1000000);
    assert_true(0.5 * (sm.ci95_hi - sm.ci95_lo) <= 0.02 * fabs(sm.mean));
  }
  pod_mc_results_free(r);
  pod_mc_results_free(r2);
}

/* ---- errors ---- */

static int eval_fail5(void *ud, void *w, int g, const double *x, double *y,
                      pod_err *err) {
  (void)ud;
  (void)w;
  if (g == 1 && x[0] > 0.99)
    return pod_err_set(err, POD_ERANGE, "model.tp", "cannot split");
  y[0] = x[0];
  y[1] = g == 0 && x[0] > 0.995 ? NAN : 1.0;
  return POD_OK;
}

/* sum NaN when a < 0.2 (grid 1 only); prod = "fits" flag 0 when a > 0.8 */
static int eval_drop(void *ud, void *w, int g, const double *x, double *y,
                     pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  y[0] = (g == 1 && x[0] < 0.2) ? NAN : x[0];
  y[1] = x[0] > 0.8 ? 0.0 : 1.0;
  return POD_OK;
}

/* Non-finite metrics are dropped and counted per metric; unfit samples are
** counted, kept or dropped; stored rows stay contiguous across chunks. */
static void test_nonfinite_unfit(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.eval.eval = eval_drop;
  s.keep_samples = 1;
  pod_mc_results *r = run(&s);
  int64_t nf = pod_mc_results_nonfinite(r, 1, 0);
  assert_int_equal(pod_mc_results_nonfinite(r, 0, 0), 0);
  assert_int_equal(pod_mc_results_nonfinite(r, 1, 1), 0);
  assert_true(nf > 800 && nf < 1200); /* 20% of 5000 */
  pod_mc_summary sm;
  assert_int_equal(pod_mc_results_summary(r, 0, 1, &sm), POD_OK);
  assert_int_equal(sm.n, 5000 - nf);
  assert_true(sm.min >= 0.2);
  assert_int_equal(pod_mc_results_rows(r, 1), 5000 - nf);
  const double *col = pod_mc_results_metric_column(r, 1, 0);
  const double *xa = pod_mc_results_param_column(r, 1, 0);
  for (int64_t i = 0; i < 5000 - nf; i++) {
    assert_true(col[i] >= 0.2 && col[i] <= 1.0); /* no gap, no NaN */
    assert_true(xa[i] == col[i]);
  }
  assert_int_equal(pod_mc_results_unfit(r, 0), 0); /* no fits metric */
  pod_mc_results_free(r);
  /* unfit: metric 2 ("prod") is the fits flag */
  s.fits_metric = 2;
  s.unfit = POD_MC_UNFIT_KEEP;
  r = run(&s);
  int64_t u0 = pod_mc_results_unfit(r, 0);
  assert_true(u0 > 800 && u0 < 1200);
  assert_int_equal(pod_mc_results_summary(r, 1, 0, &sm), POD_OK);
  assert_int_equal(sm.n, 5000);
  pod_mc_results_free(r);
  s.unfit = POD_MC_UNFIT_EXCLUDE;
  r = run(&s);
  assert_int_equal(pod_mc_results_unfit(r, 0), u0);
  assert_int_equal(pod_mc_results_summary(r, 1, 0, &sm), POD_OK);
  assert_int_equal(sm.n, 5000 - u0);
  assert_true(sm.min == 1.0);
  pod_mc_results_free(r);
  s.unfit = POD_MC_UNFIT_ERROR;
  static const char *const labels[] = {"tp=4", "tp=8"};
  s.grid_labels = labels;
  pod_mc_plan *pl;
  pod_err e;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_ERANGE);
  assert_non_null(strstr(e.msg, "does not fit in memory"));
  assert_non_null(strstr(e.msg, "(grid point tp=4, sample "));
  pod_mc_plan_free(pl);
  /* POD_MC_NONFINITE_ERROR fails at the first NaN */
  s.unfit = POD_MC_UNFIT_KEEP;
  s.nonfinite = POD_MC_NONFINITE_ERROR;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_ERANGE);
  assert_non_null(strstr(e.msg, "not finite"));
  assert_non_null(strstr(e.msg, "(grid point tp=8, sample "));
  pod_mc_plan_free(pl);
}

static void test_eval_errors(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.eval.eval = eval_fail5;
  pod_mc_plan *pl;
  pod_mc_results *r;
  pod_err e;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  int rc = pod_mc_run_serial(pl, &r, &e);
  assert_true(rc == POD_ERANGE);
  assert_null(r);
  /* whichever comes first in chunk order: a non-finite metric on grid 0
  ** or the model's error on grid 1; both carry the sample */
  assert_non_null(strstr(e.msg, "(grid "));
  assert_non_null(strstr(e.msg, " a="));
  assert_non_null(strstr(e.msg, " b="));
  assert_true(strcmp(e.field, "prod") == 0 || strcmp(e.field, "model.tp") == 0);
  pod_mc_plan_free(pl);

  /* chunk-level API: out of range, out-of-order merge, merge after finish */
  s.eval.eval = eval_sum_prod;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  pod_mc_chunk *c;
  assert_int_equal(pod_mc_chunk_run(pl, -1, NULL, &c), POD_EINVAL);
  assert_int_equal(pod_mc_chunk_status(c, &e), POD_EINVAL);
  assert_string_equal(e.field, "chunk");
  pod_mc_chunk_free(c);
  pod_mc_chunk_run(pl, 1, NULL, &c);
  assert_int_equal(pod_mc_chunk_index(c), 1);
  assert_int_equal(pod_mc_merge(pl, c, &e), POD_EINVAL); /* expected chunk 0 */
  assert_int_equal(pod_mc_merge(pl, NULL, &e), POD_EINVAL);
  assert_int_equal(pod_mc_chunks_merged(pl), 0);
  pod_mc_chunk_run(pl, 0, NULL, &c);
  assert_int_equal(pod_mc_merge(pl, c, &e), POD_OK);
  assert_int_equal(pod_mc_samples_merged(pl), 300);
  /* the stepwise finish: parts out of range, merge while finishing */
  pod_mc_results *rr;
  assert_int_equal(pod_mc_finish_part(pl, NULL, 0, 0),
                   POD_EINVAL); /* no begin */
  assert_int_equal(pod_mc_finish_begin(pl, &rr, &e), POD_OK);
  assert_int_equal(pod_mc_finish_begin(pl, &r, &e), POD_EINVAL);
  /* phase 0: a summary per (grid point, metric), the metric ranks per grid
  ** point; phase 1: a parameter's Spearman per (grid point, parameter) */
  assert_int_equal(pod_mc_finish_parts(pl, 0), 2 * 2 + 2);
  assert_int_equal(pod_mc_finish_parts(pl, 1), 2 * 2);
  assert_int_equal(pod_mc_finish_part(pl, rr, 1, 4), POD_EINVAL);
  assert_int_equal(pod_mc_finish_parts(pl, 2), 0);
  assert_int_equal(pod_mc_finish_part(pl, rr, 0, 8), POD_EINVAL);
  assert_int_equal(pod_mc_finish_part(pl, rr, 1, -1), POD_EINVAL);
  pod_mc_chunk_run(pl, 1, NULL, &c);
  assert_int_equal(pod_mc_merge(pl, c, &e), POD_EINVAL);
  for (int ph = 0; ph < POD_MC_FINISH_PHASES; ph++)
    for (int i = pod_mc_finish_parts(pl, ph) - 1; i >= 0; i--) /* any order */
      assert_int_equal(pod_mc_finish_part(pl, rr, ph, i), POD_OK);
  assert_int_equal(pod_mc_finish_end(pl, rr, POD_OK, &r, &e), POD_OK);
  assert_false(pod_mc_results_complete(r));
  pod_mc_summary sm0;
  pod_mc_results_summary(r, 0, 0, &sm0);
  assert_int_equal(sm0.n, 300);
  pod_mc_results_free(r);
  assert_int_equal(pod_mc_finish_end(pl, NULL, POD_OK, &r, &e), POD_EINVAL);
  assert_int_equal(pod_mc_finish(pl, &r, &e), POD_EINVAL);
  pod_mc_chunk_run(pl, 1, NULL, &c);
  assert_int_equal(pod_mc_merge(pl, c, &e), POD_EINVAL);
  pod_mc_plan_free(pl);
}

static void *wnew_fail(void *ud, pod_err *err) {
  (void)ud;
  pod_err_set(err, POD_ENOMEM, "lua", "state");
  return NULL;
}

/* pod_mc_plan_new rejects *s with POD_EINVAL naming `want`; `what` says
** which edit of the valid spec2 is tested. */
static void expect_plan_field(const pod_mc_spec *s, const char *want,
                              const char *what) {
  pod_mc_plan *pl;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_mc_plan_new(s, &pl, &e);
  if (rc != POD_EINVAL) fail_msg("%s accepted (rc %d)", what, rc);
  if (strcmp(e.field, want) != 0)
    fail_msg("%s: field '%s', expected '%s'", what, e.field, want);
  assert_null(pl);
}

/* Sizes: parameter, metric, grid and sample counts. */
static void test_plan_errors_sizes(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.nparams = -1;
  expect_plan_field(&s, "nparams", "nparams -1");
  spec2(&s, d);
  s.dists = NULL;
  expect_plan_field(&s, "params", "dists NULL");
  spec2(&s, d);
  s.nmetrics = 0;
  expect_plan_field(&s, "nmetrics", "nmetrics 0");
  spec2(&s, d);
  s.grid = 0;
  expect_plan_field(&s, "grid", "grid 0");
  spec2(&s, d);
  s.samples = 0;
  expect_plan_field(&s, "samples", "samples 0");
  spec2(&s, d);
  s.chunk_size = -5;
  expect_plan_field(&s, "chunk_size", "chunk_size -5");
  spec2(&s, d);
  s.samples = 1000000000000LL; /* the most samples: 1e12 chunks of 1 */
  s.chunk_size = 1;
  expect_plan_field(&s, "chunk_size", "1e12 chunks");
  spec2(&s, d);
  s.samples = 1000000000001LL;
  expect_plan_field(&s, "samples", "samples 1e12 + 1");
  spec2(&s, d);
  s.chunk_size = 0; /* no longer "the default": spec_init sets it */
  expect_plan_field(&s, "chunk_size", "chunk_size 0");
  spec2(&s, d);
  s.seed = 1ULL << 53;
  expect_plan_field(&s, "seed", "seed 2^53");
  spec2(&s, d);
  s.grid = POD_MC_GRID_MAX + 1;
  expect_plan_field(&s, "grid", "grid 1e6 + 1");
  spec2(&s, d);
  s.max_samples_mb = -1;
  expect_plan_field(&s, "max_samples_mb", "max_samples_mb -1");
  spec2(&s, d);
  s.max_samples_mb = INFINITY;
  expect_plan_field(&s, "max_samples_mb", "max_samples_mb inf");
}

/* Options: evaluator, sensitivity, stopping rule, histogram. */
static void test_plan_errors_options(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  spec2(&s, d);
  s.eval.eval = NULL;
  expect_plan_field(&s, "eval", "eval NULL");
  spec2(&s, d);
  s.sensitivity = (pod_mc_sens)7;
  expect_plan_field(&s, "sensitivity", "sensitivity 7");
  spec2(&s, d);
  s.nparams = 0;
  s.sensitivity = POD_MC_SENS_SOBOL;
  expect_plan_field(&s, "sensitivity", "Sobol without parameters");
  spec2(&s, d);
  s.stop_metric = 2;
  expect_plan_field(&s, "stop_metric", "stop_metric 2 of 2 metrics");
  spec2(&s, d);
  s.stop_metric = 0;
  s.stop_rel_ci95 = 0;
  expect_plan_field(&s, "stop_rel_ci95", "stop_rel_ci95 0");
  spec2(&s, d);
  s.hist_bins = 0;
  expect_plan_field(&s, "hist_bins", "hist_bins 0");
  spec2(&s, d);
  s.stop_metric = 0;
  s.stop_rel_ci95 = 0.01;
  s.stop_min_samples = 1;
  expect_plan_field(&s, "stop_min_samples", "stop_min_samples 1");
  spec2(&s, d);
  s.stop_min_samples = 1; /* without a stopping rule it is not read */
  pod_mc_plan *pl = NULL;
  pod_err e;
  assert_int_equal(pod_mc_plan_new(&s, &pl, &e), POD_OK);
  pod_mc_plan_free(pl);
  spec2(&s, d);
  s.unfit = (pod_mc_unfit)3;
  expect_plan_field(&s, "unfit", "unfit 3");
  spec2(&s, d);
  s.nonfinite = (pod_mc_nonfinite)2;
  expect_plan_field(&s, "nonfinite", "nonfinite 2");
  spec2(&s, d);
  s.fits_metric = 3;
  expect_plan_field(&s, "fits_metric", "fits_metric 3 of 2 metrics");
  spec2(&s, d);
  s.keep_samples = 2;
  expect_plan_field(&s, "keep_samples", "keep_samples 2");
}

/* Distributions and names, with the index of the one at fault. */
static void test_plan_errors_names(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  const char *dup[] = {"a", "a"};
  const char *empty[] = {"a", ""};
  spec2(&s, d);
  d[1] = pod_dist_normal(0, -1);
  expect_plan_field(&s, "params[2].sd", "normal sd -1");
  spec2(&s, d);
  s.param_names = dup;
  expect_plan_field(&s, "params[2]", "duplicate parameter name");
  spec2(&s, d);
  s.metric_names = empty;
  expect_plan_field(&s, "metrics[2]", "empty metric name");
  spec2(&s, d);
  s.param_names = NULL;
  expect_plan_field(&s, "params[1]", "param_names NULL");
}

/* A NULL err is fine; a worker that cannot be created fails the run. */
static void test_plan_errors_null_err_and_worker(void **st) {
  (void)st;
  pod_mc_spec s;
  pod_dist d[2];
  pod_mc_plan *pl;
  pod_err e;
  spec2(&s, d);
  s.grid = 0;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_EINVAL);
  spec2(&s, d);
  s.eval.worker_new = wnew_fail;
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  pod_mc_results *r;
  assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_ENOMEM);
  assert_string_equal(e.field, "lua");
  assert_non_null(strstr(e.msg, "state"));
  pod_mc_plan_free(pl);
}

/* ---- built-in kernel evaluator ---- */

typedef struct toy_cfg {
  double bw_GBps;
  int ranks;
  char name[12];
  double bytes;
} toy_cfg;

static const char *const toy_metrics[] = {"time_s", "ranks_seen"};
static int toy_fn(const void *cfg, double *y, pod_err *err) {
  const toy_cfg *c = cfg;
  if (c->ranks < 2)
    return pod_err_set(err, POD_EINVAL, "ranks", "must be >= 2");
  if (strcmp(c->name, "toy") != 0)
    return pod_err_set(err, POD_EINVAL, "name", "lost");
  y[0] = 2.0 * (c->ranks - 1) / c->ranks * c->bytes / (c->bw_GBps * 1e9);
  y[1] = c->ranks;
  return POD_OK;
}
static const pod_kernel toy_kernel = {"toy", sizeof(toy_cfg), 2, toy_metrics,
                                      toy_fn};

static void test_kernel_evaluator(void **st) {
  (void)st;
  toy_cfg base[2] = {{100, 8, "toy", 1e9}, {100, 8, "toy", 4e9}};
  pod_bind binds[2] = {{offsetof(toy_cfg, bw_GBps), POD_BIND_DOUBLE},
                       {offsetof(toy_cfg, ranks), POD_BIND_INT}};
  pod_mc_evaluator ev;
  assert_int_equal(pod_mc_kernel_evaluator(&toy_kernel, base, 2, binds, 2, &ev),
                   POD_OK);
  base[0].bytes = -1; /* the evaluator copied the configs */
  static const char *const pn[] = {"bw_GBps", "ranks"};
  pod_dist d[2] = {pod_dist_uniform(50, 150), pod_dist_uniform(1.6, 8.4)};
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 2;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 2;
  s.metric_names = toy_metrics;
  s.grid = 2;
  s.samples = 4000;
  s.keep_samples = 1;
  s.eval = ev;
  pod_mc_results *r = run(&s);
  for (int g = 0; g < 2; g++) {
    const double *bw = pod_mc_results_param_column(r, g, 0);
    const double *rk = pod_mc_results_param_column(r, g, 1);
    const double *t = pod_mc_results_metric_column(r, g, 0);
    const double *seen = pod_mc_results_metric_column(r, g, 1);
    double bytes = g ? 4e9 : 1e9;
    for (int i = 0; i < 4000; i++) {
      int n = (int)round(rk[i]);
      assert_true(seen[i] == n && n >= 2 && n <= 8);
      assert_near(t[i], 2.0 * (n - 1) / n * bytes / (bw[i] * 1e9), 1e-15);
    }
  }
  pod_mc_results_free(r);

  /* the kernel's error travels with the sample; int range checked */
  pod_mc_plan *pl;
  pod_err e;
  d[1] = pod_dist_uniform(0, 1.4); /* rounds to 0 or 1 */
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "ranks");
  assert_non_null(strstr(e.msg, "must be >= 2 (grid 0, sample 0: bw_GBps="));
  pod_mc_plan_free(pl);
  d[1] = pod_dist_fixed(3e9);
  assert_int_equal(pod_mc_plan_new(&s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_ERANGE);
  assert_string_equal(e.field, "binds[2]");
  pod_mc_plan_free(pl);
  pod_mc_kernel_evaluator_free(&ev);
  assert_null(ev.eval);
  pod_mc_kernel_evaluator_free(&ev); /* harmless twice */

  /* bad binds */
  pod_bind bad = {sizeof(toy_cfg) - 4, POD_BIND_DOUBLE};
  assert_int_equal(pod_mc_kernel_evaluator(&toy_kernel, base, 2, &bad, 1, &ev),
                   POD_EINVAL);
  bad = (pod_bind){0, (pod_bind_type)9};
  assert_int_equal(pod_mc_kernel_evaluator(&toy_kernel, base, 2, &bad, 1, &ev),
                   POD_EINVAL);
  assert_int_equal(pod_mc_kernel_evaluator(&toy_kernel, base, 0, binds, 2, &ev),
                   POD_EINVAL);
  assert_int_equal(pod_mc_kernel_evaluator(NULL, base, 1, binds, 2, &ev),
                   POD_EINVAL);
}

/* ---- allocation failure: fail every allocation in turn ----
** Like Lua's testes/memerr.lua: the k-th allocation fails (k = 0, 1, ...)
** until the operation succeeds; each failure must come back as POD_ENOMEM
** (or, where a failure only degrades, as success) and leave nothing
** allocated.  The process's malloc family is interposed through glibc's
** __libc_* entry points, so GSL's allocations fail too.  Not built under
** sanitizers, which interpose malloc themselves. */
#include "failalloc.h"
#ifdef POD_ALLOC_FAIL

/* Build a plan with a discrete and an empirical parameter, run it, finish;
** returns the first failing status. */
static int alloc_scenario(int mode) {
  static const char *const pn[] = {"a", "b", "c"};
  static const double dv[] = {1, 2, 3}, dw[] = {1, 2, 1}, ev[] = {4, 5, 6, 7};
  pod_dist d[3];
  int rc = pod_dist_discrete(dv, dw, 3, &d[0], NULL);
  if (rc) return rc;
  rc = pod_dist_empirical(ev, 4, &d[1], NULL);
  if (rc) {
    pod_dist_free(&d[0]);
    return rc;
  }
  d[2] = pod_dist_normal(0, 1);
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 3;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 2;
  s.metric_names = mn2;
  s.grid = 2;
  s.samples = 600;
  s.chunk_size = 128;
  s.eval.eval = eval_sum_prod;
  s.keep_samples = 1;
  s.sensitivity = mode == 2 ? POD_MC_SENS_SOBOL : POD_MC_SENS_SPEARMAN;
  if (mode == 1) s.max_samples_mb = 0.01; /* sketches + stored prefix */
  pod_mc_plan *pl = NULL;
  pod_mc_results *r = NULL;
  rc = pod_mc_plan_new(&s, &pl, NULL);
  if (!rc) rc = pod_mc_run_serial(pl, &r, NULL);
  pod_mc_results_free(r);
  pod_mc_plan_free(pl);
  pod_dist_free(&d[0]);
  pod_dist_free(&d[1]);
  return rc;
}

static int alloc_stats(void) {
  double x[5000], rk[5000], q[POD_STATS_NQ];
  for (int i = 0; i < 5000; i++) x[i] = sin(i * 0.7) * exp(i % 17);
  int rc = pod_stats_ranks(x, 5000, rk);
  if (rc) return rc;
  double rho;
  if ((rc = pod_stats_spearman(x, rk, 5000, &rho))) return rc;
  if (!(rho > 0.99)) return POD_ERANGE;
  pod_stats_quantiles(x, 5000, pod_stats_qprobs, POD_STATS_NQ,
                      q); /* degrades, never fails */
  pod_stats_sort(x, 5000);
  for (int i = 1; i < 5000; i++)
    if (x[i - 1] > x[i]) return POD_ERANGE;
  pod_sketch a, b;
  pod_sketch_init(&a, POD_SKETCH_ALPHA, NULL);
  pod_sketch_init(&b, POD_SKETCH_ALPHA, NULL);
  for (int i = 0; i < 200 && !rc; i++)
    rc = pod_sketch_add(&a, exp(i * 0.3) - 20);
  for (int i = 0; i < 50 && !rc; i++) rc = pod_sketch_add(&b, -exp(i * 0.5));
  if (!rc) rc = pod_sketch_merge(&a, &b, NULL);
  pod_sketch_free(&a);
  pod_sketch_free(&b);
  if (rc) return rc;
  pod_hist h;
  if ((rc = pod_hist_init(&h, 10, 0, 1, 0, NULL))) return rc;
  pod_hist_free(&h);
  pod_mc_evaluator ev;
  toy_cfg base = {100, 8, "toy", 1e9};
  pod_bind bd = {offsetof(toy_cfg, bw_GBps), POD_BIND_DOUBLE};
  if ((rc = pod_mc_kernel_evaluator(&toy_kernel, &base, 1, &bd, 1, &ev)))
    return rc;
  pod_mc_kernel_evaluator_free(&ev);
  return POD_OK;
}

static void test_alloc_failures(void **st) {
  (void)st;
  for (int mode = 0; mode < 4; mode++) {
    int k = 0;
    for (;; k++) {
      long before = atomic_load(&live);
      atomic_store(&countdown, k);
      int rc = mode < 3 ? alloc_scenario(mode) : alloc_stats();
      long fired = atomic_load(&countdown) < 0;
      atomic_store(&countdown, -1);
      long after = atomic_load(&live);
      if (after != before)
        fail_msg("mode %d: allocation %d failing leaks %ld blocks", mode, k,
                 after - before);
      if (!fired) { /* no allocation failed: the whole scenario ran */
        assert_int_equal(rc, POD_OK);
        break;
      }
      if (rc != POD_OK && rc != POD_ENOMEM)
        fail_msg("mode %d: allocation %d failing gives status %d", mode, k, rc);
    }
    assert_true(k > 5);
  }
}
#endif

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic_stats),
      cmocka_unit_test(test_determinism_and_seeds),
      cmocka_unit_test(test_sobol_ishigami),
      cmocka_unit_test(test_sobol_pseudo_random),
      cmocka_unit_test(test_sketch_mode_and_spearman),
      cmocka_unit_test(test_spearman_discrete),
      cmocka_unit_test(test_stopping),
      cmocka_unit_test(test_eval_errors),
      cmocka_unit_test(test_nonfinite_unfit),
      cmocka_unit_test(test_plan_errors_sizes),
      cmocka_unit_test(test_plan_errors_options),
      cmocka_unit_test(test_plan_errors_names),
      cmocka_unit_test(test_plan_errors_null_err_and_worker),
      cmocka_unit_test(test_kernel_evaluator),
#ifdef POD_ALLOC_FAIL
      cmocka_unit_test(test_alloc_failures),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
