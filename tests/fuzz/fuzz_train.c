/*
** fuzz_train.c: pod_train_eval and the train kernel on arbitrary configs:
** a preset system and model with a layout, then fields of pod_train_cfg
** (system, model, layout, efficiencies, overlaps...) overwritten with
** values in range, at the edges, non-finite or arbitrary bits.
** Properties: no crash or UB; a non-finite input is never accepted; POD_OK
** means every number of the result is finite; an error has a message.
*/
#include <gsl/gsl_errno.h>
#include <string.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_train.h"

extern const lpod_type lpod_train_cfg_type;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const pod_train_result *r) {
  const double v[] = {r->step_s,
                      r->tokens_per_s,
                      r->tokens_per_s_per_gpu,
                      r->tflops_per_gpu,
                      r->mfu,
                      r->peak_tflops,
                      r->flops_per_token,
                      r->eff_gemm,
                      r->eff_attn,
                      r->memory.weights_gb,
                      r->memory.grads_gb,
                      r->memory.optimizer_gb,
                      r->memory.activations_gb,
                      r->memory.reserve_gb,
                      r->memory.total_gb,
                      r->breakdown.compute,
                      r->breakdown.tp,
                      r->breakdown.cp,
                      r->breakdown.ep,
                      r->breakdown.pp,
                      r->breakdown.dp,
                      r->breakdown.bubble,
                      r->breakdown.optimizer,
                      r->breakdown.straggler};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i]))
      FZ_FAIL("pod_train_eval: POD_OK with result value %zu = %g", i, v[i]);
  if (!(r->step_s > 0))
    FZ_FAIL("pod_train_eval: POD_OK with step_s = %g", r->step_s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fz_fields fs;
  static int nsys, nmod;
  if (fs.n == 0) {
    pod_init();
    fz_collect(&fs, &lpod_train_cfg_type, 0, "");
    while (pod_hw_system_at(nsys, NULL)) nsys++;
    while (pod_model_at(nmod, NULL)) nmod++;
  }
  static const int gpus[] = {8, 16, 64, 72, 128, 512, 1024, 16384};
  static const int seqs[] = {2048, 4096, 8192, 131072};
  fz f = {data, size};
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  c.system = *pod_hw_system_at(fz_u8(&f) % nsys, NULL);
  c.model = *pod_model_at(fz_u8(&f) % nmod, NULL);
  c.gpus = gpus[fz_u8(&f) % 8];
  c.seq = seqs[fz_u8(&f) % 4];
  c.global_batch = c.gpus * (1 + fz_u8(&f) % 4);
  c.dtype = (pod_dtype)(fz_u8(&f) % 3);
  uint8_t lay = fz_u8(&f);
  c.parallel.tp = 1 << (lay & 3);
  c.parallel.pp = 1 << ((lay >> 2) & 3);
  c.parallel.microbatch = 1;
  int nmut = fz_u8(&f) % 8;
  for (int i = 0; i < nmut && f.n > 0; i++) fz_mutate(&f, &fs, &c);

  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_train_eval(&c, &r, &e);
  const char *bad = fz_nonfinite(&fs, &c);
  if (rc == POD_OK) {
    if (bad) FZ_FAIL("pod_train_eval accepted a non-finite %s", bad);
    check_result(&r);
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("pod_train_eval: status %d without a message", rc);
  }
  /* The prepared step (train_prep.c): prepares exactly when the config
  ** evaluates; with the sampled fields then moved (the config's own
  ** arbitrarily, the system's and model's within their checks, as the
  ** contract asks), the same status and result bytes as pod_train_eval. */
  pod_train_prep prep;
  pod_err ep;
  pod_err_clear(&ep);
  int rp = pod_train_prepare(&c, &prep, &ep);
  if ((rp == POD_OK) != (rc == POD_OK))
    FZ_FAIL("pod_train_prepare status %d, eval status %d", rp, rc);
  if (rp == POD_OK) {
    pod_train_cfg c2 = c;
    c2.eff_scale = fz_u8(&f) / 100.0;
    c2.overlap_dp = fz_u8(&f) / 200.0;
    c2.overlap_ep = fz_u8(&f) / 255.0;
    c2.jitter = fz_u8(&f) / 400.0;
    c2.model.imbalance = 1.0 + fz_u8(&f) / 100.0;
    c2.system.out_eff = (1.0 + fz_u8(&f)) / 256.0;
    c2.system.up_eff = (1.0 + fz_u8(&f)) / 256.0;
    pod_train_result ra, rb;
    memset(&ra, 0, sizeof ra);
    memset(&rb, 0, sizeof rb);
    int sa = pod_train_eval(&c2, &ra, &ep);
    int sb = pod_train_eval_prepared(&c2, &prep, &rb, &ep);
    if (sa != sb) FZ_FAIL("prepared status %d, eval status %d", sb, sa);
    if (sa == POD_OK && memcmp(&ra, &rb, sizeof ra) != 0)
      FZ_FAIL("prepared result differs from pod_train_eval's");
  }
  double m[64];
  pod_err e2;
  pod_err_clear(&e2);
  int rk = pod_train_kernel.fn(&c, m, &e2);
  if ((rk == POD_OK) != (rc == POD_OK))
    FZ_FAIL("kernel status %d, eval status %d", rk, rc);
  if (rk == POD_OK)
    for (int i = 0; i < pod_train_kernel.nmetrics; i++)
      if (!isfinite(m[i]))
        FZ_FAIL("kernel metric %s = %g", pod_train_kernel.metric_names[i],
                m[i]);
  return 0;
}
