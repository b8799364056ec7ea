/*
** host_int.h: internals of the scenario host (lua/host*.c), in the manner
** of Lua's lstate.h: the pod_host struct and the functions shared by
** host.c (host lookup, errors, the coroutine and the run), host_sandbox.c
** (memory budget, restricted globals), host_paths.c (path checks, the
** checked io.open / io.lines) and host_open.c (opening the libraries, the
** embedded podsim library).  Callers use host.h only.
**
** Convention: a non-static function shared between these files carries the
** prefix pod_host__ (double underscore, as libuv's uv__).
*/
#ifndef POD_HOST_INT_H
#define POD_HOST_INT_H

#include "host.h"

#include <limits.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#define MAX_CANCEL 64
#define TIMEOUT_GRACE_MS 10000
/* Time given to error reporting (__tostring) and finalizers at exit. */
#define EXIT_BUDGET_MS 10000
/* After timeout + grace + this, a run still alive (a worker stuck in a
** long C call) is ended by the watchdog. */
#define WATCHDOG_SLACK_MS 5000

typedef struct pod_embed_file {
  const char *name;
  const char *src;
  size_t len;
} pod_embed_file;
extern const pod_embed_file pod_embed_files[];

struct pod_host {
  pod_host_opts o;
  lua_State *L;  /* main state */
  lua_State *co; /* scenario coroutine */
  int co_ref;    /* registry ref keeping co alive */
  uv_loop_t loop;
  uv_async_t wake; /* SIGINT -> loop */
  uv_timer_t timeout;
  int finished;  /* scenario returned or failed */
  int help_done; /* run FILE --help printed the arguments */
  int failed;
  int waiting;     /* scenario yielded inside a podsim call */
  int wait_raises; /* that call raises the stop error itself (no notice) */
  volatile sig_atomic_t interrupted;
  int timed_out;
  int cancelled; /* cancel hooks already called */
  struct {
    lpod_cancel_fn fn;
    void *ud;
  } cancel[MAX_CANCEL];
  char scen_dir[PATH_MAX];
  char out_dir[PATH_MAX];
  pod_sandbox sb; /* the roots above, copied into every state */
  size_t mem, mem_cap;
  uint64_t t0_ms; /* uv_now when the run started (the budget's origin) */
  uint64_t t0_ns; /* uv_hrtime at the same moment */
  volatile sig_atomic_t signo; /* first of SIGINT/SIGTERM/SIGHUP, 0: none */
  char lock_path[PATH_MAX];    /* the output folder's lock file, "" if none */
  void *watchdog;              /* host_guard.c */
};

/* host_sandbox.c */
/* A new state whose allocator keeps it under max_memory_mb (0: no cap). */
lua_State *pod_host__new_state(double max_memory_mb);
/* Close a state made by pod_host__new_state. */
void pod_host__close_state(lua_State *L);
/* Restrict the globals of L (DESIGN.md 10).  [-0, +0, e] */
void pod_host__sandbox(lua_State *L);
/* Budget errors that stick: once a state is doomed (its memory or time
** budget ran out, or the run was interrupted), the pcall, xpcall and
** coroutine.resume that pod_host__guard_budgets installs re-raise the
** error instead of catching it.  [-0, +0, e] */
enum { POD_DOOM_NONE = 0, POD_DOOM_MEMORY, POD_DOOM_TIME, POD_DOOM_INTERRUPT };
void pod_host__doom(lua_State *L, int kind);
int pod_host__doomed(lua_State *L);
void pod_host__guard_budgets(lua_State *L);
/* Stop Lua code running in L once uv_hrtime() passes deadline_ns (0:
** remove the hook) with the error msg, dooming L.  [-0, +0, m] */
void pod_host__set_deadline(lua_State *L, uint64_t deadline_ns,
                            const char *msg);

/* host_paths.c */
/* path made absolute (from the cwd) and lexically normalised into out;
** -1 when it does not fit. */
int pod_host__absolute(const char *path, char *out, size_t n);
/* Resolve symlinks in the longest existing prefix of an absolute path. */
int pod_host__resolve(const char *abs, char *out, size_t n);
/* path resolved physically (see lpod_sandbox_check) into out; -1 when it
** cannot be. */
int pod_host__physical(const char *path, char *out, size_t n);
/* mkdir -p */
int pod_host__mkdirs(const char *path);
/* io.open / io.lines with the path checked first (upvalues: the original
** function and its name).  A lua_CFunction. */
int pod_host__io_file(lua_State *L);

/* host.c */
/* In the main state: raise the time budget error (dooming L) once the
** run's --timeout (plus the grace period after a cancel) has passed.
** [-0, +0, v] */
void pod_host__check_time(lua_State *L);

/* host_guard.c */
/* Take the output folder for this run: create it and its lock file
** `.podsim.lock` holding the pid; -1 (reported) when another live run
** holds it.  Tools that write nothing take no lock. */
int pod_host__lock_out(pod_host *h);
void pod_host__unlock_out(pod_host *h);
/* A thread that ends the process (exit 1, "podsim: <why> in time;
** exiting") once uv_hrtime() passes the earliest deadline armed, or
** TIMEOUT_GRACE_MS + WATCHDOG_SLACK_MS after a signal; the run's own
** budgets (Lua hooks, cancelled studies) act first, this catches what
** they cannot reach (C calls, finalizers, which Lua runs with hooks off). */
void pod_host__watchdog_start(pod_host *h);
void pod_host__watchdog_arm(pod_host *h, uint64_t deadline_ns, const char *why);
void pod_host__watchdog_stop(pod_host *h);
/* From the signal handler (async-signal-safe). */
void pod_host__watchdog_signalled(void);
/* Flush stdout; non-zero (reported on stderr) when output was lost. */
int pod_host__stdout_lost(void);

/* host_open.c */
/* The embedded library file `name`, or NULL. */
const pod_embed_file *pod_host__embedded(const char *name);
/* lua_CFunction: open the libraries and podsim (the pod_host_opts is the
** light userdata at 1, the pod_sandbox to copy into L's registry at 2)
** into L, then sandbox it unless --unsafe. */
int pod_host__open_podsim_protected(lua_State *L);

#endif
