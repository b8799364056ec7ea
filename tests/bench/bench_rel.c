/*
** bench_rel.c: speed of the reliability models on flagship-sized runs.
** Prints one line per figure: simulated runs/s (1 core) for 16,384 H100
** with the Llama 3 preset (~500 interruptions a run) and for 16,384 GB200
** NVL72 GPUs (64 of 72 per rack, hot spares), analytic evals/s of both
** through pod_rel_eval and through pod_rel_eval_prepared (the failure
** list's sums prepared once, as a study's graph does), and the flagship
** study's per-sample pair: both systems' evaluations two samples at a
** time (pod_rel_eval_prepared2, as the traced graph runs them) over
** sampled repair, restart, checkpoint and rate values, and the cost
** model's evaluation the study runs beside each.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "pod_cost.h"
#include "pod_rel.h"

static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static pod_rel_cfg h100(void) {
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  pod_rel_failures_preset("llama3_h100", &c.failures);
  c.active_gpus = 16384;
  c.pool_units = 32;
  c.repair_h = 48.0;
  c.ckpt_s = 20.0;
  c.restart_s = 300.0;
  c.work_h = 60.0 * 24.0; /* ~500 interruptions */
  return c;
}

static pod_rel_cfg nvl72(void) {
  pod_rel_cfg c = h100();
  pod_rel_failures_preset("gb200_nvl72", &c.failures);
  c.node_gpus = 4;
  c.domain_gpus = 72;
  c.spare_per_domain = 8;
  c.pool_units = 2;
  c.pool_scope = POD_REL_DOMAIN;
  c.repair_dist = POD_REL_REPAIR_LOGNORMAL;
  c.repair_sigma = 1.0;
  return c;
}

static void bench_sim(const char *label, const pod_rel_cfg *c, int use_ws) {
  pod_relsim_ws *ws = use_ws ? pod_relsim_ws_new() : NULL;
  pod_relsim_result r;
  double t0 = now_s(), events = 0, sink = 0;
  long n = 0;
  while (now_s() - t0 < 1.0) {
    for (int i = 0; i < 200; i++, n++) {
      if (pod_relsim_run(c, (uint64_t)n, ws, &r, NULL) != POD_OK) {
        fprintf(stderr, "bench_rel: run failed\n");
        return;
      }
      events += r.interruptions;
      sink += r.goodput;
    }
  }
  double dt = now_s() - t0;
  printf(
      "relsim_%s: %.0f runs/s (1 core), %.0f interruptions/run, "
      "%.1f M events/s, mean goodput %.4f\n",
      label, n / dt, events / n, events / dt / 1e6, sink / n);
  pod_relsim_ws_free(ws);
}

/* Analytic evaluations per second of c with the repair time varied. */
static void bench_eval(const char *label, const char *what, pod_rel_cfg *c) {
  pod_rel_result r;
  double t0 = now_s(), sink = 0;
  long n = 0;
  while (now_s() - t0 < 0.5) {
    for (int i = 0; i < 10000; i++, n++) {
      c->repair_h = 24.0 + (double)(i & 63);
      pod_rel_eval(c, &r, NULL);
      sink += r.goodput;
    }
  }
  double dt = now_s() - t0;
  printf("%s: %.2f M evals/s (1 core), %s (checksum %.3f)\n", label,
         n / dt / 1e6, what, sink / n);
}

/* The same through pod_rel_eval_prepared, the failure list's sums
** prepared once (as a study's graph does for a constant list). */
static void bench_prepared(const char *label, const char *what,
                           pod_rel_cfg *c) {
  pod_rel_result r;
  pod_rel_prep pr;
  pod_rel_prepare(&c->failures, &pr);
  double t0 = now_s(), sink = 0;
  long n = 0;
  while (now_s() - t0 < 0.5) {
    for (int i = 0; i < 10000; i++, n++) {
      c->repair_h = 24.0 + (double)(i & 63);
      pod_rel_eval_prepared(c, &pr, &r, NULL);
      sink += r.goodput;
    }
  }
  double dt = now_s() - t0;
  printf("%s: %.2f M evals/s (1 core), %s (checksum %.3f)\n", label,
         n / dt / 1e6, what, sink / n);
}

/* A fixed pseudo-random sequence (xorshift64) for the sampled values. */
static uint64_t rng = 0x9e3779b97f4a7c15ULL;
static double uniform01(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (double)(rng >> 11) * 0x1p-53;
}
static double normal01(void) { /* Box-Muller */
  double u = uniform01() + 0x1p-60, v = uniform01();
  return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

#define NSAMP 4096
/* The flagship's distributions (scenarios/moe_nvl72_vs_hgx.lua): rate
** multipliers, lognormal restart (median 420 s, p90 1200 s) and repair
** (median 24 h, p90 72 h), checkpoint write 20-120 s; the job's
** throughput spread over the training model's range. */
static void flagship_samples(const pod_rel_cfg *c0, int nvl72, pod_rel_cfg *s) {
  for (int i = 0; i < NSAMP; i++) {
    pod_rel_cfg c = *c0;
    double g = (nvl72 ? 0.15 : 0.1) * normal01();
    c.gpu_rate_log10 = c.node_rate_log10 = c.job_rate_log10 = g;
    c.domain_rate_log10 = nvl72 ? -0.5 + 1.5 * uniform01() : g;
    c.restart_s = 420.0 * exp(0.819 * normal01());
    c.repair_h = 24.0 * exp(0.857 * normal01());
    c.ckpt_s = 20.0 + 100.0 * uniform01();
    c.tokens_per_s = 2e7 + 4e7 * uniform01();
    s[i] = c;
  }
}

/* The flagship's reliability evaluations: the two systems' samples in
** pairs through pod_rel_eval_prepared2, then the cost of each. */
static void bench_flagship(const pod_rel_cfg *h0, const pod_rel_cfg *g0) {
  static pod_rel_cfg hs[NSAMP], gs[NSAMP];
  static pod_rel_result hr[NSAMP], gr[NSAMP];
  flagship_samples(h0, 0, hs);
  flagship_samples(g0, 1, gs);
  pod_rel_prep hp, gp;
  pod_rel_prepare_cfg(h0, &hp);
  pod_rel_prepare_cfg(g0, &gp);
  double t0 = now_s(), sink = 0;
  long n = 0;
  int failed;
  while (now_s() - t0 < 0.5) {
    for (int i = 0; i < NSAMP; i += 2, n += 2) {
      if (pod_rel_eval_prepared2(&hs[i], &hs[i + 1], &hp, &hr[i], &hr[i + 1],
                                 &failed, NULL) ||
          pod_rel_eval_prepared2(&gs[i], &gs[i + 1], &gp, &gr[i], &gr[i + 1],
                                 &failed, NULL)) {
        fprintf(stderr, "bench_rel: flagship sample failed\n");
        return;
      }
      sink += hr[i].goodput + gr[i + 1].goodput;
    }
  }
  double dt = now_s() - t0;
  printf(
      "rel_eval_prepared2_flagship: %.2f M samples/s (1 core), both systems "
      "per sample, pod_rel_eval_prepared2 (checksum %.4f)\n",
      n / dt / 1e6, sink / n);
  /* the cost of each, as the study prices a sample's two systems */
  pod_cost_cfg cc;
  pod_cost_cfg_init(&cc);
  cc.tokens_per_s_per_gpu = 2500.0;
  cc.active_gpus = 16384;
  cc.tokens = 14.8e12;
  pod_cost_result cr;
  t0 = now_s();
  n = 0;
  sink = 0;
  while (now_s() - t0 < 0.5) {
    for (int i = 0; i < NSAMP; i++, n++) {
      cc.usd_per_gpu_hour = 2.0 + (double)(i & 15) * 0.05;
      cc.goodput = hr[i].goodput;
      cc.spare_gpus = hr[i].spare_gpus;
      pod_cost_eval(&cc, &cr, NULL);
      sink += cr.usd_total_charged;
      cc.goodput = gr[i].goodput;
      cc.spare_gpus = gr[i].spare_gpus;
      pod_cost_eval(&cc, &cr, NULL);
      sink += cr.usd_per_m_tokens_charged;
    }
  }
  dt = now_s() - t0;
  printf(
      "cost_eval_flagship: %.2f M samples/s (1 core), both systems per "
      "sample, pod_cost_eval (checksum %.4g)\n",
      n / dt / 1e6, sink / n);
}

int main(void) {
  pod_rel_cfg a = h100(), b = nvl72();
  { /* warm up caches and clock before the first figure */
    pod_relsim_result r;
    double t0 = now_s();
    for (uint64_t i = 0; now_s() - t0 < 0.3; i++)
      pod_relsim_run(&a, i, NULL, &r, NULL);
  }
  bench_sim("h100_16k", &a, 1);
  bench_sim("h100_16k_kernel", &a, 0);
  bench_sim("nvl72_16k", &b, 1);

  bench_eval("rel_eval_c", "nvl72 16k", &b);
  bench_prepared("rel_eval_prepared_c", "nvl72 16k, pod_rel_eval_prepared", &b);
  /* the flagship's H100 job: 32 spare nodes, no hot spares (Erlang B of
  ** 32 servers per fixed-point step) */
  a.swap_s = 300.0;
  bench_eval("rel_eval_c_h100", "h100 16k, 32-node pool", &a);
  bench_prepared("rel_eval_prepared_c_h100",
                 "h100 16k, 32-node pool, pod_rel_eval_prepared", &a);
  { /* the flagship's two systems as the study sets them */
    pod_rel_cfg h = h100(), g = nvl72();
    h.swap_s = g.swap_s = 300.0;
    g.repair_dist = POD_REL_REPAIR_EXP;
    g.repair_sigma = 0.0;
    h.work_h = g.work_h = 0.0;
    h.tokens = g.tokens = 14.8e12;
    bench_flagship(&h, &g);
  }
  return 0;
}
