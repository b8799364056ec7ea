/*
** bench_rel.c: speed of the reliability models on flagship-sized runs.
** Prints one line per figure: simulated runs/s (1 core) for 16,384 H100
** with the Llama 3 preset (~500 interruptions a run) and for 16,384 GB200
** NVL72 GPUs (64 of 72 per rack, hot spares), analytic evals/s of both
** through pod_rel_eval and through pod_rel_eval_prepared (the failure
** list's sums prepared once, as a study's graph does).
*/
#include <stdio.h>
#include <time.h>

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
  return 0;
}
