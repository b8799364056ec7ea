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
#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#include "pod_mc.h"

#define assert_near(a, b, tol)                                                \
  do {                                                                        \
    double a_ = (a), b_ = (b), t_ = (tol);                                    \
    if (!(fabs(a_ - b_) <= t_))                                               \
      fail_msg("%s = %.17g, expected %.17g +/- %g", #a, a_, b_, t_);          \
  } while (0)

/* ---- evaluators ---- */

/* y0 = x0 + x1, y1 = x0 * x1 (+ grid index * 10 on y0). */
static int eval_sum_prod(void *ud, void *w, int g, const double *x, double *y,
                         pod_err *err) {
  (void)ud; (void)w; (void)err;
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
        assert_true(sm.q[q] == gsl_stats_quantile_from_sorted_data(sorted, 1, 5000, pod_stats_qprobs[q]));
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
    for (int i = 0; i < 5000; i += 997) assert_true(y[i] == a[i] + b[i] + 10.0 * g);
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

int main(void) {
  gsl_set_error_handler_off();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_basic_stats),
      cmocka_unit_test(test_determinism_and_seeds),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
