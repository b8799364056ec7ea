/*
** test_run.c: the libuv runner (pod_run.h) on real loops: determinism across
** thread counts, cancel, stopping rule, first error in chunk order,
** concurrent runs, callbacks exactly once, uv_loop_close() == 0.
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
#include <uv.h>

#include "pod_err.h"
#include "pod_run.h"

/* ---- evaluator with counted workers ---- */

typedef struct ev_ud {
  double fail_above; /* eval fails when x0 > this */
  uv_mutex_t mu;
  int workers_alive, workers_made;
} ev_ud;

static void *w_new(void *ud, pod_err *err) {
  (void)err;
  ev_ud *u = ud;
  void *w = malloc(16);
  if (!w) return NULL;
  uv_mutex_lock(&u->mu);
  u->workers_alive++;
  u->workers_made++;
  uv_mutex_unlock(&u->mu);
  return w;
}

static void w_free(void *ud, void *w) {
  ev_ud *u = ud;
  uv_mutex_lock(&u->mu);
  u->workers_alive--;
  uv_mutex_unlock(&u->mu);
  free(w);
}

static int ev_fn(void *ud, void *w, int g, const double *x, double *y,
                 pod_err *err) {
  const ev_ud *u = ud;
  (void)w;
  if (x[0] > u->fail_above)
    return pod_err_set(err, POD_EINVAL, "x0", "too large");
  y[0] = x[0] * exp(x[1]) + g;
  y[1] = sin(x[0] * 3) + x[1] * x[1];
  y[2] = x[2];
  return POD_OK;
}

static const char *const pn[] = {"a", "b", "c"};
static const char *const mn[] = {"y0", "y1", "y2"};

typedef struct setup {
  pod_mc_spec s;
  pod_dist d[3];
  ev_ud u;
} setup;

static void mk_setup(setup *t) {
  memset(t, 0, sizeof *t);
  uv_mutex_init(&t->u.mu);
  t->u.fail_above = INFINITY;
  pod_mc_spec_init(&t->s);
  t->d[0] = pod_dist_uniform(0, 1);
  t->d[1] = pod_dist_normal(0, 0.3);
  t->d[2] = pod_dist_lognormal(0, 1);
  t->s.nparams = 3;
  t->s.param_names = pn;
  t->s.dists = t->d;
  t->s.nmetrics = 3;
  t->s.metric_names = mn;
  t->s.grid = 3;
  t->s.samples = 20000;
  t->s.chunk_size = 250;
  t->s.seed = 7;
  t->s.keep_samples = 1;
  t->s.sensitivity = POD_MC_SENS_SPEARMAN;
  t->s.eval = (pod_mc_evaluator){&t->u, w_new, w_free, ev_fn, NULL, NULL};
}

typedef struct outcome {
  int done_calls, progress_calls;
  pod_run_status status;
  pod_mc_results *r;
  pod_err err;
  int cancel_after_progress;
  int64_t max_progress;
} outcome;

static void on_done(pod_run *run, pod_run_status st, void *ud) {
  outcome *o = ud;
  o->done_calls++;
  o->status = st;
  o->r = pod_run_take_results(run);
  o->err = *pod_run_error(run);
  pod_run_free(run); /* freeing inside done_cb is allowed */
}

static void on_progress(pod_run *run, const pod_run_progress *p, void *ud) {
  outcome *o = ud;
  o->progress_calls++;
  assert_true(p->samples_done <= p->samples_total);
  assert_true(p->samples_done >= o->max_progress);
  assert_true(p->chunks_done <= p->chunks_total);
  assert_true(p->elapsed_s > 0 && p->rate_per_s >= 0);
  assert_true(p->samples_done == 0 || p->rate_per_s > 0);
  o->max_progress = p->samples_done;
  if (o->cancel_after_progress) pod_run_cancel(run);
}

/* Run spec on a fresh loop with `threads` and `window` (0: the default,
** which sets how many chunks one work item runs); checks the loop closes. */
static void run_window(setup *t, int threads, int window, outcome *o,
                       int progress) {
  uv_loop_t loop;
  assert_int_equal(uv_loop_init(&loop), 0);
  pod_mc_plan *pl;
  pod_err e;
  assert_int_equal(pod_mc_plan_new(&t->s, &pl, &e), POD_OK);
  pod_run_opts opts = {.threads = threads,
                       .window = window,
                       .progress_cb = progress ? on_progress : NULL,
                       .interval_ms = 1,
                       .done_cb = on_done,
                       .ud = o};
  pod_run *run;
  assert_int_equal(pod_run_start(&loop, pl, &opts, &run, &e), POD_OK);
  assert_int_equal(o->done_calls, 0); /* never synchronous */
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(o->done_calls, 1);
  assert_int_equal(uv_loop_close(&loop), 0);
  assert_int_equal(t->u.workers_alive, 0);
  assert_true(t->u.workers_made <= threads);
  pod_mc_plan_free(pl);
}

static void run_on_loop(setup *t, int threads, outcome *o, int progress) {
  run_window(t, threads, 0, o, progress);
}

static void assert_same_results(const pod_mc_results *a,
                                const pod_mc_results *b) {
  int G = pod_mc_results_grid(a), M = pod_mc_results_nmetrics(a),
      P = pod_mc_results_nparams(a);
  assert_int_equal(pod_mc_results_samples_done(a),
                   pod_mc_results_samples_done(b));
  for (int g = 0; g < G; g++) {
    assert_int_equal(pod_mc_results_rows(a, g), pod_mc_results_rows(b, g));
    int64_t rows = pod_mc_results_rows(a, g);
    for (int m = 0; m < M; m++) {
      pod_mc_summary x, y;
      pod_mc_results_summary(a, m, g, &x);
      pod_mc_results_summary(b, m, g, &y);
      assert_memory_equal(&x, &y, sizeof x);
      const pod_hist *h1 = pod_mc_results_hist(a, m, g),
                     *h2 = pod_mc_results_hist(b, m, g);
      assert_memory_equal(h1->counts, h2->counts,
                          sizeof(int64_t) * (size_t)h1->nbins);
      if (rows)
        assert_memory_equal(pod_mc_results_metric_column(a, g, m),
                            pod_mc_results_metric_column(b, g, m),
                            sizeof(double) * (size_t)rows);
      for (int p = 0; p < P; p++) {
        pod_mc_sens_value s1, s2;
        pod_mc_results_sensitivity(a, g, p, m, &s1);
        pod_mc_results_sensitivity(b, g, p, m, &s2);
        assert_memory_equal(&s1, &s2, sizeof s1);
      }
    }
  }
}

static void free_setup(setup *t) {
  uv_mutex_destroy(&t->u.mu);
}

static void test_determinism_threads(void **st) {
  (void)st;
  for (int sketch = 0; sketch < 2; sketch++) {
    pod_mc_results *ref = NULL;
    int threads[] = {1, 2, 8};
    for (int i = 0; i < 3; i++) {
      setup t;
      mk_setup(&t);
      if (sketch) t.s.max_samples_mb = 0.5; /* sketch + stored prefix */
      outcome o = {0};
      run_on_loop(&t, threads[i], &o, 1);
      assert_int_equal(o.status, POD_RUN_COMPLETE);
      assert_non_null(o.r);
      assert_true(pod_mc_results_complete(o.r));
      pod_mc_summary sm;
      pod_mc_results_summary(o.r, 0, 0, &sm);
      assert_int_equal(sm.quantiles_exact, !sketch);
      assert_int_equal(pod_mc_results_spearman_partial(o.r), sketch);
      if (!ref) {
        ref = o.r;
      } else {
        assert_same_results(ref, o.r);
        pod_mc_results_free(o.r);
      }
      free_setup(&t);
    }
    /* the runner agrees with the serial reference */
    setup t;
    mk_setup(&t);
    if (sketch) t.s.max_samples_mb = 0.5;
    pod_mc_plan *pl;
    pod_mc_results *r;
    assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
    assert_int_equal(pod_mc_run_serial(pl, &r, NULL), POD_OK);
    assert_same_results(ref, r);
    pod_mc_results_free(r);
    pod_mc_plan_free(pl);
    free_setup(&t);
    pod_mc_results_free(ref);
  }
}

/* A Saltelli design (quasi-random Sobol slices cloned per chunk), with
** exact and with sketched quantiles, gives the same bytes on 1, 2 and 8
** threads. */
static void test_determinism_sobol(void **st) {
  (void)st;
  for (int big = 0; big < 2; big++) {
    pod_mc_results *ref = NULL;
    int threads[] = {1, 2, 8};
    for (int i = 0; i < 3; i++) {
      setup t;
      mk_setup(&t);
      t.s.sensitivity = POD_MC_SENS_SOBOL;
      t.s.samples = 3000;
      t.s.chunk_size = 128;
      t.s.max_samples_mb = big ? 0.01 : 256;
      outcome o = {0};
      run_on_loop(&t, threads[i], &o, 0);
      assert_int_equal(o.status, POD_RUN_COMPLETE);
      pod_mc_sens_value v;
      pod_mc_results_sensitivity(o.r, 1, 0, 0, &v);
      assert_true(v.sobol_first > 0.5 &&
                  v.sobol_total < 1.2); /* y0 is mostly a */
      if (!ref) {
        ref = o.r;
      } else {
        assert_same_results(ref, o.r);
        pod_mc_results_free(o.r);
      }
      free_setup(&t);
    }
    pod_mc_results_free(ref);
  }
}

static void test_cancel(void **st) {
  (void)st;
  /* cancel right after start: nothing or little merged, done once */
  setup t;
  mk_setup(&t);
  t.s.samples = 2000000;
  t.s.chunk_size = 1000;
  uv_loop_t loop;
  uv_loop_init(&loop);
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
  outcome o = {0};
  pod_run_opts opts = {.threads = 2,
                       .window = 4,
                       .progress_cb = NULL,
                       .interval_ms = 0,
                       .done_cb = on_done,
                       .ud = &o};
  pod_run *run;
  assert_int_equal(pod_run_start(&loop, pl, &opts, &run, NULL), POD_OK);
  pod_run_cancel(run);
  pod_run_cancel(run); /* idempotent */
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(o.done_calls, 1);
  assert_int_equal(o.status, POD_RUN_CANCELED);
  assert_non_null(o.r);
  assert_false(pod_mc_results_complete(o.r));
  assert_true(pod_mc_results_chunks_done(o.r) <
              pod_mc_results_chunks_total(o.r));
  assert_int_equal(uv_loop_close(&loop), 0);
  assert_int_equal(t.u.workers_alive, 0);
  pod_mc_results_free(o.r);
  pod_mc_plan_free(pl);
  free_setup(&t);

  /* cancel from the progress callback after some progress */
  mk_setup(&t);
  t.s.samples = 2000000;
  t.s.chunk_size = 1000;
  outcome o2 = {0};
  o2.cancel_after_progress = 1;
  run_on_loop(&t, 2, &o2, 1);
  assert_int_equal(o2.status, POD_RUN_CANCELED);
  assert_true(o2.progress_calls >= 1);
  assert_false(pod_mc_results_complete(o2.r));
  /* the partial results are a consistent prefix */
  pod_mc_summary sm;
  pod_mc_results_summary(o2.r, 0, 0, &sm);
  assert_int_equal(sm.n, pod_mc_results_rows(o2.r, 0));
  pod_mc_results_free(o2.r);
  free_setup(&t);
}

static void test_stopping_rule(void **st) {
  (void)st;
  int64_t chunks = -1;
  pod_mc_summary ref;
  for (int threads = 1; threads <= 4; threads += 3) {
    setup t;
    mk_setup(&t);
    t.s.samples = 1000000;
    t.s.chunk_size = 200;
    t.s.stop_metric = 0;
    t.s.stop_rel_ci95 = 0.01;
    outcome o = {0};
    run_on_loop(&t, threads, &o, 0);
    assert_int_equal(o.status, POD_RUN_STOPPED);
    assert_true(pod_mc_results_stopped(o.r));
    assert_false(pod_mc_results_complete(o.r));
    pod_mc_summary sm;
    pod_mc_results_summary(o.r, 0, 2, &sm);
    assert_true(0.5 * (sm.ci95_hi - sm.ci95_lo) <= 0.01 * fabs(sm.mean));
    if (chunks < 0) {
      chunks = pod_mc_results_chunks_done(o.r);
      ref = sm;
    } else {
      assert_int_equal(pod_mc_results_chunks_done(o.r), chunks);
      assert_memory_equal(&sm, &ref, sizeof sm);
    }
    assert_int_equal(chunks % 3, 0); /* rounds end on a grid boundary */
    pod_mc_results_free(o.r);
    free_setup(&t);
  }
}

static void test_first_error(void **st) {
  (void)st;
  /* serial reference: the first failing chunk in chunk order */
  setup t;
  mk_setup(&t);
  t.u.fail_above = 0.9995;
  pod_mc_plan *pl;
  pod_mc_results *r;
  pod_err ref;
  assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &r, &ref), POD_EINVAL);
  assert_null(r);
  assert_string_equal(ref.field, "x0");
  assert_non_null(strstr(ref.msg, "too large (grid "));
  assert_non_null(strstr(ref.msg, "a="));
  pod_mc_plan_free(pl);
  free_setup(&t);
  for (int threads = 1; threads <= 8; threads *= 2) {
    mk_setup(&t);
    t.u.fail_above = 0.9995;
    outcome o = {0};
    run_on_loop(&t, threads, &o, 0);
    assert_int_equal(o.status, POD_RUN_FAILED);
    assert_null(o.r);
    assert_int_equal(o.err.code, POD_EINVAL);
    assert_string_equal(o.err.msg, ref.msg);
    free_setup(&t);
  }
}

/* Batches of chunks per work item (window / (2 threads), at most 8): with
** windows that give batches of 1 to 8 chunks, partial last batches and
** windows no multiple of them, the results are the serial run's, and the
** first failing chunk (with the chunks after it in its batch skipped) is
** the serial run's. */
static void test_batches(void **st) {
  (void)st;
  setup t;
  mk_setup(&t);
  t.s.chunk_size = 300; /* 17 chunks per grid point: a partial batch */
  pod_mc_plan *pl;
  pod_mc_results *ref;
  assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
  assert_int_equal(pod_mc_run_serial(pl, &ref, NULL), POD_OK);
  pod_mc_plan_free(pl);
  free_setup(&t);
  const int cases[][2] = {{1, 1}, {1, 3}, {1, 16}, {1, 17}, {1, 40},
                          {2, 2}, {2, 7}, {2, 16}, {3, 13}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    mk_setup(&t);
    t.s.chunk_size = 300;
    outcome o = {0};
    run_window(&t, cases[i][0], cases[i][1], &o, 0);
    assert_int_equal(o.status, POD_RUN_COMPLETE);
    assert_same_results(ref, o.r);
    pod_mc_results_free(o.r);
    free_setup(&t);
    mk_setup(&t);
    t.s.chunk_size = 300;
    t.u.fail_above = 0.9995;
    pod_err e;
    assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
    pod_mc_results *r;
    assert_int_equal(pod_mc_run_serial(pl, &r, &e), POD_EINVAL);
    pod_mc_plan_free(pl);
    free_setup(&t);
    mk_setup(&t); /* fresh worker counts */
    t.s.chunk_size = 300;
    t.u.fail_above = 0.9995;
    outcome f = {0};
    run_window(&t, cases[i][0], cases[i][1], &f, 0);
    assert_int_equal(f.status, POD_RUN_FAILED);
    assert_null(f.r);
    assert_string_equal(f.err.msg, e.msg);
    free_setup(&t);
  }
  pod_mc_results_free(ref);
}

static atomic_int failing_wnew_calls;
static void *w_new_fail(void *ud, pod_err *err) {
  (void)ud;
  failing_wnew_calls++;
  pod_err_set(err, POD_ENOMEM, "lua", "no state");
  return NULL;
}

static void test_worker_failure_and_args(void **st) {
  (void)st;
  setup t;
  mk_setup(&t);
  t.s.eval.worker_new = w_new_fail;
  outcome o = {0};
  uv_loop_t loop;
  uv_loop_init(&loop);
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
  pod_run *run;
  pod_err e;
  pod_run_opts bad = {.threads = 0,
                      .window = 0,
                      .progress_cb = NULL,
                      .interval_ms = 0,
                      .done_cb = on_done,
                      .ud = &o};
  assert_int_equal(pod_run_start(&loop, pl, &bad, &run, &e), POD_EINVAL);
  assert_string_equal(e.field, "threads");
  bad.threads = 4;
  bad.window = 2;
  assert_int_equal(pod_run_start(&loop, pl, &bad, &run, &e), POD_EINVAL);
  assert_string_equal(e.field, "window");
  bad.window = 0;
  bad.done_cb = NULL;
  assert_int_equal(pod_run_start(&loop, pl, &bad, &run, &e), POD_EINVAL);
  assert_string_equal(e.field, "done_cb");
  assert_int_equal(pod_run_start(NULL, pl, &bad, &run, &e), POD_EINVAL);
  pod_run_opts opts = {.threads = 2,
                       .window = 0,
                       .progress_cb = NULL,
                       .interval_ms = 0,
                       .done_cb = on_done,
                       .ud = &o};
  assert_int_equal(pod_run_start(&loop, pl, &opts, &run, &e), POD_OK);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(o.done_calls, 1);
  assert_int_equal(o.status, POD_RUN_FAILED);
  assert_string_equal(o.err.field, "lua");
  assert_non_null(strstr(o.err.msg, "no state"));
  assert_int_equal(uv_loop_close(&loop), 0);
  pod_mc_plan_free(pl);
  free_setup(&t);
  /* the pool size is fixed once a run has started */
  assert_int_equal(pod_run_set_threads(0), POD_EINVAL);
  assert_int_equal(pod_run_set_threads(4), POD_ENOTSUP);
}

static void test_concurrent_runs(void **st) {
  (void)st;
  setup t1, t2;
  mk_setup(&t1);
  mk_setup(&t2);
  t2.s.seed = 99;
  t2.s.grid = 1;
  uv_loop_t loop;
  uv_loop_init(&loop);
  pod_mc_plan *p1, *p2;
  assert_int_equal(pod_mc_plan_new(&t1.s, &p1, NULL), POD_OK);
  assert_int_equal(pod_mc_plan_new(&t2.s, &p2, NULL), POD_OK);
  outcome o1 = {0}, o2 = {0};
  pod_run_opts a = {.threads = 2,
                    .window = 0,
                    .progress_cb = on_progress,
                    .interval_ms = 1,
                    .done_cb = on_done,
                    .ud = &o1};
  pod_run_opts b = {.threads = 3,
                    .window = 5,
                    .progress_cb = NULL,
                    .interval_ms = 0,
                    .done_cb = on_done,
                    .ud = &o2};
  pod_run *r1, *r2;
  assert_int_equal(pod_run_start(&loop, p1, &a, &r1, NULL), POD_OK);
  assert_int_equal(pod_run_start(&loop, p2, &b, &r2, NULL), POD_OK);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(o1.done_calls, 1);
  assert_int_equal(o2.done_calls, 1);
  assert_int_equal(uv_loop_close(&loop), 0);
  assert_int_equal(o1.status, POD_RUN_COMPLETE);
  assert_int_equal(o2.status, POD_RUN_COMPLETE);
  for (int i = 0; i < 2; i++) {
    setup t;
    mk_setup(&t);
    if (i) {
      t.s.seed = 99;
      t.s.grid = 1;
    }
    pod_mc_plan *pl;
    pod_mc_results *r;
    assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
    assert_int_equal(pod_mc_run_serial(pl, &r, NULL), POD_OK);
    assert_same_results(i ? o2.r : o1.r, r);
    pod_mc_results_free(r);
    pod_mc_plan_free(pl);
    free_setup(&t);
  }
  pod_mc_results_free(o1.r);
  pod_mc_results_free(o2.r);
  pod_mc_plan_free(p1);
  pod_mc_plan_free(p2);
  free_setup(&t1);
  free_setup(&t2);
}

/* ---- allocation failure in the runner: fail every allocation in turn ----
** (see test_mc.c).  Allocations happen on pool threads too, so which one
** fails is not fixed, but exactly one does; the run must then fail with
** POD_ENOMEM (or complete, when the failure only degrades), call done_cb
** once, leave no handle open and leak nothing. */
#include "failalloc.h"
#ifdef POD_ALLOC_FAIL

static void test_alloc_failures(void **st) {
  (void)st;
  int failed_runs = 0, k;
  for (k = 0; k < 100000; k++) {
    setup t;
    mk_setup(&t);
    t.s.samples = 1500;
    t.s.chunk_size = 200;
    t.s.max_samples_mb = (k % 2) ? 0.02 : 256; /* sketch + prefix, or exact */
    long before = atomic_load(&live);
    uv_loop_t loop;
    assert_int_equal(uv_loop_init(&loop), 0);
    pod_mc_plan *pl;
    assert_int_equal(pod_mc_plan_new(&t.s, &pl, NULL), POD_OK);
    outcome o = {0};
    pod_run_opts opts = {.threads = 2,
                         .window = 0,
                         .progress_cb = on_progress,
                         .interval_ms = 1,
                         .done_cb = on_done,
                         .ud = &o};
    pod_run *run;
    atomic_store(&countdown, k);
    int rc = pod_run_start(&loop, pl, &opts, &run, NULL);
    if (rc == POD_OK) uv_run(&loop, UV_RUN_DEFAULT);
    int fired = atomic_load(&countdown) < 0;
    atomic_store(&countdown, -1);
    if (rc == POD_OK) {
      assert_int_equal(o.done_calls, 1);
      if (o.status == POD_RUN_FAILED || o.status == POD_RUN_CANCELED) {
        /* out of memory in the finish step fails the run; in a chunk it
        ** stops the run like a cancel, keeping the chunks before it */
        assert_int_equal(o.err.code, POD_ENOMEM);
        failed_runs++;
      } else {
        assert_int_equal(o.status, POD_RUN_COMPLETE);
      }
      pod_mc_results_free(o.r);
    } else {
      assert_int_equal(rc, POD_ENOMEM);
    }
    assert_int_equal(uv_loop_close(&loop), 0);
    assert_int_equal(t.u.workers_alive, 0);
    pod_mc_plan_free(pl);
    long after = atomic_load(&live);
    if (after != before)
      fail_msg("allocation %d failing leaks %ld blocks", k, after - before);
    free_setup(&t);
    if (!fired) break; /* nothing left to fail */
  }
  assert_true(failed_runs > 5);
  assert_true(k < 100000);
}
#endif

int main(void) {
  pod_init();
  assert_int_equal(pod_run_set_threads(4), POD_OK); /* before first use */
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_determinism_threads),
      cmocka_unit_test(test_determinism_sobol),
      cmocka_unit_test(test_cancel),
      cmocka_unit_test(test_stopping_rule),
      cmocka_unit_test(test_first_error),
      cmocka_unit_test(test_concurrent_runs),
      cmocka_unit_test(test_batches),
      cmocka_unit_test(test_worker_failure_and_args),
#ifdef POD_ALLOC_FAIL
      cmocka_unit_test(test_alloc_failures),
#endif
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
