/*
** test_rel_erlang.c: the Erlang loss terms of the analytic spare model
** (core/rel_erlang.h) against the textbook forms they replace, their
** fast forms (the first Erlang step without its product, two deficits
** in one loop) against the plain ones bit for bit, and the graph's entry
** point pod_rel_eval_failures_checked against pod_rel_eval.
*/
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "pod_rel.h"
#include "rel_erlang.h"
#include "rel_fixture.h"
#include "rel_geom.h"

/* Textbook Erlang B: B(i) = a B(i-1) / (i + a B(i-1)), B(0) = 1. */
static double ref_erlang_b(int k, double a) {
  double b = 1.0;
  for (int i = 1; i <= k; i++) b = a * b / (i + a * b);
  return b;
}

/* rel_erlang_b_inv as it was before its first step lost its product by
** y(0) = 1: the plain recurrence, four servers at a time. */
static double plain_b_inv(int k, double ia) {
  double y = 1.0;
  int i = 1;
  for (; i <= k % 4; i++) y = 1.0 + y * (i * ia);
  for (; i <= k; i += 4) {
    double r1 = i * ia, r2 = (i + 1) * ia, r3 = (i + 2) * ia, r4 = (i + 3) * ia;
    double p43 = r4 * r3, p432 = p43 * r2;
    y = ((1.0 + r4) + (p43 + p432)) + (p432 * r1) * y;
    if (y > 1e300 && r1 > 1.0) return 0.0;
  }
  return 1.0 / y;
}

/* The same bits (NaN for NaN). */
static int same_bits(double x, double y) {
  return memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y));
}

static void test_erlang_b_first_step(void **state) {
  (void)state;
  const double odd[] = {0.0, -0.0, 1e-300, 5e-324, 1e300, INFINITY, NAN, 1.0};
  int n = 0;
  for (int k = 0; k <= 70; k++) {
    for (double ia = 1e-4; ia < 1e4; ia *= 1.093, n++)
      assert_true(same_bits(rel_erlang_b_inv(k, ia), plain_b_inv(k, ia)));
    for (size_t i = 0; i < sizeof odd / sizeof odd[0]; i++, n++)
      assert_true(
          same_bits(rel_erlang_b_inv(k, odd[i]), plain_b_inv(k, odd[i])));
  }
  assert_true(n > 10000);
}

/* Two deficits side by side (rel_erlang_deficit2) against each alone, bit
** for bit: the same k and different k, no deficit (B tiny, no arrivals,
** no servers) and the logarithmic path. */
static void test_deficit2(void **state) {
  (void)state;
  const double loads[] = {0.05, 0.7, 3.0, 9.5, 31.0, 120.0};
  const double arrs[] = {0.0, 3.0, 4e3, 2e7};
  const int ks[] = {0, 1, 2, 3, 5, 8, 32, 33, 64};
  const int nl = 6, na = 4, nk = 9;
  int n = 0, both = 0;
  for (int k0 = 0; k0 < nk; k0++)
    for (int k1 = 0; k1 < nk; k1++)
      for (int i = 0; i < nl * na; i++)
        for (int j = 0; j < nl * na; j += 4) {
          const int k[2] = {ks[k0], ks[k1]};
          const double a[2] = {loads[i % nl], loads[j % nl]};
          const double arr[2] = {arrs[i / nl], arrs[j / nl]};
          const double B[2] = {rel_erlang_b(k[0], a[0]),
                               rel_erlang_b(k[1], a[1])};
          double two[2];
          rel_erlang_deficit2(k, a, B, arr, two);
          for (int l = 0; l < 2; l++)
            assert_true(same_bits(
                two[l], rel_erlang_deficit(k[l], a[l], B[l], arr[l])));
          n++;
          both += k[0] == k[1] && two[0] > 0.0 && two[1] > 0.0;
        }
  assert_true(n > 10000 && both > 100);
  /* the logarithmic path beside a product lane of the same k */
  const int k[2] = {1000, 1000};
  const double a[2] = {950.0, 400.0}, arr[2] = {5e4, 5e4};
  const double B[2] = {rel_erlang_b(1000, 950.0), rel_erlang_b(1000, 400.0)};
  double two[2];
  rel_erlang_deficit2(k, a, B, arr, two);
  assert_true(two[0] > 0.0);
  for (int l = 0; l < 2; l++)
    assert_true(
        same_bits(two[l], rel_erlang_deficit(k[l], a[l], B[l], arr[l])));
}

/* The two-lane sum's loop against one lane's where the lanes stop at
** different terms: pi_0 scaled up so that S(>j) = 1 - pi_j rho_j reaches
** 0 (the stop that rounding can reach at valid inputs) at some j. */
static void test_deficit_sum2_stops(void **state) {
  (void)state;
  int apart = 0;
  for (int k = 1; k <= 40; k += 3)
    for (double a = 0.5; a < 60.0; a *= 1.7)
      for (double f = 1.0; f < 1e12; f *= 7.3) {
        rel_deficit_lane p, q;
        const double B = rel_erlang_b(k, a);
        if (!rel_deficit_start(k, a, B, 10.0, &p) ||
            !rel_deficit_start(k, a * 1.3, rel_erlang_b(k, a * 1.3), 10.0,
                               &q) ||
            p.logs || q.logs)
          continue;
        p.pi *= f; /* p stops early, q goes on */
        double d0, d1, e0, e1;
        rel_deficit_sum2(&p, &q, &d0, &d1);
        assert_true(same_bits(d0, rel_deficit_sum(&p)));
        assert_true(same_bits(d1, rel_deficit_sum(&q)));
        rel_deficit_sum2(&q, &p, &e1, &e0); /* and the other way round */
        assert_true(same_bits(e0, d0) && same_bits(e1, d1));
        apart += f > 1.0 && d0 < d1 && d1 > 0.0;
      }
  assert_true(apart > 100);
}

/* The start-up deficit in long double from the equilibrium probabilities
** themselves (pi_j = a^j / j! normalised); *B gets B(k, a). */
static long double ref_deficit(int k, double a, double n_arr, long double *B) {
  static long double p[1200];
  long double sum = 0.0L;
  p[0] = 1.0L;
  for (int j = 1; j <= k; j++) p[j] = p[j - 1] * a / j;
  for (int j = 0; j <= k; j++) sum += p[j];
  for (int j = 0; j <= k; j++) p[j] /= sum;
  *B = p[k];
  long double cum = 0.0L, d = 0.0L;
  for (int j = 0; j < k; j++) {
    cum += p[j];
    if (1.0L - cum <= 0.0L) break;
    d += cum / p[j] * (1.0L - cum);
  }
  d *= *B;
  return d > 0.0L ? d * -expm1l(-n_arr * *B / d) : 0.0L;
}

static double rel_diff(double x, double y) {
  if (x == y) return 0.0;
  return fabs(x - y) / fmax(fabs(x), fabs(y));
}

static void test_erlang_b(void **state) {
  (void)state;
  double worst = 0.0;
  int n = 0;
  for (int k = 1; k <= 96; k++)
    for (double a = 1e-3; a < 200.0; a *= 1.37) {
      double b = rel_erlang_b(k, a), r = ref_erlang_b(k, a);
      assert_true(b >= 0.0 && b <= 1.0);
      if (r < 1e-290) { /* the early stop returns 0 past the load */
        assert_true(b < 1e-280);
        continue;
      }
      worst = fmax(worst, rel_diff(b, r));
      n++;
    }
  assert_true(n > 2000);
  assert_true(worst < 1e-13);
  /* closed forms: B(1, a) = a / (1 + a); B(2, a) = a^2 / (2 + 2a + a^2) */
  assert_true(rel_diff(rel_erlang_b(1, 3.0), 0.75) < 1e-15);
  assert_true(rel_diff(rel_erlang_b(2, 2.0), 4.0 / 10.0) < 1e-15);
  assert_true(rel_erlang_b(0, 5.0) == 1.0);
  assert_true(rel_erlang_b(8, 0.0) == 0.0);
  /* the load as a ratio x / t (the fixed point's form): one rounding of
  ** t / x instead of two, the same to a few ulps */
  worst = 0.0;
  for (int k = 1; k <= 64; k++)
    for (double x = 1e-3; x < 300.0; x *= 1.61) {
      double t = 1.0 + 0.37 * (k % 5), r = ref_erlang_b(k, x / t);
      if (r < 1e-290) continue;
      worst = fmax(worst, rel_diff(rel_erlang_b_ratio(k, x, t), r));
    }
  assert_true(worst < 1e-13);
  assert_true(rel_erlang_b_ratio(0, 5.0, 1.0) == 1.0);
  assert_true(rel_erlang_b_ratio(4, 0.0, 1.0) == 0.0);
}

/* S(>j) = 1 - pi_j rho_j cancels where it is small, so any double form
** carries an error of order eps / B; the log form it replaced had the
** same (its worst over this grid: 1.7e-15 / B). */
static void test_deficit(void **state) {
  (void)state;
  if (LDBL_MANT_DIG < 64) skip();
  int n = 0;
  for (int k = 1; k <= 64; k++)
    for (double a = 0.05; a < 80.0; a *= 1.29)
      for (double arr = 0.5; arr < 1e6; arr *= 31.0) {
        double B = rel_erlang_b(k, a);
        double d = rel_erlang_deficit(k, a, B, arr);
        long double Bt, t = ref_deficit(k, a, arr, &Bt);
        if (!(B > 1e-15)) {
          assert_true(d == 0.0);
          continue;
        }
        assert_true(t > 0.0L);
        assert_true(fabsl(d - t) / t * B < 4e-15);
        n++;
      }
  assert_true(n > 1000);
  /* pi_0 below the double range: the logarithmic path */
  const int k = 1000;
  const double a = 950.0, arr = 5e4;
  double B = rel_erlang_b(k, a);
  assert_true(B > 1e-6);
  long double Bt, t = ref_deficit(k, a, arr, &Bt);
  assert_true(fabsl(B - Bt) / Bt < 1e-12);
  double d = rel_erlang_deficit(k, a, B, arr);
  assert_true(fabsl(d - t) / t < 1e-9);
}

static void test_failures_checked(void **state) {
  (void)state;
  for (int v = 0; v < 8; v++) {
    pod_rel_cfg c = rel_fixture_flagship(v & 1);
    c.shrink = (v >> 1) & 1;
    if (v & 4) {
      c.repair_dist = POD_REL_REPAIR_LOGNORMAL;
      c.repair_sigma = 1.0;
    }
    c.domain_rate_log10 = 0.5;
    c.gpu_rate_log10 = -0.1;
    pod_rel_result a, b;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    assert_int_equal(pod_rel_eval(&c, &a, NULL), POD_OK);
    assert_int_equal(pod_rel_eval_failures_checked(&c, &b, NULL), POD_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_true(a.goodput > 0.0 && a.goodput < 1.0);
  }
  /* every field but the list is still checked */
  pod_rel_cfg c = rel_fixture_flagship(1);
  c.repair_h = 0.0;
  pod_rel_result r;
  pod_err e;
  assert_int_equal(pod_rel_eval_failures_checked(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "repair_h");
  c = rel_fixture_flagship(0);
  c.domain_rate_log10 = 7.0;
  assert_int_equal(pod_rel_eval_failures_checked(&c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, "domain_rate_log10");
}

/* The analytic model reads a failure list only through its rates summed
** by (unit, blast) (pod_rel_prepare): the prepared entry gives the same
** bits as pod_rel_eval, and a list with causes split and reordered gives
** the same results up to the rounding of those sums. */
static void test_prepared(void **state) {
  (void)state;
  for (int v = 0; v < 16; v++) {
    pod_rel_cfg c = rel_fixture_flagship(v & 1);
    c.shrink = (v >> 1) & 1;
    if (v & 4) {
      c.repair_dist = POD_REL_REPAIR_LOGNORMAL;
      c.repair_sigma = 1.0;
    }
    if (v & 8) c.pool_units = 0;
    c.domain_rate_log10 = 0.5;
    c.gpu_rate_log10 = -0.1;
    pod_rel_prep pr;
    pod_rel_prepare(&c.failures, &pr);
    pod_rel_result a, b, t;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    assert_int_equal(pod_rel_eval(&c, &a, NULL), POD_OK);
    assert_int_equal(pod_rel_eval_prepared(&c, &pr, &b, NULL), POD_OK);
    assert_memory_equal(&a, &b, sizeof a);
    /* reversed, the first ten causes split in a third and two thirds */
    pod_rel_cfg s = c;
    s.failures.ncauses = 0;
    for (int i = c.failures.ncauses - 1; i >= 0; i--) {
      pod_rel_cause q = c.failures.cause[i];
      if (i < 10) {
        pod_rel_cause q1 = q;
        q1.rate_per_h = q.rate_per_h / 3.0;
        q.rate_per_h -= q1.rate_per_h;
        s.failures.cause[s.failures.ncauses++] = q1;
      }
      s.failures.cause[s.failures.ncauses++] = q;
    }
    assert_int_equal(s.failures.ncauses, c.failures.ncauses + 10);
    assert_int_equal(pod_rel_eval(&s, &t, NULL), POD_OK);
    assert_true(rel_diff(t.goodput, a.goodput) < 1e-14);
    assert_true(rel_diff(t.wall_h, a.wall_h) < 1e-14);
    assert_true(rel_diff(t.rate_per_h, a.rate_per_h) < 1e-14);
    assert_true(fabs(t.wait_h - a.wait_h) < 1e-13 * a.wall_h);
  }
  /* a cause that drains a domain, or none: the classes that hold it */
  pod_rel_failures f;
  memset(&f, 0, sizeof f);
  assert_int_equal(
      pod_rel_failures_add(&f, "a", 1e-5, POD_REL_GPU, POD_REL_NODE, NULL),
      POD_OK);
  assert_int_equal(
      pod_rel_failures_add(&f, "b", 2e-5, POD_REL_NODE, POD_REL_NODE, NULL),
      POD_OK);
  assert_int_equal(
      pod_rel_failures_add(&f, "c", 3e-5, POD_REL_GPU, POD_REL_NODE, NULL),
      POD_OK);
  pod_rel_prep pr;
  pod_rel_prepare(&f, &pr);
  assert_true(pr.rate[POD_REL_GPU][POD_REL_NODE] == 1e-5 + 3e-5);
  assert_true(pr.rate[POD_REL_NODE][POD_REL_NODE] == 2e-5);
  assert_true(pr.rate[POD_REL_GPU][POD_REL_GPU] == 0.0);
}

/* Without hot spares every wait freezes the pool, so the pool's load is
** explicit (T_pool = 1 + restart and swap hours per running hour, rel.c)
** and the analytic model takes no iteration: its P(no spare) and down
** time against the same closed form in long double. */
static void test_pool_closed_form(void **state) {
  (void)state;
  if (LDBL_MANT_DIG < 64) skip();
  for (int v = 0; v < 6; v++) {
    pod_rel_cfg c = rel_fixture_flagship(0); /* HGX H100, a pool of 32 nodes */
    c.pool_units = (int[]){32, 8, 2, 1, 64, 16}[v];
    c.repair_h = (double[]){24.0, 72.0, 6.0, 48.0, 200.0, 1.0}[v];
    c.gpu_rate_log10 = 0.3 * (v % 3) - 0.2;
    pod_rel_result r;
    assert_int_equal(pod_rel_eval(&c, &r, NULL), POD_OK);
    const long double R = c.restart_s / 3600.0L, sw = c.swap_s / 3600.0L;
    long double L = 0.0L, Lhw = 0.0L;
    for (int i = 0; i < c.failures.ncauses; i++) {
      long double lam = rel_cause_rate(&c, i);
      L += lam;
      if (c.failures.cause[i].blast != POD_REL_JOB) Lhw += lam;
    }
    const long double down = L * R + Lhw * sw;
    const long double r_eff = c.repair_h * expl(-(R + sw) / c.repair_h);
    const long double a = Lhw * r_eff / (1.0L + down);
    long double B = 1.0L;
    for (int i = 1; i <= c.pool_units; i++) B = a * B / (i + a * B);
    const long double w = c.repair_h / (1.0L + c.pool_units);
    const long double p_no = Lhw * B / L,
                      down_s = 3600.0L * (down + Lhw * B * w) / L;
    assert_true(fabsl(r.p_no_spare - p_no) <= 1e-13L * p_no);
    assert_true(fabsl(r.down_s - down_s) <= 1e-13L * down_s);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_erlang_b),
      cmocka_unit_test(test_erlang_b_first_step),
      cmocka_unit_test(test_deficit),
      cmocka_unit_test(test_deficit2),
      cmocka_unit_test(test_deficit_sum2_stops),
      cmocka_unit_test(test_failures_checked),
      cmocka_unit_test(test_prepared),
      cmocka_unit_test(test_pool_closed_form),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
