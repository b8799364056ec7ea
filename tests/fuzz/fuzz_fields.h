/*
** fuzz_fields.h: helpers shared by the kernel fuzz targets.
**
** A fuzz input is read as a stream of bytes (fz_*).  Configs are mutated
** field by field through the lpod_type tables the Lua bindings use, so
** every numeric, boolean and enum field of a kernel's config (nested specs
** included) is reachable with values in range, at its edges, non-finite,
** or arbitrary bit patterns.  Header-only; single-threaded.
*/
#ifndef FUZZ_FIELDS_H
#define FUZZ_FIELDS_H

#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lpod.h"

typedef struct fz {
  const uint8_t *p;
  size_t n;
} fz;

static uint8_t fz_u8(fz *f) {
  if (f->n == 0) return 0;
  f->n--;
  return *f->p++;
}

static uint64_t fz_u64(fz *f) {
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | fz_u8(f);
  return v;
}

/* A double: arbitrary bits, a special value, or a value spread over
** [lo, hi] (log-spread when the range is wide). */
static double fz_double(fz *f, double lo, double hi) {
  static const double special[] = {
      0.0,     -0.0,     1.0,      -1.0,      0.5,     2.0,
      NAN,     -NAN,     INFINITY, -INFINITY, DBL_MAX, -DBL_MAX,
      DBL_MIN, 4.9e-324, 1e-300,   1e300,     1e18,    1e-9};
  uint8_t mode = fz_u8(f) % 4;
  if (mode == 0) {
    uint64_t bits = fz_u64(f);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
  }
  if (mode == 1)
    return special[fz_u8(f) % (sizeof special / sizeof special[0])];
  double u = (double)(fz_u64(f) >> 11) / 9007199254740992.0; /* [0, 1) */
  if (!(lo < hi) || !isfinite(lo) || !isfinite(hi)) return lo + u;
  if (mode == 2 && lo >= 0 && hi / (lo > 0 ? lo : 1e-9) > 1e3) {
    double a = log(lo > 0 ? lo : 1e-9), b = log(hi);
    return exp(a + u * (b - a));
  }
  return lo + u * (hi - lo);
}

static int fz_int(fz *f, double lo, double hi) {
  static const int special[] = {
      0,  1,  -1,      2,       3,       7,           8,      9,
      64, 72, 1 << 20, INT_MAX, INT_MIN, INT_MAX - 1, 1 << 24};
  uint8_t mode = fz_u8(f) % 3;
  if (mode == 0) return (int)(uint32_t)fz_u64(f);
  if (mode == 1)
    return special[fz_u8(f) % (sizeof special / sizeof special[0])];
  double lo2 = lo < -1e9 ? -1e9 : lo, hi2 = hi > 1e9 ? 1e9 : hi;
  uint32_t span = (uint32_t)(hi2 - lo2 + 1);
  if (span == 0) return (int)lo2;
  /* small values more often: layouts and counts are small numbers */
  uint32_t r = (uint32_t)fz_u64(f);
  if (fz_u8(f) & 1) r %= 64;
  return (int)(lo2 + (double)(r % span));
}

/* One numeric/bool/enum field of a (possibly nested) config. */
typedef struct fz_field {
  char name[64];
  size_t offset;
  lpod_ftype type;
  double min, max;
  int nnames; /* enums */
} fz_field;

typedef struct fz_fields {
  fz_field f[256];
  int n;
} fz_fields;

static void fz_collect(fz_fields *out, const lpod_type *t, size_t base,
                       const char *prefix) {
  for (const lpod_field *fl = t->fields; fl->name; fl++) {
    char name[64];
    snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "",
             fl->name);
    if (fl->type == LPOD_STRUCT) {
      fz_collect(out, fl->sub, base + fl->offset, name);
      continue;
    }
    if (fl->type == LPOD_STRING || out->n >= 256) continue;
    fz_field *z = &out->f[out->n++];
    snprintf(z->name, sizeof z->name, "%s", name);
    z->offset = base + fl->offset;
    z->type = fl->type;
    /* the bound is core's (lpod_field_bound); none for enums and strings */
    const pod_field *b = lpod_field_bound(t, fl);
    z->min = b ? b->min : 0.0;
    z->max = b ? b->max : 0.0;
    z->nnames = 0;
    if (fl->names)
      while (fl->names[z->nnames]) z->nnames++;
  }
}

/* Apply one mutation from the input: pick a field, write a value. */
static void fz_mutate(fz *f, const fz_fields *fs, void *cfg) {
  const fz_field *z = &fs->f[fz_u8(f) % fs->n];
  char *p = (char *)cfg + z->offset;
  switch (z->type) {
    case LPOD_DOUBLE: {
      double d = fz_double(f, z->min, z->max);
      memcpy(p, &d, sizeof d);
      break;
    }
    case LPOD_INT: {
      int v = fz_int(f, z->min, z->max);
      memcpy(p, &v, sizeof v);
      break;
    }
    case LPOD_BOOL: {
      int v = (fz_u8(f) % 4 == 0) ? (int)(uint32_t)fz_u64(f) : fz_u8(f) & 1;
      memcpy(p, &v, sizeof v);
      break;
    }
    case LPOD_ENUM: {
      uint8_t b = fz_u8(f);
      int v =
          b < 240 ? b % (z->nnames ? z->nnames : 1) : (int)(uint32_t)fz_u64(f);
      memcpy(p, &v, sizeof v);
      break;
    }
    default:
      break;
  }
#ifdef FZ_TRACE /* replaying a finding: which field got which value */
  if (z->type == LPOD_DOUBLE) {
    double d;
    memcpy(&d, p, sizeof d);
    fprintf(stderr, "fz: %s = %.17g\n", z->name, d);
  } else {
    int v;
    memcpy(&v, p, sizeof v);
    fprintf(stderr, "fz: %s = %d\n", z->name, v);
  }
#endif
}

/* Name of the first double field of cfg that is not finite, or NULL;
** fields whose name starts with `skip` (may be NULL) are not looked at. */
static const char *fz_nonfinite_except(const fz_fields *fs, const void *cfg,
                                       const char *skip) {
  for (int i = 0; i < fs->n; i++) {
    if (fs->f[i].type != LPOD_DOUBLE) continue;
    if (skip && strncmp(fs->f[i].name, skip, strlen(skip)) == 0) continue;
    double d;
    memcpy(&d, (const char *)cfg + fs->f[i].offset, sizeof d);
    if (!isfinite(d)) return fs->f[i].name;
  }
  return NULL;
}

static const char *fz_nonfinite(const fz_fields *fs, const void *cfg) {
  return fz_nonfinite_except(fs, cfg, NULL);
}

/* Report a property violation and crash, so libFuzzer saves the input. */
#define FZ_FAIL(...)                             \
  do {                                           \
    fprintf(stderr, "fuzz property violated: "); \
    fprintf(stderr, __VA_ARGS__);                \
    fprintf(stderr, "\n");                       \
    abort();                                     \
  } while (0)

#endif
