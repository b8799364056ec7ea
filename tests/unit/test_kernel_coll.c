/*
** test_kernel_coll.c: the collective kernel's prepared block form
** (pod_coll_kernel_block, coll_kernel.c) and what it stands on
** (pod_coll_prep_varies, pod_coll_eval_prepared, coll_prep.c), against
** the unprepared kernel: every field pod_coll_prep_varies lets vary,
** varied at once at random (and out of bounds) over every system preset
** and variants, every op, group sizes and placements, gives
** pod_coll_eval_checked's result bit for bit and its errors; the block
** form's metrics are pod_coll_kernel.fn's, it stops at a sample fn must
** take; prepare refuses what it cannot prepare; and the Monte Carlo
** kernel evaluator gives the same metrics and errors with and without
** blocks, with a metric selection and a grid point left unprepared.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "pod_coll.h"
#include "pod_mc.h"
#include "coll_fixture.h"

static const size_t VARY[] = {offsetof(pod_system, up_eff),
                              offsetof(pod_system, out_eff),
                              offsetof(pod_system, up_latency_us),
                              offsetof(pod_system, out_latency_us),
                              offsetof(pod_system, msg_overhead_us),
                              offsetof(pod_system, nvls_latency_us),
                              offsetof(pod_system, up_fill_KiB),
                              offsetof(pod_system, out_half_MB),
                              offsetof(pod_system, oversub)};
#define NVARY (sizeof VARY / sizeof VARY[0])

/* A random value of the field at `off`: mostly in its bounds, sometimes
** at or past an end. */
static double draw(size_t off, uint64_t *seed) {
  double u = coll_fixture_unit(seed);
  if (coll_fixture_unit(seed) < 0.03) return u < 0.5 ? -0.5 : 3e6; /* out */
  if (off == offsetof(pod_system, up_eff) ||
      off == offsetof(pod_system, out_eff))
    return u < 0.02 ? 1.0 : 0.02 + 0.98 * u;
  if (off == offsetof(pod_system, oversub)) return 1.0 + 7.0 * u;
  return u < 0.02 ? 0.0 : 40.0 * u;
}

static void set_field(pod_system *s, size_t off, double v) {
  memcpy((char *)s + off, &v, sizeof v);
}

/* The prepared result on sys against pod_coll_eval's (the unchecked
** entry: the varied fields are checked there); 1 when both succeed. */
static int compare(const pod_coll_prep *p, const pod_system *s, pod_coll_op op,
                   int n, int r, double S) {
  pod_coll_args a = {n, r, S, POD_ALGO_AUTO};
  pod_coll_result r1, r2;
  pod_err e1, e2;
  pod_err_clear(&e1);
  pod_err_clear(&e2);
  memset(&r1, 0, sizeof r1);
  memset(&r2, 0, sizeof r2);
  int rc1 = pod_coll_eval(s, op, &a, &r1, &e1);
  if (rc1 != POD_OK && strcmp(e1.field, "bytes") != 0 &&
      strcmp(e1.field, "algo") != 0)
    return 0; /* a varied system field out of bounds: the kernel's fn */
  int rc2 = pod_coll_eval_prepared(p, s, S, &r2, &e2);
  assert_int_equal(rc2, rc1);
  if (rc1 != POD_OK) {
    assert_string_equal(e2.field, e1.field);
    assert_string_equal(e2.msg, e1.msg);
    return 0;
  }
  assert_memory_equal(&r2.time_s, &r1.time_s, sizeof r1.time_s);
  assert_memory_equal(&r2.algbw_GBps, &r1.algbw_GBps, sizeof r1.algbw_GBps);
  assert_memory_equal(&r2.busbw_GBps, &r1.busbw_GBps, sizeof r1.busbw_GBps);
  assert_int_equal(r2.algo, r1.algo);
  return 1;
}

static void test_varies_matches_eval(void **state) {
  (void)state;
  static pod_system sys[256];
  int nsys = coll_fixture_systems(sys, 256);
  const int ns[] = {1, 2, 8, 16, 64, 72, 144, 1024};
  const int rs[] = {0, 1, 4, 8, 36};
  const double sizes[] = {0.0, 4096.0, MIB, 1.5e8, 17179869184.0};
  uint64_t seed = 0x2545f4914f6cdd1dull;
  long same = 0, lat = 0, eff_only = 0;
  for (int i = 0; i < nsys; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++)
          for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
            pod_coll_prep p;
            if (pod_coll_prepare(&sys[i], (pod_coll_op)op, ns[a], rs[b],
                                 sizes[c], &p, NULL) != POD_OK)
              continue;
            /* never the fields the preparation reads */
            assert_false(
                pod_coll_prep_varies(&p, offsetof(pod_system, domain_gpus)));
            assert_false(
                pod_coll_prep_varies(&p, offsetof(pod_system, up_GBps)));
            assert_false(pod_coll_prep_varies(&p, offsetof(pod_system, nvls)));
            for (const pod_field *fl = pod_hw_system_fields; fl->name; fl++) {
              int listed = 0; /* VARY is the contract: no other field */
              for (size_t f = 0; f < NVARY; f++)
                listed |= fl->offset == VARY[f];
              if (!listed) assert_false(pod_coll_prep_varies(&p, fl->offset));
            }
            int any = pod_coll_prep_any_bytes(&p);
            lat += any;
            eff_only += !any;
            for (int k = 0; k < 4; k++) {
              pod_system s = sys[i];
              for (size_t f = 0; f < NVARY; f++) {
                int v = pod_coll_prep_varies(&p, VARY[f]);
                assert_int_equal(v, f < 2 || any);
                if (v) set_field(&s, VARY[f], draw(VARY[f], &seed));
              }
              double S = any && k == 3 ? sizes[(c + 1) % 5] * 1.7 : sizes[c];
              same += compare(&p, &s, (pod_coll_op)op, ns[a], rs[b], S);
            }
          }
  assert_true(same > 20000);
  assert_true(lat > 1000 && eff_only > 1000);
  pod_coll_prep none = {0};
  assert_false(pod_coll_prep_varies(&none, offsetof(pod_system, up_eff)));
  assert_false(pod_coll_prep_varies(NULL, offsetof(pod_system, up_eff)));
  pod_coll_result res;
  pod_err e;
  assert_int_equal(pod_coll_eval_prepared(&none, &sys[0], MIB, &res, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "prep");
  assert_int_equal(pod_coll_eval_prepared(&none, &sys[0], MIB, NULL, &e),
                   POD_EINVAL);
  assert_string_equal(e.field, "out");
}

/* the kernel_a2a study's config and binds */
static pod_coll_cfg a2a_cfg(void) {
  pod_coll_cfg c;
  memset(&c, 0, sizeof c);
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &c.system), POD_OK);
  c.op = POD_COLL_ALL_TO_ALL;
  c.args = (pod_coll_args){64, 0, 1.0, POD_ALGO_AUTO};
  return c;
}

static const pod_bind A2A_BINDS[] = {
    {offsetof(pod_coll_cfg, system.up_eff), POD_BIND_DOUBLE},
    {offsetof(pod_coll_cfg, system.out_eff), POD_BIND_DOUBLE},
    {offsetof(pod_coll_cfg, system.up_latency_us), POD_BIND_DOUBLE},
    {offsetof(pod_coll_cfg, args.bytes), POD_BIND_DOUBLE}};

/* rows of the four binds, one in 16 with a value out of bounds */
static void a2a_rows(double *x, int n, uint64_t *seed, int bad) {
  for (int j = 0; j < n; j++) {
    double *r = x + 4 * j;
    r[0] = 0.7 + 0.2 * coll_fixture_unit(seed);
    r[1] = 0.8 + 0.16 * coll_fixture_unit(seed);
    r[2] = 1.0 + 10.0 * coll_fixture_unit(seed);
    r[3] = MIB * (1.0 + 4096.0 * coll_fixture_unit(seed));
    if (bad && j % 16 == 5) r[(j / 16) % 4] = (j / 16) % 4 ? -1.0 : 1.5;
  }
}

static void test_block_matches_fn(void **state) {
  (void)state;
  const pod_kernel_block *kb = &pod_coll_kernel_block;
  assert_ptr_equal(kb->kernel, &pod_coll_kernel);
  pod_coll_cfg base = a2a_cfg();
  void *prep = malloc(kb->prep_size);
  assert_non_null(prep);
  assert_int_equal(kb->prepare(&base, A2A_BINDS, 4, prep), POD_OK);
  enum { N = 256 };
  static double x[4 * N], y[3 * N];
  uint64_t seed = 7;
  a2a_rows(x, N, &seed, 1);
  pod_coll_cfg work = base, ref = base;
  int j = 0, stops = 0;
  while (j < N) {
    int done = kb->eval(prep, &work, N - j, x + 4 * j, y + 3 * j);
    for (int k = j; k < j + done; k++) {
      for (int i = 0; i < 4; i++)
        memcpy((char *)&ref + A2A_BINDS[i].offset, &x[4 * k + i],
               sizeof(double));
      double m[3];
      assert_int_equal(pod_coll_kernel.fn(&ref, m, NULL), POD_OK);
      assert_memory_equal(&y[3 * k], m, sizeof m);
    }
    j += done;
    if (j < N) { /* a sample left to fn: fn refuses it */
      for (int i = 0; i < 4; i++)
        memcpy((char *)&ref + A2A_BINDS[i].offset, &x[4 * j + i],
               sizeof(double));
      double m[3];
      assert_int_not_equal(pod_coll_kernel.fn(&ref, m, NULL), POD_OK);
      assert_int_equal(j % 16, 5);
      stops++;
      j++;
    }
  }
  assert_int_equal(stops, N / 16);
  free(prep);
}

/* The block form against fn over the sweep of test_varies_matches_eval:
** every op and placement, every field the prep lets vary bound (and the
** bytes where it times any), values drawn as there (some out of bounds):
** each sample the block form takes gives fn's metrics bit for bit, and
** fn refuses each one it leaves.  The candidates fixed at prepare time
** (the block form's per-op paths) are counted per op. */
static void test_block_every_op(void **state) {
  (void)state;
  const pod_kernel_block *kb = &pod_coll_kernel_block;
  static pod_system sys[256];
  int nsys = coll_fixture_systems(sys, 256);
  const int ns[] = {1, 2, 16, 64, 144, 1024};
  const int rs[] = {0, 4, 8};
  const double sizes[] = {4096.0, 1.5e8};
  void *prep = malloc(kb->prep_size);
  assert_non_null(prep);
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  long taken = 0, left = 0, fixed[POD_COLL_NOPS] = {0};
  enum { N = 24 };
  double x[(NVARY + 1) * N], y[3 * N], m[3];
  for (int i = 0; i < nsys; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++)
          for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
            pod_coll_cfg base;
            memset(&base, 0, sizeof base);
            base.system = sys[i];
            base.op = (pod_coll_op)op;
            base.args = (pod_coll_args){ns[a], rs[b], sizes[c], POD_ALGO_AUTO};
            pod_coll_prep p;
            if (pod_coll_prepare(&sys[i], (pod_coll_op)op, ns[a], rs[b],
                                 sizes[c], &p, NULL) != POD_OK)
              continue;
            pod_bind bd[NVARY + 1];
            int nb = 0;
            for (size_t f = 0; f < NVARY; f++)
              if (pod_coll_prep_varies(&p, VARY[f]))
                bd[nb++] = (pod_bind){offsetof(pod_coll_cfg, system) + VARY[f],
                                      POD_BIND_DOUBLE};
            if (pod_coll_prep_any_bytes(&p))
              bd[nb++] = (pod_bind){offsetof(pod_coll_cfg, args.bytes),
                                    POD_BIND_DOUBLE};
            assert_int_equal(kb->prepare(&base, bd, nb, prep), POD_OK);
            for (int j = 0; j < N; j++)
              for (int k = 0; k < nb; k++)
                x[j * nb + k] =
                    bd[k].offset == offsetof(pod_coll_cfg, args.bytes)
                        ? sizes[(c + (size_t)j) % 2] * (1.0 + (double)(j % 3))
                        : draw(bd[k].offset - offsetof(pod_coll_cfg, system),
                               &seed);
            pod_coll_cfg work = base, ref = base;
            int j = 0;
            while (j < N) {
              int done = kb->eval(prep, &work, N - j, x + j * nb, y + 3 * j);
              for (int k = j; k < j + done + (j + done < N); k++) {
                for (int v = 0; v < nb; v++)
                  memcpy((char *)&ref + bd[v].offset, &x[k * nb + v],
                         sizeof(double));
                int rc = pod_coll_kernel.fn(&ref, m, NULL);
                if (k == j + done) { /* the one left: fn refuses it */
                  assert_int_not_equal(rc, POD_OK);
                  left++;
                } else {
                  assert_int_equal(rc, POD_OK);
                  assert_memory_equal(&y[3 * k], m, sizeof m);
                  taken++;
                  fixed[op] += p.fixed >= 0;
                }
              }
              j += done + 1;
            }
          }
  assert_true(taken > 50000 && left > 1000);
  for (int op = 0; op < POD_COLL_NOPS; op++) assert_true(fixed[op] > 1000);
  free(prep);
}

/* A field bound twice takes the later value, in the block form as in
** fn (four binds and five: a step of four and the rest). */
static void test_block_repeated_bind(void **state) {
  (void)state;
  const pod_kernel_block *kb = &pod_coll_kernel_block;
  const size_t ue = offsetof(pod_coll_cfg, system.up_eff);
  const size_t oe = offsetof(pod_coll_cfg, system.out_eff);
  const size_t by = offsetof(pod_coll_cfg, args.bytes);
  const pod_bind b4[] = {{ue, POD_BIND_DOUBLE},
                         {oe, POD_BIND_DOUBLE},
                         {ue, POD_BIND_DOUBLE},
                         {by, POD_BIND_DOUBLE}};
  const pod_bind b5[] = {{oe, POD_BIND_DOUBLE},
                         {ue, POD_BIND_DOUBLE},
                         {by, POD_BIND_DOUBLE},
                         {oe, POD_BIND_DOUBLE},
                         {oe, POD_BIND_DOUBLE}};
  void *prep = malloc(kb->prep_size);
  assert_non_null(prep);
  for (int v = 0; v < 2; v++) {
    const pod_bind *b = v ? b5 : b4;
    int nb = v ? 5 : 4;
    pod_coll_cfg base = a2a_cfg(), work = base, ref = base;
    assert_int_equal(kb->prepare(&base, b, nb, prep), POD_OK);
    enum { N = 8 };
    double x[5 * N], y[3 * N], m[3];
    uint64_t seed = 3 + (uint64_t)v;
    for (int j = 0; j < N * nb; j++)
      x[j] = b[j % nb].offset == by
                 ? MIB * (1.0 + 64.0 * coll_fixture_unit(&seed))
                 : 0.5 + 0.5 * coll_fixture_unit(&seed);
    assert_int_equal(kb->eval(prep, &work, N, x, y), N);
    for (int j = 0; j < N; j++) {
      for (int i = 0; i < nb; i++)
        memcpy((char *)&ref + b[i].offset, &x[j * nb + i], sizeof(double));
      assert_int_equal(pod_coll_kernel.fn(&ref, m, NULL), POD_OK);
      assert_memory_equal(&y[3 * j], m, sizeof m);
    }
  }
  free(prep);
}

static void test_block_refuses(void **state) {
  (void)state;
  const pod_kernel_block *kb = &pod_coll_kernel_block;
  void *prep = malloc(kb->prep_size);
  assert_non_null(prep);
  pod_coll_cfg c = a2a_cfg();
  pod_bind b[12];
  /* an int field, a field the preparation reads, too many binds */
  b[0] = (pod_bind){offsetof(pod_coll_cfg, args.ranks), POD_BIND_INT};
  assert_int_equal(kb->prepare(&c, b, 1, prep), POD_ENOTSUP);
  b[0] = (pod_bind){offsetof(pod_coll_cfg, system.up_GBps), POD_BIND_DOUBLE};
  assert_int_equal(kb->prepare(&c, b, 1, prep), POD_ENOTSUP);
  b[0] =
      (pod_bind){offsetof(pod_coll_cfg, system.domain_gpus), POD_BIND_DOUBLE};
  assert_int_equal(kb->prepare(&c, b, 1, prep), POD_ENOTSUP);
  for (int i = 0; i < 12; i++)
    b[i] = (pod_bind){offsetof(pod_coll_cfg, system.up_eff), POD_BIND_DOUBLE};
  assert_int_equal(kb->prepare(&c, b, 12, prep), POD_ENOTSUP);
  assert_int_equal(kb->prepare(&c, b, 2, prep), POD_OK); /* repeats are fine */
  /* an algorithm named, an invalid base system or arguments */
  c.args.algo = POD_ALGO_DIRECT;
  assert_int_equal(kb->prepare(&c, A2A_BINDS, 4, prep), POD_ENOTSUP);
  c = a2a_cfg();
  c.system.up_GBps = -1.0;
  assert_int_equal(kb->prepare(&c, A2A_BINDS, 4, prep), POD_ENOTSUP);
  c = a2a_cfg();
  c.args.ranks = 0;
  assert_int_equal(kb->prepare(&c, A2A_BINDS, 4, prep), POD_ENOTSUP);
  /* an all-reduce across domains: NCCL's ratings choose by the bytes and
  ** read the latencies, so only the efficiencies may vary */
  c = a2a_cfg();
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  c.op = POD_COLL_ALL_REDUCE;
  c.args.ranks = 64;
  assert_int_equal(kb->prepare(&c, A2A_BINDS, 4, prep), POD_ENOTSUP);
  assert_int_equal(kb->prepare(&c, A2A_BINDS + 2, 1, prep), POD_ENOTSUP);
  assert_int_equal(kb->prepare(&c, A2A_BINDS, 2, prep), POD_OK);
  free(prep);
}

/* The evaluator over the kernel: grid point 0 prepared, grid point 1 not
** (an algorithm named); eval_block's metrics and errors are eval's. */
static void test_evaluator_blocks(void **state) {
  (void)state;
  pod_coll_cfg base[2] = {a2a_cfg(), a2a_cfg()};
  base[1].args.algo = POD_ALGO_DIRECT;
  const int sel[2] = {2, 0};
  for (int with_sel = 0; with_sel < 2; with_sel++) {
    pod_mc_evaluator ev;
    assert_int_equal(pod_mc_kernel_evaluator_select(
                         &pod_coll_kernel, base, 2, A2A_BINDS, 4,
                         with_sel ? sel : NULL, with_sel ? 2 : 0, &ev),
                     POD_OK);
    assert_non_null(ev.eval_block);
    int M = with_sel ? 2 : 3;
    void *w = ev.worker_new(ev.ud, NULL);
    assert_non_null(w);
    enum { N = 64 };
    static double x[4 * N], yb[3 * N], y1[3];
    uint64_t seed = 99 + (uint64_t)with_sel;
    for (int g = 0; g < 2; g++)
      for (int bad = 0; bad < 2; bad++) {
        a2a_rows(x, N, &seed, bad);
        int nok = -1;
        pod_err eb, e1;
        pod_err_clear(&eb);
        int rc = ev.eval_block(ev.ud, w, g, N, x, yb, &nok, &eb);
        int j = 0;
        for (; j < N; j++) {
          pod_err_clear(&e1);
          int rc1 = ev.eval(ev.ud, w, g, x + 4 * j, y1, &e1);
          if (rc1 != POD_OK) {
            assert_int_equal(rc, rc1);
            assert_int_equal(nok, j);
            assert_string_equal(eb.field, e1.field);
            assert_string_equal(eb.msg, e1.msg);
            break;
          }
          assert_memory_equal(yb + M * j, y1, sizeof(double) * (size_t)M);
        }
        if (!bad) assert_int_equal(rc, POD_OK);
        if (!bad) assert_int_equal(nok, N);
        if (bad) assert_int_equal(j, 5);
      }
    ev.worker_free(ev.ud, w);
    pod_mc_kernel_evaluator_free(&ev);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_varies_matches_eval),
      cmocka_unit_test(test_block_matches_fn),
      cmocka_unit_test(test_block_every_op),
      cmocka_unit_test(test_block_repeated_bind),
      cmocka_unit_test(test_block_refuses),
      cmocka_unit_test(test_evaluator_blocks),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
