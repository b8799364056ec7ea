/*
** test_graph_block.c: unit tests of core/graph_block.c: evaluating a graph
** over a block of samples gives the metrics of pod_graph_eval bit for bit
** (every operation on floats, integers and per-sample subtypes; blobs with
** double, int, log10 and byte patches; kernel-like functions), and on a
** failing sample stops at the first one in order with pod_graph_eval's
** own error, whatever the block size and wherever in the graph the
** samples fail.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph_fixture.h"
#include "pod_graph.h"

/* A reproducible uniform in [lo, hi). */
static double uni(uint64_t *s, double lo, double hi) {
  *s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
  return lo + (hi - lo) * (double)(*s >> 11) * 0x1p-53;
}

/* Evaluate n rows of x both ways and compare: per sample up to the first
** failure, then the block with `lanes`; the block must stop at the same
** sample with the same status and message and the same metrics before. */
static void both_ways(const pod_graph *g, int P, int M, int n, const double *x,
                      int lanes, int *first_fail) {
  pod_graph_ws *ws;
  pod_graph_bws *bws;
  pod_err e1, e2;
  pod_err_clear(&e1);
  pod_err_clear(&e2);
  assert_int_equal(pod_graph_ws_new(g, &ws, &e1), POD_OK);
  assert_int_equal(pod_graph_bws_new(g, lanes, &bws, &e2), POD_OK);
  assert_int_equal(pod_graph_bws_lanes(bws), lanes);
  double *y1 = calloc((size_t)(n * M + 1), sizeof(double));
  double *y2 = calloc((size_t)(n * M + 1), sizeof(double));
  int f = n, rc1 = POD_OK;
  for (int j = 0; j < n && f == n; j++) {
    rc1 = pod_graph_eval(g, ws, x + j * P, y1 + j * M, &e1);
    if (rc1 != POD_OK) f = j;
  }
  int nok = -1;
  int rc2 = pod_graph_eval_block(g, bws, n, x, y2, &nok, &e2);
  assert_int_equal(rc2, rc1);
  assert_int_equal(nok, f);
  if (rc1 != POD_OK) assert_string_equal(e2.msg, e1.msg);
  assert_memory_equal(y1, y2, sizeof(double) * (size_t)(f * M));
  *first_fail = f;
  free(y1);
  free(y2);
  pod_graph_bws_free(bws);
  pod_graph_ws_free(ws);
}

/* Every operation over parameters x in [-10, 10), y in [0.1, 5), n in
** [-50, 50) and their floors (integers, or floats too large to be one:
** per-sample subtypes), with integer and float constants. */
static pod_graph *ops_graph(int *M) {
  double x0[3] = {0.5, 1.5, 3.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(3, x0, &g, &e), POD_OK);
  int x = pod_graph_param(g, 0, &e), y = pod_graph_param(g, 1, &e);
  int n = pod_graph_param(g, 2, &e);
  int fx = pod_graph_node_op(g, POD_G_FLOOR, x, -1, "", &e);
  int cn = pod_graph_node_op(g, POD_G_CEIL, n, -1, "", &e);
  int i3 = pod_graph_const(g, in(3), &e), im = pod_graph_const(g, in(-7), &e);
  int big = pod_graph_const(g, in(INT64_MAX), &e);
  int f15 = pod_graph_const(g, fl(1.5), &e), z0 = pod_graph_const(g, fl(0), &e);
  int ii = pod_graph_node_op(g, POD_G_ADD, i3, im, "", &e); /* -4, int */
  /* an integer whose divisor is never 0: |cn| + 1 */
  int acn = pod_graph_node_op(g, POD_G_ABS, cn, -1, "", &e);
  int one = pod_graph_const(g, in(1), &e);
  int dv = pod_graph_node_op(g, POD_G_ADD, acn, one, "", &e);
  int cy = pod_graph_node_op(g, POD_G_CEIL, y, -1, "", &e); /* >= 1 */
  int outs[192], no = 0;
  const pod_graph_op bin[] = {POD_G_ADD,  POD_G_SUB,  POD_G_MUL,  POD_G_DIV,
                              POD_G_MOD,  POD_G_POW,  POD_G_IDIV, POD_G_LOGB,
                              POD_G_ATAN, POD_G_FMOD, POD_G_MIN,  POD_G_MAX};
  /* operand pairs: float/float, mixed subtype/int, mixed/float,
  ** int/int (wrapping), int/float, mixed/mixed, float/0.0 (-0.0 and 0.0
  ** in min and max) */
  const int pa[] = {x, fx, fx, cn, ii, fx, x};
  const int pb[] = {y, i3, y, dv, f15, cy, z0};
  for (size_t k = 0; k < sizeof bin / sizeof bin[0]; k++)
    for (size_t q = 0; q < sizeof pa / sizeof pa[0]; q++) {
      int r = pod_graph_node_op(g, bin[k], pa[q], pb[q], "t.lua:1:", &e);
      assert_true(r >= 0 && no < 180);
      outs[no++] = r;
    }
  int wrap = pod_graph_node_op(g, POD_G_MUL, cn, big, "", &e);
  outs[no++] = wrap;
  outs[no++] = pod_graph_node_op(g, POD_G_ADD, dv, big, "", &e);
  const pod_graph_op un[] = {POD_G_UNM,   POD_G_FLOOR, POD_G_CEIL, POD_G_ABS,
                             POD_G_SQRT,  POD_G_EXP,   POD_G_LOG,  POD_G_LOG2,
                             POD_G_LOG10, POD_G_SIN,   POD_G_COS,  POD_G_TAN,
                             POD_G_ASIN,  POD_G_ACOS};
  const int ua[] = {x, y, fx, cn};
  for (size_t k = 0; k < sizeof un / sizeof un[0]; k++)
    for (size_t q = 0; q < sizeof ua / sizeof ua[0]; q++) {
      int r = pod_graph_node_op(g, un[k], ua[q], -1, "", &e);
      assert_true(r >= 0 && no < 180);
      outs[no++] = r;
    }
  /* min/max of mixed subtypes feeding integer wrap downstream */
  int mn = pod_graph_node_op(g, POD_G_MIN, fx, y, "", &e);
  outs[no++] = pod_graph_node_op(g, POD_G_MUL, mn, big, "", &e);
  int fy = pod_graph_node_op(g, POD_G_FLOOR, wrap, -1, "", &e);
  outs[no++] = pod_graph_node_op(g, POD_G_UNM, fy, -1, "", &e);
  outs[no++] = i3; /* a constant metric */
  assert_true(no <= 192);
  assert_int_equal(pod_graph_finish(g, outs, no, &e), POD_OK);
  *M = no;
  return g;
}

static void test_every_op(void **state) {
  (void)state;
  int M;
  pod_graph *g = ops_graph(&M);
  enum { N = 700 };
  double *x = malloc(sizeof(double) * 3 * N);
  uint64_t s = 42;
  for (int j = 0; j < N; j++) {
    x[3 * j] = uni(&s, -10, 10);
    x[3 * j + 1] = uni(&s, 0.1, 5);
    x[3 * j + 2] = uni(&s, -50, 50);
  }
  /* special values: zeros, a float too large for an integer floor,
  ** infinities and NaN (non-finite metrics, no error) */
  const double sp[][3] = {
      {0, 0.1, 0},      {-0.0, 1, -0.0}, {1e300, 2, 1e19},   {-1e19, 3, -1e300},
      {INFINITY, 1, 5}, {NAN, 2, 1},     {-INFINITY, 4, NAN}};
  for (int k = 0; k < 7; k++)
    memcpy(x + 3 * (100 + 13 * k), sp[k], sizeof sp[k]);
  const int lanes[] = {1, 3, 64, 256};
  for (int k = 0; k < 4; k++) {
    int f;
    both_ways(g, 3, M, N, x, lanes[k], &f);
    assert_int_equal(f, N); /* nothing here fails */
  }
  free(x);
  pod_graph_free(g);
}

/* A kernel-like blob: a = x (in [-5, 5]), k = an int (not 7: its check),
** l = log10 of y twice (one source), c[2] bytes of another blob; writes
** out after them. */
typedef struct kb {
  double a;
  int k;
  double l, l2;
  double c[2];
  double out;
} kb;

static int kb_fn(void *blob, pod_err *e) {
  kb *b = blob;
  if (b->k == 7) return pod_err_set(e, POD_EINVAL, "k", "must not be 7");
  b->out = b->a * b->k + b->l + b->l2 - b->c[0] * b->c[1];
  return POD_OK;
}

/* kb_fn on two lanes (pod_graph_blob_fn2), counted: blob_graph gives
** the kernel it when kb_pairs is set. */
static int kb_pairs, kb_pair_calls;
static int kb_fn2(void *a, void *b, int *failed, pod_err *e) {
  kb_pair_calls++;
  int rc = kb_fn(a, e);
  *failed = 0;
  if (rc != POD_OK) return rc;
  *failed = 1;
  return kb_fn(b, e);
}

typedef struct src2 {
  double c[2];
} src2;

static int src_fn(void *blob, pod_err *e) {
  src2 *s = blob;
  if (!(s->c[0] < 1e3))
    return pod_err_set(e, POD_ERANGE, "c", "too large (%g)", s->c[0]);
  s->c[1] = s->c[0] * 0.5;
  return POD_OK;
}

/* Parameters a (patched, range [-5, 5]), k (floored, int, 7 fails the
** kernel), y (log10, > 0), d (the divisor of an integer %: 0 fails). */
static pod_graph *blob_graph(int *M) {
  double x0[4] = {1.0, 2.0, 3.0, 2.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(4, x0, &g, &e), POD_OK);
  int a = pod_graph_param(g, 0, &e), k = pod_graph_param(g, 1, &e);
  int y = pod_graph_param(g, 2, &e), d = pod_graph_param(g, 3, &e);
  int fk = pod_graph_node_op(g, POD_G_FLOOR, k, -1, "", &e);
  src2 s0 = {{0, 0}};
  pod_gpatch sp = {0, POD_GP_DOUBLE, y, 0, 0, 0, HUGE_VAL, 1, "c"};
  pod_gblob_spec ss = {"src", "s.lua:2:", sizeof s0, &s0, src_fn, &sp,
                       1,     0,          0,         0,   NULL};
  int sb = pod_graph_blob(g, &ss, &e);
  assert_true(sb >= 0);
  kb t;
  memset(&t, 0, sizeof t);
  pod_gpatch p[5] = {
      {offsetof(kb, a), POD_GP_DOUBLE, a, 0, 0, -5, 5, 0, "a"},
      {offsetof(kb, k), POD_GP_INT, fk, 0, 0, -100, 100, 0, "k"},
      {offsetof(kb, l), POD_GP_LOG10, y, 0, 0, 0, HUGE_VAL, 1, "l"},
      {offsetof(kb, l2), POD_GP_LOG10, y, 0, 0, 0, HUGE_VAL, 1, "l2"},
      {offsetof(kb, c), POD_GP_BYTES, sb, 0, sizeof s0.c, 0, 0, 0, "c"}};
  pod_gblob_spec bs = {"kern", "k.lua:3:",        sizeof t, &t, kb_fn, p,
                       5,      offsetof(kb, out), 0,        0,  NULL};
  if (kb_pairs) bs.fn2 = kb_fn2;
  int b = pod_graph_blob(g, &bs, &e);
  assert_true(b >= 0);
  int out = pod_graph_field(g, b, offsetof(kb, out), POD_GF_DOUBLE, &e);
  int kk = pod_graph_field(g, b, offsetof(kb, k), POD_GF_INT, &e);
  /* an integer % after the kernel: divisor floor(d), 0 fails */
  int fd = pod_graph_node_op(g, POD_G_FLOOR, d, -1, "", &e);
  int md = pod_graph_node_op(g, POD_G_MOD, kk, fd, "m.lua:5:", &e);
  assert_true(out >= 0 && kk >= 0 && md >= 0);
  int outs[3] = {out, md, pod_graph_node_op(g, POD_G_MUL, out, kk, "", &e)};
  assert_int_equal(pod_graph_finish(g, outs, 3, &e), POD_OK);
  *M = 3;
  return g;
}

/* Rows that pass everything: a in [-4, 4], k in [0, 6], y in [0.5, 9],
** d in [1, 5). */
static void good_rows(double *x, int n, uint64_t *s) {
  for (int j = 0; j < n; j++) {
    x[4 * j] = uni(s, -4, 4);
    x[4 * j + 1] = uni(s, 0, 6.99);
    x[4 * j + 2] = uni(s, 0.5, 9);
    x[4 * j + 3] = uni(s, 1, 5);
  }
}

/* A kernel whose figures follow its result (as a prepared kernel's):
** out = a x fig[0] + fig[1]; `calls` (after the figures) counts its
** calls, which shows what a workspace restores per sample. */
typedef struct tb {
  double a;
  double out;
  double fig[2];
  double calls;
} tb;
static int tb_fn(void *b, pod_err *e) {
  (void)e;
  tb *t = b;
  t->calls += 1.0;
  t->out = t->a * t->fig[0] + t->fig[1];
  return POD_OK;
}

/* A graph of one tb blob on parameter 0, outputs out and calls;
** out_off, out_end and out_full as given. */
static pod_graph *tail_graph_full(size_t out_off, size_t out_end,
                                  int out_full) {
  double x0[1] = {1.5};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  int a = pod_graph_param(g, 0, &e);
  tb t = {0, 0, {3.25, -0.5}, 10.0};
  pod_gpatch p = {offsetof(tb, a), POD_GP_DOUBLE, a, 0, 0, -5, 5, 0, "a"};
  pod_gblob_spec bs = {"tail", "t.lua:1:", sizeof t, &t,       tb_fn, &p,
                       1,      out_off,    out_end,  out_full, NULL};
  int b = pod_graph_blob(g, &bs, &e);
  assert_true(b >= 0);
  int outs[2] = {pod_graph_field(g, b, offsetof(tb, out), POD_GF_DOUBLE, &e),
                 pod_graph_field(g, b, offsetof(tb, calls), POD_GF_DOUBLE, &e)};
  assert_true(outs[0] >= 0 && outs[1] >= 0);
  assert_int_equal(pod_graph_finish(g, outs, 2, &e), POD_OK);
  return g;
}

static pod_graph *tail_graph(size_t out_off, size_t out_end) {
  return tail_graph_full(out_off, out_end, 0);
}

/* A result stored whole (out_full): by blocks, the result region is not
** restored per sample.  tb_fn stores out whole: the same outputs as
** restored; a region that holds the call counter (which tb_fn reads, so
** not a result stored whole) shows it: the counter keeps counting by
** blocks (one call per sample a lane served), stays 11 when restored. */
static void test_blob_out_full(void **state) {
  (void)state;
  enum { N = 200 };
  double x[N];
  uint64_t s = 5;
  for (int j = 0; j < N; j++) x[j] = uni(&s, -4, 4);
  const size_t off = offsetof(tb, out), fig = offsetof(tb, fig);
  pod_graph *g[4] = {tail_graph_full(off, fig, 0), tail_graph_full(off, fig, 1),
                     tail_graph_full(off, 0, 0), tail_graph_full(off, 0, 1)};
  const int lanes[] = {1, 7, 64};
  for (int k = 0; k < 3; k++) {
    double y[4][2 * N];
    for (int v = 0; v < 4; v++) {
      pod_graph_bws *b;
      pod_err e;
      int nok;
      assert_int_equal(pod_graph_bws_new(g[v], lanes[k], &b, &e), POD_OK);
      assert_int_equal(pod_graph_eval_block(g[v], b, N, x, y[v], &nok, &e),
                       POD_OK);
      assert_int_equal(nok, N);
      pod_graph_bws_free(b);
    }
    for (int j = 0; j < N; j++) {
      for (int v = 1; v < 4; v++)
        assert_memory_equal(&y[0][2 * j], &y[v][2 * j], sizeof(double));
      assert_true(y[2][2 * j + 1] == 11.0);
      assert_true(y[3][2 * j + 1] == 11.0 + (double)(j / lanes[k]));
    }
  }
  for (int v = 0; v < 4; v++) pod_graph_free(g[v]);
}

/* A blob's constant tail (out_end): the same results, per sample and by
** blocks, as restoring the whole result region; its bytes are not
** restored per sample (the call counter there keeps counting); an
** out_end outside [out_off, size], or with out_off = 0, restores
** everything (the counter stays at the template's 10 + 1). */
static void test_blob_tail(void **state) {
  (void)state;
  enum { N = 300 };
  double x[N];
  uint64_t s = 11;
  for (int j = 0; j < N; j++) x[j] = uni(&s, -4, 4);
  const size_t off = offsetof(tb, out), end = offsetof(tb, calls);
  pod_graph *full = tail_graph(off, 0), *tail = tail_graph(off, end);
  pod_graph *bad[3] = {tail_graph(off, sizeof(tb) + 8),
                       tail_graph(off, off - 8), tail_graph(0, end)};
  const int lanes[] = {1, 7, 64};
  for (int k = 0; k < 3; k++) {
    pod_graph_bws *bf, *bt;
    pod_err e;
    assert_int_equal(pod_graph_bws_new(full, lanes[k], &bf, &e), POD_OK);
    assert_int_equal(pod_graph_bws_new(tail, lanes[k], &bt, &e), POD_OK);
    double yf[2 * N], yt[2 * N];
    int nok;
    assert_int_equal(pod_graph_eval_block(full, bf, N, x, yf, &nok, &e),
                     POD_OK);
    assert_int_equal(pod_graph_eval_block(tail, bt, N, x, yt, &nok, &e),
                     POD_OK);
    assert_int_equal(nok, N);
    for (int j = 0; j < N; j++) {
      assert_memory_equal(&yf[2 * j], &yt[2 * j], sizeof(double));
      assert_true(yf[2 * j + 1] == 11.0);
      /* lane j % lanes was called once per sample it served */
      assert_true(yt[2 * j + 1] == 11.0 + (double)(j / lanes[k]));
    }
    pod_graph_bws_free(bf);
    pod_graph_bws_free(bt);
    for (int b = 0; b < 3; b++) {
      int f;
      both_ways(bad[b], 1, 2, N, x, lanes[k], &f);
      assert_int_equal(f, N);
      pod_graph_bws *bb;
      assert_int_equal(pod_graph_bws_new(bad[b], lanes[k], &bb, &e), POD_OK);
      double yb[2 * N];
      assert_int_equal(pod_graph_eval_block(bad[b], bb, N, x, yb, &nok, &e),
                       POD_OK);
      for (int j = 0; j < N; j++) {
        assert_memory_equal(&yf[2 * j], &yb[2 * j], sizeof(double));
        assert_true(yb[2 * j + 1] == 11.0);
      }
      pod_graph_bws_free(bb);
    }
  }
  /* per sample too: the same out, the counter kept in the workspace */
  pod_graph_ws *wf, *wt;
  pod_err e;
  assert_int_equal(pod_graph_ws_new(full, &wf, &e), POD_OK);
  assert_int_equal(pod_graph_ws_new(tail, &wt, &e), POD_OK);
  for (int j = 0; j < N; j++) {
    double yf[2], yt[2];
    assert_int_equal(pod_graph_eval(full, wf, &x[j], yf, &e), POD_OK);
    assert_int_equal(pod_graph_eval(tail, wt, &x[j], yt, &e), POD_OK);
    assert_memory_equal(&yf[0], &yt[0], sizeof(double));
    assert_true(yf[1] == 11.0 && yt[1] == 11.0 + j);
  }
  pod_graph_ws_free(wf);
  pod_graph_ws_free(wt);
  pod_graph_free(full);
  pod_graph_free(tail);
  for (int b = 0; b < 3; b++) pod_graph_free(bad[b]);
}

static void test_blobs(void **state) {
  (void)state;
  int M;
  pod_graph *g = blob_graph(&M);
  enum { N = 500 };
  double *x = malloc(sizeof(double) * 4 * N);
  uint64_t s = 7;
  good_rows(x, N, &s);
  const int lanes[] = {1, 5, 64};
  for (int k = 0; k < 3; k++) {
    int f;
    both_ways(g, 4, M, N, x, lanes[k], &f);
    assert_int_equal(f, N);
  }
  free(x);
  pod_graph_free(g);
}

/* One way to fail a row of blob_graph: at a patch (a out of range, a
** non-finite a, y <= 0 for log10), at an int patch (k not integral),
** in the first blob's function (y >= 1e3), in the kernel (k = 7), or in
** integer arithmetic after it (d in [0, 1)). */
static void break_row(double *r, int how) {
  switch (how) {
    case 0:
      r[0] = 6;
      break;
    case 1:
      r[0] = NAN;
      break;
    case 2:
      r[2] = -1;
      break;
    case 3:
      r[2] = 2e3;
      break;
    case 4:
      r[1] = 7.5;
      break;
    case 5:
      r[3] = 0.5;
      break;
    case 6:
      r[1] = 1e10; /* out of the int patch's range */
      break;
    case 7:
      r[0] = -INFINITY;
      break;
    case 8:
      r[0] = -5.000000000000001; /* just below a closed minimum */
      break;
    default:
      r[2] = 0.0; /* at an open minimum */
      break;
  }
}

/* test_first_failing_sample with the kernel's lanes in pairs or one by
** one. */
static void first_failing_sample(int pairs) {
  int M;
  kb_pairs = pairs;
  kb_pair_calls = 0;
  pod_graph *g = blob_graph(&M);
  kb_pairs = 0;
  enum { N = 300 };
  double *x = malloc(sizeof(double) * 4 * N);
  uint64_t s = 11;
  const int lanes[] = {1, 4, 64, 7};
  /* two failing rows, each failing in any way, the later one failing
  ** earlier in the graph or later: the first row reports (rows at even
  ** and odd lanes: the range scan takes two lanes a step) */
  for (int h1 = 0; h1 < 10; h1++)
    for (int h2 = 0; h2 < 10; h2++) {
      good_rows(x, N, &s);
      int r1 = 10 + h1 * 17 + h2 * 3, r2 = r1 + 1 + (h2 * 29) % 90;
      break_row(x + 4 * r1, h1);
      break_row(x + 4 * r2, h2);
      for (int k = 0; k < 4; k++) {
        int f;
        both_ways(g, 4, M, N, x, lanes[k], &f);
        assert_int_equal(f, r1);
      }
    }
  /* the messages name the node that failed */
  pod_graph_bws *bws;
  pod_err e;
  assert_int_equal(pod_graph_bws_new(g, 64, &bws, &e), POD_OK);
  double y[3 * 8];
  int nok;
  good_rows(x, 8, &s);
  break_row(x + 4 * 5, 4);
  assert_int_equal(pod_graph_eval_block(g, bws, 8, x, y, &nok, &e), POD_EINVAL);
  assert_int_equal(nok, 5);
  assert_string_equal(e.msg, "k.lua:3: kern: k: must not be 7");
  good_rows(x, 8, &s);
  break_row(x + 4 * 2, 5);
  break_row(x + 4 * 6, 0);
  assert_int_equal(pod_graph_eval_block(g, bws, 8, x, y, &nok, &e), POD_EINVAL);
  assert_int_equal(nok, 2);
  assert_string_equal(e.msg, "m.lua:5: attempt to perform 'n%0'");
  assert_int_equal(pod_graph_eval_block(g, bws, 0, x, y, &nok, &e), POD_OK);
  assert_int_equal(nok, 0);
  pod_graph_bws_free(bws);
  free(x);
  pod_graph_free(g);
  if (pairs)
    assert_true(kb_pair_calls > 1000);
  else
    assert_int_equal(kb_pair_calls, 0);
}

static void test_first_failing_sample(void **state) {
  (void)state;
  first_failing_sample(0);
  first_failing_sample(1); /* failures at either lane of a pair */
}

/* A spec's field copied into a kernel's config: the copy with the same
** bounds needs no second test (its value passed them), one with narrower
** bounds is tested (and fails) as per sample. */
typedef struct two {
  double w;
  double out;
} two;

static int two_fn(void *blob, pod_err *e) {
  (void)e;
  two *t = blob;
  t->out = 2 * t->w;
  return POD_OK;
}

static void test_copied_fields(void **state) {
  (void)state;
  double x0[1] = {0.5};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  int x = pod_graph_param(g, 0, &e);
  double a0 = 0;
  pod_gpatch pa = {0, POD_GP_DOUBLE, x, 0, 0, -10, 10, 0, "v"};
  pod_gblob_spec sa = {"spec", "",        sizeof a0, &a0, NULL, &pa,
                       1,      sizeof a0, 0,         0,   NULL};
  int a = pod_graph_blob(g, &sa, &e);
  int fa = pod_graph_field(g, a, 0, POD_GF_DOUBLE, &e);
  two t0 = {0, 0};
  pod_gpatch same = {0, POD_GP_DOUBLE, fa, 0, 0, -10, 10, 0, "w"};
  pod_gpatch narrow = {0, POD_GP_DOUBLE, fa, 0, 0, -1, 1, 0, "w"};
  pod_gblob_spec sb = {"same", "",    sizeof t0, &t0,
                       two_fn, &same, 1,         offsetof(two, out),
                       0,      0,     NULL};
  pod_gblob_spec sc = {"narrow", "n.lua:1:", sizeof t0, &t0,
                       two_fn,   &narrow,    1,         offsetof(two, out),
                       0,        0,          NULL};
  int b = pod_graph_blob(g, &sb, &e), c = pod_graph_blob(g, &sc, &e);
  assert_true(a >= 0 && fa >= 0 && b >= 0 && c >= 0);
  int outs[2] = {pod_graph_field(g, b, offsetof(two, out), POD_GF_DOUBLE, &e),
                 pod_graph_field(g, c, offsetof(two, out), POD_GF_DOUBLE, &e)};
  assert_int_equal(pod_graph_finish(g, outs, 2, &e), POD_OK);
  enum { N = 200 };
  double xs[N];
  uint64_t s = 5;
  for (int j = 0; j < N; j++) xs[j] = uni(&s, -0.99, 0.99);
  int f;
  both_ways(g, 1, 2, N, xs, 64, &f);
  assert_int_equal(f, N);
  xs[150] = 1.5; /* passes the spec, fails the narrow copy */
  xs[170] = 11;  /* fails the spec */
  both_ways(g, 1, 2, N, xs, 64, &f);
  assert_int_equal(f, 150);
  pod_graph_free(g);
}

/* Rows picked out of x and y (the samples of one graph in a block of
** several): the same metrics in those rows, others untouched, and the
** first failing one in the given order. */
static void test_rows(void **state) {
  (void)state;
  int M;
  pod_graph *g = blob_graph(&M);
  enum { N = 150 };
  double x[4 * N], y1[3], y2[3 * N];
  uint64_t s = 3;
  good_rows(x, N, &s);
  int rows[N], nr = 0;
  for (int j = N - 1; j >= 0; j -= 3) rows[nr++] = j;
  pod_graph_ws *ws;
  pod_graph_bws *bws;
  pod_err e;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  assert_int_equal(pod_graph_bws_new(g, 16, &bws, &e), POD_OK);
  for (int j = 0; j < 3 * N; j++) y2[j] = -1;
  int nok;
  assert_int_equal(pod_graph_eval_rows(g, bws, nr, rows, x, y2, &nok, &e),
                   POD_OK);
  assert_int_equal(nok, nr);
  for (int k = 0; k < nr; k++) {
    assert_int_equal(pod_graph_eval(g, ws, x + 4 * rows[k], y1, &e), POD_OK);
    assert_memory_equal(y1, y2 + 3 * rows[k], sizeof y1);
  }
  assert_true(y2[3 * 1] == -1); /* row 1 is not among them */
  break_row(x + 4 * rows[20], 4);
  break_row(x + 4 * rows[30], 0);
  assert_int_equal(pod_graph_eval_rows(g, bws, nr, rows, x, y2, &nok, &e),
                   POD_EINVAL);
  assert_int_equal(nok, 20);
  assert_string_equal(e.msg, "k.lua:3: kern: k: must not be 7");
  pod_graph_bws_free(bws);
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

static void test_bws_errors(void **state) {
  (void)state;
  double x0[1] = {1.0};
  pod_graph *g;
  pod_err e;
  pod_graph_bws *bws = NULL;
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  int p = pod_graph_param(g, 0, &e);
  assert_int_equal(pod_graph_bws_new(g, 8, &bws, &e), POD_EINVAL);
  assert_string_equal(e.msg, "not finished");
  assert_int_equal(pod_graph_finish(g, &p, 1, &e), POD_OK);
  assert_int_equal(pod_graph_bws_new(g, 0, &bws, &e), POD_EINVAL);
  assert_int_equal(pod_graph_bws_new(g, 4097, &bws, &e), POD_EINVAL);
  assert_null(bws);
  assert_int_equal(pod_graph_bws_new(g, 2, &bws, &e), POD_OK);
  double x[5] = {1, 2, 3, 4, 5}, y[5];
  int nok;
  assert_int_equal(pod_graph_eval_block(g, bws, 5, x, y, &nok, &e), POD_OK);
  assert_int_equal(nok, 5);
  assert_memory_equal(x, y, sizeof x);
  pod_graph_bws_free(bws);
  pod_graph_bws_free(NULL);
  pod_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_every_op),
      cmocka_unit_test(test_blobs),
      cmocka_unit_test(test_blob_tail),
      cmocka_unit_test(test_blob_out_full),
      cmocka_unit_test(test_first_failing_sample),
      cmocka_unit_test(test_copied_fields),
      cmocka_unit_test(test_rows),
      cmocka_unit_test(test_bws_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
