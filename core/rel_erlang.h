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
** recurrence itself (rel_erlang_b_inv) takes 1 / a.  Its first step
** multiplies by y(0) = 1, exact: taken without the product (one multiply
** less on the fixed point's chain, the same bits). */
static inline double rel_erlang_b_inv(int k, double ia) {
  double y = 1.0;
  int i = 1;
  if (k % 4 > 0) {
    y = 1.0 + ia; /* 1 + y(0) (1 ia) */
    for (i = 2; i <= k % 4; i++) y = 1.0 + y * (i * ia);
  } else if (k >= 4) {
    double r1 = ia, r2 = 2 * ia, r3 = 3 * ia, r4 = 4 * ia;
    double p43 = r4 * r3, p432 = p43 * r2;
    y = ((1.0 + r4) + (p43 + p432)) + p432 * r1; /* ... + (p432 r1) y(0) */
    if (y > 1e300 && r1 > 1.0) return 0.0;
    i = 5;
  }
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
** (j / a); only the a / j of pi_j divides, off the dependency chain.
** In three parts (start, sum, end) so that two systems' sums can run in
** one loop (rel_erlang_deficit2): each lane's operations are the one
** lane's, in its order. */
typedef struct rel_deficit_lane {
  int k, logs;
  double a, ia, B, n_arr;
  double lp, pi; /* log pi_0 (logs) or pi_0 */
} rel_deficit_lane;

/* pi_0 of q's system; 0 when the deficit is 0 without a sum. */
static inline int rel_deficit_start(int k, double a, double B, double n_arr,
                                    rel_deficit_lane *q) {
  if (k < 1 || !(B > 1e-15) || !(n_arr > 0.0)) {
    *q = (rel_deficit_lane){0}; /* not summed */
    return 0;
  }
  const double ia = 1.0 / a;
  double lp = 0.0, pi = 0.0;
  int logs = 1;
  if (k <= 256) {
    double q0 = B, q1 = 1.0, q2 = 1.0, q3 = 1.0;
    int j = 1;
    for (; j + 3 <= k; j += 4) {
      q0 *= j * ia;
      q1 *= (j + 1) * ia;
      q2 *= (j + 2) * ia;
      q3 *= (j + 3) * ia;
    }
    for (; j <= k; j++) q0 *= j * ia;
    pi = (q0 * q1) * (q2 * q3);
    logs = !(pi > 1e-290 && pi < 1e290);
  }
  if (logs) {
    lp = log(B) + lgamma(k + 1.0) - k * log(a); /* log pi_0 */
    logs = lp < -700.0;
    pi = logs ? 0.0 : exp(lp);
  }
  q->k = k;
  q->logs = logs;
  q->a = a;
  q->ia = ia;
  q->B = B;
  q->n_arr = n_arr;
  q->lp = lp;
  q->pi = pi;
  return 1;
}

/* rel_deficit_sum's loop from term j0 on: lp, pi and rho of term j0 - 1
** (j0 > 0) or term 0's (j0 = 0), d the sum of the terms before j0. */
static inline double rel_deficit_tail(const rel_deficit_lane *q, int j0,
                                      double lp, double pi, double rho,
                                      double d) {
  const int k = q->k, logs = q->logs;
  const double a = q->a, ia = q->ia;
  for (int j = j0; j < k; j++) {
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
  return d;
}

/* sum_{j<k} rho_j S(>j) of a started lane. */
static inline double rel_deficit_sum(const rel_deficit_lane *q) {
  return rel_deficit_tail(q, 0, q->lp, q->pi, 1.0, 0.0);
}

/* The sums of two started lanes of the same k, in products (no logs), in
** one loop while both go on, then the one that goes on alone: each
** lane's terms as rel_deficit_sum's. */
static inline void rel_deficit_sum2(const rel_deficit_lane *p,
                                    const rel_deficit_lane *q, double *dp,
                                    double *dq) {
  const int k = p->k;
  const double a0 = p->a, ia0 = p->ia, a1 = q->a, ia1 = q->ia;
  double pi0 = p->pi, pi1 = q->pi, rho0 = 1.0, rho1 = 1.0, d0 = 0.0, d1 = 0.0;
  for (int j = 0; j < k; j++) {
    if (j > 0) {
      const double x = j;
      pi0 *= a0 / x;
      pi1 *= a1 / x;
      rho0 = 1.0 + rho0 * (x * ia0);
      rho1 = 1.0 + rho1 * (x * ia1);
    }
    const double le0 = 1.0 - pi0 * rho0, le1 = 1.0 - pi1 * rho1; /* S(>j) */
    const int stop0 = le0 <= 0.0 || rho0 > 1e300,
              stop1 = le1 <= 0.0 || rho1 > 1e300;
    if (stop0 | stop1) { /* a lane that goes on adds its term j, then on */
      *dp = stop0 ? d0
                  : rel_deficit_tail(p, j + 1, 0.0, pi0, rho0, d0 + rho0 * le0);
      *dq = stop1 ? d1
                  : rel_deficit_tail(q, j + 1, 0.0, pi1, rho1, d1 + rho1 * le1);
      return;
    }
    d0 += rho0 * le0;
    d1 += rho1 * le1;
  }
  *dp = d0;
  *dq = d1;
}

/* Delta (1 - exp(-n_arr B / Delta)) from a lane's sum d. */
static inline double rel_deficit_end(const rel_deficit_lane *q, double d) {
  const double B = q->B, n_arr = q->n_arr;
  d *= B;
  return d > 0.0 ? d * -expm1(-n_arr * B / d) : 0.0;
}

static inline double rel_erlang_deficit(int k, double a, double B,
                                        double n_arr) {
  rel_deficit_lane q;
  if (!rel_deficit_start(k, a, B, n_arr, &q)) return 0.0;
  return rel_deficit_end(&q, rel_deficit_sum(&q));
}

/* rel_erlang_deficit of two systems (k, a, B, n_arr)[0] and [1] into
** out[0], out[1], bit for bit; their sums in one loop when both have the
** same k in products. */
static inline void rel_erlang_deficit2(const int k[2], const double a[2],
                                       const double B[2], const double n_arr[2],
                                       double out[2]) {
  rel_deficit_lane q[2];
  int on0 = rel_deficit_start(k[0], a[0], B[0], n_arr[0], &q[0]);
  int on1 = rel_deficit_start(k[1], a[1], B[1], n_arr[1], &q[1]);
  double d0 = 0.0, d1 = 0.0;
  if (on0 && on1 && k[0] == k[1] && !q[0].logs && !q[1].logs) {
    rel_deficit_sum2(&q[0], &q[1], &d0, &d1);
  } else {
    if (on0) d0 = rel_deficit_sum(&q[0]);
    if (on1) d1 = rel_deficit_sum(&q[1]);
  }
  out[0] = on0 ? rel_deficit_end(&q[0], d0) : 0.0;
  out[1] = on1 ? rel_deficit_end(&q[1], d1) : 0.0;
}

#endif
