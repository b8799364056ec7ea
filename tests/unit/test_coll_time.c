/*
** test_coll_time.c: pod_coll_time_checked (core/coll_kernel.c), the
** time-only entry of a caller that times many collectives on one checked
** system with its ring graphs kept: the same time_s as
** pod_coll_eval_checked with algo auto, bit for bit, whatever the order of
** the calls and whether the graphs are kept, and the same errors.
*/
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_coll.h"

static pod_system preset(const char *name) {
  pod_system s;
  assert_int_equal(pod_hw_system_preset(name, &s), POD_OK);
  return s;
}

/* Every op, group sizes inside and across domains, placements packed and
** spread, sizes from 0 to 16 GiB: one graphs cache across the whole sweep
** of one system (more ranks-per-domain values than it holds, so both the
** kept and the overflow path run), one NULL. */
static void test_time_matches_eval(void **state) {
  (void)state;
  const char *names[] = {"dgx_a100", "hgx_h100", "hgx_b200", "gb200_nvl72",
                         "gb300_nvl72"};
  const int ns[] = {1, 2, 4, 8, 16, 64, 72, 128, 144, 1024, 16384};
  const int rs[] = {0, 1, 2, 4, 8, 16, 32, 64, 72};
  const double sizes[] = {0.0, 8.0, 4096.0, 1048576.0, 1.5e8, 17179869184.0};
  long compared = 0, kept = 0;
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    pod_system s = preset(names[i]);
    pod_coll_graphs gs;
    memset(&gs, 0, sizeof gs);
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (size_t a = 0; a < sizeof ns / sizeof ns[0]; a++)
        for (size_t b = 0; b < sizeof rs / sizeof rs[0]; b++)
          for (size_t c = 0; c < sizeof sizes / sizeof sizes[0]; c++) {
            pod_coll_args args = {ns[a], rs[b], sizes[c], POD_ALGO_AUTO};
            pod_coll_result res;
            pod_err e1, e2, e3;
            pod_err_clear(&e1);
            pod_err_clear(&e2);
            pod_err_clear(&e3);
            int rc =
                pod_coll_eval_checked(&s, (pod_coll_op)op, &args, &res, &e1);
            double t1 = -1.0, t2 = -1.0;
            int rc1 = pod_coll_time_checked(&s, (pod_coll_op)op, ns[a], rs[b],
                                            sizes[c], &gs, &t1, &e2);
            int rc2 = pod_coll_time_checked(&s, (pod_coll_op)op, ns[a], rs[b],
                                            sizes[c], NULL, &t2, &e3);
            assert_int_equal(rc1, rc);
            assert_int_equal(rc2, rc);
            if (rc != POD_OK) {
              assert_string_equal(e2.field, e1.field);
              assert_string_equal(e2.msg, e1.msg);
              assert_string_equal(e3.msg, e1.msg);
              continue;
            }
            /* bit for bit, not within a tolerance */
            assert_memory_equal(&t1, &res.time_s, sizeof t1);
            assert_memory_equal(&t2, &res.time_s, sizeof t2);
            compared++;
          }
    assert_true(gs.n > 0 && gs.n <= POD_COLL_GRAPHS);
    kept += gs.n;
  }
  assert_true(compared > 1000);
  assert_true(kept >= 5);
}

/* The errors of the checks it keeps: op, bounds, send_recv's ranks and the
** placement, each naming its field. */
static void test_time_errors(void **state) {
  (void)state;
  pod_system s = preset("hgx_h100");
  pod_coll_graphs gs;
  memset(&gs, 0, sizeof gs);
  pod_err e;
  double t = 0.0;
  struct {
    pod_coll_op op;
    int n, r;
    double bytes;
    const char *field;
  } bad[] = {
      {(pod_coll_op)POD_COLL_NOPS, 8, 8, 1.0, "op"},
      {POD_COLL_ALL_REDUCE, 0, 0, 1.0, "ranks"},
      {POD_COLL_ALL_REDUCE, 8, 0, -1.0, "bytes"},
      {POD_COLL_ALL_REDUCE, 8, 0, 1e19, "bytes"},
      {POD_COLL_SEND_RECV, 4, 0, 1.0, "ranks"},
      {POD_COLL_ALL_REDUCE, 32, 16, 1.0, "ranks_per_domain"},
      {POD_COLL_ALL_REDUCE, 12, 8, 1.0, "ranks_per_domain"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    pod_err_clear(&e);
    int rc = pod_coll_time_checked(&s, bad[i].op, bad[i].n, bad[i].r,
                                   bad[i].bytes, &gs, &t, &e);
    assert_int_not_equal(rc, POD_OK);
    assert_string_equal(e.field, bad[i].field);
  }
  assert_int_equal(gs.n, 0); /* no graph made for a rejected call */
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_time_matches_eval),
      cmocka_unit_test(test_time_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
