/*
** l_search_pool.c: podsim.search's layout search on the pool's threads
** (see l_search_pool.h).
**
** From the scenario's main flow with --threads N > 1, the search runs as N
** parts (pod_train_search_part_run, each a uv work item on libuv's pool)
** while the scenario coroutine waits, yielded as study:wait does; the last
** part back resumes it and the continuation merges the parts
** (pod_train_search_merge: the same result as one search, whatever N) and
** hands it to the binding.  Elsewhere (inside a worker's evaluator, a
** nested coroutine, a metamethod) or with one thread it runs in place.
**
** Threads: each part reads the request's cfg and opts (written before the
** parts are queued, never after) and writes only its own part; `pending`
** and everything else belong to the loop thread (after_work callbacks);
** libuv's queue orders the parts' writes before their after_work.  The
** cancel hook (SIGINT, --timeout) runs on the loop thread and only sets
** the atomic stop flag the parts poll.
*/
#include "l_search_pool.h"

#include <lauxlib.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "host.h"

#define MAX_PARTS 64

typedef struct search_req {
  pod_host *h;
  pod_train_cfg c;
  pod_train_search_opts o;
  int cap, nparts, pending, cancel_id;
  atomic_int stop;
  lpod_search_done done;
  uv_work_t work[MAX_PARTS];
  pod_train_search_part part[MAX_PARTS];
  pod_train_search_item *items; /* nparts x cap */
  long *seq;
} search_req;

static void req_free(search_req *r) {
  if (r == NULL) return;
  free(r->items);
  free(r->seq);
  free(r);
}

static void part_work(uv_work_t *w) {
  search_req *r = w->data;
  int i = (int)(w - r->work);
  pod_train_search_part_run(&r->c, &r->o, i, r->nparts, &r->stop, &r->part[i]);
}

static void part_cancel(void *ud) {
  search_req *r = ud;
  atomic_store(&r->stop, 1);
}

static void part_done(uv_work_t *w, int status) {
  search_req *r = w->data;
  int i = (int)(w - r->work);
  if (status == UV_ECANCELED) { /* never started */
    r->part[i].rc = POD_ECANCELED;
    r->part[i].fail_k = -1;
    pod_err_set(&r->part[i].err, POD_ECANCELED, NULL, "search stopped");
  }
  if (--r->pending == 0) lpod_host_resume(r->h, 0);
}

/* An outcome for c and o, its top_n items in a userdata pushed on L.
** [-0, +1, m] */
static void out_init(lua_State *L, lpod_search_out *out, const pod_train_cfg *c,
                     const pod_train_search_opts *o) {
  memset(out, 0, sizeof *out);
  out->c = *c;
  out->o = *o;
  out->items = lua_newuserdatauv(L, sizeof *out->items * (size_t)o->top_n, 0);
  pod_err_clear(&out->err);
}

/* The scenario resumed: merge the parts and hand the result over.
** stack: the binding's, then the items' userdata (kept until return). */
static int search_k(lua_State *L, int status, lua_KContext kc) {
  (void)status;
  search_req *r = (search_req *)kc;
  lpod_search_out out;
  out_init(L, &out, &r->c, &r->o);
  out.rc = pod_train_search_merge(r->part, r->nparts, out.items, r->cap, &out.n,
                                  &out.stats, &out.err);
  if (r->cancel_id >= 0) lpod_host_off_cancel(r->h, r->cancel_id);
  lpod_search_done done = r->done;
  req_free(r);
  lpod_host_stop_if_interrupted(L); /* raises: the signal's own error */
  return done(L, &out);
}

static int run_here(lua_State *L, const pod_train_cfg *c,
                    const pod_train_search_opts *o, lpod_search_done done) {
  lpod_search_out out;
  out_init(L, &out, c, o);
  out.rc =
      pod_train_search(c, o, out.items, o->top_n, &out.n, &out.stats, &out.err);
  return done(L, &out);
}

/* The request for nparts parts, or NULL when out of memory. */
static search_req *req_new(pod_host *h, const pod_train_cfg *c,
                           const pod_train_search_opts *o, int nparts,
                           lpod_search_done done) {
  search_req *r = calloc(1, sizeof *r);
  if (r == NULL) return NULL;
  r->h = h;
  r->c = *c;
  r->o = *o;
  r->cap = o->top_n;
  r->nparts = nparts;
  r->done = done;
  r->cancel_id = -1;
  atomic_init(&r->stop, 0);
  size_t m = (size_t)nparts * (size_t)r->cap;
  r->items = malloc(sizeof *r->items * m);
  r->seq = malloc(sizeof *r->seq * m);
  if (r->items == NULL || r->seq == NULL) {
    req_free(r);
    return NULL;
  }
  for (int i = 0; i < nparts; i++) {
    r->part[i].items = r->items + (size_t)i * (size_t)r->cap;
    r->part[i].seq = r->seq + (size_t)i * (size_t)r->cap;
    r->part[i].cap = r->cap;
    r->work[i].data = r;
  }
  return r;
}

int lpod_search_run(lua_State *L, const pod_train_cfg *c,
                    const pod_train_search_opts *o, lpod_search_done done) {
  pod_host *h = lpod_host(L);
  int threads = h ? lpod_host_opts(h)->threads : 1;
  if (h == NULL || threads < 2 || L != lpod_host_coroutine(h) ||
      !lua_isyieldable(L) || lpod_host_interrupted(h))
    return run_here(L, c, o, done);
  int nparts = threads < MAX_PARTS ? threads : MAX_PARTS;
  search_req *r = req_new(h, c, o, nparts, done);
  if (r == NULL) return luaL_error(L, "podsim.search: out of memory");
  for (int i = 0; i < nparts; i++) {
    int rc =
        uv_queue_work(lpod_host_loop(h), &r->work[i], part_work, part_done);
    if (rc == 0) {
      r->pending++;
      continue;
    }
    if (i == 0) { /* nothing queued, nothing will resume: in place */
      req_free(r);
      return run_here(L, c, o, done);
    }
    for (int j = i; j < nparts; j++) { /* the search fails with this */
      r->part[j].rc = POD_ENOMEM;
      r->part[j].fail_k = -1;
      pod_err_set(&r->part[j].err, POD_ENOMEM, NULL, "uv_queue_work: %s",
                  uv_strerror(rc));
    }
    break;
  }
  r->cancel_id = lpod_host_on_cancel(h, part_cancel, r);
  lpod_host_check_yield(L, "podsim.search"); /* passes: checked above */
  lpod_host_wait_raises(h);
  return lua_yieldk(L, 0, (lua_KContext)r, search_k);
}
