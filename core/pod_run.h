/*
** pod_run.h: runs a Monte Carlo plan on the libuv thread pool (the only
** libuv user in core/).
**
** The caller owns the uv_loop_t and runs it; pod_run never runs the loop
** itself (the Lua host drives it and resumes a coroutine from done_cb).
** Chunks are queued with uv_queue_work in chunk order, at most `window`
** of them queued or buffered but not yet merged (so out-of-order
** completions buffered for the in-order merge stay bounded, and pool
** threads find the next chunk without waiting for the loop thread); one
** work item runs up to window / (2 * threads) consecutive chunks (at most
** 8; 1 with remote slots) in order, so the loop thread wakes once per
** such batch.  At
** most `threads` chunks run at once: workers (evaluator worker_new) are
** created lazily on pool threads, at most `threads` of them, and shared
** through a mutex-protected free list; a chunk that starts while all are
** busy waits for one (so size the pool with pod_run_set_threads(threads)
** to keep pool threads from idling in that wait).
** after_work callbacks run on the loop thread, buffer results and merge
** strictly in chunk order.  The final statistics (quantiles, histograms,
** ranks: pod_mc_finish_begin/part/end) run as parallel work items on the
** pool, phase by phase, next to one item releasing the workers; then
** done_cb fires on the loop thread exactly once.  When done_cb runs, no
** handle of the run is open (the progress timer is closed first), so
** uv_loop_close() succeeds once every run is done.
**
** Stops:
** - stopping rule met (checked in chunk order): no more chunks are queued,
**   pending ones are uv_cancel'ed, running ones finish and are discarded;
**   the results are those merged up to the stopping chunk, identical for any
**   thread count; status POD_RUN_STOPPED (complete in the statistical
**   sense; results_complete() is 0 since not every chunk ran).
** - pod_run_cancel: same, but completions are still merged while they are
**   contiguous; status POD_RUN_CANCELED, results marked incomplete.
** - a chunk fails: no more chunks are queued, pending chunks after it are
**   canceled, earlier ones still run, and the error of the first failing
**   chunk in chunk order is reported; status POD_RUN_FAILED, no results.
**   Except when it fails with POD_ENOMEM (an evaluator's memory budget):
**   that stops the run like pod_run_cancel (status POD_RUN_CANCELED,
**   results incomplete) except that every chunk before the failing one
**   still runs and merges (deterministic partial results), and
**   pod_run_error gives the error.
**
** Several runs may be in flight on one loop.  All pod_run_* functions must
** be called on the loop thread.  The plan must stay alive, and must not be
** used by anyone else, until done_cb.
*/
#ifndef POD_RUN_H
#define POD_RUN_H

#include <stdint.h>
#include <uv.h>

#include "pod_err.h"
#include "pod_field.h"
#include "pod_mc.h"

typedef struct pod_run pod_run;

typedef enum pod_run_status {
  POD_RUN_COMPLETE, /* every chunk merged */
  POD_RUN_STOPPED,  /* stopping rule met: stopped early */
  POD_RUN_CANCELED, /* pod_run_cancel: partial results */
  POD_RUN_FAILED    /* a chunk or the finish step failed: pod_run_error */
} pod_run_status;

typedef struct pod_run_progress {
  int64_t samples_done, samples_total; /* merged rows / G*N */
  int64_t chunks_done, chunks_total;
  double elapsed_s;
  double rate_per_s; /* samples_done / elapsed_s */
} pod_run_progress;

typedef void (*pod_run_progress_fn)(pod_run *run, const pod_run_progress *p,
                                    void *ud);
typedef void (*pod_run_done_fn)(pod_run *run, pod_run_status status, void *ud);

/* Chunks run by other processes (MPI ranks): `slots` chunks may be out at
** once, next to the `threads` local workers; a chunk goes to whichever is
** free first (dynamic assignment), and comes back through the in-order
** merge like a local one.  run() is called on a pool thread and blocks
** until the chunk's result is back (*out: the decoded chunk, possibly
** failed) and returns POD_OK; or POD_ECANCELED when *abandon became
** non-zero while it waited (the run is cancelled or failed: the chunk is
** dropped); or another status with err when the transport failed (the run
** fails with it).  The pool must hold threads + slots threads. */
typedef struct pod_run_remote {
  int slots;
  int (*run)(void *ud, pod_mc_plan *plan, int64_t k, const _Atomic int *abandon,
             pod_mc_chunk **out, pod_err *err);
  void *ud;
} pod_run_remote;

/* Instead of merging (shards): chunks k with k % shard_count ==
** shard_index run and are handed to sink() in chunk order on the loop
** thread (sink consumes the chunk; a non-zero status fails the run); the
** others do not run.  Nothing is merged: the results are empty and marked
** incomplete; the status is POD_RUN_COMPLETE once every chunk of the shard
** reached the sink. */
typedef int (*pod_run_sink_fn)(void *ud, const pod_mc_plan *plan,
                               pod_mc_chunk *c, pod_err *err);

typedef struct pod_run_opts {
  int threads; /* workers / chunks at once, >= 1 */
  int window;  /* 0: 2 * (threads + remote slots), at least 16; >= threads */
  pod_run_progress_fn progress_cb; /* may be NULL */
  unsigned interval_ms;            /* progress period; 0: 200 ms */
  pod_run_done_fn done_cb;         /* required */
  void *ud;
  const pod_run_remote *remote;     /* NULL: every chunk runs here */
  int64_t shard_index, shard_count; /* shard_count 0: no shards */
  pod_run_sink_fn sink;             /* required with shards */
  /* Called once on the loop thread when merging is over, before the
  ** statistics are computed (the plan's merge state is final: e.g. to
  ** encode it); `failed` is the run's error when a chunk failed, else
  ** NULL.  May be NULL. */
  void (*merged_cb)(void *ud, pod_mc_plan *plan, const pod_err *failed);
} pod_run_opts;

/* The bound of pod_run_opts.threads, the one home of it (the study
** binding and --threads read it): 1 .. 1024, libuv's largest thread pool
** (MAX_THREADPOOL_SIZE in libuv src/threadpool.c). */
extern const pod_field pod_run_threads;

/* Set libuv's thread pool size (UV_THREADPOOL_SIZE, clamped to
** pod_run_threads)
** through setenv.  libuv reads it once, at the first uv_queue_work of the
** process, so call this at start-up before any run (the executable does,
** from --threads).  Returns POD_EINVAL for n < 1, and POD_ENOTSUP once a
** run has started in this process (the size is fixed by then).  Not
** thread-safe (start-up only). */
int pod_run_set_threads(int n);

/* Start running `plan` on `loop`.  Returns POD_OK and *out, or an error
** (fields "threads", "window", "done_cb") with nothing started.  done_cb
** is called exactly once, later, from the loop. */
int pod_run_start(uv_loop_t *loop, pod_mc_plan *plan, const pod_run_opts *opts,
                  pod_run **out, pod_err *err);

/* Stop queuing, cancel pending chunks, let running ones finish, then
** done_cb with POD_RUN_CANCELED.  Idempotent; no effect after done. */
void pod_run_cancel(pod_run *run);

/* Progress now (also what progress_cb receives). */
void pod_run_get_progress(const pod_run *run, pod_run_progress *p);

/* After done_cb: the results (ownership moves to the caller; NULL when
** failed or already taken) and the error (code POD_OK unless failed). */
pod_mc_results *pod_run_take_results(pod_run *run);
const pod_err *pod_run_error(const pod_run *run);
/* After done_cb with POD_RUN_FAILED: the chunk whose error is reported
** (-1 when the failure was not a chunk's). */
int64_t pod_run_failed_chunk(const pod_run *run);

/* Free a run after its done_cb (may be called inside done_cb). */
void pod_run_free(pod_run *run);

#endif
