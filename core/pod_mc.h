/*
** pod_mc.h: the Monte Carlo plan (pure: no libuv, no Lua, no printing).
**
** A plan holds P parameters (name + pod_dist), G grid points (the caller
** resolves its cartesian product; the plan only sees grid indices 0..G-1),
** N samples per grid point, M metric names, an evaluator, a seed and
** options.  The work is split into chunks, the unit of determinism:
**
**   chunk k  <->  grid point g = k % G, chunk c = k / G within g,
**                 samples c*chunk_size .. min(N, (c+1)*chunk_size) - 1 of g.
**
** (Grid points are interleaved so every grid point advances together and
** the stopping rule sees all of them.)  Chunk k draws from its own gsl_rng
** (mt19937) seeded with a 32-bit seed derived by splitmix64 from
** (seed, g, c).  All chunk seeds are computed at plan time; a seed already
** taken by an earlier chunk (in chunk order), or 0 (mt19937 maps 0 to its
** default 4357), is re-mixed deterministically until unique, so every chunk
** has a distinct stream and the seeds depend only on (seed, G, N,
** chunk_size).  Chunks produce chunk-local accumulators; merging them
** strictly in chunk order gives identical bytes for any thread count.
**
** Stopping rule (optional): after each round of G chunks, in chunk order,
** stop when at every grid point the metric's Student-t 95% half-width is
** <= stop_rel_ci95 * |mean| (with at least stop_min_samples samples), so
** the stopping chunk is the same for any thread count.
**
** Statistics per (metric, grid point): moments, Student-t CI, quantiles
** p1..p99, histogram.  Quantiles are exact (all samples kept) when all
** G*N*(M [+P]) doubles fit in the memory budget `max_samples_mb` (decided
** at plan time); otherwise each chunk fills a DDSketch (alpha 0.005, see
** pod_stats.h) and the stored samples are the prefix of chunks (in chunk
** order) that fits the budget, used for Spearman and samples.csv (the
** results say so with *_partial flags).
**
** Sensitivity: POD_MC_SENS_SPEARMAN ranks every parameter against every
** metric on the stored samples.  POD_MC_SENS_SOBOL switches the sampling
** to a Saltelli design: sample row j draws two independent points A_j, B_j
** (quasi-random from gsl_qrng_sobol of dimension 2P when 2P <= 40, else
** from the chunk's gsl_rng), maps them through pod_dist_quantile and
** evaluates f(A_j), f(B_j) and f(A_B^i_j) for every non-fixed parameter i
** (A with column i from B): P+2 evaluations per row.  The statistics and
** stored samples describe the A rows (N per grid point); Spearman is also
** computed on them.  Sobol points are generated once in order at plan time
** and the generator state is saved at every chunk boundary, so each chunk
** clones the state of its slice (GSL's Sobol cannot skip ahead); when the
** saved states would exceed 64 MB (tiny chunks) the design is
** pseudo-random instead (pod_mc_plan_qrng says which).  First-order
** indices use Saltelli et al. 2010 (f(B) centred on f at the parameters'
** medians), total indices Jansen 1999, variance from f(A) and f(B).
**
** Threads: the plan's configuration is read-only after pod_mc_plan_new.
** pod_mc_chunk_run may run on any number of threads at once (each with its
** own worker, each chunk at most once at a time): a chunk whose samples
** are stored writes them straight into its own rows of the plan's
** preallocated columns, so merging copies nothing.  pod_mc_merge,
** pod_mc_should_stop, pod_mc_finish_begin/end and the counters belong to
** one thread at a time (the runner's loop thread); the finish parts may
** run in parallel (see pod_mc_finish_begin).
*/
#ifndef POD_MC_H
#define POD_MC_H

#include <stddef.h>
#include <stdint.h>

#include "pod_dist.h"
#include "pod_err.h"
#include "pod_field.h"
#include "pod_kernel.h"
#include "pod_stats.h"

/* ---- evaluator ------------------------------------------------------------
 */

/* How a plan computes metrics from parameters.  `ud` is read-only while a
** plan runs.  worker_new (may be NULL: workers are then NULL) creates
** per-worker scratch (e.g. a Lua state); it may be called from several
** threads at once, and a worker may later be used from a different thread
** than the one that created it (never by two threads at once).
** eval writes M metrics y for parameter values x (P doubles) at grid point
** `grid` and returns POD_OK or a negative status with err filled. */
typedef struct pod_mc_evaluator {
  void *ud; /* read-only while running */
  /* per-worker scratch (e.g. a Lua state); may be NULL fn */
  void *(*worker_new)(void *ud, pod_err *err);
  void (*worker_free)(void *ud, void *worker);
  int (*eval)(void *ud, void *worker, int grid, const double *x, double *y,
              pod_err *err);
  /* Optional (NULL: none): called on the chunk's thread before chunk k's
  ** first eval, with the chunk's seed (pod_mc_chunk_seed), so a worker can
  ** reset per-chunk state (the Lua evaluator: a fresh copy of `eval`, its
  ** upvalues and `p`, math.random seeded from `seed`), keeping results
  ** identical for any thread count.  POD_OK, or a negative status with err
  ** filled (the chunk fails as if eval had). */
  int (*chunk_begin)(void *ud, void *worker, int64_t k, uint32_t seed,
                     pod_err *err);
  /* Optional (NULL: eval per sample): n samples at once, row j of x (P
  ** doubles at x + j * P) giving row j of y (M doubles at y + j * M), with
  ** the metrics eval would give.  POD_OK with *nok = n, or the status of
  ** the first failing sample, *nok its index (rows before it evaluated),
  ** err filled as eval fills it for that sample.  Plain (not Sobol) plans
  ** use it, POD_MC_BLOCK samples at a time. */
  int (*eval_block)(void *ud, void *worker, int grid, int n, const double *x,
                    double *y, int *nok, pod_err *err);
} pod_mc_evaluator;

/* Samples per eval_block call. */
#define POD_MC_BLOCK 64

/* Built-in evaluator over a pod_kernel: eval copies base_cfgs[grid] (G
** configs of k->cfg_size bytes, copied here) into the worker's scratch,
** writes x[i] at binds[i] (one per parameter; int fields rounded to
** nearest, out-of-int-range values fail), and calls k->fn.  No allocation
** per sample.  The plan's metrics must be k's nmetrics, in its order.
** Validates binds (field "binds[i]": offset + field size must fit in
** cfg_size).  Release with pod_mc_kernel_evaluator_free. */
int pod_mc_kernel_evaluator(const pod_kernel *k, const void *base_cfgs, int G,
                            const pod_bind *binds, int nparams,
                            pod_mc_evaluator *out);
/* The same, reporting only the kernel's metrics sel[0..nsel-1] (indices
** into k->metric_names, in that order): a study's metrics= subset. */
int pod_mc_kernel_evaluator_select(const pod_kernel *k, const void *base_cfgs,
                                   int G, const pod_bind *binds, int nparams,
                                   const int *sel, int nsel,
                                   pod_mc_evaluator *out);
void pod_mc_kernel_evaluator_free(pod_mc_evaluator *ev);

/* ---- plan ------------------------------------------------------------------
 */

typedef enum pod_mc_sens {
  POD_MC_SENS_NONE,
  POD_MC_SENS_SPEARMAN,
  POD_MC_SENS_SOBOL
} pod_mc_sens;

/* What a study does with a sample whose `fits` metric is 0 (a training
** layout that does not fit in memory): keep it (counted), drop it
** (counted) or fail the run. */
typedef enum pod_mc_unfit {
  POD_MC_UNFIT_KEEP,
  POD_MC_UNFIT_EXCLUDE,
  POD_MC_UNFIT_ERROR
} pod_mc_unfit;

/* What a study does with a sample whose metric is NaN or infinite: drop
** it from every statistic and count it (pod_mc_results_nonfinite), or
** fail the run. */
typedef enum pod_mc_nonfinite {
  POD_MC_NONFINITE_COUNT,
  POD_MC_NONFINITE_ERROR
} pod_mc_nonfinite;

/* Enum names, the one table of each list (the Lua bindings read them):
** each table is indexed by the enum value and NULL-terminated; _name
** returns "?" out of range, _parse stores the value and returns POD_OK,
** or POD_ENOENT for an unknown name (or NULL), leaving *out untouched.
**  - sensitivity: "none", "spearman", "sobol" (pod_mc_sens);
**  - unfit: "keep", "exclude", "error" (pod_mc_unfit);
**  - nonfinite: "count", "error" (pod_mc_nonfinite). */
extern const char *const pod_mc_sens_names[];
const char *pod_mc_sens_name(int sens);
int pod_mc_sens_parse(const char *name, int *out);
extern const char *const pod_mc_unfit_names[];
const char *pod_mc_unfit_name(int unfit);
int pod_mc_unfit_parse(const char *name, int *out);
extern const char *const pod_mc_nonfinite_names[];
const char *pod_mc_nonfinite_name(int nonfinite);
int pod_mc_nonfinite_parse(const char *name, int *out);

#define POD_MC_CHUNK_DEFAULT 1024
#define POD_MC_HIST_BINS_DEFAULT 40
#define POD_MC_NAME_MAX 64
/* Size limits of a spec (pod_mc_spec_fields' maxima; the binding checks
** them early, before it builds tables of that size). */
#define POD_MC_PARAMS_MAX 4096
#define POD_MC_METRICS_MAX 1024
#define POD_MC_GRID_MAX 1000000

typedef struct pod_mc_spec {
  int nparams;                     /* P in [0, 4096] */
  const char *const *param_names;  /* P names (copied) */
  const pod_dist *dists;           /* P dists (deep-copied, checked) */
  int nmetrics;                    /* M in [1, 1024] */
  const char *const *metric_names; /* M names (copied) */
  int grid;                        /* G in [1, 1e6] */
  int64_t samples;                 /* N in [1, 1e12] per grid point */
  int chunk_size;                  /* in [1, 2^24] */
  uint64_t seed;                   /* in [0, 2^53 - 1] */
  pod_mc_evaluator eval; /* not copied-deep: ud must outlive the plan */
  int keep_samples;      /* store rows for samples.csv */
  double max_samples_mb; /* budget for stored samples (MB = 1e6 B) */
  pod_mc_sens sensitivity;
  int stop_metric;      /* -1: no stopping rule */
  double stop_rel_ci95; /* stop when ci95 half-width <= this * |mean| at every
                           grid point */
  int64_t stop_min_samples; /* per grid point before the rule applies */
  int hist_bins;            /* in [1, 100000] */
  int hist_log; /* bins equal in log(x) where the metric's min > 0 */
  /* A sample with a NaN or infinite metric is dropped from every statistic
  ** and counted per metric (pod_mc_results_nonfinite); with
  ** POD_MC_NONFINITE_ERROR it fails the run instead. */
  pod_mc_nonfinite nonfinite;
  int fits_metric;    /* 0: none; else 1 + the index of the metric that
                         is 0 when the sample's layout does not fit */
  pod_mc_unfit unfit; /* what to do with fits_metric == 0 */
  const char *const *grid_labels; /* NULL or G labels ("tp=8 system=x") that
                                     name the grid point in errors (copied) */
} pod_mc_spec;

/* Defaults: no params, 1 grid point, 1000 samples, chunks of
** POD_MC_CHUNK_DEFAULT, seed 1, budget 256 MB, POD_MC_HIST_BINS_DEFAULT
** bins, no sensitivity, no stopping rule (min samples 2 once one is set). */
void pod_mc_spec_init(pod_mc_spec *s);

/* The spec's numeric bounds, the one home of each (pod_field.h): the
** plan's check walks them and the Lua binding reads them (lua/l_study.c,
** and main.c for --samples and --seed).  pod_mc_spec_fields holds every
** numeric member (counts, samples, seed, chunk_size, budget, enums as
** their index, flags); pod_mc_stop_fields the stopping rule's
** (stop_rel_ci95, stop_min_samples), checked only when stop_metric >= 0. */
extern const pod_field pod_mc_spec_fields[];
extern const pod_field pod_mc_stop_fields[];

/* Check the spec without allocating: the bound tables, then the rules
** across fields (distributions given and valid, the stopping and fits
** metrics among the metrics, Sobol with parameters, at most 2^24 chunks).
** Fields as pod_mc_plan_new reports them.  POD_OK or POD_EINVAL. */
int pod_mc_spec_check(const pod_mc_spec *s, pod_err *err);

typedef struct pod_mc_plan pod_mc_plan;
typedef struct pod_mc_chunk pod_mc_chunk;
typedef struct pod_mc_results pod_mc_results;

/* Validate the spec (pod_mc_spec_check; then names: fields "params[i]",
** "metrics[i]"), copy it, derive chunk seeds and (Sobol)
** the design.  On success the caller owns *out (pod_mc_plan_free). */
int pod_mc_plan_new(const pod_mc_spec *spec, pod_mc_plan **out, pod_err *err);
void pod_mc_plan_free(pod_mc_plan *plan);

int64_t pod_mc_plan_chunks(const pod_mc_plan *plan);        /* G * ceil(N/cs) */
int64_t pod_mc_plan_samples_total(const pod_mc_plan *plan); /* G * N */
int64_t pod_mc_chunk_samples(const pod_mc_plan *plan, int64_t k);
uint32_t pod_mc_chunk_seed(const pod_mc_plan *plan, int64_t k);
int pod_mc_plan_exact(const pod_mc_plan *plan); /* quantiles exact (fits) */
int pod_mc_plan_qrng(
    const pod_mc_plan *plan); /* Sobol design is quasi-random */

/* Create / free one evaluator worker (wraps the evaluator's functions;
** *worker = NULL when it has none).  Thread-safe as the evaluator says. */
int pod_mc_worker_new(const pod_mc_plan *plan, void **worker, pod_err *err);
void pod_mc_worker_free(const pod_mc_plan *plan, void *worker);

/* Run chunk k (0 <= k < chunks) with `worker` into a new chunk result
** (*out, owned by the caller until merged or freed).  Thread-safe: any
** number of chunks may run at once, each with its own worker.  Returns
** the chunk's status: on an evaluation error the chunk is failed, its
** error's msg carries the grid index, sample index and parameter values
** (truncated to POD_ERR_MSG_MAX) and field names the failing field.
** *out is NULL only when the result itself cannot be allocated. */
int pod_mc_chunk_run(const pod_mc_plan *plan, int64_t k, void *worker,
                     pod_mc_chunk **out);
int64_t pod_mc_chunk_index(const pod_mc_chunk *c);
/* The chunk's status (and error, copied into err when not NULL). */
int pod_mc_chunk_status(const pod_mc_chunk *c, pod_err *err);
void pod_mc_chunk_free(pod_mc_chunk *c);

/* Merge chunk c (consumed, even on error) into the plan's accumulators.
** Chunks must arrive in order 0,1,2,...: POD_EINVAL otherwise.  A failed
** chunk is not merged and its status and error are returned.  After a
** merge that ends a round (k % G == G-1) the stopping rule is checked.
** Not thread-safe (one merging thread). */
int pod_mc_merge(pod_mc_plan *plan, pod_mc_chunk *c, pod_err *err);

/* Non-zero when the stopping rule is met (checked in chunk order at round
** boundaries, so the stopping chunk is the same for any thread count). */
int pod_mc_should_stop(const pod_mc_plan *plan);
int64_t pod_mc_chunks_merged(const pod_mc_plan *plan);
int64_t pod_mc_samples_merged(
    const pod_mc_plan *plan); /* rows, all grid points */

/* Compute the final statistics from what was merged (quantiles, histograms,
** sensitivities) and hand them over in *out (caller frees with
** pod_mc_results_free).  The stored samples move into the results; the
** plan cannot merge or run stored chunks afterwards (POD_EINVAL).  Must not
** overlap pod_mc_chunk_run.  Takes O(rows) per metric (selection, no full
** sort): the runner calls it on a worker thread. */
int pod_mc_finish(pod_mc_plan *plan, pod_mc_results **out, pod_err *err);

/* The same in steps, so a runner can compute the parts in parallel:
** finish_begin allocates the results (loop thread); the parts of phase 0,
** then those of phase 1, may run on any threads at once (distinct parts;
** phase 1 only after every part of phase 0); finish_end (given the first
** failing part's status, or POD_OK) completes the results into *out, or
** frees them.  Phase 0: summary, quantiles and histogram per (grid point,
** metric), then per grid point the metric ranks, kept for phase 1 (with
** the exact quantiles of ranked metrics; a metric monotone along an
** earlier one's order takes its ranks from that order, without a sort);
** phase 1: per (grid point, parameter) the parameter's ranks and its
** Spearman against every metric.  pod_mc_finish runs these in order. */
#define POD_MC_FINISH_PHASES 2
int pod_mc_finish_begin(pod_mc_plan *plan, pod_mc_results **out, pod_err *err);
int pod_mc_finish_parts(const pod_mc_plan *plan, int phase);
int pod_mc_finish_part(pod_mc_plan *plan, pod_mc_results *r, int phase,
                       int part);
int pod_mc_finish_end(pod_mc_plan *plan, pod_mc_results *r, int status,
                      pod_mc_results **out, pod_err *err);

/* Run every chunk on the calling thread with one worker, merging in order,
** honouring the stopping rule, then finish.  For tests and small studies. */
int pod_mc_run_serial(pod_mc_plan *plan, pod_mc_results **out, pod_err *err);

/* ---- serialisation (core/mc_codec.c) -----------------------------------
**
** Chunk results and a plan's merge state as bytes, so they can leave the
** process (shard files, MPI): a versioned, little-endian encoding with a
** CRC-32, described in mc_codec.c.  decode(encode(c)) merges exactly as c
** (the same bits in every accumulator).  A record carries the producing
** plan's fingerprint; decoding into a plan with another fingerprint (other
** seed, samples, parameters, metrics, storage mode, ...) is refused. */
#define POD_MC_CODEC_VERSION 2 /* 2: moments carry their scale */

/* FNV-1a 64 of everything that decides a plan's chunks and statistics. */
uint64_t pod_mc_plan_fingerprint(const pod_mc_plan *plan);
/* CRC-32 (IEEE 802.3) of len bytes. */
uint32_t pod_mc_crc32(const void *data, size_t len);

/* Encode chunk c (run by this plan, or decoded into it; failed chunks
** carry their error) into *buf (malloc'ed, *len bytes; caller frees).
** Thread-safe as pod_mc_chunk_run is (reads the chunk's own rows). */
int pod_mc_chunk_encode(const pod_mc_plan *plan, const pod_mc_chunk *c,
                        unsigned char **buf, size_t *len, pod_err *err);
/* Decode a chunk record into *out (to merge with pod_mc_merge, or free).
** Stored rows are written into the plan's columns, as pod_mc_chunk_run
** writes them, so it is thread-safe in the same way.  POD_EINVAL with
** field "decode" and a message for a corrupt or mismatched record. */
int pod_mc_chunk_decode(pod_mc_plan *plan, const unsigned char *buf, size_t len,
                        pod_mc_chunk **out, pod_err *err);

/* Encode the plan's merge state (chunks merged, moments, sketches, stored
** rows, Sobol sums) before pod_mc_finish; decode it into a plan of the
** same fingerprint that has merged nothing, which then finishes to the
** same results.  Merge thread only.  A failed decode leaves the plan
** empty. */
int pod_mc_state_encode(const pod_mc_plan *plan, unsigned char **buf,
                        size_t *len, pod_err *err);
int pod_mc_state_decode(pod_mc_plan *plan, const unsigned char *buf, size_t len,
                        pod_err *err);

/* ---- results (read-only, any thread once finished)
 * ---------------------------- */

typedef struct pod_mc_summary {
  int64_t n;
  double mean, sd, se, ci95_lo, ci95_hi, min, max, skew, kurtosis;
  double q[POD_STATS_NQ]; /* at pod_stats_qprobs: p1 p5 p25 p50 p75 p95 p99 */
  int quantiles_exact;    /* 0: from the sketch (relative error <= 0.005) */
} pod_mc_summary;

typedef struct pod_mc_sens_value {
  double spearman;    /* NaN when not computed or undefined */
  double sobol_first; /* NaN unless Sobol */
  double sobol_total;
} pod_mc_sens_value;

void pod_mc_results_free(pod_mc_results *r);
int pod_mc_results_nparams(const pod_mc_results *r);
int pod_mc_results_nmetrics(const pod_mc_results *r);
int pod_mc_results_grid(const pod_mc_results *r);
const char *pod_mc_results_param_name(const pod_mc_results *r, int i);
const char *pod_mc_results_metric_name(const pod_mc_results *r, int m);
int pod_mc_results_complete(const pod_mc_results *r); /* every chunk merged */
int pod_mc_results_stopped(const pod_mc_results *r);  /* stopping rule met */
int64_t pod_mc_results_chunks_done(const pod_mc_results *r);
int64_t pod_mc_results_chunks_total(const pod_mc_results *r);
int64_t pod_mc_results_samples_done(
    const pod_mc_results *r); /* all grid points */

/* Summary of metric m at grid point g; POD_EINVAL when out of range. */
int pod_mc_results_summary(const pod_mc_results *r, int m, int g,
                           pod_mc_summary *out);
/* Histogram of metric m at grid point g over [min, max]; NULL if none. */
const pod_hist *pod_mc_results_hist(const pod_mc_results *r, int m, int g);
/* Sensitivity of metric m to parameter p at grid point g. */
int pod_mc_results_sensitivity(const pod_mc_results *r, int g, int p, int m,
                               pod_mc_sens_value *out);
/* Spearman computed on fewer rows than were merged (budget). */
int pod_mc_results_spearman_partial(const pod_mc_results *r);

/* Stored sample rows of grid point g (0 when none were kept), and their
** columns (rows(g) doubles each; NULL when that column is not stored:
** params are stored when keep_samples or sensitivity is set).  Rows are in
** sample order.  samples_partial: fewer rows than merged (budget). */
int64_t pod_mc_results_rows(const pod_mc_results *r, int g);
const double *pod_mc_results_param_column(const pod_mc_results *r, int g,
                                          int p);
const double *pod_mc_results_metric_column(const pod_mc_results *r, int g,
                                           int m);
int pod_mc_results_samples_partial(const pod_mc_results *r);
/* Samples at grid point g whose metric m was NaN or infinite (dropped). */
int64_t pod_mc_results_nonfinite(const pod_mc_results *r, int g, int m);
/* Samples at grid point g whose fits metric was 0 (kept or dropped as the
** spec's unfit says). */
int64_t pod_mc_results_unfit(const pod_mc_results *r, int g);

#endif
