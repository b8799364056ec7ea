/*
** test_coll_inflight.c: NCCL's peers in flight (p2p_in_flight,
** core/coll_plan.h) without its divisions against the formula with them:
** the same F bit for bit over channel counts and part sizes that are and
** are not powers of two, bytes from 0 and the subnormals up, and peers
** over F by its exact inverse where it has one equal to peers / F.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "coll_plan.h"

/* the formula as NCCL writes it (src/enqueue.cc), a division a step */
static double in_flight_ref(const pod_coll_p2p *c, double b) {
  double ch = 1.0;
  if (b > 0.0) {
    double k = ceil(b / c->min_part);
    if (k < 1.0) k = 1.0;
    ch = k < c->cmin ? k : c->cmin;
    while (b / ch > c->max_part && ch <= 0.5 * c->per_peer) ch *= 2.0;
  }
  return P2P_OPS_PER_BATCH * c->nch / ch;
}

static void same_bits(double a, double b) {
  assert_memory_equal(&a, &b, sizeof a);
}

static void test_in_flight_exact(void **state) {
  (void)state;
  static const double NCH[] = {1, 2, 3, 16, 32, 64};
  static const double PER[] = {1, 2, 3, 4, 6, 32};
  static const double CMIN[] = {1, 2, 3, 4, 5, 32, 2.5, 0.5};
  static const double MINP[] = {65536.0, 3000.5, 131072.0, 0.75};
  static const double MAXP[] = {131072.0, 16777216.0, 100000.0};
  uint64_t x = 88172645463325252ull;
  long n = 0, exact_inv = 0;
  for (size_t a = 0; a < sizeof NCH / sizeof NCH[0]; a++)
    for (size_t p = 0; p < sizeof PER / sizeof PER[0]; p++)
      for (size_t c = 0; c < sizeof CMIN / sizeof CMIN[0]; c++)
        for (size_t m = 0; m < sizeof MINP / sizeof MINP[0]; m++)
          for (size_t M = 0; M < sizeof MAXP / sizeof MAXP[0]; M++)
            for (int i = 0; i < 60; i++) {
              pod_coll_p2p ch = {NCH[a], PER[p], CMIN[c], MINP[m], MAXP[M]};
              x ^= x << 13;
              x ^= x >> 7;
              x ^= x << 17;
              double u = (double)(x >> 11) * 0x1p-53;
              /* parts at cmin - 1, cmin and just past: the edges of
              ** max(ceil(b / min_part), 1) < cmin */
              double edge = MINP[m] * (CMIN[c] - 1.0 + (double)(i - 3));
              double b = i == 0   ? 0.0
                         : i == 1 ? 4.9e-324
                         : i == 2 ? MINP[m] * (double)(i + c)
                         : i < 6  ? edge
                         : i == 6 ? nextafter(MINP[m] * (CMIN[c] - 1.0), 1e300)
                                  : exp(-20.0 + 50.0 * u);
              p2p_inv k;
              p2p_inverses(&ch, &k);
              double inv, F = p2p_in_flight(&ch, &k, b, &inv);
              same_bits(F, in_flight_ref(&ch, b));
              n++;
              if (inv == 0.0) continue;
              exact_inv++;
              for (double peers = 1.0; peers < 2100.0; peers += 37.0)
                same_bits(peers * inv, peers / F);
            }
  assert_true(n > 100000 && exact_inv > 10000 && exact_inv < n);
}

/* pow2_normal_inverse takes powers of two with a normal inverse only,
** and p2p_inverses inverts only those */
static void test_pow2_inverse(void **state) {
  (void)state;
  assert_true(pow2_normal_inverse(65536.0));
  assert_true(pow2_normal_inverse(1.0));
  assert_true(pow2_normal_inverse(0x1p-1022));
  assert_true(pow2_normal_inverse(0x1p1022));
  assert_false(pow2_normal_inverse(0x1p1023)); /* inverse subnormal */
  assert_false(pow2_normal_inverse(0x1p-1074));
  assert_false(pow2_normal_inverse(3.0));
  assert_false(pow2_normal_inverse(-2.0));
  assert_false(pow2_normal_inverse(0.0));
  assert_false(pow2_normal_inverse(INFINITY));
  assert_false(pow2_normal_inverse(NAN));
  pod_coll_p2p c = {4.0, 2.0, 3.0, 65536.0, 131072.0};
  p2p_inv k;
  p2p_inverses(&c, &k);
  assert_true(k.X == 32.0 && k.inv_X == 1.0 / 32.0);
  assert_true(k.inv_min == 1.0 / 65536.0 && k.inv_cmin == 0.0);
  c.nch = 3.0;
  c.min_part = 1000.0;
  c.cmin = 0.5;
  p2p_inverses(&c, &k);
  assert_true(k.inv_X == 0.0 && k.inv_min == 0.0 && k.inv_cmin == 2.0);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_in_flight_exact),
      cmocka_unit_test(test_pow2_inverse),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
