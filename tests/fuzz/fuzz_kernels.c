/*
** fuzz_kernels.c: the cost, reliability and simulate_run built-in
** evaluators on arbitrary configs (a realistic base, then fields of the
** kernel's config overwritten in range, at the edges, non-finite or with
** arbitrary bits).  Properties as for fuzz_coll: no crash or UB, no
** non-finite input accepted, POD_OK means finite metrics, errors carry a
** message.
*/
#include <gsl/gsl_errno.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_cost.h"
#include "pod_rel.h"

extern const lpod_type lpod_cost_cfg_type;
extern const lpod_type lpod_rel_cfg_type;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fz_fields fcost, frel;
  static int nfail;
  if (fcost.n == 0) {
    pod_init();
    fz_collect(&fcost, &lpod_cost_cfg_type, 0, "");
    fz_collect(&frel, &lpod_rel_cfg_type, 0, "");
    while (pod_rel_failures_at(nfail, NULL)) nfail++;
  }
  fz f = {data, size};
  int which = fz_u8(&f) % 3;
  union {
    pod_cost_cfg cost;
    pod_rel_cfg rel;
  } c;
  memset(&c, 0, sizeof c);
  const pod_kernel *k;
  const fz_fields *fs;
  if (which == 0) {
    k = &pod_cost_kernel;
    fs = &fcost;
    pod_cost_cfg_init(&c.cost);
    c.cost.usd_per_gpu_hour = 1 + fz_u8(&f) % 8;
    c.cost.tokens_per_s_per_gpu = 100 + 100 * fz_u8(&f);
    c.cost.active_gpus = 8 << (fz_u8(&f) % 12);
    c.cost.tokens = 1e12;
  } else {
    k = which == 1 ? &pod_rel_kernel : &pod_relsim_kernel;
    fs = &frel;
    pod_rel_cfg_init(&c.rel);
    c.rel.failures = *pod_rel_failures_at(fz_u8(&f) % nfail, NULL);
    c.rel.node_gpus = (fz_u8(&f) & 1) ? 8 : 4;
    c.rel.domain_gpus = c.rel.node_gpus == 8 ? 8 : 72;
    c.rel.active_gpus = c.rel.domain_gpus * (1 + fz_u8(&f) % 64);
    c.rel.repair_h = 4;
    c.rel.ckpt_s = 30;
    c.rel.restart_s = 600;
    c.rel.work_h = 1 + fz_u8(&f) % 100;
    c.rel.u_seed = fz_u8(&f) / 256.0;
  }
  int nmut = fz_u8(&f) % 6;
  for (int i = 0; i < nmut && f.n > 0; i++) fz_mutate(&f, fs, &c);
  double m[64];
  pod_err e;
  pod_err_clear(&e);
  int rc = k->fn(&c, m, &e);
  /* Known, reported (core/cost.c): with usd_per_gpu_hour > 0 the TCO parts
  ** are never read, so a non-finite one is not refused; the result stays
  ** finite.  Everything else must be refused. */
  const char *skip = which == 0 && c.cost.usd_per_gpu_hour > 0 ? "tco." : NULL;
  const char *bad = fz_nonfinite_except(fs, &c, skip);
  if (rc == POD_OK) {
    if (bad) FZ_FAIL("%s kernel accepted a non-finite %s", k->name, bad);
    for (int i = 0; i < k->nmetrics; i++)
      if (!isfinite(m[i]))
        FZ_FAIL("%s kernel: POD_OK with %s = %g", k->name, k->metric_names[i],
                m[i]);
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("%s kernel: status %d without a message", k->name, rc);
  }
  return 0;
}
