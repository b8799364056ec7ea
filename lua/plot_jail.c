/*
** plot_jail.c: the gnuplot processes of plots (see plot_jail.h), for the
** embedded templates (plain) and the user templates (under Landlock).
** A request runs in a threadpool thread: it builds the Landlock ruleset
** (jailed), starts gnuplot, feeds the script on stdin, collects stderr and
** waits; the loop thread resumes the scenario.
**
** gnuplot starts with clone(CLONE_VM | CLONE_VFORK) on a small stack, not
** fork(): a fork copies the page tables of podsim's address space (large
** sample columns) only for the child to throw them away at exec.  The
** child shares podsim's memory until it execs, so it runs with every
** signal blocked until it has set every handler back to the default (no
** podsim handler may run in it), then makes plain system calls only: the
** standard streams, the working folder, no_new_privs and
** landlock_restrict_self (jailed), closing every other descriptor, execve.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, syscall, clone, memmem */
#endif
#include "plot_jail.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <uv.h>

#include "host.h"

#if defined(__linux__) && defined(SYS_landlock_create_ruleset)
#include <linux/landlock.h>
#define HAVE_LANDLOCK 1
#endif

int lpod_plot_jail_abi(void) {
#ifdef HAVE_LANDLOCK
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
                   LANDLOCK_CREATE_RULESET_VERSION);
  return v > 0 ? (int)v : 0;
#else
  return 0;
#endif
}

#define ERR_MAX 4096          /* bytes of one plot's stderr kept */
#define BATCH_ERR_MAX 1048576 /* bytes of a batch's stderr kept */
#define CHILD_STACK 65536     /* the child's stack until it execs */

/* One script's outcome. */
typedef struct gp_out {
  int status, sig;
  int setup_failed;  /* gnuplot could not start (or be confined): err says */
  int spawn_errno;   /* plain: why it could not start */
  char err[ERR_MAX]; /* gnuplot's stderr, or why it could not run */
  size_t errlen;
} gp_out;

typedef struct gp_req {
  uv_work_t work;
  pod_host *h;
  int jailed;
  int batch; /* the scripts came as a list: results go back as a list */
  int n;
  char **script;
  size_t *len;
  gp_out *out;
  char cwd[PATH_MAX]; /* gnuplot's working folder; "" keeps podsim's */
  char read_dirs[2][PATH_MAX];
  int nread;
  uv_mutex_t mu; /* pid and killed, shared with the cancel hook */
  pid_t pid;     /* the running gnuplot, or 0 */
  int killed;    /* the cancel hook signalled pid */
  int cancel_id;
} gp_req;

static void jail_msg(gp_out *o, const char *what) {
  snprintf(o->err, sizeof o->err, "%s: %s", what, strerror(errno));
  o->errlen = strlen(o->err);
  o->setup_failed = 1;
}

#ifdef HAVE_LANDLOCK
#define FS_FILE                                                 \
  (LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE | \
   LANDLOCK_ACCESS_FS_READ_FILE)
#define FS_READ (LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)

/* Every file-system right the kernel's ABI knows: all are denied unless a
** rule below grants them. */
static uint64_t handled_fs(int abi) {
  uint64_t m = (LANDLOCK_ACCESS_FS_MAKE_SYM << 1) - 1; /* ABI 1 */
#ifdef LANDLOCK_ACCESS_FS_REFER
  if (abi >= 2) m |= LANDLOCK_ACCESS_FS_REFER;
#endif
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  if (abi >= 3) m |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
#ifdef LANDLOCK_ACCESS_FS_IOCTL_DEV
  if (abi >= 5) m |= LANDLOCK_ACCESS_FS_IOCTL_DEV;
#endif
  return m;
}

/* Grant `access` below `path` (a file gets only the file rights).  A path
** that does not exist is skipped (not every system has /lib64). */
static int allow(int rs, const char *path, uint64_t access, uint64_t handled) {
  int fd = open(path, O_PATH | O_CLOEXEC);
  if (fd < 0) return errno == ENOENT ? 0 : -1;
  struct stat st;
  if (fstat(fd, &st) != 0) {
    close(fd);
    return -1;
  }
  struct landlock_path_beneath_attr pb;
  pb.allowed_access = access & handled;
  if (!S_ISDIR(st.st_mode)) {
    uint64_t file = FS_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
    file |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
    pb.allowed_access &= file;
  }
  pb.parent_fd = fd;
  long rc =
      syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
  close(fd);
  return rc == 0 ? 0 : -1;
}

/* The ruleset of a jailed gnuplot; -1 with the reason in o. */
static int build_ruleset(const gp_req *r, gp_out *o) {
  int abi = lpod_plot_jail_abi();
  if (abi < 1) {
    errno = ENOSYS;
    jail_msg(o, "Landlock");
    return -1;
  }
  uint64_t hf = handled_fs(abi);
  struct landlock_ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = hf;
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr,
                        sizeof attr.handled_access_fs, 0);
  if (rs < 0) {
    jail_msg(o, "landlock_create_ruleset");
    return -1;
  }
  /* the system: programs, libraries, gnuplot's own files, fonts */
  static const char *const sys[] = {
      "/usr", "/bin", "/lib", "/lib64", "/etc/ld.so.cache", "/etc/fonts"};
  uint64_t rx = FS_READ | LANDLOCK_ACCESS_FS_EXECUTE;
  uint64_t rw = FS_READ | LANDLOCK_ACCESS_FS_WRITE_FILE |
                LANDLOCK_ACCESS_FS_MAKE_REG | LANDLOCK_ACCESS_FS_REMOVE_FILE;
#ifdef LANDLOCK_ACCESS_FS_TRUNCATE
  rw |= LANDLOCK_ACCESS_FS_TRUNCATE;
#endif
  int bad = 0;
  for (size_t i = 0; i < sizeof sys / sizeof sys[0]; i++)
    bad |= allow(rs, sys[i], rx, hf);
  bad |=
      allow(rs, "/dev/null",
            LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_WRITE_FILE, hf);
  for (int i = 0; i < r->nread; i++)
    bad |= allow(rs, r->read_dirs[i], FS_READ, hf);
  bad |= allow(rs, r->cwd, rw, hf);
  if (bad) {
    jail_msg(o, "landlock_add_rule");
    close(rs);
    return -1;
  }
  return rs;
}
#endif

/* ---------------------------------------------------------------------- */
/* starting gnuplot                                                        */
/* ---------------------------------------------------------------------- */

/* gnuplot's whole environment: no HOME (no ~/.gnuplot), no GNUPLOT_LIB or
** GDFONTPATH, the C locale (decimal points), a fixed PATH. */
static char *const gp_env[] = {"PATH=/usr/bin:/bin", "LC_ALL=C",
                               "HOME=/nonexistent", "GNUTERM=svg", NULL};
static char *const gp_argv[] = {"gnuplot", "-d", NULL};

/* What the child needs, and where it says why it did not exec (the child
** writes into the parent's memory: the parent is suspended meanwhile). */
typedef struct spawn_ctx {
  int in, err;         /* its stdin and stderr */
  int rs;              /* the Landlock ruleset, or -1: not jailed */
  const char *cwd;     /* NULL: podsim's */
  volatile int stage;  /* 0: exec'd; 1: set-up failed; 2: exec failed */
  volatile int errnum; /* errno of the failure */
} spawn_ctx;

static int child_fail(spawn_ctx *c, int stage) {
  c->errnum = errno;
  c->stage = stage;
  _exit(stage == 1 ? 126 : 127);
}

/* In the child (podsim's memory, its own descriptor table and signal
** handlers), with every signal blocked: no return but through exec. */
static int child_main(void *arg) {
  spawn_ctx *c = arg;
  struct sigaction dfl;
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  for (int s = 1; s < NSIG; s++)
    if (s != SIGKILL && s != SIGSTOP) sigaction(s, &dfl, NULL);
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  int devnull = open("/dev/null", O_WRONLY);
  if (dup2(c->in, 0) < 0 || devnull < 0 || dup2(devnull, 1) < 0 ||
      dup2(c->err, 2) < 0)
    child_fail(c, 1);
  if (c->cwd != NULL && chdir(c->cwd) != 0) child_fail(c, 1);
#ifdef HAVE_LANDLOCK
  if (c->rs >= 0) {
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) child_fail(c, 1);
    if (syscall(SYS_landlock_restrict_self, c->rs, 0) != 0) child_fail(c, 1);
  }
#endif
#ifdef SYS_close_range
  syscall(SYS_close_range, 3u, ~0u, 0); /* the ruleset too */
#endif
  /* PATH=/usr/bin:/bin, searched as execvp would */
  execve("/usr/bin/gnuplot", gp_argv, gp_env);
  int first = errno;
  if (first == ENOENT || first == ENOTDIR || first == EACCES) {
    execve("/bin/gnuplot", gp_argv, gp_env);
    if (first == EACCES && (errno == ENOENT || errno == ENOTDIR))
      errno = EACCES;
  }
  child_fail(c, 2);
  return 0;
}

/* Start gnuplot as c says: its pid (c->stage 0), or -1 with errno (clone
** failed) or with c->stage and c->errnum (the child did not exec; it is
** reaped here). */
static pid_t spawn(spawn_ctx *c) {
  /* the child's stack lives in this frame: CLONE_VFORK keeps this thread
  ** suspended until the child has exec'd or exited */
  _Alignas(16) char stack[CHILD_STACK];
  c->stage = 0;
  c->errnum = 0;
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  pid_t pid = clone(child_main, stack + sizeof stack,
                    CLONE_VM | CLONE_VFORK | SIGCHLD, c);
  int e = errno;
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (pid > 0 && c->stage != 0) {
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
    }
    return -1;
  }
  errno = e;
  return pid;
}

/* ---------------------------------------------------------------------- */
/* running it                                                              */
/* ---------------------------------------------------------------------- */

/* A capped byte buffer. */
typedef struct cbuf {
  char *p;
  size_t len, max;
  int full; /* bytes were dropped */
} cbuf;

static void cbuf_add(cbuf *b, const char *s, size_t n) {
  if (n > b->max - b->len) {
    n = b->max - b->len;
    b->full = 1;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
}

/* Feed `len` bytes of `data` and collect stderr into e at once (neither
** pipe can stall the other), until gnuplot closes its stderr. */
static void pump(const char *data, size_t len, int in, int err, cbuf *e) {
  size_t off = 0;
  struct pollfd p[2] = {{in, POLLOUT, 0}, {err, POLLIN, 0}};
  int open_in = 1, open_err = 1;
  while (open_err) {
    p[0].fd = open_in ? in : -1;
    if (poll(p, 2, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (open_in && (p[0].revents & (POLLOUT | POLLERR | POLLHUP))) {
      ssize_t n = write(in, data + off, len - off);
      if (n > 0) off += (size_t)n;
      if (n < 0 && errno != EINTR && errno != EAGAIN) off = len;
      if (off >= len) {
        close(in);
        open_in = 0;
      }
    }
    if (p[1].revents & (POLLIN | POLLERR | POLLHUP)) {
      char buf[4096];
      ssize_t n = read(err, buf, sizeof buf);
      if (n > 0)
        cbuf_add(e, buf, (size_t)n);
      else if (n == 0 || (errno != EINTR && errno != EAGAIN))
        open_err = 0;
    }
  }
  if (open_in) close(in);
  close(err);
}

/* Wait for pid; the cancel hook may signal it until it is reaped (waitid
** with WNOWAIT first: the pid cannot be reused while the hook sees it).
** *killed: the hook signalled it. */
static int wait_gnuplot(gp_req *r, pid_t pid, int *killed) {
  siginfo_t si;
  while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 &&
         errno == EINTR) {
  }
  uv_mutex_lock(&r->mu);
  r->pid = 0;
  *killed = r->killed;
  r->killed = 0;
  uv_mutex_unlock(&r->mu);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  return st;
}

/* Run gnuplot on data[0..len) (rs: the ruleset, or -1); its stderr into e.
** 0 with o->status and o->sig set, or -1 with o->setup_failed set (the
** reason in o). */
static int run_gnuplot(gp_req *r, int rs, const char *data, size_t len, cbuf *e,
                       gp_out *o, int *killed) {
  int pin[2], perr[2];
  const char *what = "pipe";
  *killed = 0;
  if (pipe2(pin, O_CLOEXEC) != 0) goto failed;
  if (pipe2(perr, O_CLOEXEC) != 0) {
    int keep = errno;
    close(pin[0]);
    close(pin[1]);
    errno = keep;
    goto failed;
  }
  spawn_ctx c = {pin[0], perr[1], rs, r->cwd[0] ? r->cwd : NULL, 0, 0};
  pid_t pid = spawn(&c);
  int keep = errno;
  close(pin[0]);
  close(perr[1]);
  if (pid < 0) {
    close(pin[1]);
    close(perr[0]);
    if (c.stage == 0) {
      errno = keep;
      what = "clone";
      goto failed;
    }
    o->spawn_errno = c.errnum;
    /* jailed: as before, the set-up's and exec's errors by their kind */
    errno = c.stage == 1 ? EPERM : ENOENT;
    jail_msg(o, c.stage == 1 ? "gnuplot could not be confined"
                             : "gnuplot not available");
    return -1;
  }
  uv_mutex_lock(&r->mu);
  r->pid = pid;
  uv_mutex_unlock(&r->mu);
  pump(data, len, pin[1], perr[0], e);
  int st = wait_gnuplot(r, pid, killed);
  o->status = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
  o->sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  return 0;
failed:
  o->spawn_errno = errno;
  jail_msg(o, what);
  return -1;
}

/* Script i alone: its outcome in r->out[i]. */
static void run_one(gp_req *r, int rs, int i) {
  gp_out *o = &r->out[i];
  cbuf e = {o->err, 0, sizeof o->err - 1, 0};
  int killed;
  if (run_gnuplot(r, rs, r->script[i], r->len[i], &e, o, &killed) != 0) return;
  o->errlen = e.len;
  o->err[e.len] = '\0';
}

/* The line gnuplot prints after script i of a batch: the nonce keeps a
** plot's own messages from passing for it. */
static int marker(char *m, size_t n, uint64_t nonce, int i) {
  return snprintf(m, n, "podsim-plot-%016llx-%d\n", (unsigned long long)nonce,
                  i);
}

/* Scripts idx[0..k) in one gnuplot, each followed by its marker and a
** `reset session` (every variable and setting back to gnuplot's defaults:
** the next script starts as in a fresh gnuplot).  A script counts as
** rendered when its marker came with nothing else on stderr since the
** previous one (no error, no warning); the others are rendered again
** alone, so every plot's outcome and message are those of its own run.
** Returns how many of idx are settled; idx[returned..k) still wait. */
static int run_batch(gp_req *r, const int *idx, int k) {
  uint64_t nonce = 0;
  if (getrandom(&nonce, sizeof nonce, 0) != (ssize_t)sizeof nonce)
    nonce = uv_hrtime() ^ ((uint64_t)getpid() << 32);
  size_t total = 0;
  for (int j = 0; j < k; j++) total += r->len[idx[j]] + 96;
  char *all = malloc(total);
  cbuf e = {malloc(BATCH_ERR_MAX), 0, BATCH_ERR_MAX, 0};
  if (all == NULL || e.p == NULL) {
    free(all);
    free(e.p);
    run_one(r, -1, idx[0]);
    return 1;
  }
  size_t off = 0;
  char m[64];
  for (int j = 0; j < k; j++) {
    memcpy(all + off, r->script[idx[j]], r->len[idx[j]]);
    off += r->len[idx[j]];
    int ml = marker(m, sizeof m, nonce, j);
    off += (size_t)snprintf(all + off, total - off,
                            "\nprint \"%.*s\"\nreset session\n", ml - 1, m);
  }
  gp_out *first = &r->out[idx[0]];
  int killed;
  if (run_gnuplot(r, -1, all, off, &e, first, &killed) != 0) {
    for (int j = 1; j < k; j++) r->out[idx[j]] = *first;
    free(all);
    free(e.p);
    return k;
  }
  int status = first->status, sig = first->sig;
  first->status = first->sig = 0;
  /* the markers in order: which scripts ran clean */
  size_t pos = 0;
  int reached = 0;
  for (; reached < k; reached++) {
    int ml = marker(m, sizeof m, nonce, reached);
    const char *at = memmem(e.p + pos, e.len - pos, m, (size_t)ml);
    if (at == NULL) break;
    if (at != e.p + pos) run_one(r, -1, idx[reached]); /* said something */
    pos = (size_t)(at - e.p) + (size_t)ml;
  }
  int settled = reached;
  if (reached < k && !killed) {
    /* gnuplot ended inside this script: its own run tells why */
    run_one(r, -1, idx[reached]);
    settled++;
  } else if (reached < k) {
    /* stopped (SIGINT, the timeout): as a lone run would have been */
    gp_out *o = &r->out[idx[reached]];
    o->status = status;
    o->sig = sig;
    size_t n =
        e.len - pos < sizeof o->err - 1 ? e.len - pos : sizeof o->err - 1;
    memcpy(o->err, e.p + pos, n);
    o->err[n] = '\0';
    o->errlen = n;
    settled++;
  }
  free(all);
  free(e.p);
  return settled;
}

static void plot_work(uv_work_t *w) {
  gp_req *r = w->data;
  int rs = -1;
  if (r->jailed) {
#ifdef HAVE_LANDLOCK
    rs = build_ruleset(r, &r->out[0]);
    if (rs < 0) return;
#else
    errno = ENOSYS;
    jail_msg(&r->out[0], "Landlock");
    return;
#endif
  }
  int *idx = malloc(sizeof *idx * (size_t)r->n);
  if (idx == NULL || r->n == 1 || r->jailed) {
    for (int i = 0; i < r->n; i++) run_one(r, rs, i);
  } else {
    int k = r->n, at = 0;
    for (int i = 0; i < k; i++) idx[i] = i;
    while (at < k) {
      if (k - at == 1) {
        run_one(r, rs, idx[at]);
        break;
      }
      at += run_batch(r, idx + at, k - at);
    }
  }
  free(idx);
  if (rs >= 0) close(rs);
}

static void plot_cancel(void *ud) {
  gp_req *r = ud;
  uv_mutex_lock(&r->mu);
  if (r->pid > 0) {
    kill(r->pid, SIGTERM);
    r->killed = 1;
  }
  uv_mutex_unlock(&r->mu);
}

static void req_free(gp_req *r) {
  for (int i = 0; i < r->n; i++) free(r->script[i]);
  free(r->script);
  free(r->len);
  free(r->out);
  uv_mutex_destroy(&r->mu);
  free(r);
}

/* Push script i's result: true, or nil and the message. */
static int push_result(lua_State *co, const gp_req *r, int i) {
  const gp_out *o = &r->out[r->jailed ? 0 : i];
  if (r->jailed && o->setup_failed) {
    lua_pushnil(co);
    lua_pushfstring(co,
                    "user templates run gnuplot under Landlock, which is "
                    "not usable here (%s)",
                    o->err);
    return 2;
  }
  o = &r->out[i];
  if (!o->setup_failed && o->status == 0 && o->sig == 0) {
    lua_pushboolean(co, 1);
    return 1;
  }
  lua_pushnil(co);
  if (o->setup_failed)
    lua_pushfstring(co, "gnuplot not available (%s)",
                    uv_strerror(uv_translate_sys_error(o->spawn_errno)));
  else if (o->errlen)
    lua_pushlstring(co, o->err, o->errlen);
  else
    lua_pushfstring(co, "gnuplot exited with status %d", o->status);
  return 2;
}

static void plot_done(uv_work_t *w, int status) {
  (void)status;
  gp_req *r = w->data;
  pod_host *h = r->h;
  if (r->cancel_id >= 0) lpod_host_off_cancel(h, r->cancel_id);
  lua_State *co = lpod_host_coroutine(h);
  if (!r->batch) {
    int n = push_result(co, r, 0);
    req_free(r);
    lpod_host_resume(h, n);
    return;
  }
  /* a list: true or the message per script */
  lua_createtable(co, r->n, 0);
  for (int i = 0; i < r->n; i++) {
    if (push_result(co, r, i) == 2) lua_remove(co, -2); /* the nil */
    lua_rawseti(co, -2, i + 1);
  }
  req_free(r);
  lpod_host_resume(h, 1);
}

/* The scripts at stack index 1 (a string, or a non-empty list of them)
** into r; NULL when out of memory (raised by the caller). */
static gp_req *req_new(lua_State *L) {
  int batch = lua_type(L, 1) == LUA_TTABLE;
  int n = batch ? (int)luaL_len(L, 1) : 1;
  if (!batch) luaL_checktype(L, 1, LUA_TSTRING);
  luaL_argcheck(L, n >= 1, 1, "no scripts");
  for (int i = 1; batch && i <= n; i++) { /* checked before allocating */
    int t = lua_rawgeti(L, 1, i);
    lua_pop(L, 1);
    luaL_argcheck(L, t == LUA_TSTRING, 1, "expected a list of scripts");
  }
  gp_req *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->batch = batch;
  r->script = calloc((size_t)n, sizeof *r->script);
  r->len = calloc((size_t)n, sizeof *r->len);
  r->out = calloc((size_t)n, sizeof *r->out);
  uv_mutex_init(&r->mu);
  r->n = n;
  int bad = r->script == NULL || r->len == NULL || r->out == NULL;
  for (int i = 0; i < n && !bad; i++) {
    if (batch) lua_rawgeti(L, 1, i + 1);
    const char *s = lua_tolstring(L, batch ? -1 : 1, &r->len[i]);
    r->script[i] = malloc(r->len[i] + 1);
    bad = r->script[i] == NULL;
    if (!bad) memcpy(r->script[i], s, r->len[i]);
    if (batch) lua_pop(L, 1);
  }
  if (bad) {
    if (r->script == NULL) r->n = 0;
    req_free(r);
    return NULL;
  }
  return r;
}

/* Queue r and yield; a stop requested while gnuplot runs ends it (after a
** stop, partial results being written, plots still render). */
static int req_start(lua_State *L, gp_req *r) {
  pod_host *h = lpod_host(L);
  r->h = h;
  r->work.data = r;
  r->cancel_id =
      lpod_host_interrupted(h) ? -1 : lpod_host_on_cancel(h, plot_cancel, r);
  int rc = uv_queue_work(lpod_host_loop(h), &r->work, plot_work, plot_done);
  if (rc != 0) {
    if (r->cancel_id >= 0) lpod_host_off_cancel(h, r->cancel_id);
    req_free(r);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot queue gnuplot (%s)", uv_strerror(rc));
    return 2;
  }
  return lua_yield(L, 0);
}

int lpod_plot_run(lua_State *L) {
  lpod_host_check_yield(L, "podsim.gnuplot");
  gp_req *r = req_new(L);
  if (r == NULL) return luaL_error(L, "out of memory");
  const pod_sandbox *sb = lpod_sandbox(L);
  struct stat st;
  if (sb && stat(sb->out_dir, &st) == 0 && S_ISDIR(st.st_mode))
    snprintf(r->cwd, sizeof r->cwd, "%s", sb->out_dir);
  return req_start(L, r);
}

int lpod_plot_run_jailed(lua_State *L) {
  luaL_checktype(L, 1, LUA_TSTRING);
  const char *mode = luaL_optstring(L, 2, "read");
  lpod_host_check_yield(L, "podsim.gnuplot");
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb == NULL) return luaL_error(L, "podsim.gnuplot: no sandbox");
  lua_settop(L, 1);
  gp_req *r = req_new(L);
  if (r == NULL) return luaL_error(L, "out of memory");
  r->jailed = 1;
  snprintf(r->cwd, sizeof r->cwd, "%s", sb->out_dir);
  snprintf(r->read_dirs[r->nread++], PATH_MAX, "%s", sb->out_dir);
  if (strcmp(mode, "out") != 0 && sb->scen_dir[0])
    snprintf(r->read_dirs[r->nread++], PATH_MAX, "%s", sb->scen_dir);
  return req_start(L, r);
}
