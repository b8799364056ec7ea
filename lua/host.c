/*
** host.c: the scenario host (see host.h).
**
** Threads: everything here runs on the loop thread, except the SIGINT
** handler, which only sets flags, installs a Lua hook on the running
** coroutine (as lua.c's laction does) and calls uv_async_send, all
** async-signal-safe.
*/
#include "host_int.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lpod.h"
#include "scale.h"
#include "pod_err.h"

static pod_host *g_host; /* for the signal handler only */
static volatile sig_atomic_t g_sigint_count;

/* ---------------------------------------------------------------------- */
/* host lookup                                                             */
/* ---------------------------------------------------------------------- */

pod_host *lpod_host(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.host");
  pod_host *h = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return h;
}

uv_loop_t *lpod_host_loop(pod_host *h) {
  return &h->loop;
}
const pod_host_opts *lpod_host_opts(pod_host *h) {
  return &h->o;
}
lua_State *lpod_host_main_state(pod_host *h) {
  return h->L;
}
lua_State *lpod_host_coroutine(pod_host *h) {
  return h->co;
}
int lpod_host_interrupted(pod_host *h) {
  return h->interrupted || h->timed_out;
}

uint64_t lpod_host_deadline_ns(pod_host *h) {
  if (h == NULL || h->o.timeout_s <= 0) return 0;
  uint64_t d = h->t0_ns + (uint64_t)(h->o.timeout_s * 1e9);
  if (h->timed_out) d += TIMEOUT_GRACE_MS * 1000000ull;
  return d;
}

void lpod_state_deadline(lua_State *L, uint64_t deadline_ns, const char *msg) {
  pod_host__set_deadline(L, deadline_ns, msg);
}

void lpod_state_doom(lua_State *L) {
  pod_host__doom(L, POD_DOOM_TIME);
}

int lpod_state_out_of_memory(lua_State *L) {
  return pod_host__doomed(L) == POD_DOOM_MEMORY;
}

void lpod_host_fail(pod_host *h, const char *msg) {
  fprintf(stderr, "%s\n", msg);
  h->failed = 1;
}

int lpod_host_on_cancel(pod_host *h, lpod_cancel_fn fn, void *ud) {
  for (int i = 0; i < MAX_CANCEL; i++)
    if (h->cancel[i].fn == NULL) {
      h->cancel[i].fn = fn;
      h->cancel[i].ud = ud;
      if (h->cancelled) fn(ud);
      return i;
    }
  return -1;
}

void lpod_host_off_cancel(pod_host *h, int id) {
  if (id >= 0 && id < MAX_CANCEL) h->cancel[id].fn = NULL;
}

static void run_cancel_hooks(pod_host *h) {
  if (h->cancelled) return;
  h->cancelled = 1;
  for (int i = 0; i < MAX_CANCEL; i++)
    if (h->cancel[i].fn) h->cancel[i].fn(h->cancel[i].ud);
}

/* ---------------------------------------------------------------------- */
/* errors and tracebacks                                                   */
/* ---------------------------------------------------------------------- */

/* Number of stack levels of co (as lauxlib's lastlevel: a doubling then
** a binary search, since lua_getstack walks the call chain). */
static int stack_levels(lua_State *co) {
  lua_Debug ar;
  int li = 1, le = 1;
  while (lua_getstack(co, le, &ar)) {
    li = le;
    le *= 2;
  }
  while (li < le) {
    int m = (li + le) / 2;
    if (lua_getstack(co, m, &ar))
      li = m + 1;
    else
      le = m;
  }
  return le;
}

/* "file:line:" of the innermost script frame of co, or "" */
static void script_where(lua_State *co, char *buf, size_t n) {
  lua_Debug ar;
  buf[0] = '\0';
  for (int level = 0; level < 64 && lua_getstack(co, level, &ar); level++) {
    lua_getinfo(co, "Sl", &ar);
    if (ar.source[0] == '@' && ar.currentline > 0) {
      snprintf(buf, n, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
}

#define TRACE_HEAD 10 /* frames shown before and after a gap */
#define TRACE_TAIL 11

/* lua_CFunction: the string an error object's __tostring gives, or
** nothing. */
static int error_tostring(lua_State *L) {
  if (luaL_callmeta(L, 1, "__tostring") && lua_type(L, -1) == LUA_TSTRING)
    return 1;
  return 0;
}

/* Message plus a traceback limited to script frames, unless the error is
** one of podsim's located input errors, which stand alone. */
static void report_error(pod_host *h, lua_State *co, int status) {
  lua_State *L = h->L;
  const char *msg = lua_tostring(co, -1);
  if (status == LUA_ERRMEM || pod_host__doomed(co) == POD_DOOM_MEMORY) {
    char where[200];
    script_where(co, where, sizeof where);
    fprintf(stderr, "%s%smemory budget of %.0f MB exceeded (--max-memory)\n",
            where[0] ? "" : "podsim: ", where, h->o.max_memory_mb);
    return;
  }
  char nonstr[512];
  if (msg == NULL) {
    /* __tostring is scenario code: run it protected, in the main thread
    ** (co is dead), under the exit budget */
    char where[200];
    script_where(co, where, sizeof where);
    const char *tname = luaL_typename(co, -1);
    lua_pushcfunction(L, error_tostring);
    lua_xmove(co, L, 1);
    pod_host__set_deadline(
        L, uv_hrtime() + EXIT_BUDGET_MS * 1000000ull,
        "the error object's __tostring exceeded its time budget");
    int st = lua_pcall(L, 1, 1, 0);
    pod_host__set_deadline(L, 0, "");
    if (st == LUA_OK && lua_type(L, -1) == LUA_TSTRING)
      snprintf(nonstr, sizeof nonstr, "%s", lua_tostring(L, -1));
    else if (st == LUA_OK)
      snprintf(nonstr, sizeof nonstr,
               "%serror object is a %s value, not a string", where, tname);
    else
      snprintf(nonstr, sizeof nonstr,
               "%serror object is a %s value whose __tostring failed: %s",
               where, tname,
               lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1)
                                              : "(no message)");
    lua_pop(L, 1);
    msg = nonstr;
  }
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.input_error");
  int input = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), msg) == 0;
  lua_pop(L, 1);
  fprintf(stderr, "%s\n", msg);
  if (input || h->interrupted) return;
  lua_Debug ar;
  int printed = 0;
  /* A deep stack (runaway recursion) shows its first and last frames. */
  int nlevels = stack_levels(co);
  for (int level = 0; lua_getstack(co, level, &ar); level++) {
    if (level == TRACE_HEAD && nlevels > TRACE_HEAD + TRACE_TAIL) {
      fprintf(stderr, "  ...\t(skipping %d levels)\n",
              nlevels - TRACE_HEAD - TRACE_TAIL);
      level = nlevels - TRACE_TAIL - 1;
      continue;
    }
    lua_getinfo(co, "Sln", &ar);
    if (ar.source[0] != '@' || ar.currentline <= 0) continue;
    if (!printed) fprintf(stderr, "traceback:\n");
    printed = 1;
    if (ar.name)
      fprintf(stderr, "  %s:%d: in %s '%s'\n", ar.short_src, ar.currentline,
              ar.namewhat[0] ? ar.namewhat : "function", ar.name);
    else if (*ar.what == 'm')
      fprintf(stderr, "  %s:%d: in main chunk\n", ar.short_src, ar.currentline);
    else
      fprintf(stderr, "  %s:%d: in function <%s:%d>\n", ar.short_src,
              ar.currentline, ar.short_src, ar.linedefined);
  }
}

/* ---------------------------------------------------------------------- */
/* the coroutine                                                           */
/* ---------------------------------------------------------------------- */

void lpod_host_check_yield(lua_State *co, const char *what) {
  pod_host *h = lpod_host(co);
  if (h == NULL)
    lpod_error(co, what, NULL, "cannot wait inside a worker's evaluator");
  if (co != h->co)
    lpod_error(co, what, NULL,
               "must be called from the scenario's main flow, not from inside "
               "a coroutine");
  if (!lua_isyieldable(co))
    lpod_error(co, what, NULL,
               "cannot wait here (inside a metamethod or a C callback such as "
               "table.sort)");
  h->waiting = 1;
}

static void finish(pod_host *h) {
  h->finished = 1;
  run_cancel_hooks(h);
  uv_close((uv_handle_t *)&h->wake, NULL);
  if (h->o.timeout_s > 0) uv_close((uv_handle_t *)&h->timeout, NULL);
}

/* The scenario's top level returned: the library's checks (every --set
** key read; `run FILE --help` without a study).  Errors are reported and
** fail the run. */
static int call_after_run(lua_State *L) {
  if (lua_getfield(L, LUA_REGISTRYINDEX, "lpod.after_run") == LUA_TFUNCTION)
    lua_call(L, 0, 0);
  return 0;
}

static void after_run(pod_host *h) {
  lua_State *L = h->L;
  lua_pushcfunction(L, call_after_run); /* light C function: no allocation */
  if (lua_pcall(L, 0, 0, 0) != LUA_OK) {
    if (!h->help_done) {
      fprintf(
          stderr, "%s\n",
          lua_isstring(L, -1) ? lua_tostring(L, -1) : "podsim: check failed");
      h->failed = 1;
    }
    lua_pop(L, 1);
  }
}

void lpod_host_help_done(pod_host *h) {
  h->help_done = 1;
}

void lpod_host_resume(pod_host *h, int nargs) {
  int nres = 0;
  h->waiting = 0;
  h->wait_raises = 0;
  int status = lua_resume(h->co, h->L, nargs, &nres);
  if (status == LUA_YIELD) {
    lua_pop(h->co, nres);
    if (!h->waiting) {
      fprintf(stderr,
              "podsim: the scenario yielded outside a podsim call "
              "(coroutine.yield at top level?)\n");
      h->failed = 1;
      finish(h);
    }
    return;
  }
  if (status != LUA_OK) {
    if (!h->help_done) {
      report_error(h, h->co, status);
      h->failed = 1;
    }
  } else if (!h->o.tool) {
    after_run(h);
  }
  finish(h);
}

static void on_wake(uv_async_t *a) {
  pod_host *h = a->data;
  if (h->interrupted || h->timed_out) run_cancel_hooks(h);
}

static void on_timeout(uv_timer_t *t) {
  pod_host *h = t->data;
  h->timed_out = 1;
  if (!h->wait_raises) /* else the waiting call's located error says it */
    fprintf(stderr,
            "podsim: time budget of %g s exceeded (--timeout); stopping\n",
            h->o.timeout_s);
  run_cancel_hooks(h);
}

/* Hook installed on the running coroutine by the signal handler or when
** the time budget runs out while Lua code is running. */
static const char *signal_suffix(int sig) {
  return sig == SIGTERM ? " (SIGTERM)" : sig == SIGHUP ? " (SIGHUP)" : "";
}

static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  pod_host *h = lpod_host(L);
  if (h && h->timed_out) {
    pod_host__doom(L, POD_DOOM_TIME);
    lpod_error(L, NULL, NULL, "time budget of %g s exceeded (--timeout)",
               h->o.timeout_s);
  }
  pod_host__doom(L, POD_DOOM_INTERRUPT);
  lpod_error(L, NULL, NULL, "interrupted%s", h ? signal_suffix(h->signo) : "");
}

void lpod_host_wait_raises(pod_host *h) {
  h->wait_raises = 1;
}

void lpod_host_stop_if_interrupted(lua_State *L) {
  pod_host *h = lpod_host(L);
  if (h && (h->interrupted || h->timed_out)) stop_hook(L, NULL);
}

/* SIGINT, SIGTERM and SIGHUP alike: the first stops the run (partial
** results written, marked incomplete; exit 128 + the signal's number),
** a second exits at once.  Under MPI, mpirun turns ^C into SIGTERM. */
static void on_signal(int sig) {
  if (sig == SIGTERM) lpod_mpi_report_in_flight();
  if (++g_sigint_count >= 2) _exit(128 + sig);
  pod_host *h = g_host;
  if (h == NULL) return;
  if (h->signo == 0) h->signo = sig;
  h->interrupted = 1;
  pod_host__watchdog_signalled();
  /* Only stop Lua code itself when no podsim call is pending: a pending
  ** study returns partial results and the scenario writes them. */
  if (!h->waiting && h->co)
    lua_sethook(h->co, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT,
                1);
  uv_async_send(&h->wake);
}

/* Instruction budget for the timeout while Lua runs: every 1M
** instructions, look at the clock. */
static void budget_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  pod_host__check_time(L);
}

void pod_host__check_time(lua_State *L) {
  pod_host *h = lpod_host(L);
  if (h == NULL || h->o.timeout_s <= 0) return;
  uv_update_time(&h->loop);
  /* After the timer cancelled a pending study, the scenario gets a grace
  ** period to write the partial results before it too is stopped. */
  uint64_t limit = (uint64_t)(h->o.timeout_s * 1000.0);
  if (h->timed_out) limit += TIMEOUT_GRACE_MS;
  /* uv_now counts from an arbitrary origin (boot): measure from the start */
  if (uv_now(&h->loop) - h->t0_ms >= limit) {
    h->timed_out = 1;
    run_cancel_hooks(h);
    pod_host__doom(L, POD_DOOM_TIME);
    lpod_error(L, NULL, NULL, "time budget of %g s exceeded (--timeout)",
               h->o.timeout_s);
  }
}

static int start_scenario(pod_host *h) {
  lua_State *L = h->L;
  h->co = lua_newthread(L);
  h->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  int st;
  if (h->o.tool) {
    const pod_embed_file *f = pod_host__embedded("tools");
    if (f == NULL) {
      fprintf(stderr, "podsim: embedded tools missing\n");
      return 1;
    }
    st = luaL_loadbufferx(h->co, f->src, f->len, "=[podsim] tools.lua", "t");
  } else {
    st = luaL_loadfilex(h->co, h->o.scenario, "t");
  }
  if (st != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(h->co, -1));
    return 1;
  }
  if (h->o.timeout_s > 0)
    lua_sethook(h->co, budget_hook, LUA_MASKCOUNT, 1000000);
  /* the embedded tools get podsim's internals as their argument */
  int nargs = 0;
  if (h->o.tool) {
    lua_getfield(h->co, LUA_REGISTRYINDEX, "lpod.internal");
    nargs = 1;
  }
  lpod_host_resume(h, nargs);
  return 0;
}

/* The scenario's folder and the output folder, resolved into h (the
** sandbox's roots).  -1 (reported) on failure. */
static int resolve_dirs(pod_host *h, const pod_host_opts *o) {
  /* folders: the scenario's and the output */
  if (o->scenario && !o->tool) {
    if (pod_host__physical(o->scenario, h->scen_dir, sizeof h->scen_dir) != 0) {
      fprintf(stderr, "podsim: cannot resolve '%s'\n", o->scenario);
      return -1;
    }
    char *slash = strrchr(h->scen_dir, '/');
    if (slash && slash != h->scen_dir) *slash = '\0';
  } else if (getcwd(h->scen_dir, sizeof h->scen_dir) == NULL) {
    h->scen_dir[0] = '\0';
  }
  char outbuf[PATH_MAX];
  const char *out = o->out_dir;
  if (out == NULL) {
    const char *base = o->tool ? o->tool : o->scenario;
    const char *s = strrchr(base, '/');
    s = s ? s + 1 : base;
    size_t n = strcspn(s, ".");
    snprintf(outbuf, sizeof outbuf, "out/%.*s", (int)n, s);
    out = outbuf;
  }
  if (pod_host__physical(out, h->out_dir, sizeof h->out_dir) != 0) {
    fprintf(stderr, "podsim: bad output folder '%s'\n", out);
    return -1;
  }
  h->sb.unsafe = o->unsafe;
  h->sb.timeout_s = o->timeout_s;
  h->sb.deadline_ns =
      o->timeout_s > 0 ? uv_hrtime() + (uint64_t)(o->timeout_s * 1e9) : 0;
  memcpy(h->sb.scen_dir, h->scen_dir, sizeof h->sb.scen_dir);
  memcpy(h->sb.out_dir, h->out_dir, sizeof h->sb.out_dir);
  return 0;
}

/* The loop's wake-up handle, the clock origin and the --timeout timer. */
static void start_clocks(pod_host *h) {
  uv_async_init(&h->loop, &h->wake, on_wake);
  h->wake.data = h;
  uv_unref((uv_handle_t *)&h->wake);
  uv_update_time(&h->loop);
  h->t0_ms = uv_now(&h->loop);
  h->t0_ns = uv_hrtime();
  if (h->o.timeout_s > 0) {
    uv_timer_init(&h->loop, &h->timeout);
    h->timeout.data = h;
    uv_timer_start(&h->timeout, on_timeout, (uint64_t)(h->o.timeout_s * 1000.0),
                   0);
    uv_unref((uv_handle_t *)&h->timeout);
  }
}

#define NSIGS 3
static const int host_sigs[NSIGS] = {SIGINT, SIGTERM, SIGHUP};

/* on_signal for SIGINT, SIGTERM and SIGHUP; the old actions into old.  A
** SIGTERM or SIGHUP that the parent set to be ignored stays ignored
** (nohup; an MPI rank above 0 ignores mpirun's SIGTERM so that rank 0 can
** write its partial results first); SIGINT is always handled. */
static void install_signals(struct sigaction old[NSIGS]) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  for (int i = 0; i < NSIGS; i++) {
    sigaction(host_sigs[i], NULL, &old[i]);
    if (host_sigs[i] != SIGINT && old[i].sa_handler == SIG_IGN) continue;
    sigaction(host_sigs[i], &sa, NULL);
  }
}

/* The exit status of a finished run: 128 + the signal when interrupted
** (also when the signal stopped running Lua with its "interrupted"
** error), 1 on a failure, a timeout or lost stdout, else 0. */
static int exit_status(const pod_host *h) {
  int rc = 0;
  if (h->interrupted) {
    rc = 128 + (h->signo ? h->signo : SIGINT);
    /* mpirun forwards ^C to the ranks as SIGTERM: rank 0 reports it as
    ** the interrupt it was (a scheduler's SIGTERM under --mpi reads the
    ** same) */
    if (h->o.mpi && h->signo == SIGTERM) rc = 130;
  } else if (h->failed || h->timed_out) {
    rc = 1;
  }
  if (pod_host__stdout_lost() && rc == 0) rc = 1;
  return rc;
}

int pod_host_main(const pod_host_opts *o) {
  pod_host *h = calloc(1, sizeof *h);
  if (h == NULL) {
    fprintf(stderr, "podsim: out of memory\n");
    return 1;
  }
  h->o = *o;
  pod_init();
  if (resolve_dirs(h, o) != 0) {
    free(h);
    return 1;
  }
  h->o.out_dir = h->out_dir;
  if (pod_host__lock_out(h) != 0) {
    free(h);
    return 1;
  }
  /* state and loop */
  h->L = pod_host__new_state(o->max_memory_mb);
  if (h->L == NULL || uv_loop_init(&h->loop) != 0) {
    fprintf(stderr, "podsim: cannot create the Lua state or the event loop\n");
    pod_host__unlock_out(h);
    free(h);
    return 1;
  }
  lua_State *L = h->L;
  lua_pushlightuserdata(L, h);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.host");
  lua_pushcfunction(L, pod_host__open_podsim_protected);
  lua_pushlightuserdata(L, &h->o);
  lua_pushlightuserdata(L, &h->sb);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    fprintf(stderr, "podsim: %s\n", lua_tostring(L, -1));
    pod_host__close_state(L);
    uv_loop_close(&h->loop);
    pod_host__unlock_out(h);
    free(h);
    return 1;
  }
  start_clocks(h);
  g_host = h;
  struct sigaction old[NSIGS];
  install_signals(old);
  pod_host__watchdog_start(h);
  if (o->timeout_s > 0)
    pod_host__watchdog_arm(
        h,
        h->t0_ns + (uint64_t)(o->timeout_s * 1e9) +
            (TIMEOUT_GRACE_MS + WATCHDOG_SLACK_MS) * 1000000ull,
        "the time budget (--timeout) ran out and the run did not stop");

  if (start_scenario(h) != 0) {
    h->failed = 1;
    if (!h->finished) finish(h);
  }
  uv_run(&h->loop, UV_RUN_DEFAULT);
  if (!h->finished) {
    /* the loop ran dry while the scenario still waits: a binding bug */
    fprintf(stderr,
            "podsim: the scenario is waiting for nothing (internal error)\n");
    h->failed = 1;
    finish(h);
    uv_run(&h->loop, UV_RUN_DEFAULT);
  }
  luaL_unref(L, LUA_REGISTRYINDEX, h->co_ref);
  /* finalizers at exit are scenario code too, and Lua runs them with
  ** hooks off: the watchdog gives them EXIT_BUDGET_MS */
  pod_host__watchdog_arm(h, uv_hrtime() + EXIT_BUDGET_MS * 1000000ull,
                         "finalizers (__gc) at exit did not finish");
  pod_host__close_state(L);
  if (uv_loop_close(&h->loop) != 0) {
    uv_run(&h->loop, UV_RUN_DEFAULT);
    uv_loop_close(&h->loop);
  }
  pod_host__watchdog_stop(h);
  for (int i = 0; i < NSIGS; i++) sigaction(host_sigs[i], &old[i], NULL);
  g_host = NULL;
  int rc = exit_status(h);
  pod_host__unlock_out(h);
  if (h->o.at_end) rc = h->o.at_end(rc); /* scale.h: shard file, MPI */
  free(h);
  return rc;
}
