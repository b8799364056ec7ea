/*
** near.h: floating-point comparisons for the cmocka unit tests (include
** after <cmocka.h> and <math.h>).
**   assert_near(a, b, tol)   |a - b| <= tol, naming the expression;
**   near_rel(got, want, rel) |got - want| <= rel |want|.
*/
#ifndef POD_TEST_NEAR_H
#define POD_TEST_NEAR_H

#define assert_near(a, b, tol)                                       \
  do {                                                               \
    double a_ = (a), b_ = (b), t_ = (tol);                           \
    if (!(fabs(a_ - b_) <= t_))                                      \
      fail_msg("%s = %.17g, expected %.17g +/- %g", #a, a_, b_, t_); \
  } while (0)

static inline void near_rel(double got, double want, double rel) {
  if (fabs(got - want) > rel * fabs(want))
    fail_msg("got %.12g, want %.12g (rel %.3g)", got, want, rel);
}

#endif
