/*
** mc_kernel.c: the built-in evaluator running a registered C kernel
** over a plan's grid with bound parameters (see pod_mc.h).
*/
#include "mc_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- built-in kernel evaluator ---- */

typedef struct kernel_ev {
  const pod_kernel *k;
  unsigned char *cfgs; /* G * cfg_size */
  int G, P;
  pod_bind *binds;
  int *sel, nsel; /* NULL: every metric in order; else these indices */
} kernel_ev;

/* Worker scratch: the grid point whose config it holds, the config, then
** (with a selection) every metric.  The kernel only reads its config and
** every bound field is written per sample, so the config is copied from
** the grid point's base only when the grid point changes (a chunk keeps
** one), not per sample. */
typedef struct kev_worker {
  int grid; /* -1: no config yet */
} kev_worker;

static size_t kev_align(size_t n) {
  size_t a = sizeof(double);
  return (n + a - 1) / a * a;
}

static unsigned char *kev_cfg(kev_worker *w) {
  return (unsigned char *)w + kev_align(sizeof *w);
}

static void *kev_worker_new(void *ud, pod_err *err) {
  kernel_ev *ke = ud;
  size_t n = kev_align(sizeof(kev_worker)) + kev_align(ke->k->cfg_size) +
             (ke->sel ? sizeof(double) * (size_t)ke->k->nmetrics : 0);
  kev_worker *w = malloc(n);
  if (!w) {
    pod_err_set(err, POD_ENOMEM, "eval", NULL);
    return NULL;
  }
  w->grid = -1;
  return w;
}

static void kev_worker_free(void *ud, void *w) {
  (void)ud;
  free(w);
}

static int kev_eval(void *ud, void *worker, int grid, const double *x,
                    double *y, pod_err *err) {
  const kernel_ev *ke = ud;
  size_t sz = ke->k->cfg_size;
  kev_worker *w = worker;
  unsigned char *cfg = kev_cfg(w);
  if (w->grid != grid) {
    memcpy(cfg, ke->cfgs + (size_t)grid * sz, sz);
    w->grid = grid;
  }
  for (int i = 0; i < ke->P; i++) {
    const pod_bind *b = &ke->binds[i];
    if (b->type == POD_BIND_DOUBLE) {
      memcpy(cfg + b->offset, &x[i], sizeof(double));
    } else {
      double v = round(x[i]);
      if (!(v >= -2147483648.0 && v <= 2147483647.0)) {
        char f[POD_ERR_FIELD_MAX];
        snprintf(f, sizeof f, "binds[%d]", i + 1);
        return pod_err_set(err, POD_ERANGE, f,
                           "value %g does not fit an int field", x[i]);
      }
      int iv = (int)v;
      memcpy(cfg + b->offset, &iv, sizeof(int));
    }
  }
  if (!ke->sel) return ke->k->fn(cfg, y, err);
  double *all = (double *)(void *)(cfg + kev_align(sz));
  int rc = ke->k->fn(cfg, all, err);
  if (rc) return rc;
  for (int m = 0; m < ke->nsel; m++) y[m] = all[ke->sel[m]];
  return POD_OK;
}

int pod_mc_kernel_evaluator(const pod_kernel *k, const void *base_cfgs, int G,
                            const pod_bind *binds, int nparams,
                            pod_mc_evaluator *out) {
  return pod_mc_kernel_evaluator_select(k, base_cfgs, G, binds, nparams, NULL,
                                        0, out);
}

int pod_mc_kernel_evaluator_select(const pod_kernel *k, const void *base_cfgs,
                                   int G, const pod_bind *binds, int nparams,
                                   const int *sel, int nsel,
                                   pod_mc_evaluator *out) {
  memset(out, 0, sizeof *out);
  if (sel) {
    if (!k || nsel < 1) return POD_EINVAL;
    for (int m = 0; m < nsel; m++)
      if (sel[m] < 0 || sel[m] >= k->nmetrics) return POD_EINVAL;
  }
  if (!k || !k->fn || !base_cfgs || G < 1 || nparams < 0 ||
      (nparams > 0 && !binds))
    return POD_EINVAL;
  for (int i = 0; i < nparams; i++) {
    size_t w = binds[i].type == POD_BIND_DOUBLE ? sizeof(double) : sizeof(int);
    if (binds[i].type != POD_BIND_DOUBLE && binds[i].type != POD_BIND_INT)
      return POD_EINVAL;
    if (binds[i].offset > k->cfg_size || k->cfg_size - binds[i].offset < w)
      return POD_EINVAL;
  }
  kernel_ev *ke = calloc(1, sizeof *ke);
  if (!ke) return POD_ENOMEM;
  ke->k = k;
  ke->G = G;
  ke->P = nparams;
  ke->cfgs = malloc(k->cfg_size * (size_t)G + 1);
  ke->binds = malloc(sizeof(pod_bind) * (size_t)(nparams ? nparams : 1));
  if (!ke->cfgs || !ke->binds) {
    free(ke->cfgs);
    free(ke->binds);
    free(ke->sel);
    free(ke);
    return POD_ENOMEM;
  }
  if (sel) {
    ke->sel = malloc(sizeof(int) * (size_t)nsel);
    if (!ke->sel) {
      free(ke->cfgs);
      free(ke->binds);
      free(ke);
      return POD_ENOMEM;
    }
    memcpy(ke->sel, sel, sizeof(int) * (size_t)nsel);
    ke->nsel = nsel;
  }
  memcpy(ke->cfgs, base_cfgs, k->cfg_size * (size_t)G);
  if (nparams) memcpy(ke->binds, binds, sizeof(pod_bind) * (size_t)nparams);
  out->ud = ke;
  out->worker_new = kev_worker_new;
  out->worker_free = kev_worker_free;
  out->eval = kev_eval;
  return POD_OK;
}

void pod_mc_kernel_evaluator_free(pod_mc_evaluator *ev) {
  if (!ev || ev->eval != kev_eval) return;
  kernel_ev *ke = ev->ud;
  if (ke) {
    free(ke->cfgs);
    free(ke->binds);
    free(ke->sel);
    free(ke);
  }
  memset(ev, 0, sizeof *ev);
}
