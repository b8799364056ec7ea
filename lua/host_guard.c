/*
** host_guard.c: what keeps a run's results whole and its process
** bounded: the output folder's lock file, the watchdog that ends a run
** still alive well past its time budget (--timeout, a signal, the exit
** budget of finalizers) where no Lua hook reaches, and
** the standard streams (closed descriptors, /dev/full, broken pipes).
*/
#include "host_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------------- */
/* the output folder's lock                                                */
/* ---------------------------------------------------------------------- */

/* pid in the lock file at path, or 0 */
static long lock_owner(const char *path) {
  FILE *f = fopen(path, "r");
  if (f == NULL) return 0;
  long pid = 0;
  if (fscanf(f, "%ld", &pid) != 1) pid = 0;
  fclose(f);
  return pid;
}

/* Non-zero when pid is a live process that may be podsim: where /proc
** names the process, a reused pid of another program does not count. */
static int pid_alive(long pid) {
  if (pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno != EPERM)) return 0;
  char path[64], comm[64] = "";
  snprintf(path, sizeof path, "/proc/%ld/comm", pid);
  FILE *f = fopen(path, "r");
  if (f == NULL) return 1;
  int named = fgets(comm, sizeof comm, f) != NULL;
  fclose(f);
  return !named || strstr(comm, "podsim") != NULL ||
         strstr(comm, "fuzz") != NULL;
}

int pod_host__lock_out(pod_host *h) {
  h->lock_path[0] = '\0';
  const char *tool = h->o.tool;
  if (tool && strcmp(tool, "plot") != 0) return 0; /* writes nothing */
  struct stat st;
  if (tool && stat(h->out_dir, &st) != 0) return 0; /* plot reports it */
  if (pod_host__mkdirs(h->out_dir) != 0) {
    fprintf(stderr, "podsim: cannot create the output folder '%s': %s\n",
            h->out_dir, strerror(errno));
    return -1;
  }
  char path[PATH_MAX];
  if (snprintf(path, sizeof path, "%s/.podsim.lock", h->out_dir) >=
      (int)sizeof path) {
    fprintf(stderr, "podsim: output folder path too long: '%s'\n", h->out_dir);
    return -1;
  }
  for (int attempt = 0; attempt < 2; attempt++) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd >= 0) {
      char pid[32];
      int n = snprintf(pid, sizeof pid, "%ld\n", (long)getpid());
      int bad = write(fd, pid, (size_t)n) != n;
      if (close(fd) != 0 || bad) {
        fprintf(stderr, "podsim: cannot write the lock file '%s': %s\n", path,
                strerror(errno));
        unlink(path);
        return -1;
      }
      snprintf(h->lock_path, sizeof h->lock_path, "%s", path);
      return 0;
    }
    if (errno != EEXIST) break;
    long owner = lock_owner(path);
    if (pid_alive(owner) && owner != (long)getpid()) {
      fprintf(stderr,
              "podsim: the output folder '%s' is in use by another run (pid "
              "%ld, lock file "
              "'%s'); wait for it or choose another --out\n",
              h->out_dir, owner, path);
      return -1;
    }
    unlink(path); /* stale: its run is gone */
  }
  fprintf(stderr, "podsim: cannot create the lock file '%s': %s\n", path,
          strerror(errno));
  return -1;
}

void pod_host__unlock_out(pod_host *h) {
  if (h->lock_path[0] && lock_owner(h->lock_path) == (long)getpid())
    unlink(h->lock_path);
  h->lock_path[0] = '\0';
}

/* ---------------------------------------------------------------------- */
/* the watchdog                                                            */
/* ---------------------------------------------------------------------- */

typedef struct watchdog {
  uv_thread_t thread;
  uv_mutex_t mu;
  uv_cond_t cond;
  int stop;
  uint64_t deadline_ns; /* 0: none yet */
  char why[200];        /* what ran out, for the message */
} watchdog;

/* Set by the signal handler (lock-free atomics are async-signal-safe);
** the watchdog then gives the run a grace period to write and stop. */
static atomic_int g_signalled;

void pod_host__watchdog_signalled(void) {
  atomic_store(&g_signalled, 1);
}

static void arm_locked(watchdog *w, uint64_t deadline_ns, const char *why) {
  if (w->deadline_ns == 0 || deadline_ns < w->deadline_ns) {
    w->deadline_ns = deadline_ns;
    snprintf(w->why, sizeof w->why, "%s", why);
  }
}

static void watchdog_main(void *arg) {
  watchdog *w = arg;
  uv_mutex_lock(&w->mu);
  while (!w->stop) {
    uint64_t now = uv_hrtime();
    if (w->deadline_ns && now >= w->deadline_ns) break;
    if (atomic_exchange(&g_signalled, 0))
      arm_locked(w, now + (TIMEOUT_GRACE_MS + WATCHDOG_SLACK_MS) * 1000000ull,
                 "the run was interrupted and did not stop");
    /* poll for the signal flag; wake early when stopped */
    (void)uv_cond_timedwait(&w->cond, &w->mu, 200000000ull);
  }
  int stop = w->stop;
  uv_mutex_unlock(&w->mu);
  if (stop) return;
  /* Something is stuck where no Lua hook reaches (a long C call in a
  ** worker, a finalizer: Lua runs __gc with hooks off).  Files are written
  ** atomically, so ending now leaves no half-written file under a final
  ** name. */
  fprintf(stderr, "podsim: %s in time; exiting\n", w->why);
  fflush(stderr);
  _exit(1);
}

void pod_host__watchdog_arm(pod_host *h, uint64_t deadline_ns,
                            const char *why) {
  watchdog *w = h->watchdog;
  if (w == NULL) return;
  uv_mutex_lock(&w->mu);
  arm_locked(w, deadline_ns, why);
  uv_cond_signal(&w->cond);
  uv_mutex_unlock(&w->mu);
}

void pod_host__watchdog_start(pod_host *h) {
  watchdog *w = calloc(1, sizeof *w);
  if (w == NULL) return;
  atomic_store(&g_signalled, 0);
  if (uv_mutex_init(&w->mu) != 0) {
    free(w);
    return;
  }
  if (uv_cond_init(&w->cond) != 0) {
    uv_mutex_destroy(&w->mu);
    free(w);
    return;
  }
  if (uv_thread_create(&w->thread, watchdog_main, w) != 0) {
    uv_cond_destroy(&w->cond);
    uv_mutex_destroy(&w->mu);
    free(w);
    return;
  }
  h->watchdog = w;
}

void pod_host__watchdog_stop(pod_host *h) {
  watchdog *w = h->watchdog;
  if (w == NULL) return;
  uv_mutex_lock(&w->mu);
  w->stop = 1;
  uv_cond_signal(&w->cond);
  uv_mutex_unlock(&w->mu);
  uv_thread_join(&w->thread);
  uv_cond_destroy(&w->cond);
  uv_mutex_destroy(&w->mu);
  free(w);
  h->watchdog = NULL;
}

/* ---------------------------------------------------------------------- */
/* standard streams                                                        */
/* ---------------------------------------------------------------------- */

static int g_stdout_closed;

void pod_host_std_streams(void) {
  for (int fd = 0; fd <= 2; fd++) {
    if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    /* the lowest free descriptor is fd itself */
    int nfd = open(fd == 1 ? "/dev/full" : "/dev/null",
                   fd == 0 ? O_RDONLY : O_WRONLY);
    if (nfd >= 0 && nfd != fd) {
      dup2(nfd, fd);
      close(nfd);
    }
    if (fd == 1) g_stdout_closed = 1;
  }
  signal(SIGPIPE, SIG_IGN);
}

int pod_host__stdout_lost(void) {
  errno = 0;
  int bad = fflush(stdout) != 0;
  int err = errno;
  bad |= ferror(stdout) != 0;
  if (!bad) return 0;
  if (g_stdout_closed)
    fprintf(
        stderr,
        "podsim: standard output is closed: the scenario's output was lost\n");
  else if (err)
    fprintf(stderr, "podsim: cannot write standard output: %s (output lost)\n",
            strerror(err));
  else
    fprintf(stderr, "podsim: cannot write standard output (output lost)\n");
  return 1;
}
