/*
** test_graph.c: unit tests of core/graph.c (pod_graph.h): building,
** probing, dead-node removal, blobs with patches and their checks, the
** errors of every adder and of per-sample evaluation.  Lua's own results
** for each operation are checked against the interpreter in
** tests/lua/trace_ops.lua; here the integer/float rules that need no
** interpreter (wrap, division by zero, subtypes) are pinned.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "graph_fixture.h"
#include "pod_graph.h"

static void test_integer_rules(void **state) {
  (void)state;
  pod_gval r;
  pod_err e;
  /* wrap like lua_Integer */
  assert_int_equal(pod_graph_arith(POD_G_ADD, in(INT64_MAX), in(1), &r, &e),
                   POD_OK);
  assert_true(r.isint && r.u.i == INT64_MIN);
  assert_int_equal(pod_graph_arith(POD_G_MUL, in(INT64_MAX), in(2), &r, &e),
                   POD_OK);
  assert_true(r.isint && r.u.i == -2);
  /* floor division and modulo round towards -inf */
  pod_graph_arith(POD_G_IDIV, in(-7), in(2), &r, &e);
  assert_true(r.isint && r.u.i == -4);
  pod_graph_arith(POD_G_MOD, in(-7), in(3), &r, &e);
  assert_true(r.isint && r.u.i == 2);
  pod_graph_arith(POD_G_MOD, in(7), in(-3), &r, &e);
  assert_true(r.isint && r.u.i == -2);
  pod_graph_arith(POD_G_IDIV, in(INT64_MIN), in(-1), &r, &e);
  assert_true(r.isint && r.u.i == INT64_MIN);
  /* by zero: an error, as Lua raises */
  assert_int_equal(pod_graph_arith(POD_G_IDIV, in(1), in(0), &r, &e),
                   POD_EINVAL);
  assert_string_equal(e.msg, "attempt to divide by zero");
  assert_int_equal(pod_graph_arith(POD_G_MOD, in(1), in(0), &r, &e),
                   POD_EINVAL);
  assert_string_equal(e.msg, "attempt to perform 'n%0'");
  assert_int_equal(pod_graph_arith(POD_G_FMOD, in(1), in(0), &r, &e),
                   POD_EINVAL);
  /* floats do not raise */
  assert_int_equal(pod_graph_arith(POD_G_IDIV, fl(1), in(0), &r, &e), POD_OK);
  assert_true(!r.isint && isinf(r.u.d));
  /* mixed: float; / and ^ always float */
  pod_graph_arith(POD_G_ADD, in(1), fl(0.5), &r, &e);
  assert_true(!r.isint && r.u.d == 1.5);
  pod_graph_arith(POD_G_DIV, in(4), in(2), &r, &e);
  assert_true(!r.isint && r.u.d == 2.0);
  pod_graph_arith(POD_G_POW, in(3), in(2), &r, &e);
  assert_true(!r.isint && r.u.d == 9.0);
  /* floor/ceil: integers when they fit, floats beyond */
  pod_graph_arith(POD_G_FLOOR, fl(-2.5), fl(0), &r, &e);
  assert_true(r.isint && r.u.i == -3);
  pod_graph_arith(POD_G_CEIL, fl(1e300), fl(0), &r, &e);
  assert_true(!r.isint && r.u.d == 1e300);
  /* min/max keep the chosen argument's subtype, first on ties */
  pod_graph_arith(POD_G_MIN, in(2), fl(2.0), &r, &e);
  assert_true(r.isint && r.u.i == 2);
  pod_graph_arith(POD_G_MAX, in(1), fl(1.5), &r, &e);
  assert_true(!r.isint && r.u.d == 1.5);
  /* NaN never compares less: the first stays */
  pod_graph_arith(POD_G_MIN, fl(NAN), fl(1), &r, &e);
  assert_true(isnan(r.u.d));
  /* abs of the most negative integer wraps */
  pod_graph_arith(POD_G_ABS, in(INT64_MIN), in(0), &r, &e);
  assert_true(r.isint && r.u.i == INT64_MIN);
}

/* A toy struct and function standing in for a kernel: y = 2 a + b. */
typedef struct toy {
  double a;
  int b;
  double y;
} toy;

static int toy_fn(void *blob, pod_err *e) {
  toy *t = blob;
  if (t->b > 100) return pod_err_set(e, POD_EINVAL, "b", "too big (%d)", t->b);
  t->y = 2 * t->a + t->b;
  return POD_OK;
}

static void test_blob_graph(void **state) {
  (void)state;
  double x0[2] = {1.5, 3.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(2, x0, &g, &e), POD_OK);
  int p0 = pod_graph_param(g, 0, &e), p1 = pod_graph_param(g, 1, &e);
  assert_true(p0 >= 0 && p1 >= 0);
  int unused = pod_graph_node_op(g, POD_G_SQRT, p0, -1, "", &e);
  assert_true(unused >= 0);
  toy tmpl = {0, 0, 0};
  pod_gpatch pt[2];
  memset(pt, 0, sizeof pt);
  pt[0].offset = offsetof(toy, a);
  pt[0].kind = POD_GP_DOUBLE;
  pt[0].src = p0;
  pt[0].min = 0;
  pt[0].max = 10;
  pt[0].field = "a";
  pt[1].offset = offsetof(toy, b);
  pt[1].kind = POD_GP_INT;
  pt[1].src = p1;
  pt[1].min = 0;
  pt[1].max = 1000;
  pt[1].field = "b";
  pod_gblob_spec bs = {"toy", "s.lua:3:", sizeof tmpl, &tmpl, toy_fn, pt,
                       2,     0,          0,           0,     NULL};
  int b = pod_graph_blob(g, &bs, &e);
  assert_true(b >= 0);
  assert_true(pod_graph_is_blob(g, b));
  assert_true(pod_graph_blob_writes(g, b, offsetof(toy, b), sizeof(int)));
  assert_false(pod_graph_blob_writes(g, b, offsetof(toy, y), sizeof(double)));
  int y = pod_graph_field(g, b, offsetof(toy, y), POD_GF_DOUBLE, &e);
  int bi = pod_graph_field(g, b, offsetof(toy, b), POD_GF_INT, &e);
  assert_true(y >= 0 && bi >= 0);
  assert_true(pod_graph_probe(g, y).u.d == 6.0); /* probed when added */
  assert_true(pod_graph_probe(g, bi).isint);
  int blob_src;
  size_t off;
  assert_true(pod_graph_field_src(g, y, &blob_src, &off) && blob_src == b);
  assert_true(pod_graph_blob_fn_of(g, b) == toy_fn);
  assert_int_equal(pod_graph_blob_npatches(g, b), 2);
  int outs[2] = {y, bi};
  assert_int_equal(pod_graph_finish(g, outs, 2, &e), POD_OK);
  /* sqrt is dead: params, blob, two fields live */
  assert_int_equal(pod_graph_live(g), 5);
  assert_int_equal(pod_graph_blobs(g), 1);
  /* no more nodes once finished */
  assert_true(pod_graph_param(g, 0, &e) < 0);
  pod_graph_ws *ws;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  double x[2] = {2.0, 7.0}, out[2];
  assert_int_equal(pod_graph_eval(g, ws, x, out, &e), POD_OK);
  assert_true(out[0] == 11.0 && out[1] == 7.0);
  /* per-sample errors: a patch out of range, not integral, the function's */
  x[0] = 11;
  assert_int_equal(pod_graph_eval(g, ws, x, out, &e), POD_EINVAL);
  assert_string_equal(e.msg, "s.lua:3: toy: a: must be in [0, 10] (got 11)");
  x[0] = 1;
  x[1] = 2.5;
  assert_int_equal(pod_graph_eval(g, ws, x, out, &e), POD_EINVAL);
  assert_string_equal(e.msg, "s.lua:3: toy: b: must be an integer (got 2.5)");
  x[1] = NAN;
  assert_int_equal(pod_graph_eval(g, ws, x, out, &e), POD_EINVAL);
  assert_string_equal(e.msg,
                      "s.lua:3: toy: b: must be a finite number (got nan)");
  x[1] = 101;
  assert_int_equal(pod_graph_eval(g, ws, x, out, &e), POD_EINVAL);
  assert_string_equal(e.msg, "s.lua:3: toy: b: too big (101)");
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

static void test_adder_errors(void **state) {
  (void)state;
  double x0[1] = {0.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(-1, x0, &g, &e), POD_EINVAL);
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  assert_true(pod_graph_param(g, 1, &e) < 0);
  int p = pod_graph_param(g, 0, &e);
  assert_true(pod_graph_node_op(g, POD_G_ADD, p, 99, "", &e) < 0);
  assert_true(pod_graph_node_op(g, POD_G_CONST, p, p, "", &e) < 0);
  /* an integer division by zero at the probe fails where it is added */
  int z = pod_graph_const(g, in(0), &e), one = pod_graph_const(g, in(1), &e);
  assert_true(pod_graph_node_op(g, POD_G_IDIV, one, z, "f.lua:9:", &e) < 0);
  assert_string_equal(e.msg, "f.lua:9: attempt to divide by zero");
  /* a float parameter divides by zero without error */
  assert_true(pod_graph_node_op(g, POD_G_IDIV, one, p, "", &e) >= 0);
  toy t = {0, 0, 0};
  pod_gpatch pt;
  memset(&pt, 0, sizeof pt);
  pt.offset = sizeof t; /* outside */
  pt.kind = POD_GP_DOUBLE;
  pt.src = p;
  pt.field = "x";
  pod_gblob_spec bs = {"toy", "", sizeof t, &t, NULL, &pt, 1, 0, 0, 0, NULL};
  assert_true(pod_graph_blob(g, &bs, &e) < 0);
  pt.offset = 0;
  pt.kind = POD_GP_BYTES; /* a scalar source cannot be copied as bytes */
  pt.size = 8;
  assert_true(pod_graph_blob(g, &bs, &e) < 0);
  pt.kind = POD_GP_DOUBLE;
  pt.max = -1; /* the probe value 0 is out of range: fails when added */
  assert_true(pod_graph_blob(g, &bs, &e) < 0);
  pt.max = 1;
  int b = pod_graph_blob(g, &bs, &e);
  assert_true(b >= 0);
  assert_true(pod_graph_field(g, p, 0, POD_GF_DOUBLE, &e) < 0); /* not a blob */
  assert_true(pod_graph_field(g, b, sizeof t, POD_GF_DOUBLE, &e) < 0);
  assert_true(pod_graph_node_op(g, POD_G_SQRT, b, -1, "", &e) < 0);
  int outs[1] = {b};
  assert_int_equal(pod_graph_finish(g, outs, 1, &e), POD_EINVAL); /* a struct */
  assert_int_equal(pod_graph_finish(g, outs, 0, &e), POD_EINVAL);
  outs[0] = p;
  pod_graph_ws *ws;
  double y;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  assert_int_equal(pod_graph_eval(g, ws, x0, &y, &e),
                   POD_EINVAL); /* not finished */
  assert_int_equal(pod_graph_finish(g, outs, 1, &e), POD_OK);
  assert_int_equal(pod_graph_finish(g, outs, 1, &e), POD_EINVAL);
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

/* An integer division whose divisor becomes 0 for one sample fails for
** that sample only, located. */
static void test_eval_error_located(void **state) {
  (void)state;
  double x0[1] = {3.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  int p = pod_graph_param(g, 0, &e);
  int f = pod_graph_node_op(g, POD_G_FLOOR, p, -1, "", &e);
  int one = pod_graph_const(g, in(10), &e);
  int q = pod_graph_node_op(g, POD_G_MOD, one, f, "m.lua:4:", &e);
  assert_true(q >= 0);
  assert_int_equal(pod_graph_finish(g, &q, 1, &e), POD_OK);
  pod_graph_ws *ws;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  double x = 4.5, y;
  assert_int_equal(pod_graph_eval(g, ws, &x, &y, &e), POD_OK);
  assert_true(y == 2.0);
  x = 0.25;
  assert_int_equal(pod_graph_eval(g, ws, &x, &y, &e), POD_EINVAL);
  assert_string_equal(e.msg, "m.lua:4: attempt to perform 'n%0'");
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

/* A kernel-like blob: counts its calls, writes y after the config. */
static int toy_calls;
static int toy_count_fn(void *blob, pod_err *e) {
  toy_calls++;
  return toy_fn(blob, e);
}

/* Adds toy{a = src} (out_off at y) and returns its y field node. */
static int toy_call(pod_graph *g, int src, pod_err *e) {
  toy tmpl = {0, 7, -1.0};
  pod_gpatch pt;
  memset(&pt, 0, sizeof pt);
  pt.offset = offsetof(toy, a);
  pt.kind = POD_GP_DOUBLE;
  pt.src = src;
  pt.min = -HUGE_VAL;
  pt.max = HUGE_VAL;
  pt.field = "a";
  pod_gblob_spec bs = {"toy", "h.lua:1:", sizeof tmpl,      &tmpl, toy_count_fn,
                       &pt,   1,          offsetof(toy, y), 0,     0,
                       NULL};
  int b = pod_graph_blob(g, &bs, e);
  assert_true(b >= 0);
  int y = pod_graph_field(g, b, offsetof(toy, y), POD_GF_DOUBLE, e);
  assert_true(y >= 0);
  return y;
}

/* Nodes that depend on no parameter run once, at the probe: a kernel
** call on constants is not called per sample, one on a parameter is,
** and both give what a fresh evaluation gives. */
static void test_hoisting(void **state) {
  (void)state;
  double x0[1] = {1.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(1, x0, &g, &e), POD_OK);
  int p = pod_graph_param(g, 0, &e);
  int k = pod_graph_const(g, in(3), &e);
  int kk = pod_graph_node_op(g, POD_G_MUL, k, k, "", &e); /* 9: constant */
  toy_calls = 0;
  int yc = toy_call(g, kk, &e);   /* 2 * 9 + 7 = 25, constant */
  int yp = toy_call(g, p, &e);    /* 2 p + 7 */
  assert_int_equal(toy_calls, 2); /* both at the probe */
  int s = pod_graph_node_op(g, POD_G_ADD, yc, yp, "", &e);
  int outs[2] = {s, yc};
  assert_int_equal(pod_graph_finish(g, outs, 2, &e), POD_OK);
  /* k, kk, the constant blob and its field; p, blob, field, add run */
  assert_int_equal(pod_graph_live(g), 8);
  assert_int_equal(pod_graph_hoisted(g), 4);
  pod_graph_ws *ws;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  for (int i = 0; i < 5; i++) {
    double x = 0.5 * i, y[2];
    assert_int_equal(pod_graph_eval(g, ws, &x, y, &e), POD_OK);
    assert_true(y[0] == 25.0 + (2 * x + 7) && y[1] == 25.0);
  }
  assert_int_equal(toy_calls, 2 + 5); /* the parameter's call per sample */
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

/* log10 patches: two fields from one value and one from another, each
** the log10 of its own source, per sample. */
static void test_log10_patches(void **state) {
  (void)state;
  typedef struct lg3 {
    double a, b, c;
  } lg3;
  double x0[2] = {10.0, 100.0};
  pod_graph *g;
  pod_err e;
  assert_int_equal(pod_graph_new(2, x0, &g, &e), POD_OK);
  int p0 = pod_graph_param(g, 0, &e), p1 = pod_graph_param(g, 1, &e);
  lg3 t = {0, 0, 0};
  pod_gpatch pt[3];
  memset(pt, 0, sizeof pt);
  const int src[3] = {p0, p1, p0};
  for (int i = 0; i < 3; i++) {
    pt[i].offset = i * sizeof(double);
    pt[i].kind = POD_GP_LOG10;
    pt[i].src = src[i];
    pt[i].min = 0.0;
    pt[i].min_open = 1;
    pt[i].max = HUGE_VAL;
    pt[i].field = "scale";
  }
  pod_gblob_spec bs = {"lg", "",       sizeof t, &t, NULL, pt,
                       3,    sizeof t, 0,        0,  NULL};
  int b = pod_graph_blob(g, &bs, &e);
  assert_true(b >= 0);
  int f[3];
  for (int i = 0; i < 3; i++)
    f[i] = pod_graph_field(g, b, i * sizeof(double), POD_GF_DOUBLE, &e);
  assert_int_equal(pod_graph_finish(g, f, 3, &e), POD_OK);
  pod_graph_ws *ws;
  assert_int_equal(pod_graph_ws_new(g, &ws, &e), POD_OK);
  for (int k = 0; k < 4; k++) {
    double x[2] = {0.3 + k, 7.0 * (k + 1)}, y[3];
    assert_int_equal(pod_graph_eval(g, ws, x, y, &e), POD_OK);
    assert_true(y[0] == log10(x[0]) && y[2] == log10(x[0]));
    assert_true(y[1] == log10(x[1]));
  }
  double bad[2] = {0.0, 1.0}, y[3];
  assert_int_equal(pod_graph_eval(g, ws, bad, y, &e), POD_EINVAL);
  pod_graph_ws_free(ws);
  pod_graph_free(g);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_integer_rules),
      cmocka_unit_test(test_blob_graph),
      cmocka_unit_test(test_adder_errors),
      cmocka_unit_test(test_eval_error_located),
      cmocka_unit_test(test_hoisting),
      cmocka_unit_test(test_log10_patches),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
