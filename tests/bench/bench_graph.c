/*
** bench_graph.c: a traced graph evaluated per sample (pod_graph_eval)
** against the same graph over blocks of 64 samples (pod_graph_eval_block),
** on one core.  The graph is the one scenarios/alltoall_uncertainty.lua
** records per grid point (64 ranks): two derived systems (GB200 NVL72
** with four patched fields, HGX H100 with two), an all-to-all on each
** through pod_coll_eval_checked (the systems are checked spec nodes), and
** the ratio and two times in microseconds; once with the systems checked
** per sample (pod_hw_system_check) and once screened, as the trace records
** them when their patches test each field's whole bound
** (lua/l_trace_specs.c).  The parameters are drawn once (not timed); the two
*paths run in
** alternating rounds on the same rows and their metrics are compared bit
** for bit.  Prints samples per CPU-second of each and the ratio.
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pod_coll.h"
#include "pod_graph.h"
#include "pod_hw.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define RES_OFF ((sizeof(pod_coll_cfg) + 15) & ~(size_t)15)

typedef struct cblob {
  pod_coll_cfg cfg;
  unsigned char pad[RES_OFF - sizeof(pod_coll_cfg)];
  pod_coll_result res;
} cblob;

static int fn_sys(void *b, pod_err *e) {
  return pod_hw_system_check(b, e);
}

/* A system whose patches test each field's whole bound: the check the
** trace records for it (lua/l_trace_specs.c). */
static int fn_screened(void *b, pod_err *e) {
  (void)b;
  (void)e;
  return POD_OK;
}

static int fn_coll(void *b, pod_err *e) {
  cblob *c = b;
  return pod_coll_eval_checked(&c->cfg.system, c->cfg.op, &c->cfg.args, &c->res,
                               e);
}

/* The field bound of system member at offset off. */
static const pod_field *bound(size_t off) {
  for (const pod_field *f = pod_hw_system_fields; f->name; f++)
    if (f->offset == off) return f;
  return NULL;
}

/* A patch of system field off (or the same field of a collective's
** config) from node src, tested against the field's bound. */
static pod_gpatch patch(size_t off, int src) {
  const pod_field *f = bound(off);
  pod_gpatch p;
  memset(&p, 0, sizeof p);
  p.offset = off;
  p.kind = POD_GP_DOUBLE;
  p.src = src;
  p.min = f->min;
  p.max = f->max;
  p.min_open = (f->open & POD_F_MIN_OPEN) != 0;
  p.field = f->name;
  return p;
}

/* system blob of preset `name` with fields[i] <- params[i]; then the
** all-to-all over it with bytes <- param 5.  Returns the time node. */
static int side(pod_graph *g, const char *name, const size_t *offs,
                const int *src, int n, int bytes, int ranks, int rpd,
                pod_graph_blob_fn sys_fn, pod_err *e) {
  pod_system s;
  if (pod_hw_system_preset(name, &s) != POD_OK) return -1;
  pod_gpatch sp[4];
  for (int i = 0; i < n; i++) sp[i] = patch(offs[i], src[i]);
  pod_gblob_spec ss = {"podsim.system", "", sizeof s, &s,  sys_fn, sp, n,
                       sizeof s,        0,  0,        NULL};
  int sb = pod_graph_blob(g, &ss, e);
  if (sb < 0) return sb;
  cblob c;
  memset(&c, 0, sizeof c);
  c.cfg.system = s;
  c.cfg.op = POD_COLL_ALL_TO_ALL;
  c.cfg.args = (pod_coll_args){ranks, rpd, 1e6, POD_ALGO_AUTO};
  pod_gpatch cp[5];
  for (int i = 0; i < n; i++) {
    int f = pod_graph_field(g, sb, offs[i], POD_GF_DOUBLE, e);
    if (f < 0) return f;
    cp[i] = patch(offs[i], f);
  }
  cp[n] = (pod_gpatch){offsetof(pod_coll_cfg, args.bytes),
                       POD_GP_DOUBLE,
                       bytes,
                       0,
                       0,
                       0,
                       HUGE_VAL,
                       0,
                       "bytes"};
  pod_gblob_spec cs = {"podsim.collective",
                       "",
                       sizeof c,
                       &c,
                       fn_coll,
                       cp,
                       n + 1,
                       RES_OFF,
                       0,
                       0,
                       NULL};
  int cb = pod_graph_blob(g, &cs, e);
  if (cb < 0) return cb;
  return pod_graph_field(g, cb, RES_OFF + offsetof(pod_coll_result, time_s),
                         POD_GF_DOUBLE, e);
}

static pod_graph *a2a_graph(pod_graph_blob_fn sys_fn, pod_err *e) {
  /* params: nvlink_eff, nic_eff, nvlink_lat_us, ib_lat_us, (unused), bytes */
  double x0[6] = {0.8, 0.9, 3.4, 14, 0, 1e8};
  pod_graph *g;
  if (pod_graph_new(6, x0, &g, e) != POD_OK) return NULL;
  int p[6];
  for (int i = 0; i < 6; i++) p[i] = pod_graph_param(g, i, e);
  size_t on[4] = {
      offsetof(pod_system, up_eff), offsetof(pod_system, up_latency_us),
      offsetof(pod_system, out_eff), offsetof(pod_system, out_latency_us)};
  int sn[4] = {p[0], p[2], p[1], p[3]};
  int ta = side(g, "gb200_nvl72", on, sn, 4, p[5], 64, 64, sys_fn, e);
  size_t oh[2] = {offsetof(pod_system, out_eff),
                  offsetof(pod_system, out_latency_us)};
  int sh[2] = {p[1], p[3]};
  int tb = side(g, "hgx_h100", oh, sh, 2, p[5], 64, 0, sys_fn, e);
  if (ta < 0 || tb < 0) {
    pod_graph_free(g);
    return NULL;
  }
  pod_gval k;
  k.u.d = 1e6;
  k.isint = 0;
  int us = pod_graph_const(g, k, e);
  int outs[3] = {pod_graph_node_op(g, POD_G_DIV, tb, ta, "", e),
                 pod_graph_node_op(g, POD_G_MUL, ta, us, "", e),
                 pod_graph_node_op(g, POD_G_MUL, tb, us, "", e)};
  if (pod_graph_finish(g, outs, 3, e) != POD_OK) {
    pod_graph_free(g);
    return NULL;
  }
  return g;
}

enum { N = 1 << 16, P = 6, M = 3 };

/* Time graph g both ways on rows x; 0, or 1 when the metrics differ. */
static int bench_one(const char *tag, const char *what, pod_graph *g,
                     const double *x, double *y1, double *y2) {
  pod_err e;
  pod_err_clear(&e);
  pod_graph_ws *ws;
  pod_graph_bws *bws;
  if (pod_graph_ws_new(g, &ws, &e) != POD_OK ||
      pod_graph_bws_new(g, 64, &bws, &e) != POD_OK) {
    fprintf(stderr, "bench_graph: %s\n", e.msg);
    return 1;
  }
  double tp = 1e30, tb = 1e30;
  for (int round = 0; round < 5; round++) {
    double t0 = now_s();
    for (int j = 0; j < N; j++)
      if (pod_graph_eval(g, ws, x + P * j, y1 + M * j, &e) != POD_OK) {
        fprintf(stderr, "bench_graph: %s\n", e.msg);
        return 1;
      }
    double t1 = now_s();
    int nok;
    if (pod_graph_eval_block(g, bws, N, x, y2, &nok, &e) != POD_OK) {
      fprintf(stderr, "bench_graph: %s\n", e.msg);
      return 1;
    }
    double t2 = now_s();
    if (t1 - t0 < tp) tp = t1 - t0;
    if (t2 - t1 < tb) tb = t2 - t1;
  }
  int same = memcmp(y1, y2, sizeof(double) * M * N) == 0;
  printf(
      "graph_a2a_%s_per_sample: %.2f M samples/s (pod_graph_eval, %s, "
      "1 core, %d live nodes, %d of them blobs)\n",
      tag, N / tp / 1e6, what, pod_graph_live(g), pod_graph_blobs(g));
  printf(
      "graph_a2a_%s_block: %.2f M samples/s (pod_graph_eval_block, 64 "
      "lanes, 1 core)\n",
      tag, N / tb / 1e6);
  printf(
      "graph_a2a_%s_block_over_per_sample: %.2fx (best of 5 alternating "
      "rounds; metrics %s)\n",
      tag, tp / tb, same ? "identical bit for bit" : "DIFFER");
  pod_graph_bws_free(bws);
  pod_graph_ws_free(ws);
  return !same;
}

int main(void) {
  pod_err e;
  pod_err_clear(&e);
  pod_graph *gc = a2a_graph(fn_sys, &e);
  pod_graph *gs = gc ? a2a_graph(fn_screened, &e) : NULL;
  if (gc == NULL || gs == NULL) {
    fprintf(stderr, "bench_graph: %s\n", e.msg);
    return 1;
  }
  double *x = malloc(sizeof(double) * P * N);
  double *y1 = malloc(sizeof(double) * M * N);
  double *y2 = malloc(sizeof(double) * M * N);
  uint64_t s = 7;
  for (int j = 0; j < N; j++) {
    double u[P];
    for (int i = 0; i < P; i++) {
      s = s * 6364136223846793005ULL + 1442695040888963407ULL;
      u[i] = (double)(s >> 11) * 0x1p-53;
    }
    x[P * j] = 0.7 + 0.2 * u[0];
    x[P * j + 1] = 0.8 + 0.16 * u[1];
    x[P * j + 2] = 3.4 * exp(u[2] - 0.5);
    x[P * j + 3] = 14 * exp(u[3] - 0.5);
    x[P * j + 4] = 0;
    x[P * j + 5] =
        exp(log(1 << 20) + u[5] * (log(4294967296.0) - log(1 << 20)));
  }
  int bad = bench_one("checked", "systems checked per sample", gc, x, y1, y2);
  bad |= bench_one("screened", "systems screened as traced", gs, x, y1, y2);
  pod_graph_free(gc);
  pod_graph_free(gs);
  free(x);
  free(y1);
  free(y2);
  return bad;
}
