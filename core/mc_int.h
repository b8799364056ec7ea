/*
** mc_int.h: internals of the Monte Carlo plan (core/mc_*.c), shared by
** mc_plan.c, mc_chunk.c, mc_results.c and mc_kernel.c; callers use
** pod_mc.h only.
**
** Convention: a non-static function shared between these files carries the
** module prefix with a double underscore, pod_mc__name (as libuv's uv__);
** it is not part of the API and may change freely.
*/
#ifndef POD_MC_INT_H
#define POD_MC_INT_H

#include "pod_mc.h"

#include <stdatomic.h>

#include <gsl/gsl_qrng.h>
#include <gsl/gsl_rng.h>

#define MAX_CHUNKS (1 << 24) /* seeds + duplicate check stay small */
#define MAX_QRNG_STATE_BYTES                                       \
  (64e6)                 /* saved Sobol states, else pseudo-random \
                          */
#define SOBOL_MAX_DIM 40 /* gsl_qrng_sobol's limit */
#define MC_RWORK 2       /* idle ranking scratch kept while finishing */

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
  pod_ranks *yrank; /* G*M: metric ranks while finishing (Spearman) */
  _Atomic(pod_ranks_work *) rwork[MC_RWORK]; /* idle ranking scratch, taken
                                                and handed back by the
                                                finishing parts */
  pod_moments *mom;                          /* G*M */
  pod_sketch *sk;                            /* G*M, sketch mode only */
  int64_t *rows;                             /* G stored rows */
  double **xcol, **ycol; /* G*P, G*M columns of rows_cap[g] rows, allocated at
                            plan time; chunk (g, c) writes rows c*cs.. of g
                            directly (disjoint per chunk), so merging copies
                            nothing */
  double *xlo, *xhi;     /* G*P: the least and greatest of the merged stored
                            rows of each parameter column (+inf, -inf while
                            there are none; NaN never counts): bounds for its
                            ranking */
  pod_moments *svar;     /* G*M, Sobol: f(A) and f(B) */
  pod_sobol_acc *sob;    /* G*P*M */
  int nonfinite_error, fits_metric; /* fits_metric: metric index, -1 none */
  pod_mc_unfit unfit;
  char **glabels;     /* G or NULL */
  int64_t *nonfinite; /* G*M dropped samples per metric */
  int64_t *unfit_n;   /* G */
};

struct pod_mc_chunk {
  int64_t k, i0, n;
  int g, M, stored, status;
  pod_err err;
  pod_moments *mom;    /* M */
  pod_sketch *sk;      /* M or NULL */
  double **xd, **yd;   /* stored chunks: P / M row pointers into the plan's
                          columns at this chunk's first row, else NULL */
  double *xlo, *xhi;   /* with xd: P, the least and greatest value of each
                          parameter in the rows recorded (NULL in a decoded
                          chunk: merging then reads its rows) */
  pod_moments *svar;   /* M (Sobol) */
  pod_sobol_acc *sob;  /* P*M (Sobol) */
  int64_t *nonfinite;  /* M */
  int64_t unfit, kept; /* kept: rows recorded (stored at i0 .. i0+kept) */
};

struct pod_mc_results {
  int P, M, G;
  char **pnames, **mnames;
  int complete, stopped, spearman_partial, samples_partial;
  int64_t chunks_done, chunks_total, samples_done;
  pod_mc_summary *sum;     /* G*M */
  pod_hist *hist;          /* G*M */
  pod_mc_sens_value *sens; /* G*P*M */
  int64_t *nonfinite;      /* G*M */
  int64_t *unfit_n;        /* G */
  int64_t *rows;           /* G */
  double **xcol, **ycol;
};

/* Copies of n distinct, non-empty names (each under POD_MC_NAME_MAX);
** NULL with err set (field `what`) on failure. */
char **pod_mc__dup_names(const char *const *names, int n, const char *what,
                         pod_err *err);
void pod_mc__free_names(char **names, int n);
/* Rows [from, from + n) of grid point g's stored parameter columns into
** the plan's parameter ranges (xlo, xhi). */
void pod_mc__xrange_rows(pod_mc_plan *pl, int g, int64_t from, int64_t n);
/* Frees the ranks kept while finishing (Spearman) and the idle ranking
** scratch. */
void pod_mc__free_yrank(pod_mc_plan *pl);

#endif
