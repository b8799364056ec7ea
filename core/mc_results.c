/*
** mc_results.c: finishing a Monte Carlo plan (summaries, histograms,
** sensitivities) and the results accessors (see pod_mc.h).
*/
#include "mc_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- finish and results ---- */

typedef struct {
  pod_hist *h;
} hist_visit;

static void hist_from_sketch(double v, int64_t count, void *ud) {
  pod_hist_add(((hist_visit *)ud)->h, v, count);
}

/* Spearman needs rows with parameters at this grid point. */
static int spearman_at(const pod_mc_plan *pl, int g) {
  return pl->sens != POD_MC_SENS_NONE && pl->store_x && pl->P > 0 &&
         pl->rows[g] >= 2 && pl->xcol[g * pl->P] != NULL;
}

/* Metrics a grid point ranks for Spearman take their exact quantiles from
** that ranking (part_yrank), not from part_summary. */
static int ranked_quantiles(const pod_mc_plan *pl, int g) {
  return pl->exact && spearman_at(pl, g);
}

/* Summary, quantiles and histogram of metric m at grid point g (the exact
** quantiles of a metric that Spearman ranks come with its ranks, in
** part_yrank, run alongside). */
static int part_summary(pod_mc_plan *pl, pod_mc_results *r, int g, int m) {
  const pod_moments *mo = &pl->mom[g * pl->M + m];
  pod_mc_summary *s = &r->sum[g * pl->M + m];
  s->n = mo->n;
  s->mean = pod_moments_mean(mo);
  s->sd = pod_moments_sd(mo);
  s->se = pod_moments_se(mo);
  pod_moments_ci95(mo, &s->ci95_lo, &s->ci95_hi);
  s->min = mo->n ? mo->min : NAN;
  s->max = mo->n ? mo->max : NAN;
  s->skew = mo->n >= 2 ? pod_moments_skew(mo) : NAN;
  s->kurtosis = mo->n >= 2 ? pod_moments_kurtosis(mo) : NAN;
  s->quantiles_exact = pl->exact;
  if (ranked_quantiles(pl, g))
    return POD_OK; /* part_yrank: the quantiles
                      and histogram */
  for (int q = 0; q < POD_STATS_NQ; q++) s->q[q] = NAN;
  if (mo->n == 0) return POD_OK;
  pod_hist *h = &r->hist[g * pl->M + m];
  int rc = pod_hist_init(h, pl->hist_bins, mo->min, mo->max,
                         pl->hist_log && mo->min > 0, NULL);
  if (rc) return rc;
  if (pl->exact) {
    const double *col = pl->ycol[g * pl->M + m];
    size_t n = (size_t)pl->rows[g];
    double *buf = malloc(sizeof(double) * (n ? n : 1));
    if (!buf) return POD_ENOMEM;
    memcpy(buf, col, sizeof(double) * n);
    pod_stats_quantiles(buf, n, pod_stats_qprobs, POD_STATS_NQ, s->q);
    free(buf);
    pod_hist_add_n(h, col, n);
  } else {
    const pod_sketch *sk = &pl->sk[g * pl->M + m];
    pod_sketch_quantiles(sk, pod_stats_qprobs, POD_STATS_NQ, s->q);
    hist_visit hv = {h};
    pod_sketch_foreach(sk, hist_from_sketch, &hv);
  }
  return POD_OK;
}

/* Ranking scratch for one finishing part: an idle one of the plan's, else
** new (NULL when out of memory); parts on several threads each take their
** own.  Handing it back keeps it for the next part (or frees it). */
static pod_ranks_work *rwork_take(pod_mc_plan *pl) {
  for (int i = 0; i < MC_RWORK; i++) {
    pod_ranks_work *w = atomic_exchange(&pl->rwork[i], NULL);
    if (w) return w;
  }
  return pod_ranks_work_new();
}

static void rwork_give(pod_mc_plan *pl, pod_ranks_work *w) {
  for (int i = 0; i < MC_RWORK && w; i++) {
    pod_ranks_work *none = NULL;
    if (atomic_compare_exchange_strong(&pl->rwork[i], &none, w)) return;
  }
  pod_ranks_work_free(w);
}

/* How the sort of metric m at grid point g keeps its order: in a buffer
** of its own (1) when a metric after it may take its ranks from it, else
** only for the histogram (in the scratch, POD_RANKS_ORDER_WORK) when the
** plan keeps every row, else not (0).  A kept order costs a fresh buffer
** (page faults) for every metric sorted. */
static int order_kept(const pod_mc_plan *pl, int g, int m, const double *col,
                      size_t n) {
  int M = pl->M;
  if (m < M - 1 &&
      pod_ranks_may_follow(
          col, n, (const double *const *)&pl->ycol[g * M + m + 1], M - 1 - m))
    return 1;
  return pl->exact ? POD_RANKS_ORDER_WORK : 0;
}

/* Ranks of metric m at grid point g into *rk (with the exact quantiles
** and the histogram when the plan keeps every row): from the order of an
** earlier metric when m is monotone along it (a throughput of a time;
** shared when neither has ties), else sorted, keeping the order as
** order_kept says. */
static int metric_ranks(pod_mc_plan *pl, pod_mc_results *r, int g, int m,
                        pod_ranks *done, pod_ranks *rk, pod_ranks_work *w) {
  const double *col = pl->ycol[g * pl->M + m];
  size_t n = (size_t)pl->rows[g];
  int nq = pl->exact && pl->mom[g * pl->M + m].n > 0 ? POD_STATS_NQ : 0;
  double q[POD_STATS_NQ];
  int rc = POD_ERANGE;
  const uint32_t *order = NULL; /* col in order along it (desc: backwards) */
  int desc = 0;
  for (int e = 0; e < m && rc == POD_ERANGE; e++)
    if (done[e].order) {
      rc = pod_ranks_reuse_shared(rk, col, n, &done[e], pod_stats_qprobs, nq, q,
                                  w);
      order = done[e].order;
    }
  /* monotone along the order one way or the other: backwards when it
  ** ends lower than it starts (reuse refuses -0, so no zero of two signs) */
  if (rc == POD_OK && n > 0) desc = col[order[n - 1]] < col[order[0]];
  /* the moments saw every stored row (and maybe more): their min and max
  ** bound the column */
  const pod_moments *mo = &pl->mom[g * pl->M + m];
  double b[2] = {mo->min, mo->max};
  if (rc == POD_ERANGE) {
    int keep = order_kept(pl, g, m, col, n);
    rc = pod_ranks_init_with(rk, col, n, mo->n > 0 ? b : NULL, pod_stats_qprobs,
                             nq, q, keep, w);
    order = keep == POD_RANKS_ORDER_WORK ? pod_ranks_work_order(w) : rk->order;
    desc = 0;
  }
  if (rc) return rc;
  if (!pl->exact) return POD_OK;
  for (int t = 0; t < POD_STATS_NQ; t++)
    r->sum[g * pl->M + m].q[t] = t < nq ? q[t] : NAN;
  if (mo->n == 0) return POD_OK;
  /* the histogram (part_summary's, left to this part) from the order */
  pod_hist *h = &r->hist[g * pl->M + m];
  rc = pod_hist_init(h, pl->hist_bins, mo->min, mo->max,
                     pl->hist_log && mo->min > 0, NULL);
  if (rc) return rc;
  if (n > 0) pod_hist_add_sorted(h, col, order, desc, n);
  return POD_OK;
}

/* Phase 0: the ranks of every metric at grid point g, kept for phase 1
** (pl->yrank); the metrics in turn, so that one may take its ranks from
** another's order (the orders go back to the scratch at the end). */
static int part_yrank(pod_mc_plan *pl, pod_mc_results *r, int g) {
  if (!spearman_at(pl, g)) return POD_OK;
  int M = pl->M, rc = POD_OK;
  pod_ranks *rk = &pl->yrank[g * M];
  pod_ranks_work *w = rwork_take(pl);
  if (!w) return POD_ENOMEM;
  for (int m = 0; m < M && !rc; m++)
    rc = metric_ranks(pl, r, g, m, rk, &rk[m], w);
  for (int m = 0; m < M; m++) { /* the orders back: only the ranks stay */
    pod_ranks keep = rk[m];
    rk[m].r2 = NULL;
    pod_ranks_recycle(&rk[m], w);
    rk[m].r2 = keep.r2;
    rk[m].n = keep.n;
    rk[m].order = NULL;
  }
  rwork_give(pl, w);
  return rc;
}

/* Phase 1: Spearman of parameter p against every metric at grid point g,
** ranking p's stored column without keeping its ranks. */
static int part_xspear(pod_mc_plan *pl, pod_mc_results *r, int g, int p) {
  if (!spearman_at(pl, g)) return POD_OK;
  int M = pl->M, P = pl->P;
  double *rho = malloc(sizeof(double) * (size_t)M);
  pod_ranks_work *w = rho ? rwork_take(pl) : NULL;
  if (!w) {
    free(rho);
    return POD_ENOMEM;
  }
  const pod_dist *d = &pl->dists[p];
  const double *x = pl->xcol[g * P + p];
  const pod_ranks *y = &pl->yrank[g * M];
  size_t n = (size_t)pl->rows[g];
  int rc = POD_ERANGE;
  /* a discrete parameter takes only its values: ranked by counting */
  if (d->kind == POD_DIST_DISCRETE && d->svals && d->n >= 1 &&
      d->n <= POD_RANKS_LEVELS_MAX)
    rc = pod_ranks_spearman_levels(x, n, d->svals, d->n, y, M, rho, w);
  /* the column's own range bounds it (the merged rows' least and greatest
  ** value), else the parameter's support */
  double b[2] = {pl->xlo[g * P + p], pl->xhi[g * P + p]};
  int have = b[0] <= b[1] || pod_dist_support(d, &b[0], &b[1]);
  if (rc == POD_ERANGE || rc == POD_EINVAL) /* not its values: sorted */
    rc = pod_ranks_spearman_col(x, n, have ? b : NULL, y, M, rho, w);
  if (!rc)
    for (int m = 0; m < M; m++) r->sens[(g * P + p) * M + m].spearman = rho[m];
  rwork_give(pl, w);
  free(rho);
  return rc;
}

void pod_mc__free_yrank(pod_mc_plan *pl) {
  if (pl->yrank)
    for (int i = 0; i < pl->G * pl->M; i++) pod_ranks_free(&pl->yrank[i]);
  free(pl->yrank);
  pl->yrank = NULL;
  for (int i = 0; i < MC_RWORK; i++)
    pod_ranks_work_free(atomic_exchange(&pl->rwork[i], NULL));
}

int pod_mc_finish_begin(pod_mc_plan *pl, pod_mc_results **out, pod_err *err) {
  *out = NULL;
  if (pl->finished || pl->finishing)
    return pod_err_set(err, POD_EINVAL, "plan", "already finished");
  int P = pl->P, M = pl->M, G = pl->G;
  pod_mc_results *r = calloc(1, sizeof *r);
  if (!r) return pod_err_set(err, POD_ENOMEM, "results", NULL);
  r->P = P;
  r->M = M;
  r->G = G;
  r->complete = pl->merged == pl->nchunks;
  r->stopped = pl->stopped;
  r->chunks_done = pl->merged;
  r->chunks_total = pl->nchunks;
  r->samples_done = pl->samples_merged;
  r->sum = calloc((size_t)G * M, sizeof(pod_mc_summary));
  r->hist = calloc((size_t)G * M, sizeof(pod_hist));
  r->sens = calloc((size_t)G * (P ? P : 1) * M, sizeof(pod_mc_sens_value));
  r->nonfinite = malloc(sizeof(int64_t) * (size_t)G * M);
  r->unfit_n = malloc(sizeof(int64_t) * (size_t)G);
  if (!r->nonfinite || !r->unfit_n) goto nomem;
  memcpy(r->nonfinite, pl->nonfinite, sizeof(int64_t) * (size_t)G * M);
  memcpy(r->unfit_n, pl->unfit_n, sizeof(int64_t) * (size_t)G);
  pl->yrank = calloc((size_t)G * M, sizeof(pod_ranks));
  if (!r->sum || !r->hist || !r->sens || !pl->yrank) goto nomem;
  if (!(r->pnames = pod_mc__dup_names((const char *const *)pl->pnames, P,
                                      "params", err)) ||
      !(r->mnames = pod_mc__dup_names((const char *const *)pl->mnames, M,
                                      "metrics", err)))
    goto nomem;
  for (int i = 0; i < G * P * M; i++)
    r->sens[i].spearman = r->sens[i].sobol_first = r->sens[i].sobol_total = NAN;
  pl->finishing = 1;
  *out = r;
  return POD_OK;
nomem:
  pod_mc__free_yrank(pl);
  pod_mc_results_free(r);
  return pod_err_set(err, POD_ENOMEM, "results", NULL);
}

int pod_mc_finish_parts(const pod_mc_plan *pl, int phase) {
  if (phase == 0) return pl->G * pl->M + pl->G;
  if (phase == 1) return pl->G * pl->P;
  return 0;
}

int pod_mc_finish_part(pod_mc_plan *pl, pod_mc_results *r, int phase,
                       int part) {
  int G = pl->G, M = pl->M, P = pl->P;
  if (!pl->finishing || part < 0 || part >= pod_mc_finish_parts(pl, phase))
    return POD_EINVAL;
  if (phase == 0) {
    if (part < G * M) return part_summary(pl, r, part / M, part % M);
    return part_yrank(pl, r, part - G * M);
  }
  return part_xspear(pl, r, part / P, part % P);
}

int pod_mc_finish_end(pod_mc_plan *pl, pod_mc_results *r, int status,
                      pod_mc_results **out, pod_err *err) {
  *out = NULL;
  int P = pl->P, M = pl->M, G = pl->G;
  if (!pl->finishing) {
    pod_mc_results_free(r);
    return pod_err_set(err, POD_EINVAL, "plan", "finish_begin was not called");
  }
  pl->finishing = 0;
  pod_mc__free_yrank(pl);
  if (status != POD_OK) {
    pod_mc_results_free(r);
    return pod_err_set(err, status, "results", "cannot compute the statistics");
  }
  if (pl->sens == POD_MC_SENS_SOBOL) {
    for (int g = 0; g < G; g++)
      for (int p = 0; p < P; p++)
        for (int m = 0; m < M; m++) {
          pod_mc_sens_value *v = &r->sens[(g * P + p) * M + m];
          pod_sobol_indices(&pl->sob[(g * P + p) * M + m],
                            pod_moments_variance(&pl->svar[g * M + m]),
                            &v->sobol_first, &v->sobol_total);
        }
  }
  int64_t *rows = calloc((size_t)G, sizeof(int64_t)); /* the plan's, after */
  if (!rows) {
    pod_mc_results_free(r);
    return pod_err_set(err, POD_ENOMEM, "results", NULL);
  }
  for (int g = 0; g < G; g++) {
    if (spearman_at(pl, g) && pl->rows[g] < pl->mom[g * M].n)
      r->spearman_partial = 1;
    if (pl->keep && pl->rows[g] < pl->mom[g * M].n) r->samples_partial = 1;
  }
  /* the stored samples move into the results */
  r->rows = pl->rows;
  r->xcol = pl->xcol;
  r->ycol = pl->ycol;
  pl->rows = rows;
  pl->xcol = NULL;
  pl->ycol = NULL;
  pl->finished = 1;
  *out = r;
  return POD_OK;
}

int pod_mc_finish(pod_mc_plan *pl, pod_mc_results **out, pod_err *err) {
  pod_mc_results *r;
  int rc = pod_mc_finish_begin(pl, &r, err);
  if (rc) {
    *out = NULL;
    return rc;
  }
  for (int phase = 0; phase < POD_MC_FINISH_PHASES && !rc; phase++)
    for (int i = 0; i < pod_mc_finish_parts(pl, phase) && !rc; i++)
      rc = pod_mc_finish_part(pl, r, phase, i);
  return pod_mc_finish_end(pl, r, rc, out, err);
}

int pod_mc_run_serial(pod_mc_plan *pl, pod_mc_results **out, pod_err *err) {
  *out = NULL;
  void *w;
  int rc = pod_mc_worker_new(pl, &w, err);
  if (rc) return rc;
  for (int64_t k = 0; k < pl->nchunks && !pl->stopped; k++) {
    pod_mc_chunk *c;
    pod_mc_chunk_run(pl, k, w, &c);
    if (!c) {
      rc = pod_err_set(err, POD_ENOMEM, "chunk", NULL);
      break;
    }
    if ((rc = pod_mc_merge(pl, c, err))) break;
  }
  pod_mc_worker_free(pl, w);
  if (rc) return rc;
  return pod_mc_finish(pl, out, err);
}

void pod_mc_results_free(pod_mc_results *r) {
  if (!r) return;
  pod_mc__free_names(r->pnames, r->P);
  pod_mc__free_names(r->mnames, r->M);
  if (r->hist)
    for (int i = 0; i < r->G * r->M; i++) pod_hist_free(&r->hist[i]);
  free(r->hist);
  free(r->sum);
  free(r->sens);
  free(r->nonfinite);
  free(r->unfit_n);
  if (r->xcol)
    for (int i = 0; i < r->G * r->P; i++) free(r->xcol[i]);
  if (r->ycol)
    for (int i = 0; i < r->G * r->M; i++) free(r->ycol[i]);
  free(r->xcol);
  free(r->ycol);
  free(r->rows);
  free(r);
}

int pod_mc_results_nparams(const pod_mc_results *r) {
  return r->P;
}
int pod_mc_results_nmetrics(const pod_mc_results *r) {
  return r->M;
}
int pod_mc_results_grid(const pod_mc_results *r) {
  return r->G;
}
const char *pod_mc_results_param_name(const pod_mc_results *r, int i) {
  return i >= 0 && i < r->P ? r->pnames[i] : NULL;
}
const char *pod_mc_results_metric_name(const pod_mc_results *r, int m) {
  return m >= 0 && m < r->M ? r->mnames[m] : NULL;
}
int pod_mc_results_complete(const pod_mc_results *r) {
  return r->complete;
}
int pod_mc_results_stopped(const pod_mc_results *r) {
  return r->stopped;
}
int64_t pod_mc_results_chunks_done(const pod_mc_results *r) {
  return r->chunks_done;
}
int64_t pod_mc_results_chunks_total(const pod_mc_results *r) {
  return r->chunks_total;
}
int64_t pod_mc_results_samples_done(const pod_mc_results *r) {
  return r->samples_done;
}
int pod_mc_results_spearman_partial(const pod_mc_results *r) {
  return r->spearman_partial;
}
int pod_mc_results_samples_partial(const pod_mc_results *r) {
  return r->samples_partial;
}

int pod_mc_results_summary(const pod_mc_results *r, int m, int g,
                           pod_mc_summary *out) {
  if (m < 0 || m >= r->M || g < 0 || g >= r->G) return POD_EINVAL;
  *out = r->sum[g * r->M + m];
  return POD_OK;
}

const pod_hist *pod_mc_results_hist(const pod_mc_results *r, int m, int g) {
  if (m < 0 || m >= r->M || g < 0 || g >= r->G) return NULL;
  const pod_hist *h = &r->hist[g * r->M + m];
  return h->counts ? h : NULL;
}

int pod_mc_results_sensitivity(const pod_mc_results *r, int g, int p, int m,
                               pod_mc_sens_value *out) {
  if (m < 0 || m >= r->M || g < 0 || g >= r->G || p < 0 || p >= r->P)
    return POD_EINVAL;
  *out = r->sens[(g * r->P + p) * r->M + m];
  return POD_OK;
}

int64_t pod_mc_results_rows(const pod_mc_results *r, int g) {
  return g >= 0 && g < r->G ? r->rows[g] : 0;
}

const double *pod_mc_results_param_column(const pod_mc_results *r, int g,
                                          int p) {
  if (g < 0 || g >= r->G || p < 0 || p >= r->P || r->rows[g] == 0) return NULL;
  return r->xcol[g * r->P + p];
}

const double *pod_mc_results_metric_column(const pod_mc_results *r, int g,
                                           int m) {
  if (g < 0 || g >= r->G || m < 0 || m >= r->M || r->rows[g] == 0) return NULL;
  return r->ycol[g * r->M + m];
}

int64_t pod_mc_results_nonfinite(const pod_mc_results *r, int g, int m) {
  if (m < 0 || m >= r->M || g < 0 || g >= r->G) return 0;
  return r->nonfinite[g * r->M + m];
}

int64_t pod_mc_results_unfit(const pod_mc_results *r, int g) {
  return g >= 0 && g < r->G ? r->unfit_n[g] : 0;
}
