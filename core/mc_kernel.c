/*
** mc_kernel.c: the built-in evaluator running a registered C kernel
** over a plan's grid with bound parameters (see pod_mc.h), through the
** kernel's prepared block form where it has one (pod_kernel.h).
*/
#include "mc_int.h"

#include "pod_coll.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- built-in kernel evaluator ---- */

/* The kernels' prepared block forms. */
static const pod_kernel_block *const BLOCKS[] = {&pod_coll_kernel_block};

typedef struct kernel_ev {
  const pod_kernel *k;
  unsigned char *cfgs; /* G * cfg_size */
  int G, P;
  pod_bind *binds;
  int *sel, nsel; /* NULL: every metric in order; else these indices */
  const pod_kernel_block *kb; /* NULL: none */
  unsigned char *preps;       /* G * kb->prep_size */
  unsigned char *prepped;     /* G: 1 when kb->prepare took grid point g */
} kernel_ev;

/* Worker scratch: the grid point whose config it holds, the config, then
** (with a selection) every metric of a block of samples.  The kernel only
** reads its config and every bound field is written per sample, so the
** config is copied from the grid point's base only when the grid point
** changes (a chunk keeps one), not per sample. */
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
  size_t n =
      kev_align(sizeof(kev_worker)) + kev_align(ke->k->cfg_size) +
      (ke->sel ? sizeof(double) * (size_t)ke->k->nmetrics * (size_t)POD_MC_BLOCK
               : 0);
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

/* The worker's config holding grid point `grid`'s base. */
static unsigned char *kev_cfg_at(const kernel_ev *ke, kev_worker *w, int grid) {
  size_t sz = ke->k->cfg_size;
  unsigned char *cfg = kev_cfg(w);
  if (w->grid != grid) {
    memcpy(cfg, ke->cfgs + (size_t)grid * sz, sz);
    w->grid = grid;
  }
  return cfg;
}

/* One sample through k->fn: x written at the binds, every metric into
** `all`. */
static int kev_fn(const kernel_ev *ke, unsigned char *cfg, const double *x,
                  double *all, pod_err *err) {
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
  return ke->k->fn(cfg, all, err);
}

/* n samples' every metric into `all` (n x nmetrics): the prepared block
** form where the grid point has one, each sample it leaves to fn; *nok
** the samples done before a failing one. */
static int kev_all(const kernel_ev *ke, kev_worker *w, int grid, int n,
                   const double *x, double *all, int *nok, pod_err *err) {
  unsigned char *cfg = kev_cfg_at(ke, w, grid);
  const size_t P = (size_t)ke->P, K = (size_t)ke->k->nmetrics;
  const void *prep = ke->kb && ke->prepped[grid]
                         ? ke->preps + (size_t)grid * ke->kb->prep_size
                         : NULL;
  int j = 0;
  while (j < n) {
    if (prep) j += ke->kb->eval(prep, cfg, n - j, x + j * P, all + j * K);
    if (j == n) break;
    int rc = kev_fn(ke, cfg, x + j * P, all + j * K, err);
    if (rc) {
      *nok = j;
      return rc;
    }
    j++;
  }
  *nok = n;
  return POD_OK;
}

/* kev_all's metrics as the plan's (the selection's), n <= POD_MC_BLOCK
** at a time through the worker's scratch. */
static int kev_block(void *ud, void *worker, int grid, int n, const double *x,
                     double *y, int *nok, pod_err *err) {
  const kernel_ev *ke = ud;
  kev_worker *w = worker;
  if (!ke->sel) return kev_all(ke, w, grid, n, x, y, nok, err);
  const size_t K = (size_t)ke->k->nmetrics, P = (size_t)ke->P;
  double *all = (double *)(void *)(kev_cfg(w) + kev_align(ke->k->cfg_size));
  for (int j0 = 0; j0 < n; j0 += POD_MC_BLOCK) {
    int nb = n - j0 < POD_MC_BLOCK ? n - j0 : POD_MC_BLOCK, done = 0;
    int rc = kev_all(ke, w, grid, nb, x + (size_t)j0 * P, all, &done, err);
    for (int j = 0; j < done; j++)
      for (int m = 0; m < ke->nsel; m++)
        y[(size_t)(j0 + j) * (size_t)ke->nsel + (size_t)m] =
            all[(size_t)j * K + (size_t)ke->sel[m]];
    if (rc) {
      *nok = j0 + done;
      return rc;
    }
  }
  *nok = n;
  return POD_OK;
}

static int kev_eval(void *ud, void *worker, int grid, const double *x,
                    double *y, pod_err *err) {
  int nok;
  return kev_block(ud, worker, grid, 1, x, y, &nok, err);
}

/* The kernel's block form, prepared at every grid point it takes (none:
** no block form). */
static int kev_prepare(kernel_ev *ke) {
  for (size_t i = 0; i < sizeof BLOCKS / sizeof BLOCKS[0]; i++)
    if (BLOCKS[i]->kernel == ke->k) ke->kb = BLOCKS[i];
  if (!ke->kb) return POD_OK;
  ke->preps = malloc(ke->kb->prep_size * (size_t)ke->G + 1);
  ke->prepped = calloc((size_t)ke->G, 1);
  if (!ke->preps || !ke->prepped) return POD_ENOMEM;
  for (int g = 0; g < ke->G; g++)
    ke->prepped[g] =
        ke->kb->prepare(ke->cfgs + (size_t)g * ke->k->cfg_size, ke->binds,
                        ke->P,
                        ke->preps + (size_t)g * ke->kb->prep_size) == POD_OK;
  return POD_OK;
}

static void kev_free(kernel_ev *ke) {
  if (!ke) return;
  free(ke->cfgs);
  free(ke->binds);
  free(ke->sel);
  free(ke->preps);
  free(ke->prepped);
  free(ke);
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
  if (sel && (ke->sel = malloc(sizeof(int) * (size_t)nsel)) != NULL) {
    memcpy(ke->sel, sel, sizeof(int) * (size_t)nsel);
    ke->nsel = nsel;
  }
  if (!ke->cfgs || !ke->binds || (sel && !ke->sel)) {
    kev_free(ke);
    return POD_ENOMEM;
  }
  memcpy(ke->cfgs, base_cfgs, k->cfg_size * (size_t)G);
  if (nparams) memcpy(ke->binds, binds, sizeof(pod_bind) * (size_t)nparams);
  if (kev_prepare(ke) != POD_OK) {
    kev_free(ke);
    return POD_ENOMEM;
  }
  out->ud = ke;
  out->worker_new = kev_worker_new;
  out->worker_free = kev_worker_free;
  out->eval = kev_eval;
  if (ke->kb) out->eval_block = kev_block;
  return POD_OK;
}

void pod_mc_kernel_evaluator_free(pod_mc_evaluator *ev) {
  if (!ev || ev->eval != kev_eval) return;
  kev_free(ev->ud);
  memset(ev, 0, sizeof *ev);
}
