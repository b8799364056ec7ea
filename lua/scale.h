/*
** scale.h: one study over many processes (docs/scale.md).
**
** - Shards (shard.c): `podsim run FILE --shard I/N --out DIR` runs chunks
**   k with k % N == I of every study and writes their encoded results
**   (core/mc_codec.c) to DIR/shard-I-of-N.pods; `podsim merge DIR...`
**   runs the scenario again with every study's chunks read from the shard
**   files, merged in chunk order: the same bytes as one process.
** - MPI (mpi.c, built when CMake finds MPI): every rank runs the
**   scenario's top level; rank 0 runs chunks on its pool and hands chunks
**   to the other ranks' server threads (pod_run_remote), merges in chunk
**   order and sends the final merge state to the other ranks, which
**   finish to the same results (so every rank's scenario takes the same
**   path); only rank 0 prints and writes.
**
** Studies are numbered in the order the scenario starts them (the same on
** every process, the top level being deterministic); the number names a
** study across processes.  Everything here runs on the loop thread except
** where noted.
*/
#ifndef LPOD_SCALE_H
#define LPOD_SCALE_H

#include <stdint.h>

#include "host.h"
#include "pod_mc.h"
#include "pod_run.h"

/* ---- shards (shard.c) ---- */

/* Start writing the shard file of this run (o->shard_n > 0): the header
** records the podsim version, the scenario (path, SHA-256) and the run
** options that decide the results (`opts`, argc strings).  -1 with a
** message on stderr. */
int lpod_shard_begin(const pod_host_opts *o, const char *const *opts,
                     int nopts);
/* A study starts: record its number, name, fingerprint and chunk count. */
int lpod_shard_study(int seq, const char *name, const pod_mc_plan *plan,
                     pod_err *err);
/* Append chunk c (consumed) of study seq. */
int lpod_shard_put(int seq, const pod_mc_plan *plan, pod_mc_chunk *c,
                   pod_err *err);
/* Close: ok != 0 renames the file into place, else removes it.  Returns
** -1 (message on stderr) when the file cannot be completed. */
int lpod_shard_end(int ok);

/* Open the shard files in `dirs` (folders holding *.pods, or files) for
** `podsim merge`: every shard 0..N-1 exactly once, one version, one
** scenario, one set of options.  Fills o->scenario and returns the stored
** options in *opts (strings owned here).  -1 with a message on stderr. */
int lpod_merge_open(const char *const *dirs, int ndirs, const char **scenario,
                    const char *const **opts, int *nopts);
/* Non-zero in a merge run. */
int lpod_merge_active(void);
/* Merge study seq's chunks from the shard files into plan, in chunk order,
** honouring its stopping rule.  POD_EINVAL with a message naming the file
** when the study is missing, differs (fingerprint) or a record is
** corrupt. */
int lpod_merge_study(int seq, const char *name, pod_mc_plan *plan,
                     pod_err *err);
void lpod_merge_close(void);

/* ---- MPI (mpi.c) ---- */

/* Non-zero when built with MPI. */
int lpod_mpi_available(void);
/* MPI_Init_thread (THREAD_MULTIPLE); ranks > 0 start `threads` server
** threads.  -1 with a message on stderr. */
int lpod_mpi_init(int *argc, char ***argv, int threads);
int lpod_mpi_active(void);
int lpod_mpi_rank(void);
int lpod_mpi_size(void);
/* Rank 0: the remote executor for pod_run (slots = (size-1) * threads). */
const pod_run_remote *lpod_mpi_remote(void);
/* Every rank: study seq uses plan (server threads of ranks > 0 wait for
** it; rank 0 finds the number of a plan). `name` for messages. */
void lpod_mpi_register(int seq, const char *name, pod_mc_plan *plan);
/* Rank 0, merged_cb: send the plan's final merge state (or the failure)
** of study seq to every other rank (non-blocking). */
void lpod_mpi_send_state(int seq, pod_mc_plan *plan, const pod_err *failed);
/* Ranks > 0: wait for study seq's state from rank 0 and decode it into
** plan; returns POD_OK, or the failure rank 0 reported (err filled). */
int lpod_mpi_recv_state(int seq, pod_mc_plan *plan, pod_err *err);
/* Rank 0 on SIGTERM from mpirun: print the chunks in flight per rank
** (async-signal-safe). */
void lpod_mpi_report_in_flight(void);
/* End: rank 0 stops the servers; every rank finalises.  `rc` is the
** run's exit code: after a failure on one rank only, the job is aborted;
** after an interrupt rank 0 exits without waiting for the others. */
int lpod_mpi_finish(int rc);

#endif
