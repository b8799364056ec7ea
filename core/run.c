/*
** run.c: runs a Monte Carlo plan on the libuv thread pool (see pod_run.h).
**
** Threads meet in three places:
** 1. The worker free list and the skip limit (run->mu, run->cv).  Up to
**    `window` chunks are queued, so a pool thread finds the next chunk
**    without waiting for the loop thread; at most `threads` workers exist,
**    so a chunk that starts when all of them are busy waits on run->cv
**    until one is given back (a worker is only ever held by a chunk that
**    is running, so the wait always ends).  A waiting chunk whose index is
**    above run->skip_after (set by the loop thread on stop, cancel or
**    failure) returns at once without running.  The finish work item
**    (queued only when no chunk is in flight) frees the workers.  Lock
**    order: run->mu is the only lock of a run and is a leaf: it is never
**    held while calling the evaluator, the plan or libuv (other than
**    uv_cond_*), and no other lock is taken under it.
** 2. Slots (one per chunk in the window) and batches (one work item for up
**    to `batch` consecutive chunks, run in order on one pool thread, so
**    the loop thread wakes once per batch).  The loop thread fills the
**    slots of a batch and queues it; the pool thread writes only
**    slot->chunk / setup_rc / setup_err / skipped; after_work reads them
**    on the loop thread.  libuv's queue mutex orders these accesses
**    (uv_queue_work -> worker -> uv__work_done), so slots need no lock of
**    their own.  Chunks merge in chunk order whatever the batches.
** 3. The plan.  Chunks read only its configuration, which is immutable
**    after pod_mc_plan_new, and write their own rows of its sample
**    columns; the merge state is touched by the loop thread only
**    (pod_mc_merge).  Finishing starts when no chunk is in flight: the
**    parts of one phase (pod_mc_finish_part) run in parallel on the pool
**    and write disjoint parts of the results; the next phase is queued
**    from the loop thread once every part of the previous one is back.
*/
#include "pod_run.h"

#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { SLOT_FREE, SLOT_QUEUED, SLOT_DONE };
#define RUN_WINDOW_MIN 16 /* chunks queued at least, by default */
#define RUN_BATCH_MAX 8   /* chunks per work item, at most */
enum { HALT_NONE, HALT_CANCEL, HALT_STOP, HALT_FAIL };

typedef struct slot {
  pod_run *run;
  int64_t k;
  int state;
  pod_mc_chunk *chunk; /* written by the pool thread */
  int setup_rc;        /* worker creation / allocation failure */
  int skipped;         /* not run: above skip_after when it started */
  int absent;          /* not in this shard: nothing to merge */
  pod_err setup_err;
} slot;

/* One work item: the chunks k0 .. k0 + n - 1 (their slots), run in order
** on one pool thread, so that the loop thread is woken once for them. */
typedef struct batch {
  uv_work_t req;
  pod_run *run;
  int64_t k0;
  int n;
  int queued; /* queued or running, not yet after_work'ed */
} batch;

typedef struct fin_item {
  uv_work_t req;
  pod_run *run;
  int phase, part, rc;
} fin_item;

struct pod_run {
  uv_loop_t *loop;
  pod_mc_plan *plan;
  pod_run_opts o;
  int threads, window, batch; /* batch: chunks per work item, at most */
  slot *slots;
  batch *batches; /* window of them, the one of chunk k0 at k0 % window */
  int64_t nchunks, next_q, next_merge;
  int running; /* batches queued and not yet after_work'ed */
  int halt;
  int64_t fail_k;
  int64_t budget_k; /* chunk of run->err after a POD_ENOMEM stop */
  pod_err err;
  int64_t samples_done, samples_total;
  uint64_t t0;

  uv_mutex_t mu; /* guards free_workers, nfree, ncreated, skip_after */
  uv_cond_t cv;  /* a worker was given back, or skip_after lowered */
  void **free_workers;
  int nfree, ncreated;
  int64_t skip_after;
  int rfree;           /* remote slots free */
  _Atomic int abandon; /* remote chunks in flight are dropped */

  int has_timer, finishing, done;
  uv_timer_t timer;
  uv_work_t workers_req;
  fin_item *fin;         /* finishing parts of the current phase */
  pod_mc_results *fin_r; /* results being finished */
  int fin_phase, fin_pending, fin_rc;
  int finish_rc;
  pod_err finish_err;
  pod_mc_results *results;
  pod_run_status status;
};

const pod_field pod_run_threads = {
    "threads",       offsetof(pod_run_opts, threads), POD_F_INT, 1, 1024, 0,
    "worker threads"};

static atomic_int pool_used; /* set at the first uv_queue_work of any run */

int pod_run_set_threads(int n) {
  if (n < 1) return POD_EINVAL;
  if (atomic_load(&pool_used)) return POD_ENOTSUP;
  if (n > pod_run_threads.max) n = (int)pod_run_threads.max;
  char buf[16];
  snprintf(buf, sizeof buf, "%d", n);
  return setenv("UV_THREADPOOL_SIZE", buf, 1) == 0 ? POD_OK : POD_EINVAL;
}

/* ---- pool side ---- */

static void run_slot(slot *s) {
  pod_run *run = s->run;
  void *w = NULL;
  int have = 0;
  if (run->o.shard_count > 0 &&
      s->k % run->o.shard_count != run->o.shard_index) {
    s->absent = 1;
    return;
  }
  uv_mutex_lock(&run->mu);
  while (run->nfree == 0 && run->ncreated >= run->threads && run->rfree == 0 &&
         s->k <= run->skip_after)
    uv_cond_wait(&run->cv, &run->mu);
  if (s->k > run->skip_after) {
    uv_mutex_unlock(&run->mu);
    s->skipped = 1;
    return;
  }
  if (run->nfree == 0 && run->ncreated >= run->threads) {
    run->rfree--; /* a remote slot */
    uv_mutex_unlock(&run->mu);
    const pod_run_remote *rm = run->o.remote;
    int rc = rm->run(rm->ud, run->plan, s->k, &run->abandon, &s->chunk,
                     &s->setup_err);
    if (rc == POD_ECANCELED)
      s->skipped = 1;
    else if (rc)
      s->setup_rc = rc;
    uv_mutex_lock(&run->mu);
    run->rfree++;
    uv_cond_signal(&run->cv);
    uv_mutex_unlock(&run->mu);
    return;
  }
  if (run->nfree > 0) {
    w = run->free_workers[--run->nfree];
    have = 1;
  } else {
    run->ncreated++; /* reserve: at most `threads` workers exist */
  }
  uv_mutex_unlock(&run->mu);
  if (!have) {
    int rc = pod_mc_worker_new(run->plan, &w, &s->setup_err);
    if (rc) {
      uv_mutex_lock(&run->mu);
      run->ncreated--;
      uv_cond_signal(&run->cv); /* a waiter may create one instead */
      uv_mutex_unlock(&run->mu);
      s->setup_rc = rc;
      return;
    }
  }
  pod_mc_chunk_run(run->plan, s->k, w, &s->chunk);
  if (!s->chunk) {
    s->setup_rc =
        pod_err_set(&s->setup_err, POD_ENOMEM, "chunk", "out of memory");
  }
  uv_mutex_lock(&run->mu);
  run->free_workers[run->nfree++] = w;
  uv_cond_signal(&run->cv);
  uv_mutex_unlock(&run->mu);
}

/* The chunks of a batch in order.  After one that fails (setup or chunk
** status) the rest are skipped: the loop thread keeps the first failure in
** chunk order and drops every chunk after it anyway. */
static void work_cb(uv_work_t *req) {
  batch *b = req->data;
  pod_run *run = b->run;
  int stop = 0;
  for (int i = 0; i < b->n; i++) {
    slot *s = &run->slots[(b->k0 + i) % run->window];
    if (stop) {
      s->skipped = 1;
      continue;
    }
    run_slot(s);
    if (s->setup_rc || (s->chunk && pod_mc_chunk_status(s->chunk, NULL)))
      stop = 1;
  }
}

/* ---- loop side ---- */

static void pump(pod_run *run);
static void maybe_finish(pod_run *run);

static void cancel_pending_after(pod_run *run, int64_t limit) {
  /* a cancel or a failure drops the remote chunks in flight (a stop waits
  ** for them, they are merely discarded) */
  if (run->halt == HALT_CANCEL || run->halt == HALT_FAIL)
    atomic_store(&run->abandon, 1);
  uv_mutex_lock(&run->mu);
  if (limit < run->skip_after) run->skip_after = limit;
  uv_cond_broadcast(&run->cv);
  uv_mutex_unlock(&run->mu);
  for (int i = 0; i < run->window; i++) {
    batch *b = &run->batches[i];
    if (b->queued && b->k0 > limit) uv_cancel((uv_req_t *)&b->req);
  }
}

static void discard_buffered(pod_run *run) {
  for (int i = 0; i < run->window; i++) {
    slot *s = &run->slots[i];
    if (s->state == SLOT_DONE) {
      pod_mc_chunk_free(s->chunk);
      s->chunk = NULL;
      s->state = SLOT_FREE;
    }
  }
}

static void fail_at(pod_run *run, int64_t k, const pod_err *e) {
  if (run->halt == HALT_FAIL && k >= run->fail_k) return;
  run->halt = HALT_FAIL;
  run->fail_k = k;
  run->err = *e;
  cancel_pending_after(run, k);
}

static void drain(pod_run *run) {
  while (run->next_merge < run->nchunks) {
    slot *s = &run->slots[run->next_merge % run->window];
    if (s->state != SLOT_DONE || s->k != run->next_merge) break;
    if (run->halt == HALT_FAIL && s->k >= run->fail_k) break;
    pod_mc_chunk *c = s->chunk;
    s->chunk = NULL;
    s->state = SLOT_FREE;
    int64_t n = pod_mc_chunk_samples(run->plan, s->k);
    pod_err e;
    pod_err_clear(&e);
    int rc = POD_OK;
    if (run->o.sink) {
      if (c) rc = run->o.sink(run->o.ud, run->plan, c, &e); /* consumes c */
    } else {
      rc = pod_mc_merge(run->plan, c, &e); /* consumes c */
    }
    if (rc) {
      fail_at(run, s->k, &e);
      break;
    }
    run->next_merge++;
    run->samples_done += n;
    if (pod_mc_should_stop(run->plan) && run->next_merge < run->nchunks &&
        run->halt != HALT_FAIL) {
      run->halt = HALT_STOP;
      cancel_pending_after(run, -1);
      discard_buffered(run);
      break;
    }
  }
}

/* One chunk of a batch back on the loop thread (status: the batch's). */
static void slot_done(pod_run *run, slot *s, int status) {
  if (status == UV_ECANCELED || s->skipped) {
    s->state = SLOT_FREE;
  } else if (s->absent) {
    s->state = SLOT_DONE; /* chunk NULL: drain steps over it */
  } else if (s->setup_rc) {
    s->state = SLOT_FREE;
    fail_at(run, s->k, &s->setup_err);
  } else if (run->halt == HALT_STOP) {
    pod_mc_chunk_free(s->chunk); /* beyond the stopping chunk */
    s->chunk = NULL;
    s->state = SLOT_FREE;
  } else {
    pod_err e;
    pod_err_clear(&e);
    if (pod_mc_chunk_status(s->chunk, &e)) {
      pod_mc_chunk_free(s->chunk);
      s->chunk = NULL;
      s->state = SLOT_FREE;
      if (e.code == POD_ENOMEM && run->halt != HALT_FAIL) {
        /* memory (an evaluator's budget) gave out: stop as a cancel does,
        ** keeping the chunks merged before this one; pod_run_error says why */
        if (run->err.code == POD_OK ||
            s->k < run->budget_k) { /* lowest chunk wins */
          run->err = e;
          run->budget_k = s->k;
        }
        if (run->halt == HALT_NONE) run->halt = HALT_CANCEL;
        /* chunks before this one still run and merge: the partial results
        ** are chunks [0, k), the same for any thread count */
        cancel_pending_after(run, s->k);
      } else {
        fail_at(run, s->k, &e);
      }
    } else {
      s->state = SLOT_DONE;
    }
  }
}

static void after_work_cb(uv_work_t *req, int status) {
  batch *b = req->data;
  pod_run *run = b->run;
  run->running--;
  b->queued = 0;
  for (int i = 0; i < b->n; i++)
    slot_done(run, &run->slots[(b->k0 + i) % run->window], status);
  drain(run);
  pump(run);
  maybe_finish(run);
}

static void pump(pod_run *run) {
  if (run->halt != HALT_NONE) return;
  while (run->next_q < run->nchunks &&
         run->next_q - run->next_merge < run->window) {
    int64_t n = run->batch,
            room = run->window - (run->next_q - run->next_merge);
    if (n > run->nchunks - run->next_q) n = run->nchunks - run->next_q;
    if (n > room) n = room;
    batch *b = &run->batches[run->next_q % run->window];
    b->run = run;
    b->k0 = run->next_q;
    b->n = (int)n;
    for (int64_t k = b->k0; k < b->k0 + n; k++) {
      slot *s = &run->slots[k % run->window];
      s->k = k;
      s->chunk = NULL;
      s->setup_rc = 0;
      s->skipped = 0;
      s->absent = 0;
      pod_err_clear(&s->setup_err);
    }
    b->req.data = b;
    int rc = uv_queue_work(run->loop, &b->req, work_cb, after_work_cb);
    if (rc) {
      pod_err e;
      pod_err_set(&e, POD_ENOMEM, "run", "uv_queue_work: %s", uv_strerror(rc));
      fail_at(run, b->k0, &e);
      return;
    }
    for (int64_t k = b->k0; k < b->k0 + n; k++)
      run->slots[k % run->window].state = SLOT_QUEUED;
    b->queued = 1;
    atomic_store(&pool_used, 1);
    run->next_q += n;
    run->running++;
  }
}

/* ---- finishing: free the workers and compute the statistics, in
** parallel parts on the pool (pod_mc_finish_begin/part/end) ---- */

static void workers_free_cb(uv_work_t *req) {
  pod_run *run = req->data;
  /* no chunk is in flight: every worker is back in the list */
  uv_mutex_lock(&run->mu);
  int n = run->nfree;
  run->nfree = 0;
  uv_mutex_unlock(&run->mu);
  for (int i = 0; i < n; i++)
    pod_mc_worker_free(run->plan, run->free_workers[i]);
}

static void part_cb(uv_work_t *req) {
  fin_item *f = req->data;
  /* distinct parts of one phase touch distinct results (see pod_mc.h) */
  f->rc = pod_mc_finish_part(f->run->plan, f->run->fin_r, f->phase, f->part);
}

static void call_done(pod_run *run) {
  run->done = 1;
  run->o.done_cb(run, run->status, run->o.ud); /* may free run */
}

static void timer_closed(uv_handle_t *h) {
  call_done(h->data);
}

static void finish_done(pod_run *run) {
  if (run->fin_r) {
    run->finish_rc = pod_mc_finish_end(run->plan, run->fin_r, run->fin_rc,
                                       &run->results, &run->finish_err);
    run->fin_r = NULL;
  }
  if (run->halt == HALT_FAIL) {
    run->status = POD_RUN_FAILED;
  } else if (run->finish_rc) {
    run->status = POD_RUN_FAILED;
    run->err = run->finish_err;
  } else if (run->next_merge == run->nchunks) {
    run->status = POD_RUN_COMPLETE;
  } else {
    run->status = run->halt == HALT_STOP ? POD_RUN_STOPPED : POD_RUN_CANCELED;
  }
  if (run->has_timer) {
    uv_timer_stop(&run->timer);
    uv_close((uv_handle_t *)&run->timer, timer_closed);
  } else {
    call_done(run);
  }
}

static void fin_after_cb(uv_work_t *req, int status);

/* Queue every part of `phase` (they run in parallel on the pool). */
static void start_phase(pod_run *run, int phase) {
  run->fin_phase = phase;
  int n = pod_mc_finish_parts(run->plan, phase);
  for (int i = 0; i < n; i++) {
    fin_item *f = &run->fin[i];
    f->run = run;
    f->phase = phase;
    f->part = i;
    f->rc = POD_OK;
    f->req.data = f;
    if (uv_queue_work(run->loop, &f->req, part_cb, fin_after_cb) != 0) {
      f->rc = pod_mc_finish_part(run->plan, run->fin_r, phase, i); /* inline */
      if (f->rc && !run->fin_rc) run->fin_rc = f->rc;
      continue;
    }
    run->fin_pending++;
  }
}

/* One finishing item is done (a part, or the workers' release). */
static void fin_item_done(pod_run *run, int rc) {
  if (rc && !run->fin_rc) run->fin_rc = rc;
  if (--run->fin_pending > 0) return;
  if (run->fin_r && run->fin_phase + 1 < POD_MC_FINISH_PHASES && !run->fin_rc) {
    start_phase(run, run->fin_phase + 1);
    if (run->fin_pending > 0) return;
  }
  finish_done(run);
}

static void fin_after_cb(uv_work_t *req, int status) {
  (void)status; /* never canceled: we do not uv_cancel these */
  fin_item *f = req->data;
  fin_item_done(f->run, f->rc);
}

static void workers_after_cb(uv_work_t *req, int status) {
  (void)status;
  fin_item_done(req->data, POD_OK);
}

static void maybe_finish(pod_run *run) {
  if (run->finishing || run->running > 0) return;
  if (run->halt == HALT_NONE && run->next_merge < run->nchunks) return;
  discard_buffered(run);
  run->finishing = 1;
  if (run->o.merged_cb)
    run->o.merged_cb(run->o.ud, run->plan,
                     run->halt == HALT_FAIL ? &run->err : NULL);
  /* statistics: unless a chunk failed */
  if (run->halt != HALT_FAIL) {
    int rc = pod_mc_finish_begin(run->plan, &run->fin_r, &run->finish_err);
    int most = 1;
    for (int ph = 0; ph < POD_MC_FINISH_PHASES; ph++)
      if (pod_mc_finish_parts(run->plan, ph) > most)
        most = pod_mc_finish_parts(run->plan, ph);
    if (!rc && !(run->fin = calloc((size_t)most, sizeof(fin_item)))) {
      rc = pod_err_set(&run->finish_err, POD_ENOMEM, "results", NULL);
      pod_mc_results *r;
      pod_mc_finish_end(run->plan, run->fin_r, rc, &r, NULL); /* frees */
      run->fin_r = NULL;
    }
    run->finish_rc = rc;
  }
  /* the workers are released on the pool (a Lua state may be large) */
  run->workers_req.data = run;
  run->fin_pending = 1;
  if (uv_queue_work(run->loop, &run->workers_req, workers_free_cb,
                    workers_after_cb) != 0) {
    workers_free_cb(&run->workers_req); /* cannot happen: inline */
    run->fin_pending = 0;
  }
  if (run->fin_r) start_phase(run, 0);
  if (run->fin_pending == 0) finish_done(run);
}

static void timer_cb(uv_timer_t *t) {
  pod_run *run = t->data;
  pod_run_progress p;
  pod_run_get_progress(run, &p);
  run->o.progress_cb(run, &p, run->o.ud);
}

/* ---- public ---- */

void pod_run_get_progress(const pod_run *run, pod_run_progress *p) {
  p->samples_done = run->samples_done;
  p->samples_total = run->samples_total;
  p->chunks_done = run->next_merge;
  p->chunks_total = run->nchunks;
  p->elapsed_s = (double)(uv_hrtime() - run->t0) * 1e-9;
  p->rate_per_s = p->elapsed_s > 0 ? (double)p->samples_done / p->elapsed_s : 0;
}

int pod_run_start(uv_loop_t *loop, pod_mc_plan *plan, const pod_run_opts *opts,
                  pod_run **out, pod_err *err) {
  *out = NULL;
  if (!loop || !plan)
    return pod_err_set(err, POD_EINVAL, "plan", "needs a loop and a plan");
  if (!opts || !opts->done_cb)
    return pod_err_set(err, POD_EINVAL, "done_cb", "is required");
  if (opts->shard_count < 0 || (opts->shard_count > 0 && !opts->sink) ||
      opts->shard_index < 0 ||
      (opts->shard_count > 0 && opts->shard_index >= opts->shard_count))
    return pod_err_set(err, POD_EINVAL, "shard",
                       "needs 0 <= index < count and a sink");
  if (opts->remote && (opts->remote->slots < 0 || !opts->remote->run))
    return pod_err_set(err, POD_EINVAL, "remote", "needs slots >= 0 and run");
  if (!pod_field_ok(&pod_run_threads, opts->threads))
    return pod_field_error(&pod_run_threads, opts->threads, NULL, err);
  int rslots = opts->remote ? opts->remote->slots : 0;
  /* the default keeps 16 chunks or more queued, so that a pool thread
  ** rarely runs dry and sleeps while the loop thread merges (one thread:
  ** about 1,800 context switches per 1,000 chunks with 2 queued, 150 with
  ** 16); chunks merge in order whatever the window */
  int window = opts->window ? opts->window : 2 * (opts->threads + rslots);
  if (!opts->window && window < RUN_WINDOW_MIN) window = RUN_WINDOW_MIN;
  if (window < opts->threads + rslots)
    return pod_err_set(err, POD_EINVAL, "window", "must be >= threads (got %d)",
                       opts->window);
  if (pod_mc_chunks_merged(plan) != 0)
    return pod_err_set(err, POD_EINVAL, "plan", "has already been run");
  pod_run *run = calloc(1, sizeof *run);
  if (!run) return pod_err_set(err, POD_ENOMEM, "run", NULL);
  run->slots = calloc((size_t)window, sizeof(slot));
  run->batches = calloc((size_t)window, sizeof(batch));
  run->free_workers = calloc((size_t)opts->threads, sizeof(void *));
  if (!run->slots || !run->batches || !run->free_workers ||
      uv_mutex_init(&run->mu) != 0) {
    free(run->slots);
    free(run->batches);
    free(run->free_workers);
    free(run);
    return pod_err_set(err, POD_ENOMEM, "run", NULL);
  }
  if (uv_cond_init(&run->cv) != 0) {
    uv_mutex_destroy(&run->mu);
    free(run->slots);
    free(run->batches);
    free(run->free_workers);
    free(run);
    return pod_err_set(err, POD_ENOMEM, "run", NULL);
  }
  run->loop = loop;
  run->plan = plan;
  run->o = *opts;
  run->threads = opts->threads;
  run->window = window;
  /* a work item runs up to `batch` chunks in order, so the loop thread
  ** wakes once per batch (one thread, 16 queued: a wake per 8 chunks),
  ** with 2 * threads batches queued so that no pool thread runs dry; a
  ** remote run keeps one chunk per item */
  run->batch = rslots ? 1 : window / (2 * opts->threads);
  if (run->batch < 1) run->batch = 1;
  if (run->batch > RUN_BATCH_MAX) run->batch = RUN_BATCH_MAX;
  run->nchunks = pod_mc_plan_chunks(plan);
  run->samples_total = pod_mc_plan_samples_total(plan);
  run->t0 = uv_hrtime();
  run->skip_after = INT64_MAX;
  run->rfree = rslots;
  atomic_init(&run->abandon, 0);
  pod_err_clear(&run->err);
  for (int i = 0; i < window; i++) run->slots[i].run = run;
  if (opts->progress_cb) {
    uv_timer_init(loop, &run->timer);
    run->timer.data = run;
    unsigned iv = opts->interval_ms ? opts->interval_ms : 200;
    uv_timer_start(&run->timer, timer_cb, iv, iv);
    run->has_timer = 1;
  }
  pump(run);
  maybe_finish(run); /* a queueing failure before any chunk ran */
  *out = run;
  return POD_OK;
}

void pod_run_cancel(pod_run *run) {
  if (!run || run->done || run->finishing || run->halt != HALT_NONE) return;
  run->halt = HALT_CANCEL;
  cancel_pending_after(run, -1);
  maybe_finish(run);
}

pod_mc_results *pod_run_take_results(pod_run *run) {
  pod_mc_results *r = run->results;
  run->results = NULL;
  return r;
}

const pod_err *pod_run_error(const pod_run *run) {
  return &run->err;
}

int64_t pod_run_failed_chunk(const pod_run *run) {
  return run->status == POD_RUN_FAILED && run->halt == HALT_FAIL ? run->fail_k
                                                                 : -1;
}

void pod_run_free(pod_run *run) {
  if (!run) return;
  pod_mc_results_free(run->results);
  uv_cond_destroy(&run->cv);
  uv_mutex_destroy(&run->mu);
  free(run->fin);
  free(run->slots);
  free(run->batches);
  free(run->free_workers);
  free(run);
}
