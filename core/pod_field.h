/*
** pod_field.h: numeric field descriptors, the one home of each checked
** struct's bounds (issue 10).
**
** A module that checks a config struct exports a table of pod_field
** entries {name, offset, type, min, max, open, unit}, one per numeric
** member, terminated by an entry with name NULL.  The module's check walks
** the table (pod_field_check_all) before its cross-field rules, and the
** Lua bindings read the same table to range-check a value as they read it
** (lua/lpod.c), so a bound is written once.
**
** Messages: "must be in [0, 1] (got 2)", "must be > 0 (got -1)", "must be
** a finite number (got nan)", "must be an integer (got 1.5)", "must be 0
** or 1 (got 3)"; err->field is prefix + name ("gpu.hbm_gb").
**
** Everything here is pure, reentrant and thread-safe.
*/
#ifndef POD_FIELD_H
#define POD_FIELD_H

#include <float.h>
#include <stddef.h>

#include "pod_err.h"

typedef enum pod_ftype {
  POD_F_DOUBLE = 0, /* double in the range */
  POD_F_INT = 1,    /* int in the range */
  POD_F_BOOL = 2,   /* int holding 0 or 1 (min 0, max 1) */
  POD_F_INT64 = 3,  /* int64_t in the range (bounds within +-2^53) */
  POD_F_UINT64 = 4  /* uint64_t in the range (bounds within 2^53) */
} pod_ftype;

/* pod_field.open bits: the bound itself is excluded. */
enum { POD_F_MIN_OPEN = 1, POD_F_MAX_OPEN = 2 };

typedef struct pod_field {
  const char *name; /* member name (dotted for nested members); NULL ends */
  size_t offset;    /* offsetof(struct, member) */
  pod_ftype type;
  double min, max;  /* inclusive unless `open` says otherwise; max may be
                    ** HUGE_VAL (values must still be finite) */
  int open;         /* POD_F_MIN_OPEN | POD_F_MAX_OPEN */
  const char *unit; /* "GB/s per direction", shown in help and docs */
} pod_field;

/* Table entries: POD_FIELD_D(T, member, min, max, open, unit) for a
** double, POD_FIELD_I(T, member, min, max, unit) for an int,
** POD_FIELD_B(T, member, unit) for a 0/1 flag, POD_FIELD_I64 and
** POD_FIELD_U64 (same arguments as POD_FIELD_I) for int64_t and uint64_t
** members (a count of samples, a seed): their values pass through a
** double, so the bounds must stay within 2^53. */
#define POD_FIELD_D(T, m, lo, hi, open, unit) \
  { #m, offsetof(T, m), POD_F_DOUBLE, (lo), (hi), (open), (unit) }
#define POD_FIELD_I(T, m, lo, hi, unit) \
  { #m, offsetof(T, m), POD_F_INT, (lo), (hi), 0, (unit) }
#define POD_FIELD_B(T, m, unit) \
  { #m, offsetof(T, m), POD_F_BOOL, 0, 1, 0, (unit) }
#define POD_FIELD_I64(T, m, lo, hi, unit) \
  { #m, offsetof(T, m), POD_F_INT64, (lo), (hi), 0, (unit) }
#define POD_FIELD_U64(T, m, lo, hi, unit) \
  { #m, offsetof(T, m), POD_F_UINT64, (lo), (hi), 0, (unit) }
#define POD_FIELD_END \
  { NULL, 0, POD_F_DOUBLE, 0, 0, 0, NULL }

/* v in [lo, hi] with the ends `open` excludes, and finite: for screens
** generated with constant bounds, which the compiler folds.  NaN fails
** every comparison and a finite bound stops +-inf; only an infinite bound
** costs the v - v test.  Branch-free on the value. */
static inline int pod_field_in(double v, double lo, double hi, int open) {
  int lo_ok = (open & POD_F_MIN_OPEN) ? v > lo : v >= lo;
  int hi_ok = (open & POD_F_MAX_OPEN) ? v < hi : v <= hi;
  int fin = (lo >= -DBL_MAX && hi <= DBL_MAX) ? 1 : (v - v == 0.0);
  return lo_ok & hi_ok & fin;
}

/* A bound list as an X-macro, X(kind, member, min, max, open, unit) with
** kind DOUBLE, INT, BOOL, INT64 or UINT64, gives both the table and a
** screen with the bounds as constants (for checks on every kernel
** evaluation):
**   #define E(k, m, lo, hi, open, unit) \
**     POD_FIELD_X_ENTRY(T, k, m, lo, hi, open, unit)
**   const pod_field t[] = {LIST(E) POD_FIELD_END};
**   #define S(k, m, lo, hi, open, unit) POD_FIELD_X_SCREEN(x, k, m, lo, hi,
*open)
**   static int t_ok(const T *x) { return 1 LIST(S); } */
#define POD_FIELD_X_ENTRY(T, k, m, lo, hi, open, unit) \
  {#m, offsetof(T, m), POD_F_##k, (lo), (hi), (open), (unit)},
#define POD_FIELD_X_SCREEN(x, k, m, lo, hi, open) \
  &POD_FIELD_SCREEN_##k((x)->m, (lo), (hi), (open))
#define POD_FIELD_SCREEN_DOUBLE(v, lo, hi, open) pod_field_in(v, lo, hi, open)
#define POD_FIELD_SCREEN_INT(v, lo, hi, open) (((v) >= (lo)) & ((v) <= (hi)))
#define POD_FIELD_SCREEN_BOOL(v, lo, hi, open) ((unsigned)(v) <= 1u)
#define POD_FIELD_SCREEN_INT64(v, lo, hi, open) (((v) >= (lo)) & ((v) <= (hi)))
#define POD_FIELD_SCREEN_UINT64(v, lo, hi, open) (((v) >= (lo)) & ((v) <= (hi)))

/* The member's value as a double (an integer member converted). */
double pod_field_get(const pod_field *f, const void *base);

/* 1 when v (as read from the member) satisfies f: finite, in range,
** integral for ints, 0/1 for flags. */
int pod_field_ok(const pod_field *f, double v);

/* Fill *err for value v that fails f, naming prefix + f->name and the
** bound; returns POD_EINVAL.  prefix may be NULL. */
int pod_field_error(const pod_field *f, double v, const char *prefix,
                    pod_err *err);

/* The bound as text, "[0, 1]", "(0, inf)", "0 or 1". */
void pod_field_range(const pod_field *f, char *buf, size_t n);

/* Check every member of the struct at base against the table; the first
** failure fills *err (field prefix + name).  POD_OK or POD_EINVAL. */
int pod_field_check_all(const pod_field *table, const void *base,
                        const char *prefix, pod_err *err);

/* A result figure (a double member at `offset`) screened by
** pod_field_check_result: finite, and > 0 when `positive`, else >= 0. */
typedef struct pod_result_field {
  const char *name;
  size_t offset;
  int positive;
} pod_result_field;
#define POD_RESULT_FIELD(type, m, pos) \
  { #m, offsetof(type, m), pos }

/* Screen the n result figures of the struct at base: the first
** non-finite one, then the first out of sign, fills *err with POD_ERANGE
** naming it (an infinite time makes a rate 0: the cause is named first).
** POD_OK when all pass. */
int pod_field_check_result(const pod_result_field *tab, size_t n,
                           const void *base, pod_err *err);

/* The entry named `name` (or at `offset`); NULL when none. */
const pod_field *pod_field_find(const pod_field *table, const char *name);
const pod_field *pod_field_at(const pod_field *table, size_t offset);

/* Enum name tables (NULL-terminated, indexed by the enum): names[v] for v
** in [0, n), else "?"; and the index of `name` (POD_ENOENT when absent or
** NULL, *out untouched then).  The modules' _name/_parse use these. */
const char *pod_field_enum_name(const char *const *names, int n, int v);
int pod_field_enum_parse(const char *const *names, const char *name, int *out);

#endif
