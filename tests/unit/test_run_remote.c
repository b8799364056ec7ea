/*
** test_run_remote.c: the runner's scale-out hooks (pod_run.h): a remote
** executor (chunks run on another plan of the same spec and come back as
** bytes, as from another MPI rank) gives the same results as one thread;
** a transport failure fails the run; a cancel abandons blocked remote
** chunks; shards hand every chunk of theirs, in order, to the sink, and
** the shards' chunks merged elsewhere give the single run's results;
** merged_cb is called once, before the statistics.
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
#include <uv.h>

#include "pod_run.h"

static int ev_fn(void *ud, void *w, int g, const double *x, double *y,
                 pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  /* some work per sample (a chunk takes about a millisecond), so that
  ** chunks overlap and the remote slots are used */
  volatile double a = 0;
  for (int i = 0; i < 1000; i++) a += sin(i * x[0]);
  y[0] = x[0] * exp(x[1]) + g + 0 * a;
  y[1] = sin(x[0] * 3) + x[1] * x[1];
  return POD_OK;
}

static const char *const pn[] = {"a", "b"};
static const char *const mn[] = {"y0", "y1"};
static pod_dist dists[2];

static void spec(pod_mc_spec *s) {
  pod_mc_spec_init(s);
  dists[0] = pod_dist_uniform(0, 1);
  dists[1] = pod_dist_normal(0, 0.3);
  s->nparams = 2;
  s->param_names = pn;
  s->dists = dists;
  s->nmetrics = 2;
  s->metric_names = mn;
  s->grid = 3;
  s->samples = 6000;
  s->chunk_size = 250;
  s->seed = 9;
  s->keep_samples = 1;
  s->eval.eval = ev_fn;
}

static pod_mc_plan *plan(const pod_mc_spec *s) {
  pod_mc_plan *pl;
  assert_int_equal(pod_mc_plan_new(s, &pl, NULL), POD_OK);
  return pl;
}

static pod_mc_results *serial(const pod_mc_spec *s) {
  pod_mc_plan *pl = plan(s);
  pod_mc_results *r;
  assert_int_equal(pod_mc_run_serial(pl, &r, NULL), POD_OK);
  pod_mc_plan_free(pl);
  return r;
}

static void assert_same(const pod_mc_results *a, const pod_mc_results *b) {
  int G = pod_mc_results_grid(a), M = pod_mc_results_nmetrics(a);
  assert_int_equal(pod_mc_results_samples_done(a),
                   pod_mc_results_samples_done(b));
  for (int g = 0; g < G; g++) {
    int64_t rows = pod_mc_results_rows(a, g);
    assert_int_equal(rows, pod_mc_results_rows(b, g));
    for (int m = 0; m < M; m++) {
      pod_mc_summary x, y;
      pod_mc_results_summary(a, m, g, &x);
      pod_mc_results_summary(b, m, g, &y);
      assert_memory_equal(&x, &y, sizeof x);
      assert_memory_equal(pod_mc_results_metric_column(a, g, m),
                          pod_mc_results_metric_column(b, g, m),
                          sizeof(double) * (size_t)rows);
    }
  }
}

/* ---- a fake remote process: its own plan, results through bytes ---- */

typedef struct fake {
  pod_mc_plan *rp; /* the "other process"' plan */
  uv_mutex_t mu;   /* one remote chunk at a time */
  atomic_int ran;
  int64_t fail_k; /* transport failure at this chunk (-1: none) */
  int block;      /* wait until abandoned */
} fake;

static int fake_run(void *ud, pod_mc_plan *plan, int64_t k,
                    const _Atomic int *abandon, pod_mc_chunk **out,
                    pod_err *err) {
  fake *f = ud;
  *out = NULL;
  if (f->block) {
    while (!atomic_load(abandon)) uv_sleep(1);
    return POD_ECANCELED;
  }
  if (k == f->fail_k || f->fail_k == -2)
    return pod_err_set(err, POD_EINVAL, "mpi", "lost the remote at chunk %lld",
                       (long long)k);
  uv_mutex_lock(&f->mu);
  pod_mc_chunk *c;
  pod_mc_chunk_run(f->rp, k, NULL, &c);
  unsigned char *buf;
  size_t len;
  int rc = pod_mc_chunk_encode(f->rp, c, &buf, &len, err);
  pod_mc_chunk_free(c);
  uv_mutex_unlock(&f->mu);
  if (rc) return rc;
  rc = pod_mc_chunk_decode(plan, buf, len, out, err);
  free(buf);
  atomic_fetch_add(&f->ran, 1);
  return rc;
}

typedef struct outcome {
  int done, merged_calls, merged_failed;
  pod_run_status status;
  pod_mc_results *r;
  pod_err err;
  int64_t merged_at_cb;
  int cancel_on_progress;
} outcome;

static void on_done(pod_run *run, pod_run_status st, void *ud) {
  outcome *o = ud;
  o->done++;
  o->status = st;
  o->r = pod_run_take_results(run);
  o->err = *pod_run_error(run);
  pod_run_free(run);
}

static void on_merged(void *ud, pod_mc_plan *plan, const pod_err *failed) {
  outcome *o = ud;
  assert_int_equal(o->done, 0); /* before done_cb */
  o->merged_calls++;
  o->merged_failed = failed != NULL;
  o->merged_at_cb = pod_mc_chunks_merged(plan);
}

static void on_progress(pod_run *run, const pod_run_progress *p, void *ud) {
  (void)p;
  outcome *o = ud;
  if (o->cancel_on_progress) pod_run_cancel(run);
}

static void go(pod_mc_plan *pl, pod_run_opts *opts, outcome *o) {
  uv_loop_t loop;
  assert_int_equal(uv_loop_init(&loop), 0);
  opts->done_cb = on_done;
  opts->ud = o;
  pod_run *run;
  pod_err e;
  assert_int_equal(pod_run_start(&loop, pl, opts, &run, &e), POD_OK);
  uv_run(&loop, UV_RUN_DEFAULT);
  assert_int_equal(o->done, 1);
  assert_int_equal(uv_loop_close(&loop), 0);
}

static void test_remote_same_bytes(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  pod_mc_results *ref = serial(&s);
  fake f = {.rp = plan(&s), .fail_k = -1};
  uv_mutex_init(&f.mu);
  atomic_init(&f.ran, 0);
  pod_run_remote rm = {2, fake_run, &f};
  pod_mc_plan *pl = plan(&s);
  outcome o = {0};
  pod_run_opts opts = {.threads = 1, .remote = &rm, .merged_cb = on_merged};
  go(pl, &opts, &o);
  assert_int_equal(o.status, POD_RUN_COMPLETE);
  assert_int_equal(o.merged_calls, 1);
  assert_false(o.merged_failed);
  assert_int_equal(o.merged_at_cb, pod_mc_plan_chunks(pl));
  int ran = atomic_load(&f.ran);
  assert_true(ran > 0 &&
              ran < pod_mc_plan_chunks(pl)); /* both kinds of worker */
  assert_same(ref, o.r);
  pod_mc_results_free(o.r);
  pod_mc_results_free(ref);
  pod_mc_plan_free(pl);
  pod_mc_plan_free(f.rp);
  uv_mutex_destroy(&f.mu);
}

static void test_remote_failure(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  fake f = {.rp = plan(&s), .fail_k = -2}; /* every remote chunk fails */
  uv_mutex_init(&f.mu);
  atomic_init(&f.ran, 0);
  pod_run_remote rm = {3, fake_run, &f};
  pod_mc_plan *pl = plan(&s);
  outcome o = {0};
  pod_run_opts opts = {.threads = 1, .remote = &rm, .merged_cb = on_merged};
  go(pl, &opts, &o);
  assert_int_equal(o.status, POD_RUN_FAILED);
  assert_string_equal(o.err.field, "mpi");
  assert_non_null(strstr(o.err.msg, "lost the remote at chunk"));
  assert_null(o.r);
  assert_int_equal(o.merged_calls, 1);
  assert_true(o.merged_failed);
  pod_mc_plan_free(pl);
  pod_mc_plan_free(f.rp);
  uv_mutex_destroy(&f.mu);
}

static void test_remote_abandoned_on_cancel(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  fake f = {.rp = plan(&s), .fail_k = -1, .block = 1};
  uv_mutex_init(&f.mu);
  atomic_init(&f.ran, 0);
  pod_run_remote rm = {2, fake_run, &f};
  pod_mc_plan *pl = plan(&s);
  outcome o = {0};
  o.cancel_on_progress = 1;
  pod_run_opts opts = {.threads = 1,
                       .remote = &rm,
                       .progress_cb = on_progress,
                       .interval_ms = 20};
  go(pl, &opts, &o); /* returns: the blocked remote chunks were abandoned */
  assert_int_equal(o.status, POD_RUN_CANCELED);
  assert_non_null(o.r);
  assert_false(pod_mc_results_complete(o.r));
  pod_mc_results_free(o.r);
  pod_mc_plan_free(pl);
  pod_mc_plan_free(f.rp);
  uv_mutex_destroy(&f.mu);
}

/* ---- shards ---- */

typedef struct shelf {
  unsigned char **buf;
  size_t *len;
  int64_t last, count, shard, n;
} shelf;

typedef struct shard_ctx {
  outcome o; /* first: on_done sees an outcome */
  shelf *sh;
} shard_ctx;

static int sink(void *ud, const pod_mc_plan *plan, pod_mc_chunk *c,
                pod_err *err) {
  shelf *sh = ((shard_ctx *)ud)->sh;
  int64_t k = pod_mc_chunk_index(c);
  assert_true(k > sh->last); /* in chunk order */
  assert_int_equal(k % sh->n, sh->shard);
  sh->last = k;
  sh->count++;
  int rc = pod_mc_chunk_encode(plan, c, &sh->buf[k], &sh->len[k], err);
  pod_mc_chunk_free(c);
  return rc;
}

static void test_shards(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  pod_mc_results *ref = serial(&s);
  pod_mc_plan *probe = plan(&s);
  int64_t n = pod_mc_plan_chunks(probe);
  pod_mc_plan_free(probe);
  unsigned char **buf = calloc((size_t)n, sizeof *buf);
  size_t *len = calloc((size_t)n, sizeof *len);
  for (int i = 0; i < 3; i++) {
    shelf sh = {buf, len, -1, 0, i, 3};
    shard_ctx ctx = {{0}, &sh};
    pod_mc_plan *pl = plan(&s);
    pod_run_opts opts = {
        .threads = 2, .shard_index = i, .shard_count = 3, .sink = sink};
    opts.done_cb = on_done;
    go(pl, &opts, &ctx.o);
    assert_int_equal(ctx.o.status, POD_RUN_COMPLETE); /* the shard is done */
    assert_false(pod_mc_results_complete(ctx.o.r));   /* nothing merged */
    assert_int_equal(pod_mc_results_chunks_done(ctx.o.r), 0);
    assert_int_equal(sh.count, (n - i + 2) / 3);
    pod_mc_results_free(ctx.o.r);
    pod_mc_plan_free(pl);
  }
  pod_mc_plan *m = plan(&s);
  for (int64_t k = 0; k < n; k++) {
    pod_mc_chunk *c;
    assert_non_null(buf[k]);
    assert_int_equal(pod_mc_chunk_decode(m, buf[k], len[k], &c, NULL), POD_OK);
    assert_int_equal(pod_mc_merge(m, c, NULL), POD_OK);
    free(buf[k]);
  }
  pod_mc_results *r;
  assert_int_equal(pod_mc_finish(m, &r, NULL), POD_OK);
  assert_same(ref, r);
  pod_mc_results_free(r);
  pod_mc_results_free(ref);
  pod_mc_plan_free(m);
  free(buf);
  free(len);
}

static void test_bad_opts(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  pod_mc_plan *pl = plan(&s);
  uv_loop_t loop;
  uv_loop_init(&loop);
  outcome o = {0};
  pod_run *run;
  pod_err e;
  pod_run_opts a = {.threads = 1,
                    .done_cb = on_done,
                    .ud = &o,
                    .shard_count = 2,
                    .shard_index = 2,
                    .sink = sink};
  assert_int_equal(pod_run_start(&loop, pl, &a, &run, &e), POD_EINVAL);
  assert_string_equal(e.field, "shard");
  pod_run_opts b = {
      .threads = 1, .done_cb = on_done, .ud = &o, .shard_count = 2};
  assert_int_equal(pod_run_start(&loop, pl, &b, &run, &e),
                   POD_EINVAL); /* no sink */
  pod_run_remote rm = {1, NULL, NULL};
  pod_run_opts c = {.threads = 1, .done_cb = on_done, .ud = &o, .remote = &rm};
  assert_int_equal(pod_run_start(&loop, pl, &c, &run, &e), POD_EINVAL);
  assert_string_equal(e.field, "remote");
  pod_run_remote rm2 = {2, fake_run, NULL};
  pod_run_opts d = {
      .threads = 1, .window = 2, .done_cb = on_done, .ud = &o, .remote = &rm2};
  assert_int_equal(pod_run_start(&loop, pl, &d, &run, &e),
                   POD_EINVAL); /* window < 3 */
  assert_int_equal(uv_loop_close(&loop), 0);
  pod_mc_plan_free(pl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_remote_same_bytes),
      cmocka_unit_test(test_remote_failure),
      cmocka_unit_test(test_remote_abandoned_on_cancel),
      cmocka_unit_test(test_shards),
      cmocka_unit_test(test_bad_opts),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
