/*
** host.h: the scenario host.  One main lua_State on the loop thread, a
** libuv loop that exists from the start, and the scenario running in a
** coroutine of that state.  Asynchronous bindings (study:run, gnuplot)
** start work on the loop, call lpod_host_wait and yield; their completion
** callback, on the loop thread, pushes results on the coroutine and calls
** lpod_host_resume.  The loop is never run re-entrantly: waiting means
** yielding (luv, Neovim).
*/
#ifndef LPOD_HOST_H
#define LPOD_HOST_H

#include <lua.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

typedef struct pod_host_opts {
  const char *scenario;    /* path of the scenario file */
  const char *out_dir;     /* NULL: out/<scenario stem> */
  const char *const *sets; /* "key=value" strings from --set */
  int nsets;
  int unsafe; /* lift the sandbox */
  int quiet;
  const char *tool;      /* NULL: run `scenario`; else an embedded tool:
                            "validate", "presets" or "plot" */
  const char *tool_arg;  /* the tool's argument, or NULL */
  int threads;           /* 0: default (cores) */
  long long samples;     /* -1: scenario's own */
  long long seed;        /* -1: scenario's own */
  const char *format;    /* "table" (default), "csv", "json" */
  double max_memory_mb;  /* per Lua state */
  double timeout_s;      /* wall-clock budget, 0: none */
  double max_samples_mb; /* budget for exact quantiles */
  int progress;          /* 1: progress bar on stderr */
  int help;              /* run FILE --help: list the scenario's
                            podsim.arg declarations and stop */
  int no_trace;          /* 1: studies run a Lua eval per sample */
  /* scale-out (scale.h): --shard I/N writes chunk results to shard_dir;
  ** merge: studies read them (podsim merge); mpi: --mpi */
  int shard_i, shard_n; /* shard_n 0: not sharded */
  const char *shard_dir;
  int merge;
  int mpi; /* rank 0 of an MPI run: SIGTERM (how mpirun
              passes on ^C) acts as SIGINT */
  /* called with the exit code after the scenario ended, before its state
  ** closes; returns the exit code to use.  May be NULL. */
  int (*at_end)(int rc);
} pod_host_opts;

/* Run the scenario (or validation) described by `o`; returns the exit
** code of DESIGN.md section 6 (0, 1, 130). Errors go to stderr. */
int pod_host_main(const pod_host_opts *o);

/* Call first in main(): make fds 0, 1 and 2 valid before anything opens
** a file (a closed one is reopened on /dev/null, stdout on /dev/full so
** that output to it counts as lost) and ignore SIGPIPE, so a broken pipe
** is a write error like any other. */
void pod_host_std_streams(void);

/* --- for bindings ------------------------------------------------------- */

typedef struct pod_host pod_host;

/* The host that owns L (any coroutine of the main state), or NULL for a
** worker state.  [-0, +0, m] */
pod_host *lpod_host(lua_State *L);
uv_loop_t *lpod_host_loop(pod_host *h);
const pod_host_opts *lpod_host_opts(pod_host *h);
lua_State *lpod_host_main_state(pod_host *h);
/* The scenario coroutine: where a completion pushes its results before
** lpod_host_resume (the only coroutine that may wait, see below). */
lua_State *lpod_host_coroutine(pod_host *h);

/* Raise a located error unless `co` is the scenario coroutine and may
** yield; call right before `return lua_yield(co, 0)`.  `what` names the
** call in the error ("study:run()").  [-0, +0, v] */
void lpod_host_check_yield(lua_State *co, const char *what);

/* Resume the scenario coroutine with `nargs` values pushed on it.  Call
** only from the loop thread, outside of any Lua call.  Errors of the
** scenario are reported, not raised.  On the coroutine: [-nargs, +0, -] */
void lpod_host_resume(pod_host *h, int nargs);

/* `run FILE --help` printed the scenario's arguments: the error that
** stops the scenario next is not reported and the run exits 0. */
void lpod_host_help_done(pod_host *h);

/* Non-zero once SIGINT (or the timeout) asked the run to stop. */
int lpod_host_interrupted(pod_host *h);

/* After a wait in a podsim call that has no partial result to return
** (podsim.search): when SIGINT or the timeout came meanwhile, raise the
** error the signal raises in running Lua (the run stops as it would
** have); else nothing.  L: the resumed scenario coroutine.  [-0, +0, v] */
void lpod_host_stop_if_interrupted(lua_State *L);

/* The call now waiting (after lpod_host_check_yield) raises the stop error
** itself when resumed after SIGINT or the timeout
** (lpod_host_stop_if_interrupted), so the timeout prints no notice of its
** own.  Cleared when the scenario resumes. */
void lpod_host_wait_raises(pod_host *h);

/* Print msg (located by the caller) on stderr now and make the run exit 1 when
 *the
 ** scenario ends, without stopping it (a budget stopped one study; the
 ** scenario may still write its partial results).  Loop thread only. */
void lpod_host_fail(pod_host *h, const char *msg);

/* Cancel hooks: called once on the loop thread when the run must stop
** (SIGINT, timeout, scenario error).  Returns an id for removal. */
typedef void (*lpod_cancel_fn)(void *ud);
int lpod_host_on_cancel(pod_host *h, lpod_cancel_fn fn, void *ud);
void lpod_host_off_cancel(pod_host *h, int id);

/* The embedded file `name` ("plots/cdf.gp"), its length in *len, or NULL:
** the project's own files, compiled in. */
const char *lpod_host_embedded(const char *name, size_t *len);

/* The sandbox of a Lua state: its roots and whether it is lifted.  Every
** state podsim opens (the main state, study templates, workers) holds a
** copy in its registry, so path checks work on any thread without the
** host.  Roots are real paths (symlinks resolved). */
typedef struct pod_sandbox {
  int unsafe;              /* --unsafe: no checks */
  char scen_dir[PATH_MAX]; /* reading allowed below it */
  char out_dir[PATH_MAX];  /* reading and writing allowed below it */
  uint64_t deadline_ns;    /* uv_hrtime() past which Lua code in a study's
                              template state (the metrics probe) stops;
                              0: no --timeout */
  double timeout_s;        /* for the message */
} pod_sandbox;

/* The sandbox of L (a copy in L's registry), or NULL when L has none. */
const pod_sandbox *lpod_sandbox(lua_State *L);

enum {
  LPOD_PATH_READ = 0,  /* below the scenario's folder or the output folder */
  LPOD_PATH_WRITE = 1, /* below the output folder */
  LPOD_PATH_OUT = 2    /* reading, below the output folder only */
};

/* Resolve `path` on the real file system (from the cwd; every symlink and
** every ".." physically, so "link/.." is the link target's parent) into
** real[n] and check it against sb for `mode` (LPOD_PATH_*).  1 when
** allowed (real then holds the path to open), 0 when not (or it cannot
** be resolved: a dangling symlink, a loop, too long).  With sb->unsafe
** everything is allowed.  A NULL sb allows nothing. */
int lpod_sandbox_check(const pod_sandbox *sb, const char *path, int mode,
                       char *real, size_t n);

/* lpod_sandbox_check with L's sandbox, result discarded. */
int lpod_path_allowed(lua_State *L, const char *path, int mode);

/* Non-zero when `path` may be opened (write: for writing) in the main
** state of h (kept for callers holding a pod_host; prefer
** lpod_path_allowed). */
int lpod_host_path_allowed(pod_host *h, const char *path, int write);

/* uv_hrtime() at which the run's time budget ends (including the grace
** period once it has run out), or 0 without --timeout. */
uint64_t lpod_host_deadline_ns(pod_host *h);

/* Budgets for a state that runs outside the scenario coroutine (the
** probe's template state): stop its Lua code once uv_hrtime() passes
** deadline_ns (0: no deadline) with the error msg.  [-0, +0, m] */
void lpod_state_deadline(lua_State *L, uint64_t deadline_ns, const char *msg);
/* Non-zero once L ran out of its memory budget (an error then is the
** budget's, whatever its message says).  [-0, +0, -] */
int lpod_state_out_of_memory(lua_State *L);

/* Mark L's next error as a budget error that pcall cannot catch (a
** worker stopped after a cancel).  [-0, +0, -] */
void lpod_state_doom(lua_State *L);

/* A fresh worker lua_State with podsim's libraries opened, sandboxed like
** the state whose sandbox is `sb` (copied: path checks, the memory budget,
** and a count hook that stops Lua code past sb->deadline_ns; a worker may
** replace that hook with its own), sharing nothing with it (one per
** worker thread); NULL when it cannot be made.  Touches no existing
** state.  [-0, +0, -] */
lua_State *lpod_worker_state(const pod_host_opts *o, const pod_sandbox *sb);

#endif
