/*
** mc_plan.c: the Monte Carlo plan: spec checks, chunk seeds, storage mode,
** Sobol states, workers (see pod_mc.h; internals in mc_int.h).
*/
#include "mc_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

char **pod_mc__dup_names(const char *const *names, int n, const char *what,
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

void pod_mc__free_names(char **names, int n) {
  if (!names) return;
  for (int i = 0; i < n; i++) free(names[i]);
  free(names);
}

/* The grid labels for error messages (any length; NULL entries become
** empty).  -1 when out of memory. */
static int dup_labels(pod_mc_plan *pl, const char *const *labels) {
  pl->glabels = calloc((size_t)pl->G, sizeof(char *));
  if (!pl->glabels) return -1;
  for (int g = 0; g < pl->G; g++) {
    const char *l = labels[g] ? labels[g] : "";
    size_t n = strlen(l) + 1;
    if (!(pl->glabels[g] = malloc(n))) return -1;
    memcpy(pl->glabels[g], l, n);
  }
  return 0;
}

void pod_mc_spec_init(pod_mc_spec *s) {
  memset(s, 0, sizeof *s);
  s->grid = 1;
  s->samples = 1000;
  s->chunk_size = POD_MC_CHUNK_DEFAULT;
  s->seed = 1;
  s->max_samples_mb = 256;
  s->sensitivity = POD_MC_SENS_NONE;
  s->stop_metric = -1;
  s->stop_min_samples = 2;
  s->hist_bins = POD_MC_HIST_BINS_DEFAULT;
}

/* ---- names and bounds ---- */

const char *const pod_mc_sens_names[POD_MC_SENS_SOBOL + 2] = {
    "none", "spearman", "sobol", NULL};
const char *const pod_mc_unfit_names[POD_MC_UNFIT_ERROR + 2] = {
    "keep", "exclude", "error", NULL};
const char *const pod_mc_nonfinite_names[POD_MC_NONFINITE_ERROR + 2] = {
    "count", "error", NULL};

const char *pod_mc_sens_name(int sens) {
  return pod_field_enum_name(pod_mc_sens_names, POD_MC_SENS_SOBOL + 1, sens);
}
int pod_mc_sens_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_mc_sens_names, name, out);
}
const char *pod_mc_unfit_name(int unfit) {
  return pod_field_enum_name(pod_mc_unfit_names, POD_MC_UNFIT_ERROR + 1, unfit);
}
int pod_mc_unfit_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_mc_unfit_names, name, out);
}
const char *pod_mc_nonfinite_name(int nonfinite) {
  return pod_field_enum_name(pod_mc_nonfinite_names, POD_MC_NONFINITE_ERROR + 1,
                             nonfinite);
}
int pod_mc_nonfinite_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_mc_nonfinite_names, name, out);
}

/* The enum members are read as ints by the bound tables. */
_Static_assert(sizeof(pod_mc_sens) == sizeof(int), "pod_mc_sens is an int");
_Static_assert(sizeof(pod_mc_unfit) == sizeof(int), "pod_mc_unfit is an int");
_Static_assert(sizeof(pod_mc_nonfinite) == sizeof(int),
               "pod_mc_nonfinite is an int");

/* The limits are sanity bounds of this implementation, not of a model:
** samples up to 1e12 per grid point (a day of 1e7 evaluations/s); the
** seed up to 2^53 - 1 because results and files carry it as a number
** (a double: exact to 2^53); chunks up to 2^24 samples (MAX_CHUNKS bounds
** their count); histograms up to 1e5 bins. */
const pod_field pod_mc_spec_fields[] = {
    POD_FIELD_I(pod_mc_spec, nparams, 0, POD_MC_PARAMS_MAX, "parameters"),
    POD_FIELD_I(pod_mc_spec, nmetrics, 1, POD_MC_METRICS_MAX, "metrics"),
    POD_FIELD_I(pod_mc_spec, grid, 1, POD_MC_GRID_MAX, "grid points"),
    POD_FIELD_I64(pod_mc_spec, samples, 1, 1e12, "samples per grid point"),
    POD_FIELD_I(pod_mc_spec, chunk_size, 1, 1 << 24, "samples per chunk"),
    POD_FIELD_U64(pod_mc_spec, seed, 0, 9007199254740991.0,
                  "seed (exact as a double: below 2^53)"),
    POD_FIELD_B(pod_mc_spec, keep_samples, "store sample rows"),
    POD_FIELD_D(pod_mc_spec, max_samples_mb, 0, HUGE_VAL, 0,
                "MB (1e6 B) of stored samples"),
    POD_FIELD_I(pod_mc_spec, sensitivity, 0, POD_MC_SENS_SOBOL,
                "pod_mc_sens_names index"),
    POD_FIELD_I(pod_mc_spec, hist_bins, 1, 100000, "histogram bins"),
    POD_FIELD_B(pod_mc_spec, hist_log, "log-spaced bins"),
    POD_FIELD_I(pod_mc_spec, nonfinite, 0, POD_MC_NONFINITE_ERROR,
                "pod_mc_nonfinite_names index"),
    POD_FIELD_I(pod_mc_spec, unfit, 0, POD_MC_UNFIT_ERROR,
                "pod_mc_unfit_names index"),
    POD_FIELD_END};

/* The stopping rule's, checked when stop_metric >= 0: a positive relative
** half-width, and at least 2 samples (a Student-t interval needs n >= 2). */
const pod_field pod_mc_stop_fields[] = {
    POD_FIELD_D(pod_mc_spec, stop_rel_ci95, 0, HUGE_VAL, POD_F_MIN_OPEN,
                "ci95 half-width / |mean|"),
    POD_FIELD_I64(pod_mc_spec, stop_min_samples, 2, 1e12,
                  "samples per grid point"),
    POD_FIELD_END};

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

int pod_mc_spec_check(const pod_mc_spec *s, pod_err *err) {
  pod_err local;
  if (!err) err = &local;
  int rc = pod_field_check_all(pod_mc_spec_fields, s, NULL, err);
  if (rc) return rc;
  if (s->nparams > 0 && !s->dists)
    return pod_err_set(err, POD_EINVAL, "params", "missing distributions");
  if (!s->eval.eval)
    return pod_err_set(err, POD_EINVAL, "eval", "needs an evaluation function");
  if (s->stop_metric < -1 || s->stop_metric >= s->nmetrics)
    return pod_err_set(err, POD_EINVAL, "stop_metric",
                       "must name a metric (got index %d)", s->stop_metric);
  if (s->stop_metric >= 0 &&
      (rc = pod_field_check_all(pod_mc_stop_fields, s, NULL, err)))
    return rc;
  if (s->fits_metric < 0 || s->fits_metric > s->nmetrics)
    return pod_err_set(err, POD_EINVAL, "fits_metric",
                       "must be 0 or 1 + a metric index in [0, %d) (got %d)",
                       s->nmetrics, s->fits_metric);
  if (s->sensitivity == POD_MC_SENS_SOBOL && s->nparams < 1)
    return pod_err_set(err, POD_EINVAL, "sensitivity",
                       "Sobol indices need at least one parameter");
  int64_t cpg = (s->samples + s->chunk_size - 1) / s->chunk_size;
  if ((double)cpg * s->grid > MAX_CHUNKS)
    return pod_err_set(err, POD_EINVAL, "chunk_size",
                       "%lld chunks exceed the limit %d: raise chunk_size",
                       (long long)cpg * s->grid, MAX_CHUNKS);
  for (int i = 0; i < s->nparams; i++) {
    pod_err e;
    pod_err_clear(&e);
    rc = pod_dist_check(&s->dists[i], &e);
    if (rc) {
      char field[POD_ERR_FIELD_MAX];
      snprintf(field, sizeof field, "params[%d].%.40s", i + 1, e.field);
      return pod_err_set(err, rc, field, "%s", e.msg);
    }
  }
  return POD_OK;
}

/* Storage mode: exact (every row) when it fits the budget, else the first
** chunks' rows (when parameters are stored) up to the budget.  -1 when out
** of memory. */
static int plan_storage(pod_mc_plan *pl) {
  int P = pl->P, M = pl->M, G = pl->G;
  pl->store_x = pl->keep || pl->sens != POD_MC_SENS_NONE;
  double all = (double)G * (double)pl->N * 8.0 * (M + (pl->store_x ? P : 0));
  pl->exact = all <= pl->budget_bytes;
  pl->rows_cap = calloc((size_t)G, sizeof(int64_t));
  if (!pl->rows_cap) return -1;
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
  return 0;
}

/* Merge state: moments, stored-row columns, sketches, Sobol accumulators.
** -1 when out of memory. */
static int plan_merge_state(pod_mc_plan *pl) {
  int P = pl->P, M = pl->M, G = pl->G;
  pl->mom = calloc((size_t)G * M, sizeof(pod_moments));
  pl->nonfinite = calloc((size_t)G * M, sizeof(int64_t));
  pl->unfit_n = calloc((size_t)G, sizeof(int64_t));
  if (!pl->nonfinite || !pl->unfit_n) return -1;
  pl->rows = calloc((size_t)G, sizeof(int64_t));
  pl->xcol = calloc((size_t)G * (P ? P : 1), sizeof(double *));
  pl->ycol = calloc((size_t)G * M, sizeof(double *));
  pl->xlo = malloc(sizeof(double) * (size_t)G * (size_t)(P ? P : 1));
  pl->xhi = malloc(sizeof(double) * (size_t)G * (size_t)(P ? P : 1));
  if (!pl->mom || !pl->rows || !pl->xcol || !pl->ycol || !pl->xlo || !pl->xhi)
    return -1;
  for (int i = 0; i < G * P; i++) {
    pl->xlo[i] = INFINITY;
    pl->xhi[i] = -INFINITY;
  }
  for (int i = 0; i < G * M; i++) pod_moments_init(&pl->mom[i]);
  for (int g = 0; g < G; g++) {
    if (pl->rows_cap[g] == 0) continue;
    size_t bytes = sizeof(double) * (size_t)pl->rows_cap[g];
    for (int m = 0; m < M; m++)
      if (!(pl->ycol[g * M + m] = pod_stats_column_alloc(bytes))) return -1;
    if (pl->store_x)
      for (int p = 0; p < P; p++)
        if (!(pl->xcol[g * P + p] = pod_stats_column_alloc(bytes))) return -1;
  }
  if (!pl->exact) {
    pl->sk = calloc((size_t)G * M, sizeof(pod_sketch));
    if (!pl->sk) return -1;
    for (int i = 0; i < G * M; i++)
      pod_sketch_init(&pl->sk[i], POD_SKETCH_ALPHA, NULL);
  }
  if (pl->sens == POD_MC_SENS_SOBOL) {
    pl->svar = calloc((size_t)G * M, sizeof(pod_moments));
    pl->sob = calloc((size_t)G * P * M, sizeof(pod_sobol_acc));
    if (!pl->svar || !pl->sob) return -1;
    for (int i = 0; i < G * M; i++) pod_moments_init(&pl->svar[i]);
  }
  return 0;
}

int pod_mc_plan_new(const pod_mc_spec *s, pod_mc_plan **out, pod_err *err) {
  pod_err local;
  if (!err) err = &local; /* failure codes travel through err below */
  pod_err_clear(err);
  *out = NULL;
  int rc = pod_mc_spec_check(s, err);
  if (rc) return rc;
  int cs = s->chunk_size;
  int64_t cpg = (s->samples + cs - 1) / cs;

  pod_mc_plan *pl = calloc(1, sizeof *pl);
  if (!pl) return pod_err_set(err, POD_ENOMEM, "plan", NULL);
  for (int i = 0; i < MC_RWORK; i++) atomic_init(&pl->rwork[i], NULL);
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
  pl->hist_bins = s->hist_bins;
  pl->hist_log = s->hist_log != 0;
  pl->sens = s->sensitivity;
  pl->budget_bytes = s->max_samples_mb * 1e6;
  pl->stop_metric = s->stop_metric;
  pl->stop_rel = s->stop_rel_ci95;
  /* without a stopping rule its fields are unchecked; 2 as ever */
  pl->stop_min = s->stop_min_samples < 2 ? 2 : s->stop_min_samples;
  pl->nonfinite_error = s->nonfinite == POD_MC_NONFINITE_ERROR;
  pl->fits_metric = s->fits_metric - 1;
  pl->unfit = s->unfit;
  rc = POD_ENOMEM;
  int P = pl->P, M = pl->M;

  if (!(pl->pnames = pod_mc__dup_names(s->param_names, P, "params", err)))
    goto fail_rc;
  if (!(pl->mnames = pod_mc__dup_names(s->metric_names, M, "metrics", err)))
    goto fail_rc;
  pl->dists = calloc((size_t)(P ? P : 1), sizeof(pod_dist));
  if (!pl->dists) goto fail;
  for (int i = 0; i < P; i++) {
    if ((rc = pod_dist_copy(&pl->dists[i], &s->dists[i], err))) goto fail_rc;
  }
  if (s->grid_labels && dup_labels(pl, s->grid_labels)) goto fail;
  if ((rc = derive_seeds(pl, err))) goto fail_rc;

  if (plan_storage(pl)) goto fail;
  if (pl->sens == POD_MC_SENS_SOBOL && (rc = build_qrng(pl, err))) goto fail_rc;

  if (plan_merge_state(pl)) goto fail;
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
  pod_mc__free_names(pl->pnames, pl->P);
  pod_mc__free_names(pl->mnames, pl->M);
  if (pl->glabels) pod_mc__free_names(pl->glabels, pl->G);
  free(pl->nonfinite);
  free(pl->unfit_n);
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
  free(pl->xlo);
  free(pl->xhi);
  free(pl->rows);
  free(pl->svar);
  free(pl->sob);
  pod_mc__free_yrank(pl);
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
