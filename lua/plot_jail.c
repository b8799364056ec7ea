/*
** plot_jail.c: gnuplot for user templates under Landlock (see
** plot_jail.h).  The ruleset is built in a threadpool thread; the child
** forked there applies it (prctl(PR_SET_NO_NEW_PRIVS) and
** landlock_restrict_self, raw system calls only between fork and exec)
** and execs gnuplot; the thread feeds the script on stdin, collects
** stderr and waits; the loop thread resumes the scenario.
*/
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* pipe2, syscall */
#endif
#include "plot_jail.h"

#include <errno.h>
#include <fcntl.h>
#include <lauxlib.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
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

typedef struct jail_req {
  uv_work_t work;
  pod_host *h;
  char *script;
  size_t len;
  char read_dirs[2][PATH_MAX];
  int nread;
  char write_dir[PATH_MAX];
  char err[4096]; /* gnuplot's stderr, or why it could not run */
  size_t errlen;
  int setup_failed;
  int status, term_sig;
  atomic_int pid; /* 0 until forked; the cancel hook signals it */
  int cancel_id;
} jail_req;

static void jail_msg(jail_req *r, const char *what) {
  snprintf(r->err, sizeof r->err, "%s: %s", what, strerror(errno));
  r->errlen = strlen(r->err);
  r->setup_failed = 1;
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

/* The ruleset of a jailed gnuplot; -1 with the reason in r. */
static int build_ruleset(jail_req *r) {
  int abi = lpod_plot_jail_abi();
  if (abi < 1) {
    errno = ENOSYS;
    jail_msg(r, "Landlock");
    return -1;
  }
  uint64_t hf = handled_fs(abi);
  struct landlock_ruleset_attr attr;
  memset(&attr, 0, sizeof attr);
  attr.handled_access_fs = hf;
  int rs = (int)syscall(SYS_landlock_create_ruleset, &attr,
                        sizeof attr.handled_access_fs, 0);
  if (rs < 0) {
    jail_msg(r, "landlock_create_ruleset");
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
  bad |= allow(rs, r->write_dir, rw, hf);
  if (bad) {
    jail_msg(r, "landlock_add_rule");
    close(rs);
    return -1;
  }
  return rs;
}
#endif

/* gnuplot's whole environment, as for the embedded templates. */
static char *const jail_env[] = {"PATH=/usr/bin:/bin", "LC_ALL=C",
                                 "HOME=/nonexistent", "GNUTERM=svg", NULL};

#ifdef HAVE_LANDLOCK
/* In the forked child: raw system calls only, then exec or _exit. */
static void child(int rs, int in, int err, const char *cwd) {
  sigset_t none;
  sigemptyset(&none);
  sigprocmask(SIG_SETMASK, &none, NULL);
  signal(SIGPIPE, SIG_DFL);
  int devnull = open("/dev/null", O_WRONLY);
  if (dup2(in, 0) < 0 || devnull < 0 || dup2(devnull, 1) < 0 ||
      dup2(err, 2) < 0)
    _exit(126);
  if (chdir(cwd) != 0) _exit(126);
  if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(126);
  if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) _exit(126);
#ifdef SYS_close_range
  syscall(SYS_close_range, 3u, ~0u, 0); /* the ruleset too */
#endif
  static char *const argv[] = {"gnuplot", "-d", NULL};
  execve("/usr/bin/gnuplot", argv, jail_env);
  execve("/bin/gnuplot", argv, jail_env);
  _exit(127);
}
#endif

/* Feed the script and collect stderr at once (neither pipe can stall the
** other), then wait. */
static void pump(jail_req *r, int in, int err) {
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
      ssize_t n = write(in, r->script + off, r->len - off);
      if (n > 0) off += (size_t)n;
      if (n < 0 && errno != EINTR && errno != EAGAIN) off = r->len;
      if (off >= r->len) {
        close(in);
        open_in = 0;
      }
    }
    if (p[1].revents & (POLLIN | POLLERR | POLLHUP)) {
      char buf[1024];
      ssize_t n = read(err, buf, sizeof buf);
      if (n > 0) {
        size_t k = (size_t)n;
        if (k > sizeof r->err - 1 - r->errlen)
          k = sizeof r->err - 1 - r->errlen;
        memcpy(r->err + r->errlen, buf, k);
        r->errlen += k;
        r->err[r->errlen] = '\0';
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        open_err = 0;
      }
    }
  }
  if (open_in) close(in);
  close(err);
}

static void jail_work(uv_work_t *w) {
  jail_req *r = w->data;
#ifdef HAVE_LANDLOCK
  int rs = build_ruleset(r);
  if (rs < 0) return;
  int pin[2], perr[2];
  if (pipe2(pin, O_CLOEXEC) != 0) {
    jail_msg(r, "pipe");
    close(rs);
    return;
  }
  if (pipe2(perr, O_CLOEXEC) != 0) {
    jail_msg(r, "pipe");
    close(pin[0]);
    close(pin[1]);
    close(rs);
    return;
  }
  pid_t pid = fork();
  if (pid == 0) child(rs, pin[0], perr[1], r->write_dir);
  close(pin[0]);
  close(perr[1]);
  close(rs);
  if (pid < 0) {
    jail_msg(r, "fork");
    close(pin[1]);
    close(perr[0]);
    return;
  }
  atomic_store(&r->pid, (int)pid);
  pump(r, pin[1], perr[0]);
  int st = 0;
  while (waitpid(pid, &st, 0) < 0 && errno == EINTR) {
  }
  atomic_store(&r->pid, -1);
  r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 0;
  r->term_sig = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
  if (r->status == 126 && r->errlen == 0) {
    errno = EPERM;
    jail_msg(r, "gnuplot could not be confined");
  } else if (r->status == 127 && r->errlen == 0) {
    errno = ENOENT;
    jail_msg(r, "gnuplot not available");
  }
#else
  errno = ENOSYS;
  jail_msg(r, "Landlock");
#endif
}

static void jail_cancel(void *ud) {
  jail_req *r = ud;
  int pid = atomic_load(&r->pid);
  if (pid > 0) kill((pid_t)pid, SIGTERM);
}

static void jail_done(uv_work_t *w, int status) {
  (void)status;
  jail_req *r = w->data;
  pod_host *h = r->h;
  if (r->cancel_id >= 0) lpod_host_off_cancel(h, r->cancel_id);
  lua_State *co = lpod_host_coroutine(h);
  if (!r->setup_failed && r->status == 0 && r->term_sig == 0) {
    lua_pushboolean(co, 1);
    free(r->script);
    free(r);
    lpod_host_resume(h, 1);
    return;
  }
  lua_pushnil(co);
  if (r->setup_failed)
    lua_pushfstring(co,
                    "user templates run gnuplot under Landlock, which is "
                    "not usable here (%s)",
                    r->err);
  else if (r->errlen)
    lua_pushlstring(co, r->err, r->errlen);
  else
    lua_pushfstring(co, "gnuplot exited with status %d", r->status);
  free(r->script);
  free(r);
  lpod_host_resume(h, 2);
}

int lpod_plot_run_jailed(lua_State *L) {
  size_t len;
  const char *script = luaL_checklstring(L, 1, &len);
  const char *mode = luaL_optstring(L, 2, "read");
  pod_host *h = lpod_host(L);
  lpod_host_check_yield(L, "podsim.gnuplot");
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb == NULL) return luaL_error(L, "podsim.gnuplot: no sandbox");
  jail_req *r = calloc(1, sizeof *r);
  if (r == NULL || (r->script = malloc(len + 1)) == NULL) {
    free(r);
    return luaL_error(L, "out of memory");
  }
  memcpy(r->script, script, len);
  r->len = len;
  r->h = h;
  snprintf(r->write_dir, sizeof r->write_dir, "%s", sb->out_dir);
  snprintf(r->read_dirs[r->nread++], PATH_MAX, "%s", sb->out_dir);
  if (strcmp(mode, "out") != 0 && sb->scen_dir[0])
    snprintf(r->read_dirs[r->nread++], PATH_MAX, "%s", sb->scen_dir);
  r->work.data = r;
  r->cancel_id =
      lpod_host_interrupted(h) ? -1 : lpod_host_on_cancel(h, jail_cancel, r);
  int rc = uv_queue_work(lpod_host_loop(h), &r->work, jail_work, jail_done);
  if (rc != 0) {
    if (r->cancel_id >= 0) lpod_host_off_cancel(h, r->cancel_id);
    free(r->script);
    free(r);
    lua_pushnil(L);
    lua_pushfstring(L, "cannot queue gnuplot (%s)", uv_strerror(rc));
    return 2;
  }
  return lua_yield(L, 0);
}
