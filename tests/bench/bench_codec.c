/*
** bench_codec.c: what moving chunk results between processes costs
** (pod_mc.h, serialisation): per chunk of 1024 samples x 4 metrics x 3
** parameters, the encoded size, the encode time, and the merge cost on
** the merging process (decode + pod_mc_merge) next to merging the chunk
** in process (pod_mc_merge alone), with exact quantiles (rows stored) and
** with sketches (no rows).  One thread; best of 5 passes over 256 chunks.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pod_mc.h"

static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int eval(void *ud, void *w, int g, const double *x, double *y,
                pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  y[0] = x[0] + x[1] + g;
  y[1] = x[0] * x[2];
  y[2] = exp(x[1]) - x[2];
  y[3] = x[0] - x[2];
  return POD_OK;
}

#define NCHUNK 256

static pod_mc_plan *plan(int exact) {
  static const char *const pn[] = {"a", "b", "c"};
  static const char *const mn[] = {"w", "x", "y", "z"};
  pod_dist d[3] = {pod_dist_uniform(0, 1), pod_dist_normal(2, 0.5),
                   pod_dist_lognormal(0, 1)};
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 3;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 4;
  s.metric_names = mn;
  s.grid = 4;
  s.samples = (int64_t)NCHUNK / 4 * 1024;
  s.chunk_size = 1024;
  s.seed = 1;
  s.eval.eval = eval;
  s.sensitivity = POD_MC_SENS_NONE;
  s.max_samples_mb = exact ? 256 : 0.001;
  pod_mc_plan *pl;
  if (pod_mc_plan_new(&s, &pl, NULL) != POD_OK) abort();
  return pl;
}

static void bench(int exact) {
  pod_mc_plan *src = plan(exact);
  unsigned char *buf[NCHUNK];
  size_t len[NCHUNK], bytes = 0;
  double t_enc = 1e30, t_dec = 1e30, t_merge = 1e30;
  for (int pass = 0; pass < 5; pass++) {
    pod_mc_plan *a = plan(exact), *b = plan(exact);
    pod_mc_chunk *c[NCHUNK];
    for (int k = 0; k < NCHUNK; k++) pod_mc_chunk_run(src, k, NULL, &c[k]);
    double t0 = now_s();
    for (int k = 0; k < NCHUNK; k++)
      if (pod_mc_chunk_encode(src, c[k], &buf[k], &len[k], NULL) != POD_OK)
        abort();
    double t1 = now_s();
    for (int k = 0; k < NCHUNK; k++) {
      pod_mc_chunk *d;
      if (pod_mc_chunk_decode(b, buf[k], len[k], &d, NULL) != POD_OK) abort();
      if (pod_mc_merge(b, d, NULL) != POD_OK) abort();
    }
    double t2 = now_s();
    /* in process: chunks run by a itself (rows already in its columns) */
    for (int k = 0; k < NCHUNK; k++) {
      pod_mc_chunk_free(c[k]);
      pod_mc_chunk_run(a, k, NULL, &c[k]);
    }
    double t3 = now_s();
    for (int k = 0; k < NCHUNK; k++)
      if (pod_mc_merge(a, c[k], NULL) != POD_OK) abort();
    double t4 = now_s();
    t_enc = fmin(t_enc, t1 - t0);
    t_dec = fmin(t_dec, t2 - t1);
    t_merge = fmin(t_merge, t4 - t3);
    bytes = 0;
    for (int k = 0; k < NCHUNK; k++) {
      bytes += len[k];
      free(buf[k]);
    }
    pod_mc_plan_free(a);
    pod_mc_plan_free(b);
  }
  pod_mc_plan_free(src);
  printf(
      "codec_merge_per_chunk_%s: %.1f us decode+merge vs %.1f us in-process "
      "merge; "
      "encode %.1f us; %.1f kB per chunk (1024 samples x 4 metrics x 3 "
      "params%s)\n",
      exact ? "exact" : "sketch", 1e6 * t_dec / NCHUNK, 1e6 * t_merge / NCHUNK,
      1e6 * t_enc / NCHUNK, (double)bytes / NCHUNK / 1e3,
      exact ? ", rows stored" : ", sketches, no rows");
}

int main(void) {
  bench(1);
  bench(0);
  return 0;
}
