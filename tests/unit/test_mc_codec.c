/*
** test_mc_codec.c: chunk results and merge states as bytes (pod_mc.h,
** serialisation): every accumulator round-trips so that decoded chunks
** merge to the same bits as the originals, in every storage mode; corrupt,
** truncated and mismatched records are refused.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mc_int.h" /* the plan's parameter ranges (check_xrange) */
#include "pod_mc.h"

/* y0 = x0 + x1 + 10 g, y1 = x0 * x1, y2 = exp(x0) - 1.5 (both signs). */
static int eval3(void *ud, void *w, int g, const double *x, double *y,
                 pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  y[0] = x[0] + x[1] + 10.0 * g;
  y[1] = x[0] * x[1];
  y[2] = exp(x[0]) - 1.5;
  return POD_OK;
}

/* Fails at x0 > 0.999 (a few samples in a few chunks). */
static int eval_fail(void *ud, void *w, int g, const double *x, double *y,
                     pod_err *err) {
  if (x[0] > 0.999) return pod_err_set(err, POD_EINVAL, "x", "too big");
  return eval3(ud, w, g, x, y, err);
}

/* eval3 over a block: the plan's block path (record_block) */
static int eval3_block(void *ud, void *w, int g, int n, const double *x,
                       double *y, int *nok, pod_err *err) {
  for (int j = 0; j < n; j++) eval3(ud, w, g, x + 2 * j, y + 3 * j, err);
  *nok = n;
  return POD_OK;
}

static const char *const pn[] = {"a", "b"};
static const char *const mn[] = {"sum", "prod", "expm"};
static pod_dist dists[2];

static void spec(pod_mc_spec *s) {
  pod_mc_spec_init(s);
  dists[0] = pod_dist_uniform(0, 1);
  dists[1] = pod_dist_normal(2, 0.5);
  s->nparams = 2;
  s->param_names = pn;
  s->dists = dists;
  s->nmetrics = 3;
  s->metric_names = mn;
  s->grid = 3;
  s->samples = 2000;
  s->chunk_size = 250;
  s->seed = 7;
  s->eval.eval = eval3;
}

static pod_mc_plan *plan(const pod_mc_spec *s) {
  pod_mc_plan *pl;
  pod_err e;
  if (pod_mc_plan_new(s, &pl, &e)) fail_msg("plan: %s: %s", e.field, e.msg);
  return pl;
}

/* Bitwise equality of two finished results (NaN == NaN by bits). */
static void assert_same(const pod_mc_results *a, const pod_mc_results *b) {
  int P = pod_mc_results_nparams(a), M = pod_mc_results_nmetrics(a);
  int G = pod_mc_results_grid(a);
  assert_int_equal(pod_mc_results_complete(a), pod_mc_results_complete(b));
  assert_int_equal(pod_mc_results_stopped(a), pod_mc_results_stopped(b));
  assert_int_equal(pod_mc_results_chunks_done(a),
                   pod_mc_results_chunks_done(b));
  assert_int_equal(pod_mc_results_samples_done(a),
                   pod_mc_results_samples_done(b));
  assert_int_equal(pod_mc_results_spearman_partial(a),
                   pod_mc_results_spearman_partial(b));
  assert_int_equal(pod_mc_results_samples_partial(a),
                   pod_mc_results_samples_partial(b));
  for (int g = 0; g < G; g++) {
    for (int m = 0; m < M; m++) {
      pod_mc_summary sa, sb;
      pod_mc_results_summary(a, m, g, &sa);
      pod_mc_results_summary(b, m, g, &sb);
      assert_memory_equal(&sa, &sb, sizeof sa);
      const pod_hist *ha = pod_mc_results_hist(a, m, g),
                     *hb = pod_mc_results_hist(b, m, g);
      assert_true((ha == NULL) == (hb == NULL));
      if (ha) {
        assert_int_equal(ha->nbins, hb->nbins);
        assert_memory_equal(&ha->lo, &hb->lo, sizeof ha->lo);
        assert_memory_equal(&ha->hi, &hb->hi, sizeof ha->hi);
        assert_memory_equal(ha->counts, hb->counts,
                            sizeof(int64_t) * (size_t)ha->nbins);
        assert_int_equal(ha->under, hb->under);
        assert_int_equal(ha->over, hb->over);
      }
      for (int p = 0; p < P; p++) {
        pod_mc_sens_value va, vb;
        pod_mc_results_sensitivity(a, g, p, m, &va);
        pod_mc_results_sensitivity(b, g, p, m, &vb);
        assert_memory_equal(&va, &vb, sizeof va);
      }
    }
    int64_t rows = pod_mc_results_rows(a, g);
    assert_int_equal(rows, pod_mc_results_rows(b, g));
    for (int m = 0; m < M && rows; m++)
      assert_memory_equal(pod_mc_results_metric_column(a, g, m),
                          pod_mc_results_metric_column(b, g, m),
                          sizeof(double) * (size_t)rows);
    for (int p = 0; p < P && rows; p++) {
      const double *xa = pod_mc_results_param_column(a, g, p);
      const double *xb = pod_mc_results_param_column(b, g, p);
      assert_true((xa == NULL) == (xb == NULL));
      if (xa) assert_memory_equal(xa, xb, sizeof(double) * (size_t)rows);
    }
  }
}

/* The plan's parameter ranges (mc_int.h: xlo, xhi, the bounds its
** Spearman ranking takes) are the least and greatest of the merged stored
** rows of each column (+inf, -inf with none). */
static void check_xrange(const pod_mc_plan *pl) {
  for (int g = 0; g < pl->G && pl->store_x; g++)
    for (int p = 0; p < pl->P; p++) {
      double lo = INFINITY, hi = -INFINITY;
      const double *x = pl->xcol[g * pl->P + p];
      for (int64_t j = 0; x && j < pl->rows[g]; j++) {
        lo = x[j] < lo ? x[j] : lo;
        hi = x[j] > hi ? x[j] : hi;
      }
      assert_memory_equal(&pl->xlo[g * pl->P + p], &lo, sizeof lo);
      assert_memory_equal(&pl->xhi[g * pl->P + p], &hi, sizeof hi);
    }
}

/* Every chunk runs on a separate "remote" plan (as another process
** would), goes through bytes, and merges into `local`; returns its results
** (NULL when a merge failed, with err). */
static pod_mc_results *run_via_bytes(const pod_mc_spec *s, size_t *bytes,
                                     pod_err *err) {
  pod_mc_plan *remote = plan(s), *local = plan(s);
  assert_true(pod_mc_plan_fingerprint(remote) ==
              pod_mc_plan_fingerprint(local));
  pod_mc_results *r = NULL;
  int rc = POD_OK;
  *bytes = 0;
  for (int64_t k = 0;
       k < pod_mc_plan_chunks(remote) && !pod_mc_should_stop(local); k++) {
    pod_mc_chunk *c, *d;
    pod_mc_chunk_run(remote, k, NULL, &c);
    assert_non_null(c);
    unsigned char *buf;
    size_t len;
    assert_int_equal(pod_mc_chunk_encode(remote, c, &buf, &len, NULL), POD_OK);
    pod_mc_chunk_free(c);
    *bytes += len;
    assert_int_equal(pod_mc_chunk_decode(local, buf, len, &d, err), POD_OK);
    /* canonical: the decoded chunk encodes to the same bytes, so every
    ** accumulator field came through */
    unsigned char *again;
    size_t n2;
    assert_int_equal(pod_mc_chunk_encode(local, d, &again, &n2, NULL), POD_OK);
    assert_int_equal(n2, len);
    assert_memory_equal(again, buf, len);
    free(again);
    free(buf);
    if ((rc = pod_mc_merge(local, d, err))) break;
  }
  if (!rc) check_xrange(local); /* decoded chunks: from their rows */
  if (!rc) assert_int_equal(pod_mc_finish(local, &r, err), POD_OK);
  pod_mc_plan_free(remote);
  pod_mc_plan_free(local);
  return r;
}

static void check_round_trip(const pod_mc_spec *s) {
  pod_mc_plan *pl = plan(s);
  pod_mc_results *a, *b;
  pod_err e;
  /* chunks merged as they ran: the ranges the chunks kept, per sample and
  ** (when eval3 is the evaluator) through the block path */
  for (int blk = 0; blk < 2; blk++) {
    pod_mc_spec sb = *s;
    if (blk && s->eval.eval != eval3) break;
    if (blk) sb.eval.eval_block = eval3_block;
    pod_mc_plan *direct = plan(&sb);
    for (int64_t k = 0;
         k < pod_mc_plan_chunks(direct) && !pod_mc_should_stop(direct); k++) {
      pod_mc_chunk *c;
      pod_mc_chunk_run(direct, k, NULL, &c);
      assert_non_null(c);
      if (pod_mc_merge(direct, c, &e)) break;
    }
    check_xrange(direct);
    pod_mc_plan_free(direct);
  }
  assert_int_equal(pod_mc_run_serial(pl, &a, &e), POD_OK);
  pod_mc_plan_free(pl);
  size_t bytes;
  b = run_via_bytes(s, &bytes, &e);
  assert_non_null(b);
  assert_true(bytes > 0);
  assert_same(a, b);
  pod_mc_results_free(a);
  pod_mc_results_free(b);
}

/* Exact quantiles, every row and parameter stored, Spearman. */
static void test_exact_keep(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.keep_samples = 1;
  check_round_trip(&s);
}

/* Sketches (the budget holds only a prefix of rows): sketch buckets of
** both signs and zero, partial stored rows. */
static void test_sketch(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.keep_samples = 1;
  s.max_samples_mb = 0.05; /* 50 kB: a few chunks of rows */
  pod_mc_plan *pl = plan(&s);
  assert_false(pod_mc_plan_exact(pl));
  pod_mc_plan_free(pl);
  check_round_trip(&s);
  s.keep_samples = 0;
  s.sensitivity = POD_MC_SENS_NONE;
  check_round_trip(&s); /* no rows at all */
}

/* Parameters whose least or greatest value is a zero of either sign,
** mostly after a nonzero first row: the ranges keep the first zero in row
** order, per sample and through the block path (record_block's four-way
** ranges take such a column again in order), as check_xrange scans them,
** over seeds that put the first zero in every lane. */
static void test_signed_zero_ranges(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.keep_samples = 1;
  static const double v0[] = {3.0, 0.0, -0.0}, v1[] = {-5.0, -0.0, 0.0};
  static const double w[] = {2.0, 1.0, 1.0};
  pod_dist d[2];
  assert_int_equal(pod_dist_discrete(v0, w, 3, &d[0], NULL), POD_OK);
  assert_int_equal(pod_dist_discrete(v1, w, 3, &d[1], NULL), POD_OK);
  s.dists = d;
  for (s.seed = 1; s.seed <= 8; s.seed++) check_round_trip(&s);
  pod_dist_free(&d[0]);
  pod_dist_free(&d[1]);
}

/* Sobol sums and moments of f(A), f(B), quasi- and pseudo-random. */
static void test_sobol(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.sensitivity = POD_MC_SENS_SOBOL;
  check_round_trip(&s);
  s.chunk_size = 7; /* saved Sobol states exceed the budget: pseudo-random */
  s.samples = 300;
  check_round_trip(&s);
  s.max_samples_mb = 0.01;
  check_round_trip(&s);
}

/* The stopping rule sees decoded chunks as it sees the originals. */
static void test_stopping(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.samples = 100000;
  s.chunk_size = 500;
  s.stop_metric = 0;
  s.stop_rel_ci95 = 0.01;
  s.stop_min_samples = 1000;
  check_round_trip(&s);
}

/* A failed chunk carries its error through the bytes. */
static void test_failed_chunk(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.eval.eval = eval_fail;
  pod_mc_plan *pl = plan(&s);
  pod_mc_results *a;
  pod_err ea, eb;
  assert_int_not_equal(pod_mc_run_serial(pl, &a, &ea), POD_OK);
  pod_mc_plan_free(pl);
  size_t bytes;
  assert_null(run_via_bytes(&s, &bytes, &eb));
  assert_int_equal(ea.code, eb.code);
  assert_string_equal(ea.field, eb.field);
  assert_string_equal(ea.msg, eb.msg);
  assert_non_null(strstr(eb.msg, "too big (grid"));
}

/* The merge state round-trips: a plan that decodes it finishes to the
** same results (partially merged too). */
static void test_state(void **st) {
  (void)st;
  for (int mode = 0; mode < 3; mode++) {
    pod_mc_spec s;
    spec(&s);
    s.keep_samples = 1;
    if (mode == 1) s.max_samples_mb = 0.05;
    if (mode == 2) s.sensitivity = POD_MC_SENS_SOBOL;
    pod_mc_plan *a = plan(&s), *b = plan(&s);
    int64_t stop = mode == 0 ? pod_mc_plan_chunks(a) : 11; /* partial */
    for (int64_t k = 0; k < stop; k++) {
      pod_mc_chunk *c;
      pod_mc_chunk_run(a, k, NULL, &c);
      assert_int_equal(pod_mc_merge(a, c, NULL), POD_OK);
    }
    unsigned char *buf;
    size_t len;
    assert_int_equal(pod_mc_state_encode(a, &buf, &len, NULL), POD_OK);
    pod_err e;
    assert_int_equal(pod_mc_state_decode(b, buf, len, &e), POD_OK);
    /* only into an empty plan */
    assert_int_equal(pod_mc_state_decode(b, buf, len, &e), POD_EINVAL);
    free(buf);
    assert_int_equal(pod_mc_chunks_merged(b), stop);
    check_xrange(a); /* the parameter ranges: of the decoded rows too */
    check_xrange(b);
    pod_mc_results *ra, *rb;
    assert_int_equal(pod_mc_finish(a, &ra, NULL), POD_OK);
    assert_int_equal(pod_mc_finish(b, &rb, NULL), POD_OK);
    assert_same(ra, rb);
    assert_int_equal(pod_mc_results_complete(rb), mode == 0);
    /* a finished plan has no state to encode */
    assert_int_equal(pod_mc_state_encode(a, &buf, &len, NULL), POD_EINVAL);
    pod_mc_results_free(ra);
    pod_mc_results_free(rb);
    pod_mc_plan_free(a);
    pod_mc_plan_free(b);
  }
}

/* One encoded chunk of a sketch-mode Sobol plan (every section present). */
static unsigned char *one_chunk(pod_mc_plan *pl, int64_t k, size_t *len) {
  pod_mc_chunk *c;
  pod_mc_chunk_run(pl, k, NULL, &c);
  unsigned char *buf;
  assert_int_equal(pod_mc_chunk_encode(pl, c, &buf, len, NULL), POD_OK);
  pod_mc_chunk_free(c);
  return buf;
}

/* Little-endian whatever the host; the header as documented. */
static void test_layout(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.chunk_size = 5; /* 1200 chunks */
  pod_mc_plan *pl = plan(&s);
  size_t len;
  unsigned char *buf = one_chunk(pl, 258, &len);
  assert_memory_equal(buf, "PODM", 4);
  assert_int_equal(buf[4] | buf[5] << 8, POD_MC_CODEC_VERSION);
  assert_int_equal(buf[6], 1);
  uint64_t fp = 0, payload = 0;
  for (int i = 0; i < 8; i++) {
    fp |= (uint64_t)buf[8 + i] << (8 * i);
    payload |= (uint64_t)buf[16 + i] << (8 * i);
  }
  assert_true(fp == pod_mc_plan_fingerprint(pl));
  assert_int_equal(payload, len - 28);
  /* k = 258 = 0x102 at offset 24 */
  assert_int_equal(buf[24], 0x02);
  assert_int_equal(buf[25], 0x01);
  for (int i = 26; i < 32; i++) assert_int_equal(buf[i], 0);
  uint32_t crc = (uint32_t)buf[len - 4] | (uint32_t)buf[len - 3] << 8 |
                 (uint32_t)buf[len - 2] << 16 | (uint32_t)buf[len - 1] << 24;
  assert_int_equal(crc, pod_mc_crc32(buf, len - 4));
  assert_int_equal(pod_mc_crc32("123456789", 9), 0xCBF43926u); /* check value */
  free(buf);
  pod_mc_plan_free(pl);
}

/* Every flipped byte and every truncation is refused; so are records of
** another plan, another version and another kind. */
static void test_refused(void **st) {
  (void)st;
  pod_mc_spec s;
  spec(&s);
  s.samples = 40;
  s.chunk_size = 4;
  s.max_samples_mb = 0.0005;
  s.sensitivity = POD_MC_SENS_SOBOL;
  pod_mc_plan *pl = plan(&s);
  assert_false(pod_mc_plan_exact(pl));
  size_t len;
  unsigned char *buf = one_chunk(pl, 0, &len);
  pod_mc_chunk *c;
  pod_err e;
  assert_int_equal(pod_mc_chunk_decode(pl, buf, len, &c, &e), POD_OK);
  pod_mc_chunk_free(c);
  for (size_t i = 0; i < len; i++) {
    buf[i] ^= 0x10;
    assert_int_equal(pod_mc_chunk_decode(pl, buf, len, &c, &e), POD_EINVAL);
    assert_null(c);
    buf[i] ^= 0x10;
  }
  for (size_t n = 0; n < len; n++)
    assert_int_equal(pod_mc_chunk_decode(pl, buf, n, &c, &e), POD_EINVAL);
  /* the next format version, CRC recomputed */
  buf[4] = POD_MC_CODEC_VERSION + 1;
  uint32_t crc = pod_mc_crc32(buf, len - 4);
  for (int i = 0; i < 4; i++)
    buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
  assert_int_equal(pod_mc_chunk_decode(pl, buf, len, &c, &e), POD_EINVAL);
  char want[32];
  snprintf(want, sizeof want, "format version %d", POD_MC_CODEC_VERSION + 1);
  assert_non_null(strstr(e.msg, want));
  buf[4] = POD_MC_CODEC_VERSION;
  /* the reserved header byte set, CRC recomputed: one encoding per record
  ** (fuzz_codec found it accepted, then re-encoded as 0) */
  buf[7] = 0x66;
  crc = pod_mc_crc32(buf, len - 4);
  for (int i = 0; i < 4; i++)
    buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
  assert_int_equal(pod_mc_chunk_decode(pl, buf, len, &c, &e), POD_EINVAL);
  assert_non_null(strstr(e.msg, "reserved header byte"));
  buf[7] = 0;
  crc = pod_mc_crc32(buf, len - 4);
  for (int i = 0; i < 4; i++)
    buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
  /* another seed: another plan */
  pod_mc_spec s2 = s;
  s2.seed = 8;
  pod_mc_plan *other = plan(&s2);
  assert_int_equal(pod_mc_chunk_decode(other, buf, len, &c, &e), POD_EINVAL);
  assert_non_null(strstr(e.msg, "another study"));
  /* a chunk is not a state */
  assert_int_equal(pod_mc_state_decode(pl, buf, len, &e), POD_EINVAL);
  assert_non_null(strstr(e.msg, "another kind"));
  assert_int_equal(pod_mc_chunks_merged(pl), 0);
  free(buf);
  pod_mc_plan_free(other);
  pod_mc_plan_free(pl);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_exact_keep),
      cmocka_unit_test(test_sketch),
      cmocka_unit_test(test_signed_zero_ranges),
      cmocka_unit_test(test_sobol),
      cmocka_unit_test(test_stopping),
      cmocka_unit_test(test_failed_chunk),
      cmocka_unit_test(test_state),
      cmocka_unit_test(test_layout),
      cmocka_unit_test(test_refused),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
