/*
** l_plot.c: podsim._gnuplot(script): run gnuplot on a script through
** libuv, yielding the scenario until gnuplot exits.  Returns true, or nil
** and gnuplot's complaint.  Used by podsim.gnuplot (lib/podsim.lua), which
** renders embedded templates to temporary names and renames them.
*/
#include <lauxlib.h>
#include <lua.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <uv.h>

#include "host.h"
#include "lpod.h"

typedef struct gp_req {
  pod_host *h;
  uv_process_t proc;
  uv_pipe_t in, err;
  uv_write_t w;
  char *script;
  char *errbuf;
  size_t errlen;
  int64_t status;
  int term_signal;
  int closed;   /* handles closed so far (3 when done) */
  int spawned;  /* 0: spawn failed, nobody waits */
  int exited;   /* the process handle is closing */
  int cancel_id;/* host cancel hook: SIGINT or the timeout kill gnuplot */
} gp_req;

static void gp_free(gp_req *r) {
  free(r->script);
  free(r->errbuf);
  free(r);
}

static void gp_closed(uv_handle_t *hd) {
  gp_req *r = hd->data;
  if (++r->closed < 3) return;
  if (!r->spawned) {
    gp_free(r);
    return;
  }
  pod_host *h = r->h;
  lpod_host_off_cancel(h, r->cancel_id);
  /* Push results on the scenario coroutine, then resume it. */
  lua_State *co = lpod_host_coroutine(h);
  if (r->status == 0 && r->term_signal == 0) {
    lua_pushboolean(co, 1);
    gp_free(r);
    lpod_host_resume(h, 1);
  } else {
    lua_pushnil(co);
    if (r->errlen)
      lua_pushlstring(co, r->errbuf, r->errlen);
    else
      lua_pushfstring(co, "gnuplot exited with status %d", (int)r->status);
    gp_free(r);
    lpod_host_resume(h, 2);
  }
}

static void gp_alloc(uv_handle_t *hd, size_t suggested, uv_buf_t *buf) {
  (void)hd;
  buf->base = malloc(suggested);
  buf->len = buf->base ? suggested : 0;
}

static void gp_read(uv_stream_t *s, ssize_t n, const uv_buf_t *buf) {
  gp_req *r = s->data;
  if (n > 0 && r->errlen < 4096) {
    char *nb = realloc(r->errbuf, r->errlen + (size_t)n + 1);
    if (nb) {
      memcpy(nb + r->errlen, buf->base, (size_t)n);
      r->errbuf = nb;
      r->errlen += (size_t)n;
      nb[r->errlen] = '\0';
    }
  }
  free(buf->base);
  if (n < 0) uv_close((uv_handle_t *)s, gp_closed);
}

static void gp_written(uv_write_t *w, int status) {
  (void)status;
  gp_req *r = w->data;
  uv_close((uv_handle_t *)&r->in, gp_closed);
}

static void gp_cancel(void *ud) {
  gp_req *r = ud;
  if (!r->exited) uv_process_kill(&r->proc, SIGTERM);
}

static void gp_exit(uv_process_t *p, int64_t status, int sig) {
  gp_req *r = p->data;
  r->exited = 1;
  r->status = status;
  r->term_signal = sig;
  uv_close((uv_handle_t *)p, gp_closed);
}

static int l_gnuplot(lua_State *L) {
  size_t len;
  const char *script = luaL_checklstring(L, 1, &len);
  pod_host *h = lpod_host(L);
  lpod_host_check_yield(L, "podsim.gnuplot");
  gp_req *r = calloc(1, sizeof *r);
  if (r == NULL || (r->script = malloc(len)) == NULL) {
    free(r);
    return luaL_error(L, "out of memory");
  }
  memcpy(r->script, script, len);
  r->h = h;
  uv_loop_t *loop = lpod_host_loop(h);
  uv_pipe_init(loop, &r->in, 0);
  uv_pipe_init(loop, &r->err, 0);
  r->in.data = r->err.data = r->proc.data = r->w.data = r;
  char *argv[] = {"gnuplot", NULL};
  uv_stdio_container_t stdio[3];
  stdio[0].flags = UV_CREATE_PIPE | UV_READABLE_PIPE;
  stdio[0].data.stream = (uv_stream_t *)&r->in;
  stdio[1].flags = UV_IGNORE;
  stdio[2].flags = UV_CREATE_PIPE | UV_WRITABLE_PIPE;
  stdio[2].data.stream = (uv_stream_t *)&r->err;
  uv_process_options_t po;
  memset(&po, 0, sizeof po);
  po.file = "gnuplot";
  po.args = argv;
  po.stdio = stdio;
  po.stdio_count = 3;
  po.exit_cb = gp_exit;
  int rc = uv_spawn(loop, &r->proc, &po);
  if (rc != 0) {
    /* nothing waits: close the pipes (and the process handle, which
    ** uv_spawn leaves initialized) and free in the close callbacks */
    r->spawned = 0;
    uv_close((uv_handle_t *)&r->in, gp_closed);
    uv_close((uv_handle_t *)&r->err, gp_closed);
    uv_close((uv_handle_t *)&r->proc, gp_closed);
    lua_pushnil(L);
    lua_pushfstring(L, "gnuplot not available (%s)", uv_strerror(rc));
    return 2;
  }
  r->spawned = 1;
  /* A stop requested while gnuplot runs ends it; after a stop (partial
  ** results being written) plots still render. */
  r->cancel_id = lpod_host_interrupted(h) ? -1 : lpod_host_on_cancel(h, gp_cancel, r);
  uv_buf_t buf = uv_buf_init(r->script, (unsigned)len);
  uv_write(&r->w, (uv_stream_t *)&r->in, &buf, 1, gp_written);
  uv_read_start((uv_stream_t *)&r->err, gp_alloc, gp_read);
  return lua_yield(L, 0);
}

void lpod_open_plot(lua_State *L) {
  lua_pushcfunction(L, l_gnuplot);
  lua_setfield(L, -2, "_gnuplot");
}
