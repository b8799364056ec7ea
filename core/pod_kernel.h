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

/* A kernel's prepared block form (optional): what of fn does not depend
** on the sampled fields done once per grid point, the rest for a block of
** samples.  prepare(cfg, binds, nb, prep) fills prep (prep_size bytes)
** for samples that overwrite only the double fields binds[0..nb-1] of
** cfg, and returns POD_OK, or POD_ENOTSUP when it cannot (a sampled field
** the preparation reads, an int bind, a config fn would refuse, ...):
** the evaluator then calls fn per sample, so prepare never fails a
** study.  eval(prep, cfg, n, x, y) evaluates n samples, row j of x (nb
** doubles at x + j * nb, in binds' order) giving row j of y (nmetrics
** doubles at y + j * nmetrics), on cfg, a scratch copy of the prepared
** config that eval may overwrite at the binds (only there); the metrics
** must be fn's on cfg with the row written at the binds, bit for bit.
** It returns how many leading samples it evaluated: a sample it does not
** (a value out of a field's bounds, a time that fails) goes to fn, which
** gives its metrics or its error, and the block resumes after it.  prep
** is read only by eval (thread-safe); a kernel lists its block form in
** mc_kernel.c's table. */
typedef struct pod_kernel_block {
  const pod_kernel *kernel;
  size_t prep_size;
  int (*prepare)(const void *cfg, const pod_bind *binds, int nb, void *prep);
  int (*eval)(const void *prep, void *cfg, int n, const double *x, double *y);
} pod_kernel_block;

#endif
