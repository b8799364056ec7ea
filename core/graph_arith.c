/*
** graph_arith.c: Lua 5.4 semantics of the arithmetic a recorded graph
** evaluates (pod_graph_arith, pod_graph.h).
**
** They follow the Lua 5.4 sources (lvm.c luaV_idiv, luaV_mod,
** LTintfloat/LTfloatint; llimits.h luai_numidiv, luai_nummod,
** luai_numpow; lmathlib.c math_floor/ceil/abs/fmod/log/min/max).
*/
#include <math.h>

#include "graph_int.h"

/* ---------------------------------------------------------------------- */
/* Lua number semantics                                                    */
/* ---------------------------------------------------------------------- */

/* lua_numbertointeger */
static int flt2int(double d, int64_t *p) {
  if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
    *p = (int64_t)d;
    return 1;
  }
  return 0;
}

/* l_intfitsf: |i| <= 2^53 */
static int intfitsf(int64_t i) {
  return (uint64_t)i + (UINT64_C(1) << 53) <= (UINT64_C(1) << 54);
}

/* a < b with Lua's mixed integer/float comparison. */
static int lua_lt(pod_gval a, pod_gval b) {
  if (a.isint && b.isint) return a.u.i < b.u.i;
  if (!a.isint && !b.isint) return a.u.d < b.u.d;
  if (a.isint) { /* LTintfloat */
    if (intfitsf(a.u.i)) return (double)a.u.i < b.u.d;
    int64_t fi;
    if (flt2int(ceil(b.u.d), &fi)) return a.u.i < fi;
    return b.u.d > 0;
  }
  /* LTfloatint */
  if (intfitsf(b.u.i)) return a.u.d < (double)b.u.i;
  int64_t fi;
  if (flt2int(floor(a.u.d), &fi)) return fi < b.u.i;
  return a.u.d < 0;
}

static pod_gval numint(double d) { /* pushnumint */
  int64_t n;
  if (flt2int(d, &n)) return mkint(n);
  return mkflt(d);
}

static int arith_int(pod_graph_op op, int64_t m, int64_t n, pod_gval *out,
                     pod_err *err) {
  uint64_t um = (uint64_t)m, un = (uint64_t)n;
  switch (op) {
    case POD_G_ADD:
      *out = mkint((int64_t)(um + un));
      return POD_OK;
    case POD_G_SUB:
      *out = mkint((int64_t)(um - un));
      return POD_OK;
    case POD_G_MUL:
      *out = mkint((int64_t)(um * un));
      return POD_OK;
    case POD_G_IDIV: /* luaV_idiv */
      if (un + 1u <= 1u) {
        if (n == 0)
          return pod_err_set(err, POD_EINVAL, "eval",
                             "attempt to divide by zero");
        *out = mkint((int64_t)(0u - um));
        return POD_OK;
      } else {
        int64_t q = m / n;
        if ((m ^ n) < 0 && m % n != 0) q -= 1;
        *out = mkint(q);
        return POD_OK;
      }
    case POD_G_MOD: /* luaV_mod */
      if (un + 1u <= 1u) {
        if (n == 0)
          return pod_err_set(err, POD_EINVAL, "eval",
                             "attempt to perform 'n%%0'");
        *out = mkint(0);
        return POD_OK;
      } else {
        int64_t r = m % n;
        if (r != 0 && (r ^ n) < 0) r += n;
        *out = mkint(r);
        return POD_OK;
      }
    case POD_G_UNM:
      *out = mkint((int64_t)(0u - um));
      return POD_OK;
    default:
      return POD_EINVAL;
  }
}

/* A pure float operation on x, y (luai_num*); *known = 0 if op is not one */
static double arith_flt(pod_graph_op op, double x, double y, int *known) {
  *known = 1;
  switch (op) {
    case POD_G_ADD:
      return x + y;
    case POD_G_SUB:
      return x - y;
    case POD_G_MUL:
      return x * y;
    case POD_G_DIV:
      return x / y;
    case POD_G_IDIV:
      return floor(x / y);
    case POD_G_MOD: { /* luai_nummod */
      double m = fmod(x, y);
      if ((m > 0) ? y < 0 : (m < 0 && y > 0)) m += y;
      return m;
    }
    case POD_G_POW:
      return y == 2 ? x * x : pow(x, y);
    case POD_G_SQRT:
      return sqrt(x);
    case POD_G_EXP:
      return exp(x);
    case POD_G_LOG:
      return log(x);
    case POD_G_LOG2:
      return log2(x);
    case POD_G_LOG10:
      return log10(x);
    case POD_G_LOGB:
      return log(x) / log(y);
    case POD_G_SIN:
      return sin(x);
    case POD_G_COS:
      return cos(x);
    case POD_G_TAN:
      return tan(x);
    case POD_G_ASIN:
      return asin(x);
    case POD_G_ACOS:
      return acos(x);
    case POD_G_ATAN:
      return atan2(x, y);
    default:
      *known = 0;
      return 0;
  }
}

int pod_graph_arith(pod_graph_op op, pod_gval a, pod_gval b, pod_gval *out,
                    pod_err *err) {
  switch (op) {
    case POD_G_ADD:
    case POD_G_SUB:
    case POD_G_MUL:
    case POD_G_IDIV:
    case POD_G_MOD:
      if (a.isint && b.isint) return arith_int(op, a.u.i, b.u.i, out, err);
      break;
    case POD_G_UNM:
      if (a.isint) return arith_int(op, a.u.i, 0, out, err);
      *out = mkflt(-a.u.d);
      return POD_OK;
    default:
      break;
  }
  double x = tonum(a), y = tonum(b);
  int known;
  double r = arith_flt(op, x, y, &known);
  if (known) {
    *out = mkflt(r);
    return POD_OK;
  }
  switch (op) {
    case POD_G_FLOOR:
      *out = a.isint ? a : numint(floor(x));
      break;
    case POD_G_CEIL:
      *out = a.isint ? a : numint(ceil(x));
      break;
    case POD_G_ABS:
      if (a.isint)
        *out = mkint(a.u.i < 0 ? (int64_t)(0u - (uint64_t)a.u.i) : a.u.i);
      else
        *out = mkflt(fabs(x));
      break;
    case POD_G_FMOD:
      if (a.isint && b.isint) {
        int64_t d = b.u.i;
        if ((uint64_t)d + 1u <= 1u) {
          if (d == 0)
            return pod_err_set(err, POD_EINVAL, "eval",
                               "bad argument #2 to 'fmod' (zero)");
          *out = mkint(0);
        } else {
          *out = mkint(a.u.i % d);
        }
      } else {
        *out = mkflt(fmod(x, y));
      }
      break;
    case POD_G_MIN:
      *out = lua_lt(b, a) ? b : a;
      break;
    case POD_G_MAX:
      *out = lua_lt(a, b) ? b : a;
      break;
    default:
      return pod_err_set(err, POD_EINVAL, "op", "unknown graph operation %d",
                         (int)op);
  }
  return POD_OK;
}
