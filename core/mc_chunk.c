/*
** mc_chunk.c: running one chunk of a Monte Carlo plan and merging
** chunks in order, with the stopping rule (see pod_mc.h).
*/
#include "mc_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* ---- chunks ---- */

void pod_mc_chunk_free(pod_mc_chunk *c) {
  if (!c) return;
  if (c->sk) {
    for (int m = 0; m < c->M; m++) pod_sketch_free(&c->sk[m]);
  }
  free(c->sk);
  free(c->mom);
  free(c->xd);
  free(c->yd);
  free(c->xlo);
  free(c->xhi);
  free(c->svar);
  free(c->sob);
  free(c->nonfinite);
  free(c);
}

int64_t pod_mc_chunk_index(const pod_mc_chunk *c) {
  return c->k;
}

int pod_mc_chunk_status(const pod_mc_chunk *c, pod_err *err) {
  if (err && c->status) *err = c->err;
  return c->status;
}

/* Fail chunk c at sample i with the evaluator's error, adding where it
** happened and the parameter values. */
static int chunk_fail(const pod_mc_plan *pl, pod_mc_chunk *c, int64_t i,
                      const double *x, const pod_err *e, int code) {
  char buf[POD_ERR_MSG_MAX];
  const char *msg = e->msg[0] ? e->msg : pod_strerror(code);
  size_t len;
  if (pl->glabels && pl->glabels[c->g][0])
    len = (size_t)snprintf(buf, sizeof buf,
                           "%s (grid point %s, sample %lld:", msg,
                           pl->glabels[c->g], (long long)(c->i0 + i));
  else if (pl->glabels) /* one grid point, no grid keys */
    len = (size_t)snprintf(buf, sizeof buf, "%s (sample %lld:", msg,
                           (long long)(c->i0 + i));
  else
    len = (size_t)snprintf(buf, sizeof buf, "%s (grid %d, sample %lld:", msg,
                           c->g, (long long)(c->i0 + i));
  for (int p = 0; p < pl->P && len < sizeof buf; p++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, " %s=%.17g",
                            pl->pnames[p], x[p]);
  if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, ")");
  c->status =
      pod_err_set(&c->err, code, e->field[0] ? e->field : "eval", "%s", buf);
  return c->status;
}

/* The metric checks on sample i's metrics y (see eval1). */
static int check_metrics(const pod_mc_plan *pl, pod_mc_chunk *c, int64_t i,
                         const double *x, const double *y, int *drop) {
  pod_err e;
  int bad = 0;
  for (int m = 0; m < pl->M; m++) {
    if (!isfinite(y[m])) {
      if (pl->nonfinite_error) {
        pod_err_set(&e, POD_ERANGE, pl->mnames[m],
                    "metric is not finite (%g; the study's nonfinite = "
                    "\"error\")",
                    y[m]);
        return chunk_fail(pl, c, i, x, &e, POD_ERANGE);
      }
      c->nonfinite[m]++;
      bad = 1;
    }
  }
  if (!bad && pl->fits_metric >= 0 && !(y[pl->fits_metric] > 0)) {
    c->unfit++;
    if (pl->unfit == POD_MC_UNFIT_ERROR) {
      pod_err_set(&e, POD_ERANGE, pl->mnames[pl->fits_metric],
                  "the layout does not fit in memory (say unfit = "
                  "\"exclude\" or \"keep\" to go on without or with "
                  "such samples)");
      return chunk_fail(pl, c, i, x, &e, POD_ERANGE);
    }
    if (pl->unfit == POD_MC_UNFIT_EXCLUDE) bad = 1;
  }
  *drop = bad;
  return POD_OK;
}

/* One evaluation with the metric checks; returns a status (<0) or
** POD_OK, with *drop set when the sample must not be recorded: a NaN or
** infinite metric (counted per metric), or a layout that does not fit
** with unfit = exclude (counted). */
static int eval1(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                 int64_t i, const double *x, double *y, int *drop) {
  pod_err e;
  e.code = POD_OK;
  e.field[0] = e.msg[0] = '\0';
  int rc = pl->ev.eval(pl->ev.ud, worker, c->g, x, y, &e);
  if (rc) return chunk_fail(pl, c, i, x, &e, rc);
  return check_metrics(pl, c, i, x, y, drop);
}

/* Record sample i (parameters x, metrics y) in the chunk's accumulators,
** as stored row c->kept. */
static int record(const pod_mc_plan *pl, pod_mc_chunk *c, int64_t i,
                  const double *x, const double *y) {
  int M = pl->M, P = pl->P;
  for (int m = 0; m < M; m++) pod_moments_add(&c->mom[m], y[m]);
  if (c->sk) {
    for (int m = 0; m < M; m++) {
      if (pod_sketch_add(&c->sk[m], y[m])) {
        pod_err e;
        pod_err_set(&e, POD_ENOMEM, "sketch", "out of memory");
        return chunk_fail(pl, c, i, x, &e, POD_ENOMEM);
      }
    }
  }
  int64_t j = c->kept++;
  if (c->yd)
    for (int m = 0; m < M; m++) c->yd[m][j] = y[m];
  if (c->xd)
    for (int p = 0; p < P; p++) {
      c->xd[p][j] = x[p];
      if (x[p] < c->xlo[p]) c->xlo[p] = x[p];
      if (x[p] > c->xhi[p]) c->xhi[p] = x[p];
    }
  return POD_OK;
}

/* 1 when no sample of a block of nb rows y (M metrics each) is dropped
** or fails the checks: every metric finite, and the fits metric (if any)
** positive.  v - v is +0 for a finite v and NaN otherwise: any NaN among
** them is nonzero (the unordered compare), two values a step in SSE2. */
static int block_clean(const pod_mc_plan *pl, int nb, const double *y) {
  int M = pl->M, fm = pl->fits_metric, ok = 1;
  size_t n = (size_t)nb * (size_t)M, i = 0;
#ifdef __SSE2__
  __m128d bad = _mm_setzero_pd(), zero = _mm_setzero_pd();
  for (; i + 2 <= n; i += 2) {
    __m128d v = _mm_loadu_pd(y + i);
    bad = _mm_or_pd(bad, _mm_cmpneq_pd(_mm_sub_pd(v, v), zero));
  }
  ok = _mm_movemask_pd(bad) == 0;
#endif
  for (; i < n; i++) ok &= y[i] - y[i] == 0.0; /* finite */
  if (fm >= 0)
    for (int j = 0; j < nb; j++) ok &= y[(size_t)j * (size_t)M + fm] > 0.0;
  return ok;
}

/* Column m of the nb rows yb (M values each) into col (two rows a step
** with SSE2). */
static void column_copy(const double *yb, int M, int nb, double *col) {
  const size_t st = (size_t)M;
  int j = 0;
#ifdef __SSE2__
  for (; j + 2 <= nb; j += 2) {
    const double *r = yb + (size_t)j * st;
    _mm_storeu_pd(col + j, _mm_loadh_pd(_mm_load_sd(r), r + st));
  }
#endif
  for (; j < nb; j++) col[j] = yb[(size_t)j * st];
}

/* Column p of the nb rows xb (P values each) into col, and its range into
** *lo, *hi as record() makes it: v < lo ? v : lo in row order (NaN never
** counts).  Four ranges over rows j mod 4 (SSE2) break the chain of
** dependent compares; combined they hold the same values, and the same
** bits but where the extreme is a zero (ties of -0 and +0 keep the first
** in row order): such a column is taken again in order. */
static void column_range(const double *xb, int P, int nb, double *col,
                         double *lo, double *hi) {
  const size_t st = (size_t)P;
  double l = *lo, h = *hi;
  int j = 0;
#ifdef __SSE2__
  /* rows j, j + 1 in a lane pair, j + 2, j + 3 in another: minpd and
  ** maxpd keep their first operand where it is below (above) the second,
  ** as the compares do */
  __m128d l01 = _mm_set1_pd(l), l23 = l01, h01 = _mm_set1_pd(h), h23 = h01;
  for (; j + 4 <= nb; j += 4) {
    const double *r = xb + (size_t)j * st;
    __m128d a = _mm_loadh_pd(_mm_load_sd(r), r + st);
    __m128d b = _mm_loadh_pd(_mm_load_sd(r + 2 * st), r + 3 * st);
    _mm_storeu_pd(col + j, a);
    _mm_storeu_pd(col + j + 2, b);
    l01 = _mm_min_pd(a, l01);
    l23 = _mm_min_pd(b, l23);
    h01 = _mm_max_pd(a, h01);
    h23 = _mm_max_pd(b, h23);
  }
  double lv[4], hv[4];
  _mm_storeu_pd(lv, l01);
  _mm_storeu_pd(lv + 2, l23);
  _mm_storeu_pd(hv, h01);
  _mm_storeu_pd(hv + 2, h23);
  for (int u = 0; u < 4; u++) {
    l = lv[u] < l ? lv[u] : l;
    h = hv[u] > h ? hv[u] : h;
  }
#endif
  for (; j < nb; j++) {
    double v = xb[(size_t)j * st];
    col[j] = v;
    l = v < l ? v : l;
    h = v > h ? v : h;
  }
  if (l == 0.0 || h == 0.0) { /* a signed zero: in row order */
    l = *lo;
    h = *hi;
    for (j = 0; j < nb; j++) {
      l = col[j] < l ? col[j] : l;
      h = col[j] > h ? col[j] : h;
    }
  }
  *lo = l;
  *hi = h;
}

/* record() of the nb samples of a clean block in order: the moments (per
** metric in sample order, as record adds them), the sketches, then each
** stored column written once from the block. */
static int record_block(const pod_mc_plan *pl, pod_mc_chunk *c, int64_t i0,
                        int nb, const double *xb, const double *yb) {
  const int M = pl->M, P = pl->P;
  pod_moments_add_rows(c->mom, M, nb, yb);
  if (c->sk) {
    for (int j = 0; j < nb; j++)
      for (int m = 0; m < M; m++)
        if (pod_sketch_add(&c->sk[m], yb[(size_t)j * (size_t)M + m])) {
          pod_err e;
          pod_err_set(&e, POD_ENOMEM, "sketch", "out of memory");
          return chunk_fail(pl, c, i0 + j, xb + (size_t)j * (size_t)P, &e,
                            POD_ENOMEM);
        }
  }
  int64_t k = c->kept;
  if (c->yd)
    for (int m = 0; m < M; m++) column_copy(yb + m, M, nb, c->yd[m] + k);
  if (c->xd)
    for (int p = 0; p < P; p++)
      column_range(xb + p, P, nb, c->xd[p] + k, &c->xlo[p], &c->xhi[p]);
  c->kept += nb;
  return POD_OK;
}

/* run_plain with the evaluator's eval_block: the samples of a block are
** drawn in the same order, then evaluated together, then checked and
** recorded in order (a failing sample fails the chunk after the samples
** before it, as per sample); a block with no dropped sample is recorded
** as one. */
static int run_blocks(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                      gsl_rng *r) {
  int P = pl->P, M = pl->M;
  double *xb = malloc(sizeof(double) * ((size_t)POD_MC_BLOCK * (size_t)P + 1));
  double *yb = malloc(sizeof(double) * ((size_t)POD_MC_BLOCK * (size_t)M + 1));
  if (!xb || !yb) {
    free(xb);
    free(yb);
    return c->status =
               pod_err_set(&c->err, POD_ENOMEM, "chunk", "out of memory");
  }
  for (int64_t i0 = 0; i0 < c->n && !c->status; i0 += POD_MC_BLOCK) {
    int nb = c->n - i0 < POD_MC_BLOCK ? (int)(c->n - i0) : POD_MC_BLOCK;
    pod_dist_sample_rows(pl->dists, P, r, nb, xb);
    pod_err e;
    pod_err_clear(&e);
    int nok = nb;
    int rc = pl->ev.eval_block(pl->ev.ud, worker, c->g, nb, xb, yb, &nok, &e);
    if (rc == POD_OK) nok = nb;
    if (rc == POD_OK && block_clean(pl, nb, yb)) {
      record_block(pl, c, i0, nb, xb, yb);
      continue;
    }
    for (int j = 0; j < nok && !c->status; j++) {
      const double *x = xb + (size_t)j * (size_t)P;
      const double *y = yb + (size_t)j * (size_t)M;
      int drop = 0;
      if (!check_metrics(pl, c, i0 + j, x, y, &drop) && !drop)
        record(pl, c, i0 + j, x, y);
    }
    if (rc && !c->status)
      chunk_fail(pl, c, i0 + nok, xb + (size_t)nok * (size_t)P, &e, rc);
  }
  free(xb);
  free(yb);
  return c->status;
}

static int run_plain(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                     gsl_rng *r, double *x, double *y) {
  if (pl->ev.eval_block) return run_blocks(pl, c, worker, r);
  for (int64_t i = 0; i < c->n; i++) {
    for (int p = 0; p < pl->P; p++) x[p] = pod_dist_sample(&pl->dists[p], r);
    int drop = 0;
    if (eval1(pl, c, worker, i, x, y, &drop)) return c->status;
    if (!drop && record(pl, c, i, x, y)) return c->status;
  }
  return POD_OK;
}

/* Saltelli rows: A, B, and A with column p from B for every sampled p. */
static int run_sobol(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                     gsl_rng *r, gsl_qrng *q, double *scratch) {
  int P = pl->P, M = pl->M;
  double *u = scratch, *A = u + 2 * P, *B = A + P, *AB = B + P;
  double *fA = AB + P, *fB = fA + M, *shift = fB + M, *fAB = shift + M;
  /* The first-order sums use f(B) - shift with a shift that must not depend
  ** on the rows (else the estimator is biased): f at the parameters'
  ** medians, evaluated once per chunk; 0 if that point cannot be
  ** evaluated.  It only conditions the sums (see pod_stats.h). */
  for (int p = 0; p < P; p++) A[p] = pod_dist_quantile(&pl->dists[p], 0.5);
  pod_err ign;
  pod_err_clear(&ign);
  if (pl->ev.eval(pl->ev.ud, worker, c->g, A, shift, &ign) != POD_OK)
    for (int m = 0; m < M; m++) shift[m] = 0;
  for (int m = 0; m < M; m++)
    if (!isfinite(shift[m])) shift[m] = 0;
  for (int64_t i = 0; i < c->n; i++) {
    if (q) {
      if (gsl_qrng_get(q, u) != 0) {
        pod_err e;
        pod_err_set(&e, POD_ERANGE, "sensitivity", "Sobol generator failed");
        return chunk_fail(pl, c, i, A, &e, POD_ERANGE);
      }
    } else {
      for (int d = 0; d < 2 * P; d++) u[d] = gsl_rng_uniform_pos(r);
    }
    for (int p = 0; p < P; p++) {
      A[p] = pod_dist_quantile(&pl->dists[p], u[p]);
      B[p] = pod_dist_quantile(&pl->dists[p], u[P + p]);
    }
    /* a row with a dropped evaluation (A, B or any AB) is left out whole */
    int drop = 0, d1 = 0;
    if (eval1(pl, c, worker, i, A, fA, &d1)) return c->status;
    drop |= d1;
    if (eval1(pl, c, worker, i, B, fB, &d1)) return c->status;
    drop |= d1;
    for (int p = 0; p < P; p++) {
      double *f = fAB + (size_t)p * M;
      if (pl->dists[p].kind == POD_DIST_FIXED) {
        memcpy(f, fA, sizeof(double) * (size_t)M);
      } else {
        memcpy(AB, A, sizeof(double) * (size_t)P);
        AB[p] = B[p];
        if (eval1(pl, c, worker, i, AB, f, &d1)) return c->status;
        drop |= d1;
      }
    }
    if (drop) continue;
    if (record(pl, c, i, A, fA)) return c->status;
    for (int m = 0; m < M; m++) {
      pod_moments_add(&c->svar[m], fA[m]);
      pod_moments_add(&c->svar[m], fB[m]);
    }
    for (int p = 0; p < P; p++) {
      const double *f = fAB + (size_t)p * M;
      for (int m = 0; m < M; m++) {
        pod_sobol_acc *s = &c->sob[p * M + m];
        double d = fA[m] - f[m];
        s->first += (fB[m] - shift[m]) * (f[m] - fA[m]);
        s->total += d * d;
        s->n++;
      }
    }
  }
  return POD_OK;
}

/* The stored rows of chunk c are about to be written: the 2 MB blocks of
** the columns that they start are populated in one call each instead of a
** page fault per 4 kB (rows beyond a stop are never populated). */
static void touch_rows(const pod_mc_plan *pl, const pod_mc_chunk *c) {
  size_t cap = sizeof(double) * (size_t)pl->rows_cap[c->g];
  size_t from = sizeof(double) * (size_t)c->i0;
  size_t to = from + sizeof(double) * (size_t)c->n;
  for (int m = 0; m < pl->M && c->yd; m++)
    pod_stats_column_touch(pl->ycol[c->g * pl->M + m], cap, from, to);
  for (int p = 0; p < pl->P && c->xd; p++)
    pod_stats_column_touch(pl->xcol[c->g * pl->P + p], cap, from, to);
}

int pod_mc_chunk_run(const pod_mc_plan *pl, int64_t k, void *worker,
                     pod_mc_chunk **out) {
  *out = NULL;
  pod_mc_chunk *c = calloc(1, sizeof *c);
  if (!c) return POD_ENOMEM;
  *out = c;
  int P = pl->P, M = pl->M;
  c->k = k;
  c->M = M;
  if (k < 0 || k >= pl->nchunks) {
    c->status = pod_err_set(&c->err, POD_EINVAL, "chunk",
                            "chunk %lld out of range", (long long)k);
    return c->status;
  }
  c->g = (int)(k % pl->G);
  int64_t cc = k / pl->G;
  c->i0 = cc * pl->cs;
  c->n = pod_mc_chunk_samples(pl, k);
  c->stored = k < pl->store_chunks;
  if (c->stored && !pl->ycol) { /* the columns moved into the results */
    c->status =
        pod_err_set(&c->err, POD_EINVAL, "chunk", "plan already finished");
    return c->status;
  }
  int sobol = pl->sens == POD_MC_SENS_SOBOL;
  size_t nscratch = (size_t)(sobol ? 5 * P + 3 * M + P * M : P + M) + 1;
  double *scratch = malloc(nscratch * sizeof(double));
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_qrng *q = NULL;
  c->mom = malloc(sizeof(pod_moments) * (size_t)M);
  c->nonfinite = calloc((size_t)M, sizeof(int64_t));
  if (!pl->exact) c->sk = calloc((size_t)M, sizeof(pod_sketch));
  if (c->stored) {
    c->yd = malloc(sizeof(double *) * (size_t)M);
    if (c->yd)
      for (int m = 0; m < M; m++) c->yd[m] = pl->ycol[c->g * M + m] + c->i0;
    if (pl->store_x && P > 0) {
      c->xd = malloc(sizeof(double *) * (size_t)P);
      c->xlo = malloc(sizeof(double) * (size_t)P);
      c->xhi = malloc(sizeof(double) * (size_t)P);
      if (c->xd && c->xlo && c->xhi)
        for (int p = 0; p < P; p++) {
          c->xd[p] = pl->xcol[c->g * P + p] + c->i0;
          c->xlo[p] = INFINITY;
          c->xhi[p] = -INFINITY;
        }
    }
    touch_rows(pl, c);
  }
  if (sobol) {
    c->svar = malloc(sizeof(pod_moments) * (size_t)M);
    c->sob = calloc((size_t)(P * M), sizeof(pod_sobol_acc));
    if (pl->qrng) q = gsl_qrng_clone(pl->qstates[cc]);
  }
  if (!scratch || !r || !c->mom || !c->nonfinite || (!pl->exact && !c->sk) ||
      (c->stored &&
       (!c->yd || (pl->store_x && P > 0 && (!c->xd || !c->xlo || !c->xhi)))) ||
      (sobol && (!c->svar || !c->sob || (pl->qrng && !q)))) {
    c->status = pod_err_set(&c->err, POD_ENOMEM, "chunk", "out of memory");
    goto done;
  }
  for (int m = 0; m < M; m++) pod_moments_init(&c->mom[m]);
  if (c->sk)
    for (int m = 0; m < M; m++)
      pod_sketch_init(&c->sk[m], POD_SKETCH_ALPHA, NULL);
  if (c->svar)
    for (int m = 0; m < M; m++) pod_moments_init(&c->svar[m]);
  gsl_rng_set(r, pl->seeds[k]);
  if (pl->ev.chunk_begin) {
    int rc = pl->ev.chunk_begin(pl->ev.ud, worker, k, pl->seeds[k], &c->err);
    if (rc != POD_OK) {
      c->status = rc;
      goto done;
    }
  }
  if (sobol)
    run_sobol(pl, c, worker, r, q, scratch);
  else
    run_plain(pl, c, worker, r, scratch, scratch + P);
done:
  free(scratch);
  if (r) gsl_rng_free(r);
  if (q) gsl_qrng_free(q);
  return c->status;
}

/* ---- merge ---- */

static int stop_rule_met(const pod_mc_plan *pl) {
  for (int g = 0; g < pl->G; g++) {
    const pod_moments *m = &pl->mom[g * pl->M + pl->stop_metric];
    double lo, hi;
    if (m->n < pl->stop_min || pod_moments_ci95(m, &lo, &hi)) return 0;
    if (!(0.5 * (hi - lo) <= pl->stop_rel * fabs(pod_moments_mean(m))))
      return 0;
  }
  return 1;
}

void pod_mc__xrange_rows(pod_mc_plan *pl, int g, int64_t from, int64_t n) {
  for (int p = 0; p < pl->P; p++) {
    int i = g * pl->P + p;
    double lo = pl->xlo[i], hi = pl->xhi[i];
    const double *col = pl->xcol[i] + from;
    for (int64_t j = 0; j < n; j++) {
      lo = col[j] < lo ? col[j] : lo;
      hi = col[j] > hi ? col[j] : hi;
    }
    pl->xlo[i] = lo;
    pl->xhi[i] = hi;
  }
}

/* The range of chunk c's parameter values (its kept rows, now at dst) into
** the plan's: from the chunk's own, or (a decoded chunk) from its rows. */
static void merge_xrange(pod_mc_plan *pl, const pod_mc_chunk *c, int64_t dst) {
  if (!c->xlo) {
    pod_mc__xrange_rows(pl, c->g, dst, c->kept);
    return;
  }
  for (int p = 0; p < pl->P; p++) {
    int i = c->g * pl->P + p;
    if (c->xlo[p] < pl->xlo[i]) pl->xlo[i] = c->xlo[p];
    if (c->xhi[p] > pl->xhi[i]) pl->xhi[i] = c->xhi[p];
  }
}

int pod_mc_merge(pod_mc_plan *pl, pod_mc_chunk *c, pod_err *err) {
  int rc = POD_OK;
  if (!c) return pod_err_set(err, POD_EINVAL, "chunk", "no chunk");
  if (pl->finished || pl->finishing) {
    rc = pod_err_set(err, POD_EINVAL, "chunk", "plan already finished");
    goto out;
  }
  if (c->k != pl->merged) {
    rc = pod_err_set(err, POD_EINVAL, "chunk",
                     "chunk %lld merged out of order (expected %lld)",
                     (long long)c->k, (long long)pl->merged);
    goto out;
  }
  if (c->status) {
    if (err) *err = c->err;
    rc = c->status;
    goto out;
  }
  int g = c->g, M = pl->M, P = pl->P;
  if (pl->sk) {
    for (int m = 0; m < M; m++)
      if ((rc = pod_sketch_merge(&pl->sk[g * M + m], &c->sk[m], err))) goto out;
  }
  for (int m = 0; m < M; m++)
    pod_moments_merge(&pl->mom[g * M + m], &c->mom[m]);
  if (c->stored) {
    /* rows written in place by the chunk at i0; dropped samples leave a
    ** gap, closed here (chunks merge in order, so the destination lies
    ** below i0 and above every row of earlier chunks) */
    int64_t dst = pl->rows[g];
    if (dst != c->i0 && c->kept > 0) {
      size_t bytes = sizeof(double) * (size_t)c->kept;
      for (int m = 0; m < M; m++)
        memmove(pl->ycol[g * M + m] + dst, pl->ycol[g * M + m] + c->i0, bytes);
      if (pl->store_x)
        for (int p = 0; p < P; p++)
          memmove(pl->xcol[g * P + p] + dst, pl->xcol[g * P + p] + c->i0,
                  bytes);
    }
    if (pl->store_x && c->kept > 0) merge_xrange(pl, c, dst);
    pl->rows[g] += c->kept;
  }
  for (int m = 0; m < M; m++) pl->nonfinite[g * M + m] += c->nonfinite[m];
  pl->unfit_n[g] += c->unfit;
  if (c->svar) {
    for (int m = 0; m < M; m++)
      pod_moments_merge(&pl->svar[g * M + m], &c->svar[m]);
    for (int i = 0; i < P * M; i++) {
      pod_sobol_acc *a = &pl->sob[g * P * M + i];
      a->n += c->sob[i].n;
      a->first += c->sob[i].first;
      a->total += c->sob[i].total;
    }
  }
  pl->merged++;
  pl->samples_merged += c->n;
  if (pl->stop_metric >= 0 && c->k % pl->G == pl->G - 1 && stop_rule_met(pl))
    pl->stopped = 1;
out:
  pod_mc_chunk_free(c);
  return rc;
}

int pod_mc_should_stop(const pod_mc_plan *pl) {
  return pl->stopped;
}
int64_t pod_mc_chunks_merged(const pod_mc_plan *pl) {
  return pl->merged;
}
int64_t pod_mc_samples_merged(const pod_mc_plan *pl) {
  return pl->samples_merged;
}
