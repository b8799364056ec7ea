/*
** bench_stats.c: the statistics a finished Monte Carlo plan computes
** (core/stats*.c), on 1,000,000 values, one core, CPU time, best of 5
** rounds, each figure beside a textbook reference timed in the same
** rounds (so compare the ratios, not the absolute numbers, across
** machines):
** - pod_ranks_init: ranks (and the seven summary quantiles) of one column,
**   for lognormal values (a sampled latency), uniform values (an
**   efficiency) and a two-valued column (a choice); reference: qsort of
**   (value, index) pairs and the average-rank pass, what the ranks cost
**   with a comparison sort;
**   and the same as a study ranks (pod_ranks_init_with: a kept scratch,
**   the column's bounds known, the order kept);
** - pod_hist_add_n: a skewed metric's histogram; reference: pod_hist_add
**   value by value;
** - pod_ranks_init_levels: a three-level discrete parameter ranked by
**   counting; reference: the sort as a study ranks it;
** - pod_ranks_spearman: one (parameter, metric) coefficient from two rank
**   sets; reference: pod_stats_pearson on the same ranks as doubles;
**   pod_ranks_spearman_n: four parameters against one metric in one pass;
**   reference: four pod_ranks_spearman calls;
** - pod_ranks_spearman_col: four parameters against a metric as a study's
**   finish takes them; reference: the finish before (see the function);
** - pod_ranks_reuse_shared: a throughput's ranks shared with its time's
**   and the Spearman sums over both; reference: pod_ranks_reuse_with,
**   the ranks written out;
** - pod_stats_quantiles: the seven quantiles of an unranked metric
**   (selection); reference: pod_stats_sort then GSL's formula;
** - pod_sketch_quantiles: the seven quantiles of a wide sketch in one
**   walk; reference: seven bucket-by-bucket scans.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_statistics_double.h>

#include "pod_err.h"
#include "pod_stats.h"
#include "../unit/sketch_ref.h"

#define N 1000000
#define ROUNDS 5

static double cpu_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

typedef struct {
  double v;
  uint32_t i;
} vi;

static int cmp_vi(const void *a, const void *b) {
  const vi *x = a, *y = b;
  return (x->v > y->v) - (x->v < y->v);
}

/* the reference: average ranks through a comparison sort */
static void qsort_ranks(const double *x, size_t n, vi *t, double *r) {
  for (size_t i = 0; i < n; i++) {
    t[i].v = x[i];
    t[i].i = (uint32_t)i;
  }
  qsort(t, n, sizeof *t, cmp_vi);
  size_t i = 0;
  while (i < n) {
    size_t j = i + 1;
    while (j < n && t[j].v == t[i].v) j++;
    for (size_t k = i; k < j; k++) r[t[k].i] = 0.5 * (double)(i + 1 + j);
    i = j;
  }
}

static void fill(double *x, int kind, gsl_rng *g) {
  for (size_t i = 0; i < N; i++)
    x[i] = kind == 0   ? gsl_ran_lognormal(g, log(3.0), 0.54)
           : kind == 1 ? gsl_ran_flat(g, 0.70, 0.90)
                       : (double)(gsl_rng_uniform(g) < 0.5);
}

static void bench_ranks(gsl_rng *g, double *x, double *r, vi *t) {
  static const char *const what[] = {"lognormal", "uniform", "two-valued"};
  pod_ranks_work *wk = pod_ranks_work_new();
  if (!wk) {
    fprintf(stderr, "bench_stats: out of memory\n");
    exit(1);
  }
  for (int kind = 0; kind < 3; kind++) {
    fill(x, kind, g);
    double lo = x[0], hi = x[0];
    for (size_t i = 1; i < N; i++) {
      lo = x[i] < lo ? x[i] : lo;
      hi = x[i] > hi ? x[i] : hi;
    }
    const double b[2] = {lo, hi};
    double best = 1e9, bestw = 1e9, ref = 1e9, q[POD_STATS_NQ];
    for (int round = 0; round < ROUNDS; round++) {
      pod_ranks rk, rw;
      double t0 = cpu_s();
      if (pod_ranks_init(&rk, x, N, pod_stats_qprobs, POD_STATS_NQ, q)) {
        fprintf(stderr, "bench_stats: out of memory\n");
        exit(1);
      }
      double t1 = cpu_s();
      qsort_ranks(x, N, t, r);
      double t2 = cpu_s();
      /* as a study ranks: a kept scratch (recycled buffers), the bounds
      ** from the moments */
      if (pod_ranks_init_with(&rw, x, N, b, pod_stats_qprobs, POD_STATS_NQ, q,
                              1, wk)) {
        fprintf(stderr, "bench_stats: out of memory\n");
        exit(1);
      }
      double t3 = cpu_s();
      for (size_t i = 0; i < N; i += 4099) /* the same ranks */
        if (rk.r2[i] != 2 * r[i] || rw.r2[i] != rk.r2[i]) {
          fprintf(stderr, "bench_stats: ranks differ at %zu\n", i);
          exit(1);
        }
      pod_ranks_free(&rk);
      pod_ranks_recycle(&rw, wk);
      if (t1 - t0 < best) best = t1 - t0;
      if (t2 - t1 < ref) ref = t2 - t1;
      if (round > 0 && t3 - t2 < bestw) bestw = t3 - t2; /* warm scratch */
    }
    printf(
        "stats_ranks_%s: %.1f ms per 1 M values (pod_ranks_init, ranks "
        "and 7 quantiles; CPU time, best of %d); qsort of (value, index) "
        "pairs %.1f ms: %.1fx; as a study ranks (kept scratch, known "
        "bounds, order kept) %.1f ms: %.1fx\n",
        what[kind], best * 1e3, ROUNDS, ref * 1e3, ref / best, bestw * 1e3,
        ref / bestw);
  }
  pod_ranks_work_free(wk);
}

/* A discrete parameter's column (three levels) as a study ranks it:
** pod_ranks_init_levels (counting) against pod_ranks_init_with (the sort,
** kept scratch, known bounds), the same ranks, alternating rounds. */
static void bench_levels(gsl_rng *g, double *x) {
  static const double lv[] = {0.0, 1.0, 2.0};
  for (size_t i = 0; i < N; i++) x[i] = lv[gsl_rng_uniform_int(g, 3)];
  const double b[2] = {0.0, 2.0};
  pod_ranks_work *wk = pod_ranks_work_new();
  double bestl = 1e9, bests = 1e9;
  for (int round = 0; round <= ROUNDS; round++) {
    pod_ranks a, c;
    double t0 = cpu_s();
    int rc = pod_ranks_init_levels(&a, x, N, lv, 3, wk);
    double t1 = cpu_s();
    rc = rc ? rc : pod_ranks_init_with(&c, x, N, b, NULL, 0, NULL, 0, wk);
    double t2 = cpu_s();
    if (!wk || rc) {
      fprintf(stderr, "bench_stats: out of memory\n");
      exit(1);
    }
    for (size_t i = 0; i < N; i++) /* the same ranks */
      if (a.r2[i] != c.r2[i] || a.ss_lo != c.ss_lo) {
        fprintf(stderr, "bench_stats: level ranks differ at %zu\n", i);
        exit(1);
      }
    pod_ranks_recycle(&a, wk);
    pod_ranks_recycle(&c, wk);
    if (round == 0) continue; /* warm scratch */
    if (t1 - t0 < bestl) bestl = t1 - t0;
    if (t2 - t1 < bests) bests = t2 - t1;
  }
  printf(
      "stats_ranks_levels: %.1f ms per 1 M values of a three-level "
      "discrete parameter (pod_ranks_init_levels, counting; CPU time, "
      "best of %d); the sort as a study ranks (pod_ranks_init_with) "
      "%.1f ms: %.1fx\n",
      bestl * 1e3, ROUNDS, bests * 1e3, bests / bestl);
  pod_ranks_work_free(wk);
}

/* A metric that is a throughput of a sorted time (y = c / x) as a
** study's finish ranks it: pod_ranks_reuse_shared (no ranks written: it
** shares x's, reversed) against pod_ranks_reuse_with (the ranks written
** out along x's order), then the four parameters' Spearman sums over the
** two metrics (pod_ranks_spearman_n, the shared set summed once). */
static void bench_reuse(gsl_rng *g, double *x, double *y) {
  for (size_t i = 0; i < N; i++) {
    x[i] = gsl_ran_lognormal(g, 1.0, 0.6);
    y[i] = 3e9 / x[i];
  }
  pod_ranks_work *wk = pod_ranks_work_new();
  pod_ranks t[3], p;
  if (!wk || pod_ranks_init_ordered(&t[0], x, N, NULL, 0, NULL) ||
      pod_ranks_init(&p, y, N, NULL, 0, NULL)) {
    fprintf(stderr, "bench_stats: out of memory\n");
    exit(1);
  }
  double bests = 1e9, bestw = 1e9, bestsn = 1e9, bestwn = 1e9;
  for (int round = 0; round <= ROUNDS; round++) {
    double q1[POD_STATS_NQ], q2[POD_STATS_NQ], rs[2], rw[2];
    double t0 = cpu_s();
    int rc = pod_ranks_reuse_shared(&t[1], y, N, &t[0], pod_stats_qprobs,
                                    POD_STATS_NQ, q1, wk);
    double t1 = cpu_s();
    rc = rc ? rc
            : pod_ranks_reuse_with(&t[2], y, N, &t[0], pod_stats_qprobs,
                                   POD_STATS_NQ, q2, wk);
    double t2 = cpu_s();
    if (rc || t[1].r2 || memcmp(q1, q2, sizeof q1)) {
      fprintf(stderr, "bench_stats: shared ranks failed\n");
      exit(1);
    }
    pod_ranks_spearman_n(t, 2, &p, rs);
    double t3 = cpu_s();
    pod_ranks pair[2] = {t[0], t[2]};
    pod_ranks_spearman_n(pair, 2, &p, rw);
    double t4 = cpu_s();
    if (memcmp(rs, rw, sizeof rs)) {
      fprintf(stderr, "bench_stats: shared coefficients differ\n");
      exit(1);
    }
    pod_ranks_recycle(&t[1], wk);
    pod_ranks_recycle(&t[2], wk);
    if (round == 0) continue; /* warm buffers */
    if (t1 - t0 < bests) bests = t1 - t0;
    if (t2 - t1 < bestw) bestw = t2 - t1;
    if (t3 - t2 < bestsn) bestsn = t3 - t2;
    if (t4 - t3 < bestwn) bestwn = t4 - t3;
  }
  printf(
      "stats_reuse_shared: %.2f ms per 1 M values of a throughput of a "
      "sorted time (pod_ranks_reuse_shared, no ranks written; CPU time, "
      "best of %d); pod_ranks_reuse_with %.2f ms: %.1fx; a parameter's "
      "Spearman sums over both %.2f ms, with the ranks written out "
      "%.2f ms: %.1fx\n",
      bests * 1e3, ROUNDS, bestw * 1e3, bestw / bests, bestsn * 1e3,
      bestwn * 1e3, bestwn / bestsn);
  pod_ranks_free(&t[0]);
  pod_ranks_free(&p);
  pod_ranks_work_free(wk);
}

static void bench_spearman(gsl_rng *g, double *x, double *y, double *r,
                           double *s) {
  fill(x, 0, g);
  for (size_t i = 0; i < N; i++) y[i] = x[i] * gsl_ran_flat(g, 0.5, 1.5);
  pod_ranks a, b;
  if (pod_ranks_init(&a, x, N, NULL, 0, NULL) ||
      pod_ranks_init(&b, y, N, NULL, 0, NULL)) {
    fprintf(stderr, "bench_stats: out of memory\n");
    exit(1);
  }
  for (size_t i = 0; i < N; i++) {
    r[i] = 0.5 * a.r2[i];
    s[i] = 0.5 * b.r2[i];
  }
  double best = 1e9, ref = 1e9, rho = 0, rho_ref = 0;
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = cpu_s();
    rho = pod_ranks_spearman(&a, &b);
    double t1 = cpu_s();
    rho_ref = pod_stats_pearson(r, s, N);
    double t2 = cpu_s();
    if (t1 - t0 < best) best = t1 - t0;
    if (t2 - t1 < ref) ref = t2 - t1;
  }
  /* four parameters against one metric: one pass (pod_ranks_spearman_n)
  ** against four pairwise sums */
  pod_ranks four[4] = {a, a, a, a};
  double best4 = 1e9, ref4 = 1e9, rho4[4];
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = cpu_s();
    pod_ranks_spearman_n(four, 4, &b, rho4);
    double t1 = cpu_s();
    for (int k = 0; k < 4; k++) rho4[k] = pod_ranks_spearman(&four[k], &b);
    double t2 = cpu_s();
    if (t1 - t0 < best4) best4 = t1 - t0;
    if (t2 - t1 < ref4) ref4 = t2 - t1;
  }
  printf(
      "stats_spearman_4x1: %.2f ms per 1 M rows (pod_ranks_spearman_n, "
      "4 parameters against a metric in one pass; CPU time, best of %d); "
      "4 pod_ranks_spearman calls %.2f ms: %.1fx\n",
      best4 * 1e3, ROUNDS, ref4 * 1e3, ref4 / best4);
  printf(
      "stats_spearman_pair: %.2f ms per 1 M rows (pod_ranks_spearman, "
      "exact integer sums, rho %.6f; CPU time, best of %d); "
      "pod_stats_pearson on the ranks as doubles %.2f ms (rho %.6f): "
      "%.1fx\n",
      best * 1e3, rho, ROUNDS, ref * 1e3, rho_ref, ref / best);
  pod_ranks_free(&a);
  pod_ranks_free(&b);
}

/* Four parameters against a metric as a study's finish takes them
** (pod_ranks_spearman_col: each ranked into the rank buffer the one
** before handed back) against the finish before it (every parameter's
** ranks kept in a buffer of its own until pod_ranks_spearman_n, fresh
** memory each: page faults and the kernel's zeroing count, as CPU time of
** the process, but a process that has freed memory before may get it
** back without); the same coefficients bit for bit. */
static void bench_spearman_col(gsl_rng *g, double *x, double *y) {
  fill(x, 0, g);
  for (size_t i = 0; i < N; i++) y[i] = x[i] * gsl_ran_flat(g, 0.5, 1.5);
  fill(x, 1, g); /* an independent uniform parameter */
  for (size_t i = 0; i < N; i += 2) y[i] += x[i];
  pod_ranks b, a[4];
  pod_ranks_work *w = pod_ranks_work_new();
  if (!w || pod_ranks_init(&b, y, N, NULL, 0, NULL)) {
    fprintf(stderr, "bench_stats: out of memory\n");
    exit(1);
  }
  double bounds[2] = {0.70, 0.90}, best = 1e9, ref = 1e9, rho[4], rho_ref[4];
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = cpu_s();
    int rc = 0;
    for (int k = 0; k < 4; k++)
      rc |= pod_ranks_spearman_col(x, N, bounds, &b, 1, &rho[k], w);
    double t1 = cpu_s();
    for (int k = 0; k < 4; k++)
      rc |= pod_ranks_init_with(&a[k], x, N, bounds, NULL, 0, NULL, 0, w);
    if (!rc) pod_ranks_spearman_n(a, 4, &b, rho_ref);
    for (int k = 0; k < 4; k++) pod_ranks_free(&a[k]);
    double t2 = cpu_s();
    if (rc || memcmp(rho, rho_ref, sizeof rho) != 0) {
      fprintf(stderr, "bench_stats: spearman_col differs\n");
      exit(1);
    }
    if (t1 - t0 < best) best = t1 - t0;
    if (t2 - t1 < ref) ref = t2 - t1;
  }
  printf(
      "stats_spearman_col_4x1: %.2f ms per 4 parameters of 1 M rows against "
      "a metric (pod_ranks_spearman_col, one recycled rank buffer; CPU time, "
      "best of %d); 4 rankings kept in fresh buffers then "
      "pod_ranks_spearman_n %.2f ms: %.2fx\n",
      best * 1e3, ROUNDS, ref * 1e3, ref / best);
  pod_ranks_free(&b);
  pod_ranks_work_free(w);
}

static void bench_quantiles(gsl_rng *g, double *x, double *y) {
  fill(x, 0, g);
  double best = 1e9, ref = 1e9, q[POD_STATS_NQ], qr[POD_STATS_NQ];
  for (int round = 0; round < ROUNDS; round++) {
    memcpy(y, x, N * sizeof *y);
    double t0 = cpu_s();
    pod_stats_quantiles(y, N, pod_stats_qprobs, POD_STATS_NQ, q);
    double t1 = cpu_s();
    memcpy(y, x, N * sizeof *y);
    double t2 = cpu_s();
    pod_stats_sort(y, N);
    for (int i = 0; i < POD_STATS_NQ; i++)
      qr[i] = gsl_stats_quantile_from_sorted_data(y, 1, N, pod_stats_qprobs[i]);
    double t3 = cpu_s();
    if (memcmp(q, qr, sizeof q)) {
      fprintf(stderr, "bench_stats: quantiles differ\n");
      exit(1);
    }
    if (t1 - t0 < best) best = t1 - t0;
    if (t3 - t2 < ref) ref = t3 - t2;
  }
  printf(
      "stats_quantiles: %.1f ms per 1 M values (pod_stats_quantiles, 7 "
      "quantiles by selection; CPU time, best of %d); pod_stats_sort and "
      "GSL's formula %.1f ms: %.1fx\n",
      best * 1e3, ROUNDS, ref * 1e3, ref / best);
}

/* The histogram of a finished metric: pod_hist_add_n on 1 M skewed
** values (a time: exponential, most of them in the first bins) into 100
** linear bins over [min, max], the way the exact summaries count;
** reference: pod_hist_add value by value; the same counts. */
static void bench_hist(gsl_rng *g, double *x) {
  double lo = 1e300, hi = -1e300;
  for (size_t i = 0; i < N; i++) {
    x[i] = gsl_ran_exponential(g, 1e-4);
    lo = x[i] < lo ? x[i] : lo;
    hi = x[i] > hi ? x[i] : hi;
  }
  double best = 1e9, ref = 1e9;
  for (int round = 0; round < ROUNDS; round++) {
    pod_hist a, b;
    if (pod_hist_init(&a, 100, lo, hi, 0, NULL) ||
        pod_hist_init(&b, 100, lo, hi, 0, NULL)) {
      fprintf(stderr, "bench_stats: out of memory\n");
      exit(1);
    }
    double t0 = cpu_s();
    pod_hist_add_n(&a, x, N);
    double t1 = cpu_s();
    for (size_t i = 0; i < N; i++) pod_hist_add(&b, x[i], 1);
    double t2 = cpu_s();
    if (memcmp(a.counts, b.counts, 100 * sizeof *a.counts)) {
      fprintf(stderr, "bench_stats: histogram counts differ\n");
      exit(1);
    }
    pod_hist_free(&a);
    pod_hist_free(&b);
    if (t1 - t0 < best) best = t1 - t0;
    if (t2 - t1 < ref) ref = t2 - t1;
  }
  printf(
      "stats_hist_add_n: %.2f ms per 1 M exponential values into 100 "
      "bins (CPU time, best of %d); pod_hist_add value by value %.2f "
      "ms: %.1fx\n",
      best * 1e3, ROUNDS, ref * 1e3, ref / best);
}

/* The seven summary quantiles of a streamed metric's sketch whose values
** span 1e-150 .. 1e150 (a wide store, most of it empty): one
** pod_sketch_quantiles walk against seven bucket-by-bucket scans, the
** same values. */
static void bench_sketch(gsl_rng *g) {
  pod_sketch sk;
  if (pod_sketch_init(&sk, POD_SKETCH_ALPHA, NULL)) exit(1);
  for (size_t i = 0; i < N; i++) {
    double u = gsl_rng_uniform(g);
    double v = i % 1000 == 0 ? pow(10, 300 * u - 150) : 1e-3 * (1 + u);
    if (pod_sketch_add(&sk, v)) {
      fprintf(stderr, "bench_stats: out of memory\n");
      exit(1);
    }
  }
  double best = 1e9, ref = 1e9, q[POD_STATS_NQ], r[POD_STATS_NQ];
  for (int round = 0; round < ROUNDS; round++) {
    double t0 = cpu_s();
    for (int k = 0; k < 100; k++)
      pod_sketch_quantiles(&sk, pod_stats_qprobs, POD_STATS_NQ, q);
    double t1 = cpu_s();
    for (int k = 0; k < 100; k++)
      for (int t = 0; t < POD_STATS_NQ; t++)
        r[t] = sketch_scan(&sk, pod_stats_qprobs[t]);
    double t2 = cpu_s();
    if (memcmp(q, r, sizeof q)) {
      fprintf(stderr, "bench_stats: sketch quantiles differ\n");
      exit(1);
    }
    if (t1 - t0 < best) best = t1 - t0;
    if (t2 - t1 < ref) ref = t2 - t1;
  }
  printf(
      "stats_sketch_quantiles: %.1f us for 7 quantiles of a sketch over "
      "%d buckets (pod_sketch_quantiles, one walk skipping empty blocks; "
      "CPU time, best of %d); 7 bucket-by-bucket scans %.1f us: %.1fx\n",
      best * 1e4, (int)(sk.pos.len + sk.neg.len), ROUNDS, ref * 1e4,
      ref / best);
  pod_sketch_free(&sk);
}

int main(void) {
  pod_init();
  gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
  double *x = malloc(N * sizeof *x), *y = malloc(N * sizeof *y);
  double *r = malloc(N * sizeof *r), *s = malloc(N * sizeof *s);
  vi *t = malloc(N * sizeof *t);
  if (!g || !x || !y || !r || !s || !t) {
    fprintf(stderr, "bench_stats: out of memory\n");
    return 1;
  }
  bench_ranks(g, x, r, t);
  bench_levels(g, x);
  bench_hist(g, x);
  bench_spearman(g, x, y, r, s);
  bench_spearman_col(g, x, y);
  bench_reuse(g, x, y);
  bench_quantiles(g, x, y);
  bench_sketch(g);
  free(x);
  free(y);
  free(r);
  free(s);
  free(t);
  gsl_rng_free(g);
  return 0;
}
