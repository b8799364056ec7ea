/*
** mc.c: the Monte Carlo plan: chunk seeds, chunk execution, in-order
** merge, stopping rule, final statistics (see pod_mc.h).
*/
#include "pod_mc.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_qrng.h>
#include <gsl/gsl_rng.h>

#define MAX_CHUNKS (1 << 24) /* seeds + duplicate check stay small */
#define MAX_QRNG_STATE_BYTES                                       \
  (64e6)                 /* saved Sobol states, else pseudo-random \
                          */
#define SOBOL_MAX_DIM 40 /* gsl_qrng_sobol's limit */

struct pod_mc_plan {
  /* configuration: read-only after pod_mc_plan_new (shared by workers) */
  int P, M, G, cs;
  int64_t N, cpg, nchunks;
  uint64_t seed;
  char **pnames, **mnames;
  pod_dist *dists;
  pod_mc_evaluator ev;
  int keep, hist_bins, hist_log;
  pod_mc_sens sens;
  double budget_bytes;
  int stop_metric;
  double stop_rel;
  int64_t stop_min;
  uint32_t *seeds;      /* nchunks */
  int exact;            /* every row stored, exact quantiles */
  int store_x;          /* parameter columns stored */
  int64_t store_chunks; /* chunks k < store_chunks store their rows */
  int64_t *rows_cap;    /* G: stored rows per grid point */
  int qrng;             /* Sobol design from gsl_qrng_sobol */
  gsl_qrng **qstates;   /* cpg: Sobol state at the start of each slice */

  /* merge state: one thread (the runner's loop thread) */
  int64_t merged, samples_merged;
  int stopped, finished, finishing;
  double **xrank;        /* G*P: parameter ranks while finishing (Spearman) */
  pod_moments *mom;      /* G*M */
  pod_sketch *sk;        /* G*M, sketch mode only */
  int64_t *rows;         /* G stored rows */
  double **xcol, **ycol; /* G*P, G*M columns of rows_cap[g] rows, allocated at
                            plan time; chunk (g, c) writes rows c*cs.. of g
                            directly (disjoint per chunk), so merging copies
                            nothing */
  pod_moments *svar;     /* G*M, Sobol: f(A) and f(B) */
  pod_sobol_acc *sob;    /* G*P*M */
};

struct pod_mc_chunk {
  int64_t k, i0, n;
  int g, M, stored, status;
  pod_err err;
  pod_moments *mom;   /* M */
  pod_sketch *sk;     /* M or NULL */
  double **xd, **yd;  /* stored chunks: P / M row pointers into the plan's
                         columns at this chunk's first row, else NULL */
  pod_moments *svar;  /* M (Sobol) */
  pod_sobol_acc *sob; /* P*M (Sobol) */
};

struct pod_mc_results {
  int P, M, G;
  char **pnames, **mnames;
  int complete, stopped, spearman_partial, samples_partial;
  int64_t chunks_done, chunks_total, samples_done;
  pod_mc_summary *sum;     /* G*M */
  pod_hist *hist;          /* G*M */
  pod_mc_sens_value *sens; /* G*P*M */
  int64_t *rows;           /* G */
  double **xcol, **ycol;
};

/* ---- helpers ---- */

static void free_xrank(pod_mc_plan *pl);

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static char **dup_names(const char *const *names, int n, const char *what,
                        pod_err *err) {
  char **out = calloc((size_t)(n ? n : 1), sizeof(char *));
  if (!out) {
    pod_err_set(err, POD_ENOMEM, what, NULL);
    return NULL;
  }
  for (int i = 0; i < n; i++) {
    char field[POD_ERR_FIELD_MAX];
    snprintf(field, sizeof field, "%s[%d]", what, i + 1);
    if (!names || !names[i] || !names[i][0] ||
        strlen(names[i]) >= POD_MC_NAME_MAX) {
      pod_err_set(err, POD_EINVAL, field, "needs a name of 1..%d characters",
                  POD_MC_NAME_MAX - 1);
      goto fail;
    }
    for (int j = 0; j < i; j++) {
      if (strcmp(out[j], names[i]) == 0) {
        pod_err_set(err, POD_EINVAL, field, "duplicate name '%s'", names[i]);
        goto fail;
      }
    }
    size_t len = strlen(names[i]) + 1;
    out[i] = malloc(len);
    if (!out[i]) {
      pod_err_set(err, POD_ENOMEM, field, NULL);
      goto fail;
    }
    memcpy(out[i], names[i], len);
  }
  return out;
fail:
  for (int i = 0; i < n; i++) free(out[i]);
  free(out);
  return NULL;
}

static void free_names(char **names, int n) {
  if (!names) return;
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

void pod_mc_spec_init(pod_mc_spec *s) {
  memset(s, 0, sizeof *s);
  s->grid = 1;
  s->samples = 1000;
  s->seed = 1;
  s->max_samples_mb = 256;
  s->sensitivity = POD_MC_SENS_NONE;
  s->stop_metric = -1;
}

/* Derive the 32-bit seed of every chunk; re-mix collisions (and 0, which
** mt19937 treats as its default seed 4357) in chunk order. */
static int derive_seeds(pod_mc_plan *pl, pod_err *err) {
  pl->seeds = malloc(sizeof(uint32_t) * (size_t)pl->nchunks);
  size_t cap = 1;
  while (cap < 2 * (size_t)pl->nchunks + 2) cap <<= 1;
  uint32_t *set = calloc(cap, sizeof(uint32_t));
  if (!pl->seeds || !set) {
    free(set);
    return pod_err_set(err, POD_ENOMEM, "samples",
                       "cannot hold the chunk seeds");
  }
  uint64_t base = splitmix64(pl->seed);
  for (int64_t k = 0; k < pl->nchunks; k++) {
    uint64_t g = (uint64_t)(k % pl->G), c = (uint64_t)(k / pl->G);
    uint64_t h = splitmix64(splitmix64(base ^ g) ^ c);
    for (;;) {
      uint32_t s = (uint32_t)(h >> 32);
      if (s == 0 || s == 4357u) { /* both mean "default seed" to mt19937 */
        h = splitmix64(h);
        continue;
      }
      size_t i = (size_t)(s * 2654435761u) & (cap - 1);
      while (set[i] != 0 && set[i] != s) i = (i + 1) & (cap - 1);
      if (set[i] == s) { /* taken by an earlier chunk */
        h = splitmix64(h);
        continue;
      }
      set[i] = s;
      pl->seeds[k] = s;
      break;
    }
  }
  free(set);
  return POD_OK;
}

/* Sobol design: generate the points in order once, saving the generator
** state at the start of each chunk slice. */
static int build_qrng(pod_mc_plan *pl, pod_err *err) {
  int dim = 2 * pl->P;
  pl->qrng = 0;
  if (dim < 1 || dim > SOBOL_MAX_DIM) return POD_OK;
  gsl_qrng *q = gsl_qrng_alloc(gsl_qrng_sobol, (unsigned)dim);
  if (!q)
    return pod_err_set(err, POD_ENOMEM, "sensitivity",
                       "cannot allocate the Sobol generator");
  if ((double)pl->cpg * (double)gsl_qrng_size(q) > MAX_QRNG_STATE_BYTES) {
    gsl_qrng_free(q); /* too many slices: pseudo-random design instead */
    return POD_OK;
  }
  pl->qstates = calloc((size_t)pl->cpg, sizeof(gsl_qrng *));
  if (!pl->qstates) {
    gsl_qrng_free(q);
    return pod_err_set(err, POD_ENOMEM, "sensitivity", NULL);
  }
  double u[SOBOL_MAX_DIM];
  for (int64_t c = 0; c < pl->cpg; c++) {
    pl->qstates[c] = gsl_qrng_clone(q);
    if (!pl->qstates[c]) {
      gsl_qrng_free(q);
      return pod_err_set(err, POD_ENOMEM, "sensitivity", NULL);
    }
    int64_t n = (c + 1) * pl->cs <= pl->N ? pl->cs : pl->N - c * pl->cs;
    for (int64_t i = 0; i < n; i++) {
      if (gsl_qrng_get(q, u) != 0) {
        gsl_qrng_free(q);
        return pod_err_set(err, POD_ERANGE, "sensitivity",
                           "Sobol generator failed");
      }
    }
  }
  gsl_qrng_free(q);
  pl->qrng = 1;
  return POD_OK;
}

int pod_mc_plan_new(const pod_mc_spec *s, pod_mc_plan **out, pod_err *err) {
  pod_err local;
  if (!err) err = &local; /* failure codes travel through err below */
  pod_err_clear(err);
  *out = NULL;
  if (s->nparams < 0)
    return pod_err_set(err, POD_EINVAL, "params", "count must be >= 0");
  if (s->nparams > 0 && !s->dists)
    return pod_err_set(err, POD_EINVAL, "params", "missing distributions");
  if (s->nmetrics < 1)
    return pod_err_set(err, POD_EINVAL, "metrics", "needs at least one metric");
  if (s->grid < 1)
    return pod_err_set(err, POD_EINVAL, "grid",
                       "needs at least one grid point (got %d)", s->grid);
  if (s->samples < 1)
    return pod_err_set(err, POD_EINVAL, "samples", "must be >= 1 (got %lld)",
                       (long long)s->samples);
  if (s->chunk_size < 0)
    return pod_err_set(err, POD_EINVAL, "chunk_size", "must be >= 1 (got %d)",
                       s->chunk_size);
  if (!s->eval.eval)
    return pod_err_set(err, POD_EINVAL, "eval", "needs an evaluation function");
  if (!(s->max_samples_mb >= 0) || !pod_finite(s->max_samples_mb))
    return pod_err_set(err, POD_EINVAL, "max_samples_mb",
                       "must be finite and >= 0 (got %g)", s->max_samples_mb);
  if ((int)s->sensitivity < POD_MC_SENS_NONE ||
      s->sensitivity > POD_MC_SENS_SOBOL)
    return pod_err_set(err, POD_EINVAL, "sensitivity", "unknown kind %d",
                       (int)s->sensitivity);
  if (s->stop_metric < -1 || s->stop_metric >= s->nmetrics)
    return pod_err_set(err, POD_EINVAL, "stop_metric",
                       "must name a metric (got index %d)", s->stop_metric);
  if (s->stop_metric >= 0 &&
      !(s->stop_rel_ci95 > 0 && pod_finite(s->stop_rel_ci95)))
    return pod_err_set(err, POD_EINVAL, "stop_rel_ci95",
                       "must be finite and > 0 (got %g)", s->stop_rel_ci95);
  if (s->hist_bins < 0 || s->hist_bins > 100000)
    return pod_err_set(err, POD_EINVAL, "hist_bins",
                       "must be in 0..100000 (got %d)", s->hist_bins);
  if (s->sensitivity == POD_MC_SENS_SOBOL && s->nparams < 1)
    return pod_err_set(err, POD_EINVAL, "sensitivity",
                       "Sobol indices need at least one parameter");
  for (int i = 0; i < s->nparams; i++) {
    pod_err e;
    pod_err_clear(&e);
    int rc = pod_dist_check(&s->dists[i], &e);
    if (rc) {
      char field[POD_ERR_FIELD_MAX];
      snprintf(field, sizeof field, "params[%d].%.40s", i + 1, e.field);
      return pod_err_set(err, rc, field, "%s", e.msg);
    }
  }
  int cs = s->chunk_size ? s->chunk_size : POD_MC_CHUNK_DEFAULT;
  int64_t cpg = (s->samples + cs - 1) / cs;
  if ((double)cpg * s->grid > MAX_CHUNKS)
    return pod_err_set(err, POD_EINVAL, "chunk_size",
                       "%lld chunks exceed the limit %d: raise chunk_size",
                       (long long)cpg * s->grid, MAX_CHUNKS);

  pod_mc_plan *pl = calloc(1, sizeof *pl);
  if (!pl) return pod_err_set(err, POD_ENOMEM, "plan", NULL);
  pl->P = s->nparams;
  pl->M = s->nmetrics;
  pl->G = s->grid;
  pl->N = s->samples;
  pl->cs = cs;
  pl->cpg = cpg;
  pl->nchunks = cpg * s->grid;
  pl->seed = s->seed;
  pl->ev = s->eval;
  pl->keep = s->keep_samples != 0;
  pl->hist_bins = s->hist_bins ? s->hist_bins : POD_MC_HIST_BINS_DEFAULT;
  pl->hist_log = s->hist_log != 0;
  pl->sens = s->sensitivity;
  pl->budget_bytes = s->max_samples_mb * 1e6;
  pl->stop_metric = s->stop_metric;
  pl->stop_rel = s->stop_rel_ci95;
  pl->stop_min = s->stop_min_samples < 2 ? 2 : s->stop_min_samples;
  int rc = POD_ENOMEM;
  int P = pl->P, M = pl->M, G = pl->G;

  if (!(pl->pnames = dup_names(s->param_names, P, "params", err))) goto fail_rc;
  if (!(pl->mnames = dup_names(s->metric_names, M, "metrics", err)))
    goto fail_rc;
  pl->dists = calloc((size_t)(P ? P : 1), sizeof(pod_dist));
  if (!pl->dists) goto fail;
  for (int i = 0; i < P; i++) {
    if ((rc = pod_dist_copy(&pl->dists[i], &s->dists[i], err))) goto fail_rc;
  }
  if ((rc = derive_seeds(pl, err))) goto fail_rc;

  /* storage mode */
  pl->store_x = pl->keep || pl->sens != POD_MC_SENS_NONE;
  double all = (double)G * (double)pl->N * 8.0 * (M + (pl->store_x ? P : 0));
  pl->exact = all <= pl->budget_bytes;
  pl->rows_cap = calloc((size_t)G, sizeof(int64_t));
  if (!pl->rows_cap) goto fail;
  if (pl->exact) {
    pl->store_chunks = pl->nchunks;
    for (int g = 0; g < G; g++) pl->rows_cap[g] = pl->N;
  } else if (pl->store_x) {
    double used = 0, row = 8.0 * (P + M);
    int64_t k = 0;
    for (; k < pl->nchunks; k++) {
      double b = row * (double)pod_mc_chunk_samples(pl, k);
      if (used + b > pl->budget_bytes) break;
      used += b;
      pl->rows_cap[k % G] += pod_mc_chunk_samples(pl, k);
    }
    pl->store_chunks = k;
  }
  if (pl->sens == POD_MC_SENS_SOBOL && (rc = build_qrng(pl, err))) goto fail_rc;

  /* merge state */
  pl->mom = calloc((size_t)G * M, sizeof(pod_moments));
  pl->rows = calloc((size_t)G, sizeof(int64_t));
  pl->xcol = calloc((size_t)G * (P ? P : 1), sizeof(double *));
  pl->ycol = calloc((size_t)G * M, sizeof(double *));
  if (!pl->mom || !pl->rows || !pl->xcol || !pl->ycol) goto fail;
  for (int i = 0; i < G * M; i++) pod_moments_init(&pl->mom[i]);
  for (int g = 0; g < G; g++) {
    if (pl->rows_cap[g] == 0) continue;
    size_t bytes = sizeof(double) * (size_t)pl->rows_cap[g];
    for (int m = 0; m < M; m++)
      if (!(pl->ycol[g * M + m] = malloc(bytes))) goto fail;
    if (pl->store_x)
      for (int p = 0; p < P; p++)
        if (!(pl->xcol[g * P + p] = malloc(bytes))) goto fail;
  }
  if (!pl->exact) {
    pl->sk = calloc((size_t)G * M, sizeof(pod_sketch));
    if (!pl->sk) goto fail;
    for (int i = 0; i < G * M; i++)
      pod_sketch_init(&pl->sk[i], POD_SKETCH_ALPHA, NULL);
  }
  if (pl->sens == POD_MC_SENS_SOBOL) {
    pl->svar = calloc((size_t)G * M, sizeof(pod_moments));
    pl->sob = calloc((size_t)G * P * M, sizeof(pod_sobol_acc));
    if (!pl->svar || !pl->sob) goto fail;
    for (int i = 0; i < G * M; i++) pod_moments_init(&pl->svar[i]);
  }
  *out = pl;
  return POD_OK;
fail:
  pod_err_set(err, POD_ENOMEM, "plan", NULL);
fail_rc:
  rc = err->code;
  if (rc == POD_OK) rc = POD_ENOMEM;
  pod_mc_plan_free(pl);
  return rc;
}

void pod_mc_plan_free(pod_mc_plan *pl) {
  if (!pl) return;
  free_names(pl->pnames, pl->P);
  free_names(pl->mnames, pl->M);
  if (pl->dists)
    for (int i = 0; i < pl->P; i++) pod_dist_free(&pl->dists[i]);
  free(pl->dists);
  free(pl->seeds);
  free(pl->rows_cap);
  if (pl->qstates) {
    for (int64_t c = 0; c < pl->cpg; c++)
      if (pl->qstates[c]) gsl_qrng_free(pl->qstates[c]);
    free(pl->qstates);
  }
  free(pl->mom);
  if (pl->sk) {
    for (int i = 0; i < pl->G * pl->M; i++) pod_sketch_free(&pl->sk[i]);
    free(pl->sk);
  }
  if (pl->xcol)
    for (int i = 0; i < pl->G * pl->P; i++) free(pl->xcol[i]);
  if (pl->ycol)
    for (int i = 0; i < pl->G * pl->M; i++) free(pl->ycol[i]);
  free(pl->xcol);
  free(pl->ycol);
  free(pl->rows);
  free(pl->svar);
  free(pl->sob);
  free_xrank(pl);
  free(pl);
}

int64_t pod_mc_plan_chunks(const pod_mc_plan *pl) {
  return pl->nchunks;
}
int64_t pod_mc_plan_samples_total(const pod_mc_plan *pl) {
  return pl->N * pl->G;
}
int pod_mc_plan_exact(const pod_mc_plan *pl) {
  return pl->exact;
}
int pod_mc_plan_qrng(const pod_mc_plan *pl) {
  return pl->qrng;
}

int64_t pod_mc_chunk_samples(const pod_mc_plan *pl, int64_t k) {
  if (k < 0 || k >= pl->nchunks) return 0;
  int64_t c = k / pl->G;
  return (c + 1) * pl->cs <= pl->N ? pl->cs : pl->N - c * pl->cs;
}

uint32_t pod_mc_chunk_seed(const pod_mc_plan *pl, int64_t k) {
  if (k < 0 || k >= pl->nchunks) return 0;
  return pl->seeds[k];
}

int pod_mc_worker_new(const pod_mc_plan *pl, void **worker, pod_err *err) {
  *worker = NULL;
  if (!pl->ev.worker_new) return POD_OK;
  pod_err e;
  pod_err_clear(&e);
  *worker = pl->ev.worker_new(pl->ev.ud, &e);
  if (*worker == NULL) {
    int code = e.code ? e.code : POD_ENOMEM;
    return pod_err_set(err, code, e.field[0] ? e.field : "eval",
                       "cannot create an evaluator worker%s%s",
                       e.msg[0] ? ": " : "", e.msg);
  }
  return POD_OK;
}

void pod_mc_worker_free(const pod_mc_plan *pl, void *worker) {
  if (worker && pl->ev.worker_free) pl->ev.worker_free(pl->ev.ud, worker);
}

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
  free(c->svar);
  free(c->sob);
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
  size_t len = (size_t)snprintf(buf, sizeof buf, "%s (grid %d, sample %lld:",
                                e->msg[0] ? e->msg : pod_strerror(code), c->g,
                                (long long)(c->i0 + i));
  for (int p = 0; p < pl->P && len < sizeof buf; p++)
    len += (size_t)snprintf(buf + len, sizeof buf - len, " %s=%.17g",
                            pl->pnames[p], x[p]);
  if (len < sizeof buf) snprintf(buf + len, sizeof buf - len, ")");
  c->status =
      pod_err_set(&c->err, code, e->field[0] ? e->field : "eval", "%s", buf);
  return c->status;
}

/* One evaluation with the metric checks; returns a status. */
static int eval1(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                 int64_t i, const double *x, double *y) {
  pod_err e;
  e.code = POD_OK;
  e.field[0] = e.msg[0] = '\0';
  int rc = pl->ev.eval(pl->ev.ud, worker, c->g, x, y, &e);
  if (rc) return chunk_fail(pl, c, i, x, &e, rc);
  for (int m = 0; m < pl->M; m++) {
    if (!isfinite(y[m])) {
      pod_err_set(&e, POD_ERANGE, pl->mnames[m], "metric is not finite (%g)",
                  y[m]);
      return chunk_fail(pl, c, i, x, &e, POD_ERANGE);
    }
  }
  return POD_OK;
}

/* Record row i (parameters x, metrics y) in the chunk's accumulators. */
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
  if (c->yd)
    for (int m = 0; m < M; m++) c->yd[m][i] = y[m];
  if (c->xd)
    for (int p = 0; p < P; p++) c->xd[p][i] = x[p];
  return POD_OK;
}

static int run_plain(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                     gsl_rng *r, double *x, double *y) {
  for (int64_t i = 0; i < c->n; i++) {
    for (int p = 0; p < pl->P; p++) x[p] = pod_dist_sample(&pl->dists[p], r);
    if (eval1(pl, c, worker, i, x, y) || record(pl, c, i, x, y))
      return c->status;
  }
  return POD_OK;
}

/* Saltelli rows: A, B, and A with column p from B for every sampled p. */
static int run_sobol(const pod_mc_plan *pl, pod_mc_chunk *c, void *worker,
                     gsl_rng *r, gsl_qrng *q, double *scratch) {
  int P = pl->P, M = pl->M;
  double *u = scratch, *A = u + 2 * P, *B = A + P, *AB = B + P;
  double *fA = AB + P, *fB = fA + M, *fAB = fB + M, *shift = fAB + M;
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
    if (eval1(pl, c, worker, i, A, fA) || eval1(pl, c, worker, i, B, fB) ||
        record(pl, c, i, A, fA))
      return c->status;
    for (int m = 0; m < M; m++) {
      pod_moments_add(&c->svar[m], fA[m]);
      pod_moments_add(&c->svar[m], fB[m]);
    }
    for (int p = 0; p < P; p++) {
      if (pl->dists[p].kind == POD_DIST_FIXED) {
        memcpy(fAB, fA, sizeof(double) * (size_t)M);
      } else {
        memcpy(AB, A, sizeof(double) * (size_t)P);
        AB[p] = B[p];
        if (eval1(pl, c, worker, i, AB, fAB)) return c->status;
      }
      for (int m = 0; m < M; m++) {
        pod_sobol_acc *s = &c->sob[p * M + m];
        double d = fA[m] - fAB[m];
        s->first += (fB[m] - shift[m]) * (fAB[m] - fA[m]);
        s->total += d * d;
        s->n++;
      }
    }
  }
  return POD_OK;
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
  size_t nscratch = (size_t)(sobol ? 5 * P + 4 * M : P + M) + 1;
  double *scratch = malloc(nscratch * sizeof(double));
  gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
  gsl_qrng *q = NULL;
  c->mom = malloc(sizeof(pod_moments) * (size_t)M);
  if (!pl->exact) c->sk = calloc((size_t)M, sizeof(pod_sketch));
  if (c->stored) {
    c->yd = malloc(sizeof(double *) * (size_t)M);
    if (c->yd)
      for (int m = 0; m < M; m++) c->yd[m] = pl->ycol[c->g * M + m] + c->i0;
    if (pl->store_x && P > 0) {
      c->xd = malloc(sizeof(double *) * (size_t)P);
      if (c->xd)
        for (int p = 0; p < P; p++) c->xd[p] = pl->xcol[c->g * P + p] + c->i0;
    }
  }
  if (sobol) {
    c->svar = malloc(sizeof(pod_moments) * (size_t)M);
    c->sob = calloc((size_t)(P * M), sizeof(pod_sobol_acc));
    if (pl->qrng) q = gsl_qrng_clone(pl->qstates[cc]);
  }
  if (!scratch || !r || !c->mom || (!pl->exact && !c->sk) ||
      (c->stored && (!c->yd || (pl->store_x && P > 0 && !c->xd))) ||
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
    if (!(0.5 * (hi - lo) <= pl->stop_rel * fabs(m->mean))) return 0;
  }
  return 1;
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
  if (c->stored) pl->rows[g] += c->n; /* rows written in place by the chunk */
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

/* ---- finish and results ---- */

typedef struct {
  pod_hist *h;
} hist_visit;

static void hist_from_sketch(double v, int64_t count, void *ud) {
  pod_hist_add(((hist_visit *)ud)->h, v, count);
}

/* Summary, quantiles and histogram of metric m at grid point g. */
static int part_summary(const pod_mc_plan *pl, pod_mc_results *r, int g,
                        int m) {
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
  for (int q = 0; q < POD_STATS_NQ; q++) s->q[q] = NAN;
  if (mo->n == 0) return POD_OK;
  pod_hist *h = &r->hist[g * pl->M + m];
  int rc = pod_hist_init(h, pl->hist_bins, mo->min, mo->max,
                         pl->hist_log && mo->min > 0, NULL);
  if (rc) return rc;
  if (pl->exact) {
    const double *col = pl->ycol[g * pl->M + m];
    int64_t n = pl->rows[g];
    double *buf = malloc(sizeof(double) * (size_t)n);
    if (!buf) return POD_ENOMEM;
    memcpy(buf, col, sizeof(double) * (size_t)n);
    pod_stats_quantiles(buf, (size_t)n, pod_stats_qprobs, POD_STATS_NQ, s->q);
    free(buf);
    for (int64_t i = 0; i < n; i++) pod_hist_add(h, col[i], 1);
  } else {
    const pod_sketch *sk = &pl->sk[g * pl->M + m];
    for (int q = 0; q < POD_STATS_NQ; q++)
      s->q[q] = pod_sketch_quantile(sk, pod_stats_qprobs[q]);
    hist_visit hv = {h};
    pod_sketch_foreach(sk, hist_from_sketch, &hv);
  }
  return POD_OK;
}

/* Spearman needs rows with parameters at this grid point. */
static int spearman_at(const pod_mc_plan *pl, int g) {
  return pl->sens != POD_MC_SENS_NONE && pl->store_x && pl->P > 0 &&
         pl->rows[g] >= 2 && pl->xcol[g * pl->P] != NULL;
}

/* Ranks of parameter p's stored column at grid point g. */
static int part_xrank(pod_mc_plan *pl, int g, int p) {
  if (!spearman_at(pl, g)) return POD_OK;
  size_t n = (size_t)pl->rows[g];
  double *rk = malloc(sizeof(double) * n);
  if (!rk) return POD_ENOMEM;
  if (pod_stats_ranks(pl->xcol[g * pl->P + p], n, rk)) {
    free(rk);
    return POD_ENOMEM;
  }
  pl->xrank[g * pl->P + p] = rk;
  return POD_OK;
}

/* Spearman of metric m against every parameter at grid point g. */
static int part_spearman(const pod_mc_plan *pl, pod_mc_results *r, int g,
                         int m) {
  if (!spearman_at(pl, g)) return POD_OK;
  size_t n = (size_t)pl->rows[g];
  double *rk = malloc(sizeof(double) * n);
  if (!rk) return POD_ENOMEM;
  if (pod_stats_ranks(pl->ycol[g * pl->M + m], n, rk)) {
    free(rk);
    return POD_ENOMEM;
  }
  for (int p = 0; p < pl->P; p++)
    r->sens[(g * pl->P + p) * pl->M + m].spearman =
        pod_stats_pearson(pl->xrank[g * pl->P + p], rk, n);
  free(rk);
  return POD_OK;
}

static void free_xrank(pod_mc_plan *pl) {
  if (!pl->xrank) return;
  for (int i = 0; i < pl->G * pl->P; i++) free(pl->xrank[i]);
  free(pl->xrank);
  pl->xrank = NULL;
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
  pl->xrank = calloc((size_t)G * (P ? P : 1), sizeof(double *));
  if (!r->sum || !r->hist || !r->sens || !pl->xrank) goto nomem;
  if (!(r->pnames =
            dup_names((const char *const *)pl->pnames, P, "params", err)) ||
      !(r->mnames =
            dup_names((const char *const *)pl->mnames, M, "metrics", err)))
    goto nomem;
  for (int i = 0; i < G * P * M; i++)
    r->sens[i].spearman = r->sens[i].sobol_first = r->sens[i].sobol_total = NAN;
  pl->finishing = 1;
  *out = r;
  return POD_OK;
nomem:
  free_xrank(pl);
  pod_mc_results_free(r);
  return pod_err_set(err, POD_ENOMEM, "results", NULL);
}

int pod_mc_finish_parts(const pod_mc_plan *pl, int phase) {
  if (phase == 0) return pl->G * pl->M + pl->G * pl->P;
  if (phase == 1) return pl->G * pl->M;
  return 0;
}

int pod_mc_finish_part(pod_mc_plan *pl, pod_mc_results *r, int phase,
                       int part) {
  int G = pl->G, M = pl->M, P = pl->P;
  if (!pl->finishing || part < 0 || part >= pod_mc_finish_parts(pl, phase))
    return POD_EINVAL;
  if (phase == 0) {
    if (part < G * M) return part_summary(pl, r, part / M, part % M);
    part -= G * M;
    return part_xrank(pl, part / P, part % P);
  }
  return part_spearman(pl, r, part / M, part % M);
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
  free_xrank(pl);
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
  free_names(r->pnames, r->P);
  free_names(r->mnames, r->M);
  if (r->hist)
    for (int i = 0; i < r->G * r->M; i++) pod_hist_free(&r->hist[i]);
  free(r->hist);
  free(r->sum);
  free(r->sens);
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

/* ---- built-in kernel evaluator ---- */

typedef struct kernel_ev {
  const pod_kernel *k;
  unsigned char *cfgs; /* G * cfg_size */
  int G, P;
  pod_bind *binds;
} kernel_ev;

static void *kev_worker_new(void *ud, pod_err *err) {
  kernel_ev *ke = ud;
  void *w = malloc(ke->k->cfg_size ? ke->k->cfg_size : 1);
  if (!w) pod_err_set(err, POD_ENOMEM, "eval", NULL);
  return w;
}

static void kev_worker_free(void *ud, void *w) {
  (void)ud;
  free(w);
}

static int kev_eval(void *ud, void *worker, int grid, const double *x,
                    double *y, pod_err *err) {
  const kernel_ev *ke = ud;
  size_t sz = ke->k->cfg_size;
  unsigned char *cfg = worker;
  memcpy(cfg, ke->cfgs + (size_t)grid * sz, sz);
  for (int i = 0; i < ke->P; i++) {
    const pod_bind *b = &ke->binds[i];
    if (b->type == POD_BIND_DOUBLE) {
      memcpy(cfg + b->offset, &x[i], sizeof(double));
    } else {
      double v = round(x[i]);
      if (!(v >= -2147483648.0 && v <= 2147483647.0)) {
        char f[POD_ERR_FIELD_MAX];
        snprintf(f, sizeof f, "binds[%d]", i + 1);
        return pod_err_set(err, POD_ERANGE, f,
                           "value %g does not fit an int field", x[i]);
      }
      int iv = (int)v;
      memcpy(cfg + b->offset, &iv, sizeof(int));
    }
  }
  return ke->k->fn(cfg, y, err);
}

int pod_mc_kernel_evaluator(const pod_kernel *k, const void *base_cfgs, int G,
                            const pod_bind *binds, int nparams,
                            pod_mc_evaluator *out) {
  memset(out, 0, sizeof *out);
  if (!k || !k->fn || !base_cfgs || G < 1 || nparams < 0 ||
      (nparams > 0 && !binds))
    return POD_EINVAL;
  for (int i = 0; i < nparams; i++) {
    size_t w = binds[i].type == POD_BIND_DOUBLE ? sizeof(double) : sizeof(int);
    if (binds[i].type != POD_BIND_DOUBLE && binds[i].type != POD_BIND_INT)
      return POD_EINVAL;
    if (binds[i].offset > k->cfg_size || k->cfg_size - binds[i].offset < w)
      return POD_EINVAL;
  }
  kernel_ev *ke = calloc(1, sizeof *ke);
  if (!ke) return POD_ENOMEM;
  ke->k = k;
  ke->G = G;
  ke->P = nparams;
  ke->cfgs = malloc(k->cfg_size * (size_t)G + 1);
  ke->binds = malloc(sizeof(pod_bind) * (size_t)(nparams ? nparams : 1));
  if (!ke->cfgs || !ke->binds) {
    free(ke->cfgs);
    free(ke->binds);
    free(ke);
    return POD_ENOMEM;
  }
  memcpy(ke->cfgs, base_cfgs, k->cfg_size * (size_t)G);
  if (nparams) memcpy(ke->binds, binds, sizeof(pod_bind) * (size_t)nparams);
  out->ud = ke;
  out->worker_new = kev_worker_new;
  out->worker_free = kev_worker_free;
  out->eval = kev_eval;
  return POD_OK;
}

void pod_mc_kernel_evaluator_free(pod_mc_evaluator *ev) {
  if (!ev || ev->eval != kev_eval) return;
  kernel_ev *ke = ev->ud;
  if (ke) {
    free(ke->cfgs);
    free(ke->binds);
    free(ke);
  }
  memset(ev, 0, sizeof *ev);
}
