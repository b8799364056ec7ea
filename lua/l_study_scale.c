/*
** l_study_scale.c: studies over several processes (scale.h,
** docs/scale.md): numbering studies, the shard sink, finishing a study
** merged from shard files or from rank 0's state, the MPI hooks of a run.
*/
#include "l_study.h"
#include "scale.h"

static int next_seq; /* studies started so far (one scenario per process) */

static int on_sink(void *ud, const pod_mc_plan *plan, pod_mc_chunk *c,
                   pod_err *err) {
  return lpod_shard_put(((study *)ud)->seq, plan, c, err);
}

static void on_merged(void *ud, pod_mc_plan *plan, const pod_err *failed) {
  study *s = ud;
  /* after an interrupt mpirun is taking the other ranks down */
  if (!lpod_host_interrupted(s->host))
    lpod_mpi_send_state(s->seq, plan, failed);
}

/* The status pod_run would give a plan merged this far. */
static pod_run_status merged_status(const pod_mc_plan *plan) {
  if (pod_mc_chunks_merged(plan) == pod_mc_plan_chunks(plan))
    return POD_RUN_COMPLETE;
  return pod_mc_should_stop(plan) ? POD_RUN_STOPPED : POD_RUN_CANCELED;
}

/* Done without a run (merged from shard files, or the state from rank 0):
** finish the statistics here; the status and error into s. */
static void finish_here(study *s, int rc) {
  if (rc == POD_OK) {
    s->status = merged_status(s->plan);
    rc = pod_mc_finish(s->plan, &s->results, &s->err);
  }
  if (rc != POD_OK) s->status = POD_RUN_FAILED;
  s->state = ST_DONE;
  uv_loop_t *loop = lpod_host_loop(s->host);
  uv_update_time(loop);
  s->wall_s = (double)(uv_now(loop) - s->t0_ms) / 1000.0;
}

int lpod_study__scale_start(study *s, pod_run_opts *ro, pod_err *err) {
  s->seq = next_seq++;
  if (lpod_merge_active()) { /* podsim merge: the chunks come from files */
    pod_err_clear(&s->err);
    finish_here(s, lpod_merge_study(s->seq, s->name, s->plan, &s->err));
    return 1;
  }
  if (lpod_mpi_active()) lpod_mpi_register(s->seq, s->name, s->plan);
  if (lpod_mpi_active() && lpod_mpi_rank() > 0) {
    /* rank 0 hands out the chunks; this rank's server threads run them
    ** and s:wait() receives the merged state.  The study stays pinned to
    ** the end: the server threads keep workers of this plan until then. */
    s->state = ST_RUNNING;
    s->mpi_wait = 1;
    return 1;
  }
  ro->remote = lpod_mpi_remote();
  if (lpod_mpi_active()) ro->merged_cb = on_merged;
  if (s->opts->shard_n > 0) {
    ro->shard_index = s->opts->shard_i;
    ro->shard_count = s->opts->shard_n;
    ro->sink = on_sink;
    if (lpod_shard_study(s->seq, s->name, s->plan, err) != POD_OK) return -1;
  }
  return 0;
}

void lpod_study__scale_wait(study *s) {
  pod_err_clear(&s->err);
  finish_here(s, lpod_mpi_recv_state(s->seq, s->plan, &s->err));
}

void lpod_study__scale_failed(study *s, int64_t chunk) {
  /* under MPI every chunk error names where it ran (remote ones do) */
  if (!lpod_mpi_active() || chunk < 0 || strstr(s->err.msg, "[rank ")) return;
  char msg[POD_ERR_MSG_MAX];
  snprintf(msg, sizeof msg, "%s", s->err.msg);
  snprintf(s->err.msg, sizeof s->err.msg, "%.200s [rank 0, chunk %lld]", msg,
           (long long)chunk);
}
