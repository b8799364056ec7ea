/*
** serve_kernel.c: the serving model's built-in Monte Carlo evaluator
** (pod_serve_kernel in pod_serve.h): a pod_serve_cfg in, its metrics out.
*/
#include "pod_serve.h"

static const char *const metric_names[] = {"decode_tokens_per_s_per_gpu",
                                           "prefill_tokens_per_s_per_gpu",
                                           "ttft_s",
                                           "tpot_s",
                                           "output_tokens_per_s_per_gpu",
                                           "usd_per_m_output",
                                           "batch",
                                           "max_batch",
                                           "kv_gb_per_seq",
                                           "memory_gb",
                                           "step_s",
                                           "attn_s",
                                           "dense_s",
                                           "expert_s",
                                           "tp_s",
                                           "ep_s"};

static int kernel_fn(const void *cfg, double *x, pod_err *err) {
  pod_serve_result r;
  int rc = pod_serve_eval(cfg, &r, err);
  if (rc != POD_OK) return rc;
  x[0] = r.decode_tokens_per_s_per_gpu;
  x[1] = r.prefill_tokens_per_s_per_gpu;
  x[2] = r.ttft_s;
  x[3] = r.tpot_s;
  x[4] = r.output_tokens_per_s_per_gpu;
  x[5] = r.usd_per_m_output;
  x[6] = r.batch;
  x[7] = r.max_batch;
  x[8] = r.kv_gb_per_seq;
  x[9] = r.memory.total_gb;
  x[10] = r.step.total;
  x[11] = r.step.attn;
  x[12] = r.step.dense;
  x[13] = r.step.expert;
  x[14] = r.step.tp;
  x[15] = r.step.ep;
  return POD_OK;
}

const pod_kernel pod_serve_kernel = {
    "serve", sizeof(pod_serve_cfg),
    (int)(sizeof metric_names / sizeof metric_names[0]), metric_names,
    kernel_fn};
