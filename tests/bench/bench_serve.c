/*
** bench_serve.c: serving and RL-step evaluations per second on one core
** through the C API.  Counts: pod_serve_eval calls on four published
** deployments (S2-S4 of tests/validation: DeepSeek-V3 decode/prefill on
** H100, H800 and GB200 NVL72, Llama 3 70B TP8); pod_rl_eval calls (one
** full step: rollout with its tail, scoring, training, sync, reliability)
** on a dense and an MoE RL config; pod_rl_pair_eval calls (two RL steps,
** NVL72 against HGX B200, the unit of scenarios/where_nvl72_wins.lua).
** Prints one line per figure.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pod_rl.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int serve(pod_serve_cfg *c, const char *sys, const char *model, int gpus,
                 int batch) {
  pod_serve_cfg_init(c);
  if (pod_hw_system_preset(sys, &c->system) != POD_OK) return 1;
  if (pod_model_preset(model, &c->model) != POD_OK) return 1;
  c->gpus = gpus;
  c->batch = batch;
  c->input_tokens = 2000;
  c->output_tokens = 100;
  if (c->model.experts > 0) {
    c->redundant_experts = 32;
    c->two_batch_overlap = 1;
  }
  return 0;
}

static int rl(pod_rl_cfg *c, const char *sys, const char *model, int gpus,
              int inst, pod_layout l) {
  pod_rl_cfg_init(c);
  if (serve(&c->rollout, sys, model, inst, 0)) return 1;
  c->rollout.parallel.ep = c->rollout.model.experts > 0 ? inst : 0;
  c->rollout.parallel.tp = c->rollout.model.experts > 0 ? 1 : inst;
  if (c->rollout.model.experts > 0) c->rollout.redundant_experts = 64;
  c->train.system = c->rollout.system;
  c->train.model = c->rollout.model;
  c->train.gpus = gpus;
  c->train.dtype = POD_DTYPE_FP8;
  c->train.parallel = l;
  c->prompts = 2 * gpus;
  if (pod_rel_failures_preset(
          c->rollout.system.domain_gpus > 8 ? "gb200_nvl72" : "llama3_h100",
          &c->rel.failures) != POD_OK)
    return 1;
  c->rel.node_gpus = c->rollout.system.domain_gpus > 8 ? 4 : 8;
  c->rel.domain_gpus = c->rollout.system.domain_gpus;
  return 0;
}

#define TIMED(label, unit, expr)                                       \
  do {                                                                 \
    long n_ = 0;                                                       \
    int bad_ = 0;                                                      \
    double t0_ = now_s(), t1_ = t0_;                                   \
    while (t1_ - t0_ < 1.0) {                                          \
      for (int rep_ = 0; rep_ < 200; rep_++, n_++) bad_ |= (expr);     \
      t1_ = now_s();                                                   \
    }                                                                  \
    if (bad_) {                                                        \
      fprintf(stderr, "bench_serve: %s failed\n", label);              \
      return 1;                                                        \
    }                                                                  \
    printf("%s: %.3g %s/s (1 core)\n", label, n_ / (t1_ - t0_), unit); \
  } while (0)

int main(void) {
  pod_serve_cfg sv[4];
  int bad = 0;
  bad |= serve(&sv[0], "hgx_h100", "deepseek_v3", 72, 72 * 256);
  bad |= serve(&sv[1], "hgx_h800", "deepseek_v3", 144, 144 * 88);
  bad |= serve(&sv[2], "gb200_nvl72", "deepseek_v3", 48, 48 * 256);
  bad |= serve(&sv[3], "hgx_h100", "llama3_70b", 8, 0);
  sv[3].parallel.tp = 8;
  sv[1].spec_tokens = 1;
  sv[1].spec_accept = 0.85;
  sv[0].disaggregated = 1;
  sv[0].prefill.gpus = 32;
  pod_rl_cfg r[2];
  /* layout: tp pp vp dp ep etp cp mb zero recompute uneven */
  bad |=
      rl(&r[0], "hgx_b200", "llama3_70b", 512, 8,
         (pod_layout){2, 1, 1, 0, 1, 1, 1, 1, 3, 0, 0, {0, 0, 0, 0, 0}, {0}});
  bad |=
      rl(&r[1], "gb200_nvl72", "deepseek_v3", 512, 64,
         (pod_layout){2, 1, 1, 0, 64, 1, 1, 1, 2, 0, 0, {0, 0, 0, 0, 0}, {0}});
  pod_rl_pair_cfg pair;
  pod_rl_pair_cfg_init(&pair);
  pair.a = r[1];
  bad |=
      rl(&pair.b, "hgx_b200", "deepseek_v3", 512, 64,
         (pod_layout){2, 16, 1, 0, 8, 1, 1, 1, 1, 0, 1, {0, 0, 0, 0, 0}, {0}});
  if (bad) {
    fprintf(stderr, "bench_serve: preset missing\n");
    return 1;
  }
  pod_serve_result sr;
  pod_rl_result rr;
  pod_rl_pair_result pr;
  pod_err e;
  for (int i = 0; i < 2; i++)
    if (pod_rl_eval(&r[i], &rr, &e) != POD_OK) {
      fprintf(stderr, "bench_serve: rl %d: %s: %s\n", i, e.field, e.msg);
      return 1;
    }
  if (pod_rl_pair_eval(&pair, &pr, &e) != POD_OK) {
    fprintf(stderr, "bench_serve: pair: %s: %s\n", e.field, e.msg);
    return 1;
  }
  int k = 0;
  TIMED("serve_eval_c", "evals", pod_serve_eval(&sv[k++ & 3], &sr, NULL));
  TIMED("rl_eval_c", "RL steps", pod_rl_eval(&r[k++ & 1], &rr, NULL));
  TIMED("rl_pair_eval_c", "paired samples", pod_rl_pair_eval(&pair, &pr, NULL));
  return 0;
}
