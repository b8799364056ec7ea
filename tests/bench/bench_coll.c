/*
** bench_coll.c: collective evaluations per second on one core through the
** C API (pod_coll_eval with algo=auto, and the built-in evaluator), over
** a mix of systems, ops, rank counts and sizes.  No allocation on the
** path.  Prints one line per figure and runs for about two seconds of
** CPU time.
*/
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "pod_coll.h"
#include "pod_hw.h"

/* CPU time of this thread: the figure is per core-second, and stays
** meaningful when other processes share the machine. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

#define NCASES 64

/* A training step's collectives on one checked system: 12 calls, all-
** reduces and reduce-scatters / all-gathers across domains and
** all-to-alls inside, through pod_coll_eval_checked (way 0) or
** pod_coll_time_checked with the step's ring graphs kept (way 1, the
** graphs zeroed every step as the training step does).  Rounds
** alternate the two ways; prints calls per second of each, returns the
** failed calls. */
static int step_mix(const pod_system *sys, const char *name, int n_dp, int r,
                    double *sink) {
  static const pod_coll_op OPS[12] = {
      POD_COLL_ALL_TO_ALL,     POD_COLL_ALL_TO_ALL,     POD_COLL_ALL_GATHER,
      POD_COLL_REDUCE_SCATTER, POD_COLL_ALL_REDUCE,     POD_COLL_ALL_REDUCE,
      POD_COLL_REDUCE_SCATTER, POD_COLL_REDUCE_SCATTER, POD_COLL_ALL_GATHER,
      POD_COLL_ALL_GATHER,     POD_COLL_ALL_REDUCE,     POD_COLL_SEND_RECV};
  int failures = 0;
  double secs[2] = {0, 0}, calls[2] = {0, 0};
  for (int round = 0; round < 8; round++)
    for (int way = 0; way < 2; way++) {
      double t0 = now_s();
      for (int step = 0; step < 20000; step++) {
        pod_coll_graphs gs;
        gs.n = 0;
        for (int i = 0; i < 12; i++) {
          /* inside the domain for the all-to-alls, else data parallel */
          int n = i < 4 ? r : i == 11 ? 2 : n_dp >> (i & 1);
          int rpd = i == 11 ? 1 : r;
          double S = 1048576.0 * (double)(1 + ((step + i) & 255));
          double t = 0.0;
          int rc;
          if (way == 0) {
            pod_coll_args a = {n, rpd, S, POD_ALGO_AUTO};
            pod_coll_result res;
            rc = pod_coll_eval_checked(sys, OPS[i], &a, &res, NULL);
            t = res.time_s;
          } else {
            rc = pod_coll_time_checked(sys, OPS[i], n, rpd, S, &gs, &t, NULL);
          }
          if (rc != POD_OK) failures++;
          *sink += t;
        }
      }
      secs[way] += now_s() - t0;
      calls[way] += 20000.0 * 12.0;
    }
  double rt[2] = {calls[0] / secs[0], calls[1] / secs[1]};
  printf(
      "coll_step_mix_%s: %.1f M calls/s pod_coll_eval_checked, %.1f M "
      "calls/s pod_coll_time_checked with the step's graphs kept "
      "(%.2fx; 1 core, 12 calls per step, alternating rounds)\n",
      name, rt[0] / 1e6, rt[1] / 1e6, rt[1] / rt[0]);
  return failures;
}

/* The same 12 calls as a prepared training step times them: op, ranks
** and bytes fixed per call, up_eff and out_eff sampled per step.  Way 0:
** pod_coll_time_checked with the graphs kept (the step before); way 1:
** pod_coll_time_prepared on the calls prepared once.  Rounds alternate;
** every time of way 1 is compared byte for byte with way 0's on the same
** sample (a mismatch counts as a failure). */
static int step_prepared(const pod_system *base, const char *name, int n_dp,
                         int r, double *sink) {
  static const pod_coll_op OPS[12] = {
      POD_COLL_ALL_TO_ALL,     POD_COLL_ALL_TO_ALL,     POD_COLL_ALL_GATHER,
      POD_COLL_REDUCE_SCATTER, POD_COLL_ALL_REDUCE,     POD_COLL_ALL_REDUCE,
      POD_COLL_REDUCE_SCATTER, POD_COLL_REDUCE_SCATTER, POD_COLL_ALL_GATHER,
      POD_COLL_ALL_GATHER,     POD_COLL_ALL_REDUCE,     POD_COLL_SEND_RECV};
  int ns[12], rs[12];
  double Ss[12];
  pod_coll_prep prep[12];
  int failures = 0;
  for (int i = 0; i < 12; i++) {
    ns[i] = i < 4 ? r : i == 11 ? 2 : n_dp >> (i & 1);
    rs[i] = i == 11 ? 1 : r;
    Ss[i] = 1048576.0 * (double)(1 + 37 * i);
    if (pod_coll_prepare(base, OPS[i], ns[i], rs[i], Ss[i], &prep[i], NULL) !=
        POD_OK)
      failures++;
  }
  enum { STEPS = 20000 };
  double secs[2] = {0, 0}, calls[2] = {0, 0};
  static double keep[STEPS][12];
  for (int round = 0; round < 8; round++)
    for (int way = 0; way < 2; way++) {
      pod_system sys = *base;
      double t0 = now_s();
      for (int step = 0; step < STEPS; step++) {
        /* the sampled efficiencies, a different pair every step */
        sys.up_eff = base->up_eff * (0.7 + 0.3 * (double)(step & 127) / 127.0);
        sys.out_eff = base->out_eff * (0.6 + 0.4 * (double)(step % 97) / 97.0);
        pod_coll_graphs gs;
        gs.n = 0;
        for (int i = 0; i < 12; i++) {
          double t = 0.0;
          int rc = way == 0 ? pod_coll_time_checked(&sys, OPS[i], ns[i], rs[i],
                                                    Ss[i], &gs, &t, NULL)
                            : pod_coll_time_prepared(&prep[i], &sys, Ss[i], &t,
                                                     NULL);
          if (rc != POD_OK) failures++;
          if (way == 0)
            keep[step][i] = t;
          else if (memcmp(&keep[step][i], &t, sizeof t) != 0)
            failures++;
          *sink += t;
        }
      }
      secs[way] += now_s() - t0;
      calls[way] += (double)STEPS * 12.0;
    }
  double rt[2] = {calls[0] / secs[0], calls[1] / secs[1]};
  printf(
      "coll_step_prepared_%s: %.1f M calls/s pod_coll_time_checked with the "
      "step's graphs kept, %.1f M calls/s pod_coll_time_prepared (%.2fx; 1 "
      "core, 12 calls per step, up_eff and out_eff sampled per step, times "
      "identical, alternating rounds)\n",
      name, rt[0] / 1e6, rt[1] / 1e6, rt[1] / rt[0]);
  return failures;
}

int main(void) {
  /* A mix of configurations, built once. */
  pod_coll_cfg cases[NCASES];
  const char *systems[] = {"hgx_h100", "gb200_nvl72", "hgx_b200",
                           "gb300_nvl72"};
  const pod_coll_op ops[] = {POD_COLL_ALL_REDUCE, POD_COLL_ALL_TO_ALL,
                             POD_COLL_ALL_GATHER, POD_COLL_REDUCE_SCATTER};
  const int ranks[] = {8, 64, 72, 576};
  for (int i = 0; i < NCASES; i++) {
    memset(&cases[i], 0, sizeof cases[i]);
    if (pod_hw_system_preset(systems[i % 4], &cases[i].system) != POD_OK)
      return 1;
    cases[i].op = ops[(i / 4) % 4];
    int n = ranks[(i / 16) % 4];
    int dom = cases[i].system.domain_gpus;
    if (n % (n < dom ? n : dom) != 0) n = dom * 8;
    cases[i].args =
        (pod_coll_args){n, 0, 1024.0 * (1 << (i % 20)), POD_ALGO_AUTO};
  }

  double sink = 0.0;
  long evals = 0;
  int failures = 0;
  pod_coll_result res;
  double t0 = now_s(), t1 = t0;
  while (t1 - t0 < 1.0) {
    for (int rep = 0; rep < 100000; rep++) {
      pod_coll_cfg *c = &cases[rep & (NCASES - 1)];
      if (pod_coll_eval(&c->system, c->op, &c->args, &res, NULL) != POD_OK)
        failures++;
      sink += res.time_s;
    }
    evals += 100000;
    t1 = now_s();
  }
  printf("coll_eval_c: %.1f M evals/s (1 core)\n", evals / (t1 - t0) / 1e6);

  double m[3];
  evals = 0;
  t0 = t1 = now_s();
  while (t1 - t0 < 1.0) {
    for (int rep = 0; rep < 100000; rep++) {
      if (pod_coll_kernel.fn(&cases[rep & (NCASES - 1)], m, NULL) != POD_OK)
        failures++;
      sink += m[0];
    }
    evals += 100000;
    t1 = now_s();
  }
  printf("coll_kernel_c: %.1f M evals/s (1 core)\n", evals / (t1 - t0) / 1e6);
  /* the price of the system check: a 64-rank all-to-all on GB200 NVL72
  ** and HGX H100 over 64 sizes, through pod_coll_eval and through
  ** pod_coll_eval_checked (the system already validated) */
  pod_system sys[2];
  if (pod_hw_system_preset("gb200_nvl72", &sys[0]) != POD_OK ||
      pod_hw_system_preset("hgx_h100", &sys[1]) != POD_OK)
    return 1;
  double rate[2];
  for (int way = 0; way < 2; way++) {
    evals = 0;
    t0 = t1 = now_s();
    while (t1 - t0 < 1.0) {
      for (int rep = 0; rep < 100000; rep++) {
        pod_coll_args a = {64, 0, 4096.0 * (double)(1 + (rep & 63)) * 1021.0,
                           POD_ALGO_AUTO};
        const pod_system *sy = &sys[(rep >> 6) & 1];
        int rc = way == 0
                     ? pod_coll_eval(sy, POD_COLL_ALL_TO_ALL, &a, &res, NULL)
                     : pod_coll_eval_checked(sy, POD_COLL_ALL_TO_ALL, &a, &res,
                                             NULL);
        if (rc != POD_OK) failures++;
        sink += res.time_s;
      }
      evals += 100000;
      t1 = now_s();
    }
    rate[way] = evals / (t1 - t0);
  }
  printf(
      "coll_a2a_eval: %.1f M evals/s (1 core; pod_coll_eval, 64-rank "
      "all-to-all)\n",
      rate[0] / 1e6);
  printf(
      "coll_a2a_eval_checked: %.1f M evals/s (1 core; pod_coll_eval_checked, "
      "the system already validated: %.2fx)\n",
      rate[1] / 1e6, rate[1] / rate[0]);
  /* a training step's mix: DP over 2,048 ranks on HGX H100 (8 per node)
  ** and GB200 NVL72 (64 per rack) */
  failures += step_mix(&sys[1], "hgx_h100", 2048, 8, &sink);
  failures += step_mix(&sys[0], "gb200_nvl72", 2048, 64, &sink);
  failures += step_prepared(&sys[1], "hgx_h100", 2048, 8, &sink);
  failures += step_prepared(&sys[0], "gb200_nvl72", 2048, 64, &sink);
  if (failures != 0 || !(sink > 0.0)) {
    fprintf(stderr, "bench_coll: %d failed evaluations\n", failures);
    return 1;
  }
  return 0;
}
