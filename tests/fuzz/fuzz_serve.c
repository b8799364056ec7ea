/*
** fuzz_serve.c: pod_serve_eval, pod_serve_max_batch and the serve kernel
** on arbitrary configs: a preset system and model with an instance size
** and a layout, then fields of pod_serve_cfg (system, model, layouts,
** lengths, efficiencies, overlaps...) overwritten through the Lua type
** table with values in range, at the edges, non-finite or arbitrary bits.
** Properties: no crash or UB; a non-finite input is never accepted; POD_OK
** means every number of the result is finite, none negative, the step,
** the pass and the rates positive, the batch in [1, max_batch] and
** pod_serve_max_batch agreeing; an error has a message.  The rest of the
** input, if any, times an expert dispatch (pod_serve_ep_time).
*/
#include <gsl/gsl_errno.h>
#include <string.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_field.h"
#include "pod_serve.h"

extern const lpod_type lpod_serve_cfg_type;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_result(const pod_serve_result *r) {
  const double v[] = {r->prefill_tokens_per_s,
                      r->prefill_tokens_per_s_per_gpu,
                      r->prefill_pass_s,
                      r->ttft_s,
                      r->kv_transfer_s,
                      r->decode_tokens_per_s,
                      r->decode_tokens_per_s_per_gpu,
                      r->tpot_s,
                      r->tokens_per_step,
                      r->kv_bytes_per_token,
                      r->kv_gb_per_seq,
                      r->experts_touched,
                      r->clock,
                      r->offload_gb,
                      r->output_tokens_per_s_per_gpu,
                      r->requests_per_s_per_gpu,
                      r->prefill_gpu_share,
                      r->usd_per_m_output,
                      r->memory.weights_gb,
                      r->memory.kv_gb,
                      r->memory.reserve_gb,
                      r->memory.total_gb,
                      r->memory.prefill_weights_gb,
                      r->step.attn,
                      r->step.dense,
                      r->step.expert,
                      r->step.tp,
                      r->step.ep,
                      r->step.pp,
                      r->step.overhead,
                      r->step.act,
                      r->step.draft,
                      r->step.host,
                      r->step.total,
                      r->pass.gemm,
                      r->pass.attn,
                      r->pass.comm,
                      r->pass.overhead,
                      r->pass.act,
                      r->pass.ep_sm,
                      r->pass.kv_out,
                      r->pass.offload,
                      r->pass.total};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i]) || v[i] < 0)
      FZ_FAIL("pod_serve_eval: POD_OK with result value %zu = %g", i, v[i]);
  const double pos[] = {r->prefill_tokens_per_s,
                        r->prefill_pass_s,
                        r->ttft_s,
                        r->decode_tokens_per_s,
                        r->tpot_s,
                        r->tokens_per_step,
                        r->step.total,
                        r->pass.total,
                        r->clock,
                        r->requests_per_s_per_gpu};
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
    if (!(pos[i] > 0))
      FZ_FAIL("pod_serve_eval: POD_OK with positive value %zu = %g", i, pos[i]);
  if (r->batch < 1 || r->batch > r->max_batch)
    FZ_FAIL("pod_serve_eval: POD_OK with batch %d, max_batch %d", r->batch,
            r->max_batch);
  if (r->prefill_gpu_share > 1.0)
    FZ_FAIL("pod_serve_eval: prefill_gpu_share %g above 1",
            r->prefill_gpu_share);
}

/* pod_serve_ep_time on the config's system (within or beyond its checks)
** with arguments in their bounds (pod_serve_ep_args), at the edges,
** non-finite or arbitrary: POD_OK means finite, non-negative arguments
** were given and the time is finite and not negative. */
static void ep_time(fz *f, const pod_system *sys) {
  const pod_field *a = pod_serve_ep_args;
  int ep = fz_int(f, a[0].min, a[0].max);
  int top_k = fz_int(f, a[1].min, a[1].max);
  double tokens = fz_double(f, a[2].min, a[2].max);
  double row = fz_double(f, a[3].min, a[3].max);
  int experts = fz_int(f, a[4].min, a[4].max);
  uint8_t k = fz_u8(f);
  double ll = fz_double(f, 0, 1e3), llup = fz_double(f, 0, 1e3);
  double cast = (k & 4) ? fz_double(f, 0, 1) : 0.0;
  double t = -1.0;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_serve_ep_time(sys, ep, top_k, tokens, row, k % 2, (k >> 1) & 1,
                             ll, llup, experts, cast, &t, &e);
  if (rc != POD_OK) {
    if (e.msg[0] == '\0')
      FZ_FAIL("pod_serve_ep_time: status %d without a message", rc);
    return;
  }
  const double in[] = {tokens, row, ll, llup, cast};
  for (size_t i = 0; i < sizeof in / sizeof in[0]; i++)
    if (!isfinite(in[i]))
      FZ_FAIL("pod_serve_ep_time accepted a non-finite argument %zu", i);
  if (!isfinite(t) || t < 0)
    FZ_FAIL("pod_serve_ep_time: POD_OK with time %g", t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fz_fields fs;
  static int nsys, nmod;
  if (fs.n == 0) {
    pod_init();
    fz_collect(&fs, &lpod_serve_cfg_type, 0, "");
    while (pod_hw_system_at(nsys, NULL)) nsys++;
    while (pod_model_at(nmod, NULL)) nmod++;
  }
  static const int gpus[] = {1, 2, 4, 8, 16, 32, 72, 144};
  static const double lens[] = {128, 1000, 4096, 32768};
  fz f = {data, size};
  pod_serve_cfg c;
  pod_serve_cfg_init(&c);
  c.system = *pod_hw_system_at(fz_u8(&f) % nsys, NULL);
  c.model = *pod_model_at(fz_u8(&f) % nmod, NULL);
  c.gpus = gpus[fz_u8(&f) % 8];
  c.input_tokens = lens[fz_u8(&f) % 4];
  c.output_tokens = lens[fz_u8(&f) % 4];
  c.dtype = (pod_dtype)(fz_u8(&f) % 3);
  uint8_t lay = fz_u8(&f);
  c.parallel.tp = 1 << (lay & 3);
  c.parallel.pp = 1 << ((lay >> 2) & 1);
  c.batch = (lay & 0x80) ? 0 : 1 + fz_u8(&f);
  if (lay & 0x40) {
    c.disaggregated = 1;
    c.prefill.gpus = gpus[fz_u8(&f) % 8];
  }
  int nmut = fz_u8(&f) % 8;
  for (int i = 0; i < nmut && f.n > 0; i++) fz_mutate(&f, &fs, &c);

  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_serve_eval(&c, &r, &e);
  const char *bad = fz_nonfinite(&fs, &c);
  if (rc == POD_OK) {
    if (bad) FZ_FAIL("pod_serve_eval accepted a non-finite %s", bad);
    check_result(&r);
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("pod_serve_eval: status %d without a message", rc);
  }
  /* the largest batch without timing: the same as the evaluation's */
  int mb = -1;
  pod_err em;
  pod_err_clear(&em);
  int rm = pod_serve_max_batch(&c, &mb, &em);
  if (rm != POD_OK && em.msg[0] == '\0')
    FZ_FAIL("pod_serve_max_batch: status %d without a message", rm);
  if (rc == POD_OK && (rm != POD_OK || mb != r.max_batch))
    FZ_FAIL("pod_serve_max_batch status %d, %d; eval's max_batch %d", rm, mb,
            r.max_batch);
  double m[64];
  pod_err e2;
  pod_err_clear(&e2);
  int rk = pod_serve_kernel.fn(&c, m, &e2);
  if (rk != rc) FZ_FAIL("kernel status %d, eval status %d", rk, rc);
  if (rk == POD_OK)
    for (int i = 0; i < pod_serve_kernel.nmetrics; i++)
      if (!isfinite(m[i]))
        FZ_FAIL("kernel metric %s = %g", pod_serve_kernel.metric_names[i],
                m[i]);
  if (f.n > 0) ep_time(&f, &c.system);
  return 0;
}
