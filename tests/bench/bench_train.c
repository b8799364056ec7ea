/*
** bench_train.c: training-step evaluations per second on one core through
** the C API (pod_train_eval on the published configurations T1-T6), the
** layout search's rate, the wall time of a full DeepSeek-V3 layout
** search on 16,384 GB300 GPUs, and the flagship study's four training
** steps (scenarios/moe_nvl72_vs_hgx.lua's layouts, its sampled fields
** moved on every call) through pod_train_eval_specs_checked and through
** pod_train_eval_prepared, alternating rounds.  Prints one line per
** figure.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pod_train.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int mk(pod_train_cfg *c, const char *sys, const char *model, int gpus,
              int seq, int gbs, pod_dtype dt, pod_layout l) {
  pod_train_cfg_init(c);
  if (pod_hw_system_preset(sys, &c->system) != POD_OK) return 1;
  if (pod_model_preset(model, &c->model) != POD_OK) return 1;
  c->gpus = gpus;
  c->seq = seq;
  c->global_batch = gbs;
  c->dtype = dt;
  c->parallel = l;
  return 0;
}

#define NCASES 6
#define NFLAG 4
#define NSAMP 64

/* The flagship's steps per second through the checked entry (prepared
** 0) or the prepared one (1): one call per (case, sample), the sampled
** fields (efficiency, DP overlap, imbalance, link efficiencies) moved. */
static double flag_rate(pod_train_cfg *fc, pod_train_prep *fp, int prepared,
                        int *failures) {
  pod_train_result r;
  long evals = 0;
  double t0 = now_s(), t1 = t0, sink = 0.0;
  while (t1 - t0 < 0.25) {
    for (int s = 0; s < NSAMP; s++)
      for (int k = 0; k < NFLAG; k++) {
        pod_train_cfg *c = &fc[k];
        c->eff_scale = 0.85 + 0.2 * s / NSAMP;
        c->overlap_dp = 0.6 + 0.35 * s / NSAMP;
        c->model.imbalance = 1.0 + 0.4 * s / NSAMP;
        c->system.out_eff = 0.8 + 0.16 * s / NSAMP;
        if (k % 2 == 0) c->system.up_eff = 0.7 + 0.2 * s / NSAMP;
        int rc = prepared ? pod_train_eval_prepared(c, &fp[k], &r, NULL)
                          : pod_train_eval_specs_checked(c, &r, NULL);
        if (rc != POD_OK) (*failures)++;
        sink += r.step_s;
      }
    evals += NSAMP * NFLAG;
    t1 = now_s();
  }
  if (sink < 0) (*failures)++;
  return evals / (t1 - t0);
}

/* The flagship study's layouts (its search at imbalance 1.4, printed by
** `podsim run scenarios/moe_nvl72_vs_hgx.lua`), on 16,384 GPUs, the
** Megatron-Bridge 26.06 release; MXFP8 on GB200, current scaling on H100. */
static int flagship(int *failures) {
  pod_train_cfg fc[NFLAG];
  pod_train_prep fp[NFLAG];
  int bad = 0;
  bad |= mk(&fc[0], "gb200_nvl72", "deepseek_v3", 16384, 4096, 15360,
            POD_DTYPE_FP8,
            (pod_layout){8, 1, 1, 0, 64, 2, 2, 15, 1, 0, 0, {0}, {0}});
  bad |=
      mk(&fc[1], "hgx_h100", "deepseek_v3", 16384, 4096, 15360, POD_DTYPE_FP8,
         (pod_layout){2, 8, 4, 0, 32, 1, 1, 1, 1, 0, 1, {0}, {0}});
  bad |= mk(&fc[2], "gb200_nvl72", "llama4_maverick", 16384, 8192, 2048,
            POD_DTYPE_FP8,
            (pod_layout){4, 1, 1, 0, 64, 8, 2, 1, 1, 0, 0, {0}, {0}});
  bad |= mk(&fc[3], "hgx_h100", "llama4_maverick", 16384, 8192, 2048,
            POD_DTYPE_FP8,
            (pod_layout){4, 1, 1, 0, 128, 8, 2, 1, 1, 0, 0, {0}, {0}});
  for (int k = 0; k < NFLAG && !bad; k++) {
    fc[k].fp8_recipe = k % 2 == 0 ? POD_FP8_BLOCK : POD_FP8_CURRENT;
    bad |=
        pod_train_sw_preset("megatron_bridge_26_06", &fc[k].software) != POD_OK;
    pod_err e;
    if (!bad && pod_train_prepare(&fc[k], &fp[k], &e) != POD_OK) {
      fprintf(stderr, "bench_train: flagship case %d: %s: %s\n", k, e.field,
              e.msg);
      bad = 1;
    }
  }
  if (bad) return 1;
  double best[2] = {0.0, 0.0};
  for (int round = 0; round < 5; round++)
    for (int p = 0; p < 2; p++) {
      double v = flag_rate(fc, fp, p, failures);
      if (v > best[p]) best[p] = v;
    }
  printf(
      "train_flagship_checked: %.2f M steps/s (1 core; the flagship's 4 "
      "steps through pod_train_eval_specs_checked, sampled fields moved, "
      "best of 5 alternating rounds)\n",
      best[0] / 1e6);
  printf(
      "train_flagship_prepared: %.2f M steps/s (1 core; the same through "
      "pod_train_eval_prepared): %.2fx\n",
      best[1] / 1e6, best[1] / best[0]);
  return 0;
}

int main(void) {
  pod_train_cfg cases[NCASES];
  int bad = 0;
  /* layout: tp pp vp dp ep etp cp mb zero recompute uneven */
  bad |=
      mk(&cases[0], "gb200_nvl72", "llama4_maverick", 128, 8192, 1024,
         POD_DTYPE_FP8,
         (pod_layout){1, 2, 12, 0, 64, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  bad |= mk(
      &cases[1], "hgx_h100", "llama4_maverick", 512, 8192, 1024, POD_DTYPE_FP8,
      (pod_layout){4, 1, 1, 0, 128, 4, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  bad |=
      mk(&cases[2], "hgx_h100", "llama3_70b", 2048, 8192, 4096, POD_DTYPE_FP8,
         (pod_layout){4, 4, 5, 0, 1, 1, 2, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  bad |=
      mk(&cases[3], "hgx_h100", "llama3_405b", 1024, 8192, 512, POD_DTYPE_BF16,
         (pod_layout){8, 8, 8, 0, 1, 1, 2, 1, 1, 0, 1, {0, 0, 0, 0, 0}, {0}});
  bad |= mk(
      &cases[4], "gb300_nvl72", "deepseek_v3", 256, 4096, 4096, POD_DTYPE_FP8,
      (pod_layout){1, 2, 8, 0, 32, 1, 1, 1, 1, 0, 1, {0, 0, 0, 0, 0}, {0}});
  bad |=
      mk(&cases[5], "hgx_h100", "mixtral_8x7b", 64, 4096, 256, POD_DTYPE_BF16,
         (pod_layout){2, 1, 1, 0, 8, 1, 1, 1, 1, 1, 0, {0, 0, 0, 0, 0}, {0}});
  if (bad) {
    fprintf(stderr, "bench_train: preset missing\n");
    return 1;
  }
  pod_train_result r;
  double sink = 0.0;
  long evals = 0;
  int failures = 0;
  double t0 = now_s(), t1 = t0;
  while (t1 - t0 < 1.0) {
    for (int rep = 0; rep < 20000; rep++) {
      if (pod_train_eval(&cases[rep % NCASES], &r, NULL) != POD_OK) failures++;
      sink += r.step_s;
    }
    evals += 20000;
    t1 = now_s();
  }
  printf("train_eval_c: %.2f M evals/s (1 core)\n", evals / (t1 - t0) / 1e6);
  if (flagship(&failures)) return 1;

  /* Full search, DeepSeek-V3 on 16,384 GB300 (GBS 16,384 x 4,096). */
  pod_train_cfg base;
  bad |=
      mk(&base, "gb300_nvl72", "deepseek_v3", 16384, 4096, 16384, POD_DTYPE_FP8,
         (pod_layout){1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, {0, 0, 0, 0, 0}, {0}});
  pod_train_search_opts o;
  pod_train_search_opts_init(&o);
  pod_train_search_item top[10];
  pod_train_search_stats st;
  int n = 0;
  pod_err err;
  double s0 = now_s();
  int rc = pod_train_search(&base, &o, top, 10, &n, &st, &err);
  double s1 = now_s();
  if (rc != POD_OK) {
    fprintf(stderr, "bench_train: search failed: %s: %s\n", err.field, err.msg);
    return 1;
  }
  /* What each figure counts: a memory check is one (layout, zero,
  ** recompute) combination whose memory was computed; a timed layout is
  ** one that fits and went through pod_train_eval. */
  printf(
      "train_search_memory_checks: %.0f memory checks/s (1 core; %ld "
      "candidate layouts, %ld (layout, zero, recompute) memory checks)\n",
      st.checked / (s1 - s0), st.candidates, st.checked);
  printf(
      "train_search_timed_layouts: %.0f timed layouts/s (1 core; %ld "
      "layouts fit and were timed with pod_train_eval)\n",
      st.evaluated / (s1 - s0), st.evaluated);
  printf(
      "train_search_deepseek_v3_16384_gb300: %.3f s wall (1 core), best "
      "%.0f tokens/s/GPU at tp%d pp%d vp%d cp%d ep%d etp%d mb%d zero%d %s\n",
      s1 - s0, n ? top[0].tokens_per_s_per_gpu : 0.0, n ? top[0].layout.tp : 0,
      n ? top[0].layout.pp : 0, n ? top[0].layout.vp : 0,
      n ? top[0].layout.cp : 0, n ? top[0].layout.ep : 0,
      n ? top[0].layout.etp : 0, n ? top[0].layout.microbatch : 0,
      n ? top[0].layout.zero : 0,
      n ? pod_train_recompute_name(top[0].layout.recompute) : "-");
  if (failures || sink < 0)
    fprintf(stderr, "bench_train: %d failures\n", failures);
  return failures != 0;
}
