/*
** bench_coll.c: collective evaluations per second on one core through the
** C API (pod_coll_eval with algo=auto, and the built-in evaluator), over
** a mix of systems, ops, rank counts and sizes.  No allocation on the
** path.  Prints one line per figure and runs for about five seconds of
** CPU time.  Then the price of the checks: a 64-rank all-to-all on GB200
** NVL72 and HGX H100 over 64 sizes through pod_coll_eval, through
** pod_coll_eval_checked (system already validated) and as the same
** arithmetic written inline without any check (the reference; its times
** are verified equal to pod_coll_eval's before timing).
*/
#include <math.h>
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

/* The all-to-all of core/coll.c (direct, 8 peers in flight, Simple and LL,
** path collisions over more than two domains) inline, without checks.
** Constants as in core/coll.c; main() verifies the times match. */
static double a2a_ref(const pod_system *s, int n, double S) {
  const double mib = 1048576.0;
  int r = n < s->domain_gpus ? n : s->domain_gpus, d = n / r;
  double U = s->up_GBps * 1e9 * s->up_eff;
  double O =
      s->nics_per_gpu * s->nic_gbps * 1e9 / 8.0 * s->out_eff / s->oversub;
  double iu = 1.0 / U, io = 1.0 / O;
  if (d > 2 && s->out_collision > 0.0) {
    double miss = pow(1.0 - 1.0 / (d - 1), d - 1);
    io /= 1.0 - s->out_collision * miss;
  }
  double up_l = ceil((r - 1.0) / 8.0) * s->up_latency_us * 1e-6;
  double out_l = ceil((n - (double)r) / 8.0) * s->out_latency_us * 1e-6;
  double ku = (r - 1.0) / n, ko = (n - (double)r) / n;
  double tu = ku * (S + s->up_half_MB * mib) * iu,
         to = ko * (S + s->out_half_MB * mib) * io;
  double simple = 8.4e-6 + up_l + out_l + (tu > to ? tu : to);
  tu = ku * S * iu;
  to = ko * S * io;
  double ll = 6.6e-6 + 0.18 * (up_l + out_l) + (tu > to ? tu : to) / 0.38;
  return ll < simple ? ll : simple;
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
  /* the price of the checks */
  pod_system sys[2];
  if (pod_hw_system_preset("gb200_nvl72", &sys[0]) != POD_OK ||
      pod_hw_system_preset("hgx_h100", &sys[1]) != POD_OK)
    return 1;
  double sizes[NCASES];
  for (int i = 0; i < NCASES; i++) sizes[i] = 4096.0 * pow(1.25, i);
  for (int k = 0; k < 2 * NCASES; k++) {
    pod_coll_args a = {64, 0, sizes[k % NCASES], POD_ALGO_AUTO};
    if (pod_coll_eval(&sys[k / NCASES], POD_COLL_ALL_TO_ALL, &a, &res, NULL) !=
        POD_OK)
      failures++;
    double ref = a2a_ref(&sys[k / NCASES], 64, a.bytes);
    if (!(fabs(ref - res.time_s) <= 1e-9 * res.time_s)) {
      fprintf(stderr,
              "bench_coll: the inline reference differs from pod_coll_eval "
              "(%g vs %g s): update a2a_ref to the model\n",
              ref, res.time_s);
      return 1;
    }
  }
  double rate[3];
  for (int way = 0; way < 3; way++) {
    evals = 0;
    t0 = t1 = now_s();
    while (t1 - t0 < 1.0) {
      for (int rep = 0; rep < 100000; rep++) {
        pod_coll_args a = {64, 0, sizes[rep & (NCASES - 1)], POD_ALGO_AUTO};
        const pod_system *sy = &sys[(rep >> 6) & 1];
        if (way == 0) {
          if (pod_coll_eval(sy, POD_COLL_ALL_TO_ALL, &a, &res, NULL) != POD_OK)
            failures++;
          sink += res.time_s;
        } else if (way == 1) {
          if (pod_coll_eval_checked(sy, POD_COLL_ALL_TO_ALL, &a, &res, NULL) !=
              POD_OK)
            failures++;
          sink += res.time_s;
        } else {
          sink += a2a_ref(sy, 64, a.bytes);
        }
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
      "coll_a2a_eval_checked: %.1f M evals/s (1 core; pod_coll_eval_checked)\n",
      rate[1] / 1e6);
  printf(
      "coll_a2a_unchecked_arithmetic: %.1f M evals/s (1 core; the same formula "
      "inline)\n",
      rate[2] / 1e6);
  printf(
      "coll_a2a_eval_over_unchecked: %.2fx the time of the unchecked "
      "arithmetic "
      "(checked system: %.2fx; target <= 2)\n",
      rate[2] / rate[0], rate[2] / rate[1]);
  if (failures != 0 || !(sink > 0.0)) {
    fprintf(stderr, "bench_coll: %d failed evaluations\n", failures);
    return 1;
  }
  return 0;
}
