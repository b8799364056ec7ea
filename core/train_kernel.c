/*
** train_kernel.c: the training-step model as a built-in evaluator
** (pod_train_kernel, pod_train.h): the metrics a sampled pod_train_cfg
** yields, in the order of train_metrics.
*/
#include "pod_train.h"

#include <string.h>

static const char *const train_metrics[] = {
    "step_s",         "tokens_per_s", "tokens_per_s_per_gpu",
    "tflops_per_gpu", "mfu",          "memory_gb",
    "fits",           "compute_s",    "tp_s",
    "cp_s",           "ep_s",         "pp_s",
    "dp_s",           "bubble_s",     "optimizer_s",
    "straggler_s",    "host_s"};

static int train_kernel_fn(const void *cfg, double *v, pod_err *err) {
  pod_train_result r;
  int rc = pod_train_eval((const pod_train_cfg *)cfg, &r, err);
  if (rc != POD_OK) return rc;
  const pod_train_breakdown *b = &r.breakdown;
  double vals[] = {r.step_s,
                   r.tokens_per_s,
                   r.tokens_per_s_per_gpu,
                   r.tflops_per_gpu,
                   r.mfu,
                   r.memory.total_gb,
                   r.fits,
                   b->compute,
                   b->tp,
                   b->cp,
                   b->ep,
                   b->pp,
                   b->dp,
                   b->bubble,
                   b->optimizer,
                   b->straggler,
                   b->host};
  memcpy(v, vals, sizeof vals);
  return POD_OK;
}

const pod_kernel pod_train_kernel = {
    "train", sizeof(pod_train_cfg),
    (int)(sizeof train_metrics / sizeof train_metrics[0]), train_metrics,
    train_kernel_fn};
