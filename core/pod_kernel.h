/*
** pod_kernel.h: the shape every model kernel exposes so that a Monte Carlo
** study can call it per sample without Lua (a "built-in evaluator").
**
** A kernel reads one self-contained config value (no pointers inside, so
** it can be memcpy'd per grid point and have single double/int fields
** overwritten by offset per sample) and writes `nmetrics` doubles in the
** order of `metric_names`.  `fn` must be pure, reentrant and thread-safe.
** Each module exports its kernels as `extern const pod_kernel pod_X_kernel;`
** next to its config struct (e.g. pod_coll_cfg and pod_coll_kernel).
*/
#ifndef POD_KERNEL_H
#define POD_KERNEL_H

#include <stddef.h>

#include "pod_err.h"

typedef struct pod_kernel {
  const char *name; /* "collective", "train", ... */
  size_t cfg_size;  /* sizeof the config struct */
  int nmetrics;
  const char *const *metric_names; /* nmetrics names, snake_case + units */
  int (*fn)(const void *cfg, double *metrics, pod_err *err);
} pod_kernel;

/* Where one sampled value goes inside a config: a double or an int field
** at byte `offset` (ints are rounded to nearest from the sample). */
typedef enum pod_bind_type { POD_BIND_DOUBLE, POD_BIND_INT } pod_bind_type;
typedef struct pod_bind {
  size_t offset;
  pod_bind_type type;
} pod_bind;

#endif
