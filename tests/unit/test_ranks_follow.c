/*
** test_ranks_follow.c: what a study's finish uses to keep fewer orders
** (core/stats_rank.c, core/stats_corr.c): pod_ranks_may_follow against
** pod_ranks_reuse (it must never say 0 where reuse succeeds, and says 0
** for columns that go both ways or hold a -0), and a ranking that leaves
** its order in the work's scratch (POD_RANKS_ORDER_WORK) against one
** that keeps it in a buffer of its own; ranks shared with another
** ranking (pod_ranks_reuse_shared) against the same ranks written out.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>

#include "pod_err.h"
#include "pod_stats.h"

/* 1 when y takes its ranks from x's order (pod_ranks_reuse succeeds). */
static int reuse_ok(const double *x, const double *y, size_t n) {
  pod_ranks a, b;
  assert_int_equal(pod_ranks_init_ordered(&a, x, n, NULL, 0, NULL), POD_OK);
  int rc = pod_ranks_reuse(&b, y, n, &a, NULL, 0, NULL);
  assert_true(rc == POD_OK || rc == POD_ERANGE);
  pod_ranks_free(&a);
  pod_ranks_free(&b);
  return rc == POD_OK;
}

/* Columns that follow x (up, down, with ties in x and y) and columns
** that do not: may_follow agrees with reuse on each, alone and among
** others; a -0 anywhere sampled; sizes under the sample. */
static void test_may_follow(void **st) {
  (void)st;
  enum { N = 5000, KINDS = 7 };
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *x = malloc(N * sizeof *x), *y[KINDS];
  for (int k = 0; k < KINDS; k++) y[k] = malloc(N * sizeof *y[k]);
  for (size_t i = 0; i < N; i++) {
    x[i] = floor(gsl_rng_uniform(g) * 50); /* ties: kept in index order */
    y[0][i] = 2 * x[i] + 1;                /* up, tied where x ties */
    y[1][i] = -x[i] * 1e4 - (double)i;     /* down, along ties too */
    y[2][i] = x[i] * 1e4 + (double)i;      /* up, along ties too */
    y[3][i] = x[i] * 1e4 - (double)i;      /* up across ties, down along */
    y[4][i] = gsl_rng_uniform(g);          /* unrelated */
    y[5][i] = 7.0;                         /* constant: follows anything */
    y[6][i] = x[i] + 1;                    /* up, but with a -0: refused */
  }
  y[6][0] = -0.0; /* row 0 is always sampled */
  static const int follows[KINDS] = {1, 1, 1, 0, 0, 1, 0};
  for (int k = 0; k < KINDS; k++) {
    const double *one[1] = {y[k]};
    assert_int_equal(reuse_ok(x, y[k], N), follows[k]);
    assert_int_equal(pod_ranks_may_follow(x, N, one, 1), follows[k]);
  }
  /* several: 1 as soon as one may follow, wherever it is in the list */
  const double *none[2] = {y[3], y[4]}, *last[3] = {y[3], y[4], y[2]};
  assert_int_equal(pod_ranks_may_follow(x, N, none, 2), 0);
  assert_int_equal(pod_ranks_may_follow(x, N, last, 3), 1);
  assert_int_equal(pod_ranks_may_follow(x, N, last, 0), 0);
  assert_int_equal(pod_ranks_may_follow(x, 0, last, 3), 0);
  /* fewer rows than the sample: every row is looked at, so the answer
  ** is reuse's own */
  for (size_t n = 1; n <= 40; n += 13)
    for (int k = 0; k < KINDS; k++) {
      const double *one[1] = {y[k]};
      assert_int_equal(pod_ranks_may_follow(x, n, one, 1),
                       reuse_ok(x, y[k], n));
    }
  /* random monotone maps of random columns never get a 0 */
  for (int rep = 0; rep < 20; rep++) {
    double s = gsl_rng_uniform(g) < 0.5 ? -1 : 1;
    for (size_t i = 0; i < N; i++) {
      x[i] = gsl_ran_lognormal(g, 0, 1 + rep % 3);
      y[0][i] = s * log(x[i]) + 3;
    }
    const double *one[1] = {y[0]};
    assert_int_equal(reuse_ok(x, y[0], N), 1);
    assert_int_equal(pod_ranks_may_follow(x, N, one, 1), 1);
  }
  for (int k = 0; k < KINDS; k++) free(y[k]);
  free(x);
  gsl_rng_free(g);
}

/* POD_RANKS_ORDER_WORK: the ranks, sums and quantiles of a ranking that
** keeps its order, the same order in the work's scratch (r->order NULL),
** until the work's next ranking; NULL after other calls; no work:
** POD_EINVAL. */
static void test_order_in_work(void **st) {
  (void)st;
  enum { N = 20000 };
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *x = malloc(N * sizeof *x), b[2] = {-1e9, 1e9};
  for (size_t i = 0; i < N; i++)
    x[i] = i % 11 == 0 ? 0.5 : gsl_ran_gaussian(g, 3.0); /* some ties */
  pod_ranks_work *w = pod_ranks_work_new();
  assert_non_null(w);
  assert_null(pod_ranks_work_order(w));
  for (size_t n = 1; n <= N; n = n * 9 + 1) {
    double q1[POD_STATS_NQ], q2[POD_STATS_NQ];
    pod_ranks r, o;
    assert_int_equal(
        pod_ranks_init_ordered(&o, x, n, pod_stats_qprobs, POD_STATS_NQ, q1),
        POD_OK);
    assert_int_equal(
        pod_ranks_init_with(&r, x, n, b, pod_stats_qprobs, POD_STATS_NQ, q2,
                            POD_RANKS_ORDER_WORK, w),
        POD_OK);
    assert_null(r.order);
    assert_non_null(pod_ranks_work_order(w));
    assert_memory_equal(pod_ranks_work_order(w), o.order, n * sizeof *o.order);
    assert_memory_equal(r.r2, o.r2, n * sizeof *o.r2);
    assert_memory_equal(q1, q2, sizeof q1);
    assert_true(r.ss_hi == o.ss_hi && r.ss_lo == o.ss_lo);
    pod_ranks_recycle(&r, w);
    pod_ranks_free(&o);
    /* another ranking on the work drops it */
    assert_int_equal(pod_ranks_init_with(&r, x, n, NULL, NULL, 0, NULL, 0, w),
                     POD_OK);
    assert_null(pod_ranks_work_order(w));
    pod_ranks_recycle(&r, w);
  }
  pod_ranks r;
  assert_int_equal(pod_ranks_init_with(&r, x, 10, NULL, NULL, 0, NULL,
                                       POD_RANKS_ORDER_WORK, w),
                   POD_OK);
  assert_non_null(pod_ranks_work_order(w));
  pod_ranks_recycle(&r, w);
  /* a failed ranking leaves none */
  assert_int_equal(pod_ranks_init_with(&r, x, POD_RANKS_MAX + (size_t)1, NULL,
                                       NULL, 0, NULL, POD_RANKS_ORDER_WORK, w),
                   POD_ENOMEM);
  assert_null(pod_ranks_work_order(w));
  assert_null(r.r2);
  assert_int_equal(pod_ranks_init_with(&r, x, 10, NULL, NULL, 0, NULL,
                                       POD_RANKS_ORDER_WORK, NULL),
                   POD_EINVAL);
  assert_null(r.r2);
  pod_ranks_work_free(w);
  free(x);
  gsl_rng_free(g);
}

/* y's ranks by reuse_shared from like's order: shared (or not) as
** expected, with the quantiles of pod_ranks_reuse_with; *w2 the same
** ranks written out. */
static void shared_vs_written(const double *y, size_t n, const pod_ranks *like,
                              int want_shared, int want_flip, pod_ranks *s,
                              pod_ranks *w2, pod_ranks_work *wk) {
  double q1[POD_STATS_NQ], q2[POD_STATS_NQ];
  assert_int_equal(pod_ranks_reuse_shared(s, y, n, like, pod_stats_qprobs,
                                          POD_STATS_NQ, q1, wk),
                   POD_OK);
  assert_int_equal(pod_ranks_reuse_with(w2, y, n, like, pod_stats_qprobs,
                                        POD_STATS_NQ, q2, wk),
                   POD_OK);
  assert_memory_equal(q1, q2, sizeof q1);
  assert_int_equal(s->n, n);
  assert_true(s->ss_hi == w2->ss_hi && s->ss_lo == w2->ss_lo);
  assert_null(s->order);
  if (want_shared) {
    assert_null(s->r2);
    assert_ptr_equal(s->same, like);
    assert_int_equal(s->flip, want_flip);
  } else {
    assert_non_null(s->r2);
    assert_null(s->same);
    assert_memory_equal(s->r2, w2->r2, n * sizeof *s->r2);
  }
}

/* Shared ranks: up and down along an untied column, refused (written
** out) with ties on either side, ERANGE when not monotone or with a -0;
** pod_ranks_spearman and pod_ranks_spearman_n (directly and through
** pod_ranks_spearman_col) give the coefficients of the written ranks bit
** for bit, shared on either side or both. */
static void test_reuse_shared(void **st) {
  (void)st;
  enum { N = 30000 };
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *x = malloc(N * sizeof *x), *up = malloc(N * sizeof *up);
  double *down = malloc(N * sizeof *down), *tied = malloc(N * sizeof *tied);
  double *p = malloc(N * sizeof *p), *bad = malloc(N * sizeof *bad);
  for (size_t i = 0; i < N; i++) {
    x[i] = gsl_ran_lognormal(g, 0, 1);
    up[i] = 3 * x[i] + 1;
    down[i] = 1 / x[i];
    tied[i] = floor(x[i] * 4);
    p[i] = x[i] * gsl_ran_flat(g, 0.2, 2.0) + (i % 5 == 0 ? 7 : 0);
    bad[i] = up[i];
  }
  bad[N / 2] = -0.0;
  pod_ranks_work *wk = pod_ranks_work_new();
  assert_non_null(wk);
  pod_ranks like, tl, pr, m[4], w2[4];
  assert_int_equal(pod_ranks_init_ordered(&like, x, N, NULL, 0, NULL), POD_OK);
  shared_vs_written(up, N, &like, 1, 0, &m[1], &w2[1], wk);
  shared_vs_written(down, N, &like, 1, 1, &m[2], &w2[2], wk);
  shared_vs_written(tied, N, &like, 0, 0, &m[3], &w2[3], wk);
  assert_int_equal(pod_ranks_init(&m[0], p, N, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&w2[0], p, N, NULL, 0, NULL), POD_OK);
  assert_int_equal(pod_ranks_init(&pr, p, N, NULL, 0, NULL), POD_OK);
  /* pairs: shared on the left, the right, both, against written ranks */
  for (int k = 1; k < 4; k++) {
    double a = pod_ranks_spearman(&m[k], &pr),
           b = pod_ranks_spearman(&w2[k], &pr);
    assert_memory_equal(&a, &b, sizeof a);
    a = pod_ranks_spearman(&pr, &m[k]);
    assert_memory_equal(&a, &b, sizeof a);
    for (int j = 1; j < 4; j++) {
      a = pod_ranks_spearman(&m[k], &m[j]);
      b = pod_ranks_spearman(&w2[k], &w2[j]);
      assert_memory_equal(&a, &b, sizeof a);
    }
  }
  assert_true(pod_ranks_spearman(&m[2], &pr) < -0.3);
  double r1[4], r2[4], r3[4];
  pod_ranks_spearman_n(m, 4, &pr, r1);
  pod_ranks_spearman_n(w2, 4, &pr, r2);
  assert_memory_equal(r1, r2, sizeof r1);
  pod_ranks_spearman_n(m, 4, &m[2], r1); /* b shared, reversed */
  pod_ranks_spearman_n(w2, 4, &w2[2], r2);
  assert_memory_equal(r1, r2, sizeof r1);
  assert_int_equal(pod_ranks_spearman_col(p, N, NULL, m, 4, r3, wk), POD_OK);
  pod_ranks_spearman_n(w2, 4, &pr, r2);
  assert_memory_equal(r3, r2, sizeof r3);
  /* refused: not monotone, a -0 (nothing kept); like with ties: written */
  pod_ranks s;
  assert_int_equal(pod_ranks_reuse_shared(&s, p, N, &like, NULL, 0, NULL, wk),
                   POD_ERANGE);
  assert_true(s.r2 == NULL && s.same == NULL && s.n == 0);
  assert_int_equal(pod_ranks_reuse_shared(&s, bad, N, &like, NULL, 0, NULL, wk),
                   POD_ERANGE);
  assert_true(s.r2 == NULL && s.same == NULL);
  assert_int_equal(pod_ranks_init_ordered(&tl, tied, N, NULL, 0, NULL), POD_OK);
  pod_ranks s2;
  shared_vs_written(tied, N, &tl, 0, 0, &s, &s2, wk);
  pod_ranks_recycle(&s, wk);
  pod_ranks_recycle(&s2, wk);
  assert_int_equal(pod_ranks_reuse_shared(&s, x, 1, &like, NULL, 0, NULL, wk),
                   POD_EINVAL); /* another n */
  assert_int_equal(pod_ranks_reuse_shared(&s, x, N, &pr, NULL, 0, NULL, wk),
                   POD_EINVAL); /* no order */
  for (int k = 0; k < 4; k++) {
    pod_ranks_free(&m[k]);
    pod_ranks_free(&w2[k]);
  }
  pod_ranks_free(&like);
  pod_ranks_free(&tl);
  pod_ranks_free(&pr);
  pod_ranks_work_free(wk);
  free(x);
  free(up);
  free(down);
  free(tied);
  free(p);
  free(bad);
  gsl_rng_free(g);
}

int main(void) {
  pod_init();
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_may_follow),
      cmocka_unit_test(test_order_in_work),
      cmocka_unit_test(test_reuse_shared),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
