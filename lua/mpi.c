/*
** mpi.c: studies over MPI ranks (see scale.h, docs/scale.md).  Compiled
** with MPI when CMake finds it (POD_HAVE_MPI), else only the stubs at the
** end (lpod_mpi_available() == 0).
**
** Messages (MPI_COMM_WORLD, MPI_THREAD_MULTIPLE):
**   rank 0 -> rank r, tag TAG_REQ + t: int64 {study, chunk} for server
**     thread t of rank r (chunk -1: stop);
**   rank r -> rank 0, tag TAG_RES + t: the chunk's record (mc_codec.c) as
**     a blob: u64 length, then pieces of at most 1 GiB;
**   parent -> child, tag TAG_STATE + study: the study's merge state,
**     down a binary tree from rank 0 (children of r: 2r+1, 2r+2), as
**     int64 {status, length} then pieces of at most 1 GiB (status 0, or a
**     failure: then the error as field and message).
** Slot (r, t) is one remote worker: rank 0's pool threads take free slots
** (dynamic assignment) next to the local workers (pod_run_remote).  A
** chunk abandoned on a cancel leaves its slot owing one result, which the
** slot's next user receives and drops first.
*/
#include "scale.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#ifdef POD_HAVE_MPI
#include <mpi.h>

#define TAG_REQ 100
#define TAG_RES 2000
#define TAG_STATE 4000
#define PIECE (1 << 30)
#define MAX_STUDIES 100000

typedef struct entry {
  int seq;
  char name[64];
  pod_mc_plan *plan;
  int got; /* ranks > 0: its state was received */
} entry;

typedef struct rslot {
  int rank, thread;
  int busy, owed;
  _Atomic int64_t k, seq; /* in flight (-1: none), read by the signal report */
} rslot;

static struct {
  int active, rank, size, threads;
  /* registry of studies (every rank) */
  uv_mutex_t mu;
  uv_cond_t cv; /* a study was registered / a slot was freed */
  entry *studies;
  int nstudies, cap;
  /* rank 0 */
  rslot *slots;
  int nslots;
  pod_run_remote remote;
  MPI_Request *sends;
  unsigned char **send_bufs;
  int nsends;
  /* ranks > 0 */
  uv_thread_t *servers;
} G;

/* ---- blobs ---- */

static int send_blob(const unsigned char *p, size_t n, int dest, int tag) {
  uint64_t len = n;
  if (MPI_Send(&len, 1, MPI_UINT64_T, dest, tag, MPI_COMM_WORLD) != MPI_SUCCESS)
    return -1;
  for (size_t at = 0; at < n; at += PIECE) {
    int piece = (int)(n - at < PIECE ? n - at : PIECE);
    if (MPI_Send(p + at, piece, MPI_BYTE, dest, tag, MPI_COMM_WORLD) !=
        MPI_SUCCESS)
      return -1;
  }
  return 0;
}

/* The rest of a blob whose length is known. */
static unsigned char *recv_pieces(uint64_t len, int src, int tag) {
  unsigned char *p = malloc(len ? len : 1);
  if (!p) return NULL;
  for (uint64_t at = 0; at < len; at += PIECE) {
    int piece = (int)(len - at < PIECE ? len - at : PIECE);
    if (MPI_Recv(p + at, piece, MPI_BYTE, src, tag, MPI_COMM_WORLD,
                 MPI_STATUS_IGNORE) != MPI_SUCCESS) {
      free(p);
      return NULL;
    }
  }
  return p;
}

/* A receive that waits by testing and sleeping `nap_ns` between tests:
** Open MPI's blocking calls spin on a core, which idle ranks (a main
** thread waiting for a state, a server thread waiting for work) must not
** take from the workers. */
static int recv_idle(void *buf, int n, MPI_Datatype type, int src, int tag,
                     long nap_ns) {
  MPI_Request rq;
  if (MPI_Irecv(buf, n, type, src, tag, MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
    return -1;
  struct timespec nap = {0, nap_ns};
  for (;;) {
    int done = 0;
    if (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    nanosleep(&nap, NULL);
  }
}

/* ---- registry ---- */

static entry *find_locked(int seq) {
  for (int i = 0; i < G.nstudies; i++)
    if (G.studies[i].seq == seq) return &G.studies[i];
  return NULL;
}

void lpod_mpi_register(int seq, const char *name, pod_mc_plan *plan) {
  uv_mutex_lock(&G.mu);
  if (G.nstudies == G.cap) {
    int cap = G.cap ? 2 * G.cap : 16;
    entry *e = realloc(G.studies, sizeof(entry) * (size_t)cap);
    if (!e) {
      uv_mutex_unlock(&G.mu);
      fprintf(stderr, "podsim: rank %d: out of memory\n", G.rank);
      MPI_Abort(MPI_COMM_WORLD, 1);
      return;
    }
    G.studies = e;
    G.cap = cap;
  }
  entry *e = &G.studies[G.nstudies++];
  e->seq = seq;
  snprintf(e->name, sizeof e->name, "%s", name);
  e->plan = plan;
  e->got = 0;
  uv_cond_broadcast(&G.cv);
  uv_mutex_unlock(&G.mu);
}

static int seq_of(const pod_mc_plan *plan, char *name, size_t cap) {
  int seq = -1;
  uv_mutex_lock(&G.mu);
  for (int i = 0; i < G.nstudies && seq < 0; i++)
    if (G.studies[i].plan == plan) {
      seq = G.studies[i].seq;
      snprintf(name, cap, "%s", G.studies[i].name);
    }
  uv_mutex_unlock(&G.mu);
  return seq;
}

/* ---- ranks > 0: server threads ---- */

/* A server thread makes an evaluator worker for each chunk and frees it
** before it sends the result back.  It must not keep workers across
** requests: once rank 0 has every result of a study it sends the final
** state, this rank's scenario goes on and may free the study (and the
** plan and evaluator a cached worker points into) at any time. */
static void server(void *arg) {
  int t = (int)(intptr_t)arg;
  for (;;) {
    int64_t req[2];
    if (recv_idle(req, 2, MPI_INT64_T, 0, TAG_REQ + t, 100000) != 0) break;
    if (req[1] < 0) break;
    int seq = (int)req[0];
    uv_mutex_lock(&G.mu);
    entry *e;
    while ((e = find_locked(seq)) == NULL) uv_cond_wait(&G.cv, &G.mu);
    pod_mc_plan *plan = e->plan;
    uv_mutex_unlock(&G.mu);
    void *w = NULL;
    pod_mc_chunk *c = NULL;
    pod_err err;
    pod_err_clear(&err);
    int rc = pod_mc_worker_new(plan, &w, &err);
    unsigned char *buf = NULL;
    size_t len = 0;
    if (!rc) pod_mc_chunk_run(plan, req[1], w, &c);
    if (!rc && !c) rc = pod_err_set(&err, POD_ENOMEM, "chunk", "out of memory");
    if (!rc) rc = pod_mc_chunk_encode(plan, c, &buf, &len, &err);
    pod_mc_chunk_free(c);
    if (w) pod_mc_worker_free(plan, w); /* before the result leaves */
    if (rc) { /* an empty blob: the error follows as text */
      char msg[POD_ERR_MSG_MAX + POD_ERR_FIELD_MAX + 2];
      snprintf(msg, sizeof msg, "%s\n%s", err.field,
               err.msg[0] ? err.msg : pod_strerror(rc));
      send_blob(NULL, 0, 0, TAG_RES + t);
      send_blob((const unsigned char *)msg, strlen(msg), 0, TAG_RES + t);
      continue;
    }
    send_blob(buf, len, 0, TAG_RES + t);
    free(buf);
  }
}

/* ---- rank 0: the remote executor ---- */

static rslot *take_slot(void) {
  uv_mutex_lock(&G.mu);
  rslot *s = NULL;
  for (;;) {
    for (int i = 0; i < G.nslots && !s; i++)
      if (!G.slots[i].busy) s = &G.slots[i];
    if (s) break;
    uv_cond_wait(&G.cv, &G.mu);
  }
  s->busy = 1;
  uv_mutex_unlock(&G.mu);
  return s;
}

static void give_slot(rslot *s) {
  atomic_store(&s->k, -1);
  uv_mutex_lock(&G.mu);
  s->busy = 0;
  uv_cond_broadcast(&G.cv);
  uv_mutex_unlock(&G.mu);
}

/* Drop the rest of a result whose length was received (a zero length is
** a failure whose text follows). */
static void drop_result(rslot *s, uint64_t len) {
  free(recv_pieces(len, s->rank, TAG_RES + s->thread));
  if (len == 0) {
    MPI_Recv(&len, 1, MPI_UINT64_T, s->rank, TAG_RES + s->thread,
             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    free(recv_pieces(len, s->rank, TAG_RES + s->thread));
  }
}

/* Wait for the length of a result on slot s, polling `abandon`.  0 with
** *len; 1 when abandoned (the slot then owes the result unless it came
** in meanwhile); -1 on error. */
static int wait_len(rslot *s, const _Atomic int *abandon, uint64_t *len) {
  MPI_Request rq;
  if (MPI_Irecv(len, 1, MPI_UINT64_T, s->rank, TAG_RES + s->thread,
                MPI_COMM_WORLD, &rq) != MPI_SUCCESS)
    return -1;
  struct timespec nap = {0, 200000}; /* 0.2 ms between tests */
  for (;;) {
    int done = 0;
    if (MPI_Test(&rq, &done, MPI_STATUS_IGNORE) != MPI_SUCCESS) return -1;
    if (done) return 0;
    if (atomic_load(abandon)) {
      MPI_Cancel(&rq);
      MPI_Status st;
      MPI_Wait(&rq, &st);
      int cancelled = 0;
      MPI_Test_cancelled(&st, &cancelled);
      if (cancelled)
        s->owed = 1;
      else
        drop_result(s, *len); /* it came in meanwhile */
      return 1;
    }
    nanosleep(&nap, NULL);
  }
}

/* Drop a result the slot still owes (from an abandoned chunk). */
static void settle(rslot *s) {
  if (!s->owed) return;
  uint64_t len;
  MPI_Recv(&len, 1, MPI_UINT64_T, s->rank, TAG_RES + s->thread, MPI_COMM_WORLD,
           MPI_STATUS_IGNORE);
  drop_result(s, len);
  s->owed = 0;
}

static int remote_run(void *ud, pod_mc_plan *plan, int64_t k,
                      const _Atomic int *abandon, pod_mc_chunk **out,
                      pod_err *err) {
  (void)ud;
  *out = NULL;
  char name[64];
  int seq = seq_of(plan, name, sizeof name);
  if (seq < 0)
    return pod_err_set(err, POD_EINVAL, "mpi",
                       "study not registered (internal error)");
  if (atomic_load(abandon)) return POD_ECANCELED;
  rslot *s = take_slot();
  settle(s);
  atomic_store(&s->seq, seq);
  atomic_store(&s->k, k);
  int64_t req[2] = {seq, k};
  int rc = POD_OK;
  uint64_t len = 0;
  int w = MPI_Send(req, 2, MPI_INT64_T, s->rank, TAG_REQ + s->thread,
                   MPI_COMM_WORLD) == MPI_SUCCESS
              ? wait_len(s, abandon, &len)
              : -1;
  if (w == 1) {
    rc = POD_ECANCELED;
  } else if (w < 0) {
    rc = pod_err_set(err, POD_EINVAL, "mpi",
                     "lost rank %d while it ran chunk %lld of study '%s'",
                     s->rank, (long long)k, name);
  } else {
    unsigned char *buf = recv_pieces(len, s->rank, TAG_RES + s->thread);
    if (!buf) {
      rc = pod_err_set(err, POD_EINVAL, "mpi",
                       "lost rank %d while it sent chunk %lld of study '%s'",
                       s->rank, (long long)k, name);
    } else if (len == 0) { /* the rank could not run the chunk: why follows */
      free(buf);
      MPI_Recv(&len, 1, MPI_UINT64_T, s->rank, TAG_RES + s->thread,
               MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      char *msg = (char *)recv_pieces(len, s->rank, TAG_RES + s->thread);
      char *nl = msg ? memchr(msg, '\n', len) : NULL;
      if (nl) *nl = '\0';
      rc = pod_err_set(
          err, POD_EINVAL, msg && nl ? msg : "mpi",
          "rank %d failed on chunk %lld: %.*s", s->rank, (long long)k,
          nl ? (int)(len - (uint64_t)(nl + 1 - msg)) : 0, nl ? nl + 1 : "");
      free(msg);
    } else {
      pod_mc_chunk *c;
      pod_err e;
      rc = pod_mc_chunk_decode(plan, buf, len, &c, &e);
      free(buf);
      if (rc) {
        rc = pod_err_set(err, rc, "mpi", "chunk %lld from rank %d: %s",
                         (long long)k, s->rank, e.msg);
      } else if (pod_mc_chunk_status(c, &e) != POD_OK) {
        /* an evaluation error on that rank: its message, and where */
        char msg[POD_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", e.msg);
        rc = pod_err_set(err, e.code, e.field, "%.200s [rank %d, chunk %lld]",
                         msg, s->rank, (long long)k);
        pod_mc_chunk_free(c);
      } else {
        *out = c;
      }
    }
  }
  give_slot(s);
  return rc;
}

/* ---- the state of a finished study ---- */

static void reap_sends(int wait) {
  int j = 0;
  for (int i = 0; i < G.nsends; i++) {
    int done = 0;
    if (wait)
      MPI_Wait(&G.sends[i], MPI_STATUS_IGNORE), done = 1;
    else
      MPI_Test(&G.sends[i], &done, MPI_STATUS_IGNORE);
    if (done) {
      free(G.send_bufs[i]);
    } else {
      G.sends[j] = G.sends[i];
      G.send_bufs[j++] = G.send_bufs[i];
    }
  }
  G.nsends = j;
}

/* Queue a non-blocking send of p (owned by the queue from here). */
static void isend(unsigned char *p, int n, MPI_Datatype type, int dest,
                  int tag) {
  MPI_Request *r =
      realloc(G.sends, sizeof(MPI_Request) * (size_t)(G.nsends + 1));
  unsigned char **b =
      realloc(G.send_bufs, sizeof(unsigned char *) * (size_t)(G.nsends + 1));
  if (r) G.sends = r;
  if (b) G.send_bufs = b;
  if (!r || !b) {
    fprintf(stderr, "podsim: rank 0: out of memory\n");
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  MPI_Isend(p, n, type, dest, tag, MPI_COMM_WORLD, &G.sends[G.nsends]);
  G.send_bufs[G.nsends++] = p;
}

/* The state of a study travels down a binary tree of ranks (rank r's
** children are 2r+1 and 2r+2): each rank forwards it to its children
** before decoding it, so rank 0 sends two copies whatever the number of
** ranks and the last rank has it after about log2(K) hops. */
static int parent_of(int r) {
  return (r - 1) / 2;
}

/* Queue the header {status, len} and the pieces of buf to the children of
** this rank (each send its own copy; buf stays the caller's). */
static void forward_state(int seq, int64_t status, const unsigned char *buf,
                          size_t len) {
  for (int c = 2 * G.rank + 1; c <= 2 * G.rank + 2 && c < G.size; c++) {
    int64_t *head = malloc(2 * sizeof(int64_t));
    if (!head) MPI_Abort(MPI_COMM_WORLD, 1);
    head[0] = status;
    head[1] = (int64_t)len;
    isend((unsigned char *)head, 2, MPI_INT64_T, c, TAG_STATE + seq);
    for (size_t at = 0; at < len; at += PIECE) {
      size_t piece = len - at < PIECE ? len - at : PIECE;
      unsigned char *copy = malloc(piece);
      if (!copy) MPI_Abort(MPI_COMM_WORLD, 1);
      memcpy(copy, buf + at, piece);
      isend(copy, (int)piece, MPI_BYTE, c, TAG_STATE + seq);
    }
  }
}

void lpod_mpi_send_state(int seq, pod_mc_plan *plan, const pod_err *failed) {
  if (!G.active || G.rank != 0 || G.size < 2) return;
  reap_sends(0);
  unsigned char *buf = NULL;
  size_t len = 0;
  pod_err e;
  pod_err_clear(&e);
  int64_t status = 0;
  if (failed) {
    e = *failed;
    status = e.code ? e.code : POD_EINVAL;
  } else if (pod_mc_state_encode(plan, &buf, &len, &e) != POD_OK) {
    status = e.code;
  }
  if (status) {
    char msg[POD_ERR_MSG_MAX + POD_ERR_FIELD_MAX + 2];
    len = (size_t)snprintf(msg, sizeof msg, "%s\n%s", e.field, e.msg);
    free(buf);
    buf = (unsigned char *)strdup(msg);
    if (!buf) len = 0;
  }
  forward_state(seq, status, buf, len);
  free(buf);
}

/* Ranks > 0: the state of study seq from the parent, forwarded on to the
** children; *head = {status, len}; NULL when lost. */
static unsigned char *take_state(int seq, int64_t head[2]) {
  int from = parent_of(G.rank);
  if (recv_idle(head, 2, MPI_INT64_T, from, TAG_STATE + seq, 1000000) != 0)
    return NULL;
  unsigned char *buf = recv_pieces((uint64_t)head[1], from, TAG_STATE + seq);
  if (buf) forward_state(seq, head[0], buf, (size_t)head[1]);
  reap_sends(0);
  return buf;
}

int lpod_mpi_recv_state(int seq, pod_mc_plan *plan, pod_err *err) {
  uv_mutex_lock(&G.mu);
  entry *en = find_locked(seq);
  if (en) en->got = 1;
  uv_mutex_unlock(&G.mu);
  int64_t head[2];
  unsigned char *buf = take_state(seq, head);
  if (!buf)
    return pod_err_set(err, POD_EINVAL, "mpi",
                       "lost the state of study #%d from rank %d", seq + 1,
                       parent_of(G.rank));
  int rc;
  if (head[0]) {
    char *nl = memchr(buf, '\n', (size_t)head[1]);
    char field[POD_ERR_FIELD_MAX] = "eval";
    if (nl)
      snprintf(field, sizeof field, "%.*s", (int)(nl - (char *)buf),
               (char *)buf);
    rc = pod_err_set(err, (int)head[0], field, "%.*s",
                     nl ? (int)((char *)buf + head[1] - nl - 1) : 0,
                     nl ? nl + 1 : "");
  } else {
    rc = pod_mc_state_decode(plan, buf, (size_t)head[1], err);
  }
  free(buf);
  return rc;
}

/* ---- set-up and end ---- */

int lpod_mpi_available(void) {
  return 1;
}

int lpod_mpi_init(int *argc, char ***argv, int threads) {
  int provided;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_MULTIPLE, &provided) !=
      MPI_SUCCESS) {
    fprintf(stderr, "podsim: MPI_Init_thread failed\n");
    return -1;
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &G.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &G.size);
  if (provided < MPI_THREAD_MULTIPLE) {
    if (G.rank == 0)
      fprintf(stderr, "podsim: the MPI library lacks MPI_THREAD_MULTIPLE\n");
    MPI_Finalize();
    return -1;
  }
  G.active = 1;
  G.threads = threads;
  uv_mutex_init(&G.mu);
  uv_cond_init(&G.cv);
  /* every rank must use the same thread count: slots are (rank, thread) */
  int tmin = threads, tmax = threads;
  MPI_Allreduce(&threads, &tmin, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&threads, &tmax, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (tmin != tmax) {
    if (G.rank == 0)
      fprintf(stderr, "podsim: every rank needs the same --threads\n");
    MPI_Finalize();
    return -1;
  }
  if (G.rank == 0) {
    G.nslots = (G.size - 1) * threads;
    G.slots = calloc((size_t)(G.nslots ? G.nslots : 1), sizeof(rslot));
    if (!G.slots) return -1;
    for (int i = 0; i < G.nslots; i++) {
      G.slots[i].rank = 1 + i % (G.size - 1); /* interleaved: spread first */
      G.slots[i].thread = i / (G.size - 1);
      atomic_init(&G.slots[i].k, -1);
      atomic_init(&G.slots[i].seq, -1);
    }
    G.remote.slots = G.nslots;
    G.remote.run = remote_run;
  } else {
    G.servers = calloc((size_t)threads, sizeof(uv_thread_t));
    if (!G.servers) return -1;
    for (int t = 0; t < threads; t++)
      if (uv_thread_create(&G.servers[t], server, (void *)(intptr_t)t) != 0) {
        fprintf(stderr, "podsim: rank %d: cannot start a server thread\n",
                G.rank);
        MPI_Abort(MPI_COMM_WORLD, 1);
      }
  }
  return 0;
}

int lpod_mpi_active(void) {
  return G.active;
}
int lpod_mpi_rank(void) {
  return G.rank;
}
int lpod_mpi_size(void) {
  return G.active ? G.size : 1;
}
const pod_run_remote *lpod_mpi_remote(void) {
  return G.active && G.rank == 0 && G.nslots > 0 ? &G.remote : NULL;
}

/* write(2) of a number (async-signal-safe). */
static void put_num(char *buf, size_t *n, long long v) {
  char t[24];
  int i = 0;
  if (v < 0) {
    buf[(*n)++] = '-';
    v = -v;
  }
  do {
    t[i++] = (char)('0' + v % 10);
    v /= 10;
  } while (v && i < 23);
  while (i) buf[(*n)++] = t[--i];
}

void lpod_mpi_report_in_flight(void) {
  if (!G.active || G.rank != 0) return;
  char buf[512];
  size_t n = 0;
  static const char head[] =
      "podsim: rank 0: stopped by mpirun (an interrupt, or a rank died); "
      "chunks in flight:";
  memcpy(buf, head, sizeof head - 1);
  n = sizeof head - 1;
  int any = 0;
  for (int i = 0; i < G.nslots && n < sizeof buf - 64; i++) {
    long long k = (long long)atomic_load(&G.slots[i].k);
    if (k < 0) continue;
    memcpy(buf + n, " rank ", 6);
    n += 6;
    put_num(buf, &n, G.slots[i].rank);
    memcpy(buf + n, " chunk ", 7);
    n += 7;
    put_num(buf, &n, k);
    memcpy(buf + n, " (study #", 9);
    n += 9;
    put_num(buf, &n, (long long)atomic_load(&G.slots[i].seq) + 1);
    buf[n++] = ')';
    buf[n++] = ';';
    any = 1;
  }
  if (!any) {
    memcpy(buf + n, " none", 5);
    n += 5;
  }
  buf[n++] = '\n';
  ssize_t w = write(2, buf, n);
  (void)w;
}

int lpod_mpi_finish(int rc) {
  if (!G.active) return rc;
  fflush(stdout);
  fflush(stderr);
  if (rc == 130) _exit(rc); /* mpirun is taking the job down: do not wait */
  if (rc != 0) {
    /* a failed rank (its error is on stderr) may leave others waiting for
    ** chunks or states that will not come: end the whole job */
    fprintf(stderr, "podsim: rank %d failed; stopping every rank\n", G.rank);
    MPI_Abort(MPI_COMM_WORLD, rc);
  }
  if (G.rank == 0) {
    reap_sends(0);
    for (int i = 0; i < G.nslots; i++) settle(&G.slots[i]);
    for (int i = 0; i < G.nslots; i++) {
      int64_t stop[2] = {-1, -1};
      MPI_Send(stop, 2, MPI_INT64_T, G.slots[i].rank,
               TAG_REQ + G.slots[i].thread, MPI_COMM_WORLD);
    }
    reap_sends(1);
  } else {
    /* states of studies the scenario started but never waited for: the
    ** parent sent them and waits until they are received (and the
    ** children wait for this rank to forward them) */
    for (int i = 0; i < G.nstudies; i++) {
      if (G.studies[i].got) continue;
      int64_t head[2];
      free(take_state(G.studies[i].seq, head));
    }
    for (int t = 0; t < G.threads; t++) uv_thread_join(&G.servers[t]);
    reap_sends(1); /* the states forwarded to this rank's children */
  }
  MPI_Finalize();
  G.active = 0;
  return rc;
}

#else /* no MPI */

int lpod_mpi_available(void) {
  return 0;
}
int lpod_mpi_init(int *argc, char ***argv, int threads) {
  (void)argc;
  (void)argv;
  (void)threads;
  return -1;
}
int lpod_mpi_active(void) {
  return 0;
}
int lpod_mpi_rank(void) {
  return 0;
}
int lpod_mpi_size(void) {
  return 1;
}
const pod_run_remote *lpod_mpi_remote(void) {
  return NULL;
}
void lpod_mpi_register(int seq, const char *name, pod_mc_plan *plan) {
  (void)seq;
  (void)name;
  (void)plan;
}
void lpod_mpi_send_state(int seq, pod_mc_plan *plan, const pod_err *failed) {
  (void)seq;
  (void)plan;
  (void)failed;
}
int lpod_mpi_recv_state(int seq, pod_mc_plan *plan, pod_err *err) {
  (void)seq;
  (void)plan;
  return pod_err_set(err, POD_ENOTSUP, "mpi", "built without MPI");
}
void lpod_mpi_report_in_flight(void) {}
int lpod_mpi_finish(int rc) {
  return rc;
}

#endif
