/*
** rel_erlang.h: the Erlang loss terms of the analytic spare model
** (internal to rel.c; here so the unit tests can check them against the
** textbook recurrences).  Pure arithmetic, inputs assumed checked.
*/
#ifndef POD_REL_ERLANG_H
#define POD_REL_ERLANG_H

#include <math.h>

/* Erlang loss formula B(k, a): probability that an arrival finds all k
** servers busy with offered load a (insensitive to the service-time
** distribution).  By the reciprocal of the textbook recurrence
** B(i) = a B(i-1) / (i + a B(i-1)): y(i) = 1/B(i) = 1 + r(i) y(i-1) with
** r(i) = i/a, taken four servers at a time,
**     y(i+3) = 1 + r4 + r4 r3 + r4 r3 r2 + r4 r3 r2 r1 y(i-1),
** so the dependency chain holds one multiply-add per four servers (the
** coefficients are independent of it) instead of a division per server;
** the two agree to a few ulps (test_rel_erlang.c).  Once past the load
** the terms only grow, so a large k with a tiny B stops early.  The
** recurrence itself (rel_erlang_b_inv) takes 1 / a. */
static inline double rel_erlang_b_inv(int k, double ia) {
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
static inline double rel_erlang_b(int k, double a) {
  if (k < 1) return 1.0;
  if (a == 0.0) return 0.0;
  return rel_erlang_b_inv(k, 1.0 / a);
}
/* B(k, x / t) for a load given as x / t (x >= 0, t > 0): 1 / a = t / x,
** one division on the fixed point's dependency chain instead of two. */
static inline double rel_erlang_b_ratio(int k, double x, double t) {
  if (k < 1) return 1.0;
  if (x == 0.0) return 0.0;
  return rel_erlang_b_inv(k, t / x);
}

/* Start-up transient of an Erlang loss system of k servers at load a,
** B = B(k, a), over n_arr arrivals: the blocked arrivals missed by
** starting empty, Delta (1 - exp(-n_arr B / Delta)) with
**     Delta = pi_k sum_{j<k} rho_j S(>j),  rho_j = S(<=j) / pi_j
** (rel.c derives it).  pi_j = pi_{j-1} a / j from pi_0 = B k! / a^k, the
** product of the k factors j / a in four independent chains (in
** logarithms when it leaves the double range), and rho_j = 1 + rho_{j-1}
** (j / a); only the a / j of pi_j divides, off the dependency chain. */
static inline double rel_erlang_deficit(int k, double a, double B,
                                        double n_arr) {
  if (k < 1 || !(B > 1e-15) || !(n_arr > 0.0)) return 0.0;
  const double ia = 1.0 / a;
  double lp = 0.0, pi = 0.0;
  int logs = 1;
  if (k <= 256) {
    double q[4] = {B, 1.0, 1.0, 1.0};
    int j = 1;
    for (; j + 3 <= k; j += 4) {
      q[0] *= j * ia;
      q[1] *= (j + 1) * ia;
      q[2] *= (j + 2) * ia;
      q[3] *= (j + 3) * ia;
    }
    for (; j <= k; j++) q[0] *= j * ia;
    pi = (q[0] * q[1]) * (q[2] * q[3]);
    logs = !(pi > 1e-290 && pi < 1e290);
  }
  if (logs) {
    lp = log(B) + lgamma(k + 1.0) - k * log(a); /* log pi_0 */
    logs = lp < -700.0;
    pi = logs ? 0.0 : exp(lp);
  }
  double rho = 1.0, d = 0.0;
  for (int j = 0; j < k; j++) {
    if (j > 0) {
      if (logs)
        lp += log(a / j);
      else
        pi *= a / j;
      rho = 1.0 + rho * (j * ia);
    }
    double le = 1.0 - (logs ? exp(lp) : pi) * rho; /* S(>j) */
    if (le <= 0.0 || rho > 1e300) break;
    d += rho * le;
  }
  d *= B;
  return d > 0.0 ? d * -expm1(-n_arr * B / d) : 0.0;
}

#endif
