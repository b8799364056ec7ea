/*
** field.c: numeric field descriptors (see pod_field.h).
*/
#include "pod_field.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

double pod_field_get(const pod_field *f, const void *base) {
  const char *p = (const char *)base + f->offset;
  switch (f->type) {
    case POD_F_DOUBLE: {
      double d;
      memcpy(&d, p, sizeof d);
      return d;
    }
    case POD_F_INT64: {
      int64_t i;
      memcpy(&i, p, sizeof i);
      return (double)i;
    }
    case POD_F_UINT64: {
      uint64_t u;
      memcpy(&u, p, sizeof u);
      return (double)u;
    }
    default: {
      int i;
      memcpy(&i, p, sizeof i);
      return (double)i;
    }
  }
}

/* In [min, max] as `open` says; NaN fails every comparison and +-inf the
** +-DBL_MAX caps, so the value is finite too. */
static int in_bounds(const pod_field *f, double v) {
  double lo = f->min > -DBL_MAX ? f->min : -DBL_MAX;
  double hi = f->max < DBL_MAX ? f->max : DBL_MAX;
  int lo_ok = (f->open & POD_F_MIN_OPEN) ? v > lo : v >= lo;
  int hi_ok = (f->open & POD_F_MAX_OPEN) ? v < hi : v <= hi;
  return lo_ok & hi_ok;
}

int pod_field_ok(const pod_field *f, double v) {
  return in_bounds(f, v) && (f->type == POD_F_DOUBLE || v == floor(v));
}

static const char *fmt_num(char *buf, size_t n, double v) {
  if (isinf(v))
    snprintf(buf, n, "%s", v > 0 ? "inf" : "-inf");
  else
    snprintf(buf, n, "%.10g", v);
  return buf;
}

/* A value that failed f as %.10g, unless that loses an integer field's
** value (1e12 + 1 would read "1e+12"): then in full. */
static const char *fmt_got(const pod_field *f, char *buf, size_t n, double v) {
  snprintf(buf, n, "%.10g", v);
  if (f->type != POD_F_DOUBLE && v == floor(v) &&
      fabs(v) < 9007199254740992.0 && strtod(buf, NULL) != v)
    snprintf(buf, n, "%.0f", v);
  return buf;
}

void pod_field_range(const pod_field *f, char *buf, size_t n) {
  char a[32], b[32];
  if (f->type == POD_F_BOOL) {
    snprintf(buf, n, "0 or 1");
    return;
  }
  snprintf(buf, n, "%s%s, %s%s",
           (f->open & POD_F_MIN_OPEN) || isinf(f->min) ? "(" : "[",
           fmt_num(a, sizeof a, f->min), fmt_num(b, sizeof b, f->max),
           (f->open & POD_F_MAX_OPEN) || isinf(f->max) ? ")" : "]");
}

int pod_field_error(const pod_field *f, double v, const char *prefix,
                    pod_err *err) {
  char path[POD_ERR_FIELD_MAX], a[32], r[80], g[32];
  snprintf(path, sizeof path, "%s%s", prefix ? prefix : "", f->name);
  if (!isfinite(v))
    return pod_err_set(err, POD_EINVAL, path,
                       "must be a finite number (got %s)",
                       isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
  fmt_got(f, g, sizeof g, v);
  if (f->type == POD_F_BOOL)
    return pod_err_set(err, POD_EINVAL, path, "must be 0 or 1 (got %s)", g);
  pod_field_range(f, r, sizeof r);
  if (in_bounds(f, v))
    return pod_err_set(err, POD_EINVAL, path, "must be an integer (got %s)", g);
  if (isinf(f->max))
    return pod_err_set(err, POD_EINVAL, path, "must be %s %s (got %s)",
                       (f->open & POD_F_MIN_OPEN) ? ">" : ">=",
                       fmt_num(a, sizeof a, f->min), g);
  return pod_err_set(err, POD_EINVAL, path, "must be in %s (got %s)", r, g);
}

int pod_field_check_all(const pod_field *table, const void *base,
                        const char *prefix, pod_err *err) {
  /* Screen without branches on the values (the kernels check on every
  ** evaluation); the walk that names the field runs only on a failure.
  ** v - v == 0 is false for NaN and +-inf, so the caps need no DBL_MAX.
  ** An integer member is integral by construction (a 64-bit one may
  ** round on the way to a double, but only beyond 2^53, out of range). */
  const char *b = base;
  int ok = 1;
  for (const pod_field *f = table; f->name; f++) {
    double v;
    if (f->type == POD_F_DOUBLE) {
      memcpy(&v, b + f->offset, sizeof v);
    } else if (f->type == POD_F_INT || f->type == POD_F_BOOL) {
      int i;
      memcpy(&i, b + f->offset, sizeof i);
      v = i;
    } else {
      v = pod_field_get(f, b);
    }
    int lo = (f->open & POD_F_MIN_OPEN) ? v > f->min : v >= f->min;
    int hi = (f->open & POD_F_MAX_OPEN) ? v < f->max : v <= f->max;
    ok &= lo & hi & (v - v == 0.0);
  }
  if (ok) return POD_OK;
  for (const pod_field *f = table; f->name; f++) {
    double v = pod_field_get(f, base);
    if (!pod_field_ok(f, v)) return pod_field_error(f, v, prefix, err);
  }
  return POD_OK; /* not reached: the screen and the walk agree */
}

const pod_field *pod_field_find(const pod_field *table, const char *name) {
  for (const pod_field *f = table; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

const pod_field *pod_field_at(const pod_field *table, size_t offset) {
  for (const pod_field *f = table; f->name; f++)
    if (f->offset == offset) return f;
  return NULL;
}

const char *pod_field_enum_name(const char *const *names, int n, int v) {
  return v >= 0 && v < n ? names[v] : "?";
}

int pod_field_enum_parse(const char *const *names, const char *name, int *out) {
  for (int i = 0; name && names[i]; i++) {
    if (strcmp(name, names[i]) == 0) {
      *out = i;
      return POD_OK;
    }
  }
  return POD_ENOENT;
}

int pod_field_check_result(const pod_result_field *tab, size_t n,
                           const void *base, pod_err *err) {
  for (int pass = 0; pass < 2; pass++)
    for (size_t i = 0; i < n; i++) {
      double v;
      memcpy(&v, (const char *)base + tab[i].offset, sizeof v);
      if (pass == 0 ? isfinite(v) : (tab[i].positive ? v > 0.0 : v >= 0.0))
        continue;
      return pod_err_set(err, POD_ERANGE, tab[i].name,
                         "is %g: the config's figures (a peak, a bandwidth "
                         "or a length at the edge of its bound) overflow the "
                         "model",
                         v);
    }
  return POD_OK;
}
