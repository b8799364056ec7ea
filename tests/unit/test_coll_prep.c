/*
** test_coll_prep.c: the prepared collective (pod_coll_prepare,
** pod_coll_time_prepared, core/coll_prep.c) against pod_coll_time_checked:
** prepared on one system, timed on copies with other link efficiencies
** (up_eff, out_eff), the same time_s byte for byte and the same errors,
** over every system preset and variants (SHARP, no NVLS, an
** oversubscribed leaf tier, static ECMP), every op, group sizes and
** placements inside and across domains, and sizes from 0 to 16 GiB; a
** prep that times any bytes at other bytes, in and out of bounds.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_coll.h"
#include "coll_fixture.h"

/* One comparison: the prepared time on sys with effs (ue, oe) against the
** checked one; returns 1 when both succeeded. */
static int compare(const pod_coll_prep *p, const pod_system *base,
                   pod_coll_op op, int n, int r, double S, double ue,
                   double oe) {
  pod_system s = *base;
  s.up_eff = ue;
  s.out_eff = oe;
  pod_err e1, e2;
  pod_err_clear(&e1);
  pod_err_clear(&e2);
  double t1 = -1.0, t2 = -2.0;
  int rc1 = pod_coll_time_checked(&s, op, n, r, S, NULL, &t1, &e1);
  int rc2 = pod_coll_time_prepared(p, &s, S, &t2, &e2);
  assert_int_equal(rc2, rc1);
  if (rc1 != POD_OK) {
    assert_string_equal(e2.field, e1.field);
    assert_string_equal(e2.msg, e1.msg);
    return 0;
  }
  assert_memory_equal(&t2, &t1, sizeof t1); /* bit for bit */
  /* and with the system's figures made once (pod_coll_sys_rates_of) */
  pod_coll_sys_rates sr;
  pod_coll_sys_rates_of(&s, &sr);
  double t3 = -3.0;
  assert_int_equal(pod_coll_time_prepared_sr(p, &s, &sr, S, &t3, &e2), POD_OK);
  assert_memory_equal(&t3, &t1, sizeof t1);
  return 1;
}

static void test_prepared_matches_checked(void **state) {
  (void)state;
  static pod_system sys[256];
  int nsys = coll_fixture_systems(sys, 256);
  assert_true(nsys >= 20);
  const int ns[] = {1, 2, 3, 4, 8, 16, 24, 64, 72, 128, 144, 1024, 16384};
  const int rs[] = {0, 1, 2, 4, 8, 16, 36, 72};
  const double sizes[] = {0.0, 8.0, 4096.0, 1048576.0, 1.5e8, 17179869184.0};
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  long compared = 0, prepared = 0, any = 0, fixed_bytes = 0;
  int algos_seen[POD_ALGO_N] = {0};
  for (int i = 0; i < nsys; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++)
          for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
            pod_coll_prep p;
            pod_err e;
            pod_err_clear(&e);
            int rc = pod_coll_prepare(&sys[i], (pod_coll_op)op, ns[a], rs[b],
                                      sizes[c], &p, &e);
            double t;
            pod_err e0;
            int rc0 = pod_coll_time_checked(&sys[i], (pod_coll_op)op, ns[a],
                                            rs[b], sizes[c], NULL, &t, &e0);
            assert_int_equal(rc, rc0);
            if (rc != POD_OK) {
              assert_false(p.ok);
              assert_string_equal(e.msg, e0.msg);
              continue;
            }
            prepared++;
            /* the prepared system itself, then random effs, then the
            ** ends of their range */
            compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b], sizes[c],
                    sys[i].up_eff, sys[i].out_eff);
            for (int k = 0; k < 6; k++) {
              double ue = 0.02 + 0.98 * coll_fixture_unit(&seed);
              double oe = 0.02 + 0.98 * coll_fixture_unit(&seed);
              compared += compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b],
                                  sizes[c], ue, oe);
            }
            compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b], sizes[c], 1.0,
                    1e-9);
            compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b], sizes[c], 1e-9,
                    1.0);
            /* other bytes: timed when nothing prepared reads them, else
            ** refused */
            size_t nsz = sizeof sizes / sizeof sizes[0];
            double S2 = sizes[(c + 1) % nsz] * (1.0 + coll_fixture_unit(&seed));
            if (pod_coll_prep_any_bytes(&p)) {
              any++;
              compared += compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b],
                                  S2, 0.02 + 0.98 * coll_fixture_unit(&seed),
                                  0.02 + 0.98 * coll_fixture_unit(&seed));
              compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b], -1.0, 0.5,
                      0.5);
              compare(&p, &sys[i], (pod_coll_op)op, ns[a], rs[b], 2e18, 0.5,
                      0.5);
            } else {
              fixed_bytes++;
              double t2;
              assert_int_equal(pod_coll_time_prepared(&p, &sys[i], S2, &t2, &e),
                               POD_EINVAL);
              assert_string_equal(e.field, "bytes");
            }
            pod_coll_args args = {ns[a], rs[b], sizes[c], POD_ALGO_AUTO};
            pod_coll_result res;
            if (pod_coll_eval_checked(&sys[i], (pod_coll_op)op, &args, &res,
                                      &e) == POD_OK)
              algos_seen[res.algo] = 1;
          }
  assert_true(prepared > 10000);
  assert_true(compared > 50000);
  assert_true(any > 1000 && fixed_bytes > 1000);
  /* the sweep reaches every algorithm auto can pick */
  const pod_coll_algo picked[] = {POD_ALGO_RING,      POD_ALGO_TREE,
                                  POD_ALGO_NVLS,      POD_ALGO_DIRECT,
                                  POD_ALGO_NVLS_TREE, POD_ALGO_COLLNET};
  for (size_t k = 0; k < sizeof picked / sizeof picked[0]; k++)
    assert_true(algos_seen[picked[k]]);
}

/* pod_coll_prep_same: all-gather and reduce-scatter of the same arguments
** time alike (checked against pod_coll_time_checked of each, at random
** effs and other bytes); other ops, ranks, placements or rated bytes do
** not count as the same. */
static void test_prep_same(void **state) {
  (void)state;
  static pod_system sys[256];
  int nsys = coll_fixture_systems(sys, 256);
  const int ns[] = {2, 8, 16, 72, 144, 1024};
  uint64_t seed = 12345;
  long same = 0;
  for (int i = 0; i < nsys; i++)
    for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++) {
      pod_coll_prep ag, rs, ar, ar2, other;
      double S = 1048576.0 * (1.0 + 64.0 * coll_fixture_unit(&seed));
      if (pod_coll_prepare(&sys[i], POD_COLL_ALL_GATHER, ns[a], 0, S, &ag,
                           NULL) != POD_OK)
        continue;
      assert_int_equal(pod_coll_prepare(&sys[i], POD_COLL_REDUCE_SCATTER, ns[a],
                                        0, 2.0 * S, &rs, NULL),
                       POD_OK);
      assert_true(pod_coll_prep_same(&ag, &rs));
      assert_true(pod_coll_prep_same(&rs, &ag));
      for (int k = 0; k < 4; k++) {
        pod_system s = sys[i];
        s.up_eff = 0.05 + 0.95 * coll_fixture_unit(&seed);
        s.out_eff = 0.05 + 0.95 * coll_fixture_unit(&seed);
        double S2 = S * (0.5 + coll_fixture_unit(&seed)), t1, t2, t3;
        if (pod_coll_time_prepared(&ag, &s, S2, &t1, NULL) != POD_OK) continue;
        assert_int_equal(pod_coll_time_prepared(&rs, &s, S2, &t2, NULL),
                         POD_OK);
        assert_int_equal(pod_coll_time_checked(&s, POD_COLL_REDUCE_SCATTER,
                                               ns[a], 0, S2, NULL, &t3, NULL),
                         POD_OK);
        assert_memory_equal(&t1, &t2, sizeof t1);
        assert_memory_equal(&t2, &t3, sizeof t2);
        same++;
      }
      if (pod_coll_prepare(&sys[i], POD_COLL_ALL_TO_ALL, ns[a], 0, S, &other,
                           NULL) == POD_OK)
        assert_false(pod_coll_prep_same(&ag, &other));
      if (pod_coll_prepare(&sys[i], POD_COLL_ALL_GATHER, 2 * ns[a], 0, S,
                           &other, NULL) == POD_OK)
        assert_false(pod_coll_prep_same(&ag, &other));
      /* an all-reduce across domains is chosen by its bytes */
      if (pod_coll_prepare(&sys[i], POD_COLL_ALL_REDUCE, ns[a], 0, S, &ar,
                           NULL) == POD_OK &&
          pod_coll_prepare(&sys[i], POD_COLL_ALL_REDUCE, ns[a], 0, 2.0 * S,
                           &ar2, NULL) == POD_OK) {
        assert_true(pod_coll_prep_same(&ar, &ar));
        assert_int_equal(pod_coll_prep_same(&ar, &ar2),
                         pod_coll_prep_any_bytes(&ar));
      }
    }
  assert_true(same > 100);
  pod_coll_prep z;
  memset(&z, 0, sizeof z);
  assert_false(pod_coll_prep_same(&z, &z));
  assert_false(pod_coll_prep_same(NULL, &z));
}

/* Errors: a NULL or unprepared prep, NULL system, the checks'. */
static void test_prepared_errors(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &s), POD_OK);
  pod_coll_prep p;
  pod_err e;
  double t = 0.0;
  assert_int_equal(
      pod_coll_prepare(&s, POD_COLL_ALL_REDUCE, 16, 8, 1e6, NULL, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "prep");
  assert_int_equal(
      pod_coll_prepare(NULL, POD_COLL_ALL_REDUCE, 16, 8, 1e6, &p, &e),
      POD_EINVAL);
  assert_string_equal(e.field, "system");
  assert_false(p.ok);
  assert_int_equal(pod_coll_time_prepared(&p, &s, 1e6, &t, &e), POD_EINVAL);
  assert_string_equal(e.field, "prep");
  assert_int_equal(pod_coll_time_prepared(NULL, &s, 1e6, &t, &e), POD_EINVAL);
  assert_string_equal(e.field, "prep");
  struct {
    pod_coll_op op;
    int n, r;
    double bytes;
    const char *field;
  } bad[] = {
      {(pod_coll_op)POD_COLL_NOPS, 8, 8, 1.0, "op"},
      {POD_COLL_ALL_REDUCE, 0, 0, 1.0, "ranks"},
      {POD_COLL_ALL_REDUCE, 8, 0, -1.0, "bytes"},
      {POD_COLL_SEND_RECV, 4, 0, 1.0, "ranks"},
      {POD_COLL_ALL_REDUCE, 12, 8, 1.0, "ranks_per_domain"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pod_err_clear(&e);
    int rc = pod_coll_prepare(&s, bad[i].op, bad[i].n, bad[i].r, bad[i].bytes,
                              &p, &e);
    assert_int_not_equal(rc, POD_OK);
    assert_string_equal(e.field, bad[i].field);
    assert_false(p.ok);
    assert_int_equal(pod_coll_time_prepared(&p, &s, 1e6, &t, &e), POD_EINVAL);
  }
  /* a sample whose time is not finite: the checked path's error */
  assert_int_equal(
      pod_coll_prepare(&s, POD_COLL_ALL_GATHER, 16, 8, 1e18, &p, &e), POD_OK);
  pod_system z = s;
  z.out_eff = 0.0; /* outside the checked range: the time is not finite */
  z.up_eff = 0.0;
  pod_err e1;
  double t1;
  int rc1 = pod_coll_time_checked(&z, POD_COLL_ALL_GATHER, 16, 8, 1e18, NULL,
                                  &t1, &e1);
  int rc2 = pod_coll_time_prepared(&p, &z, 1e18, &t, &e);
  assert_int_not_equal(rc1, POD_OK);
  assert_int_equal(rc2, rc1);
  assert_string_equal(e.field, e1.field);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_prepared_matches_checked),
      cmocka_unit_test(test_prep_same),
      cmocka_unit_test(test_prepared_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
