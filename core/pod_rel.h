/*
** pod_rel.h: failures, spares, checkpoints and goodput (DESIGN.md 4.5).
**
** A failure model is a list of causes.  Each cause has a rate per unit per
** hour, the unit the rate counts (a GPU, a node, a scale-up domain, the
** whole job) and the blast radius one failure drains (gpu, node, domain,
** or job = nothing drained, restart only: software).  A synchronous job is
** interrupted by any failure in its footprint.
**
** Two evaluators share one config value (pod_rel_cfg):
**  - pod_rel_eval (rel.c): analytic expectation;
**  - pod_relsim_run (relsim.c): one stochastic, event-driven training run,
**    which a Monte Carlo study repeats.
**
** Time model shared by both (the simulator is exact for it; the analytic
** forms approximate it, see "Accuracy" below):
**  - failures form a Poisson process of total rate L = sum(rate x units)
**    while the job runs (computing or writing a checkpoint); none are
**    drawn while it is down (restarting, swapping, waiting);
**  - the job writes a checkpoint (C = ckpt_s) after every tau hours of
**    running compute; a failure loses the running time since the last
**    completed checkpoint (a write in progress is lost too);
**  - every interruption costs restart_s (detection, re-launch, reload);
**    one that drains hardware (blast != job) also costs swap_s, and needs
**    a replacement: a hot spare inside the same domain (spare_per_domain,
**    e.g. NVL72 running 64 of 72), else a unit from the spare pool
**    (pool_units of pool_scope); the failed unit goes to repair and comes
**    back as a spare where the replacement came from;
**  - with no spare: wait (until the failed unit is repaired, or an earlier
**    repair frees a spare, whichever comes first) or, with shrink = 1,
**    continue on fewer GPUs (throughput scales with active GPUs) and grow
**    back when the unit is repaired, at a planned checkpoint + restart.
** Idle spares are assumed not to fail, and a shrunk job keeps the full
** footprint's failure rate (second-order effects).
**
** Accuracy of pod_rel_eval against the simulator's mean (rel.c derives
** the spare model).  The renewal wall-time form is exact for the time
** model given the mean down time per interruption; the spare shortage is
** an Erlang loss system in wall time (failures arrive only while the job
** runs, none during the restart after one; repairs run on the wall
** clock), exact for exponential repairs up to: the residual smoothing by
** other failures' restarts, the peakedness of full domains' overflow, a
** rack replaced whole bringing fresh hot spares, and a start-up transient
** (runs begin with every spare free) that is corrected in closed form.
** Goodput is W / E[wall]; the mean of per-run goodputs is higher by about
** Var(wall) / E[wall]^2 (Jensen), compare W / mean(wall).  Over the grid
** in test_relsim.c (NVL72 and HGX footprints, pools of 0-32, rates
** x0.1-x3, repairs 4-96 h, 15-day jobs) the test holds the analytic
** goodput within 0.3% of the simulated W / mean(wall) plus 4 standard
** errors for exponential repairs, and 1% for lognormal repairs with
** log-sd <= 1 (the wait r / (k + 1) uses exponential residual times).
** With 2,000 runs per point the largest systematic deviation seen is
** 0.4% of goodput (exponential; long repairs with the pool often full)
** and 0.55% (lognormal); the old form (running-hour load, no transient)
** was off by up to 15% (23 of the 56 points beyond 4 standard errors at
** 2,000 runs; 10 outside the test's tolerance at its 150 runs).
**
** Units: rates per hour, _h hours, _s seconds.  Config structs are
** self-contained values (no pointers), memcpy-able.  Everything here is
** reentrant and thread-safe; pod_relsim_ws is owned by one caller at a
** time.
*/
#ifndef POD_REL_H
#define POD_REL_H

#include <stdint.h>

#include "pod_err.h"
#include "pod_field.h"
#include "pod_kernel.h"

#define POD_REL_MAX_CAUSES 32
#define POD_REL_NAME_MAX 32
#define POD_REL_MAX_GPUS 10000000 /* bound on GPU and unit counts */

/* What a rate counts (unit) or what one failure drains (blast). */
typedef enum pod_rel_scope {
  POD_REL_GPU = 0,
  POD_REL_NODE = 1,   /* HGX node (8 GPUs) or NVL72 compute tray (4) */
  POD_REL_DOMAIN = 2, /* scale-up domain (NVL72 rack; on HGX the node) */
  POD_REL_JOB = 3,    /* the whole job: blast = restart only */
  POD_REL_NSCOPES = 4
} pod_rel_scope;

/* Where a cause's rate comes from (presets tag theirs; core/rel.c). */
typedef enum pod_rel_basis {
  POD_REL_BASIS_GIVEN = 0,   /* given by the user (pod_rel_failures_add) */
  POD_REL_BASIS_SOURCED = 1, /* from a public count, cited */
  POD_REL_BASIS_ASSUMED = 2, /* an analogy: sample it over a range */
  POD_REL_NBASES = 3
} pod_rel_basis;

typedef struct pod_rel_cause {
  char name[POD_REL_NAME_MAX]; /* "faulty_gpu", ... NUL-terminated */
  double rate_per_h;           /* failures per unit per hour, >= 0 */
  int unit;                    /* pod_rel_scope */
  int blast;                   /* pod_rel_scope */
  int basis;                   /* pod_rel_basis (informational) */
} pod_rel_cause;

typedef struct pod_rel_failures {
  char name[POD_REL_NAME_MAX];
  int ncauses; /* 0..POD_REL_MAX_CAUSES */
  pod_rel_cause cause[POD_REL_MAX_CAUSES];
} pod_rel_failures;

typedef enum pod_rel_interval_rule {
  POD_REL_TAU_FIXED = 0, /* interval_s as given */
  POD_REL_TAU_YOUNG = 1, /* sqrt(2 C M), Young 1974 */
  POD_REL_TAU_DALY = 2   /* Daly 2006 higher-order optimum */
} pod_rel_interval_rule;

typedef enum pod_rel_waste_model {
  POD_REL_WASTE_FIRST = 0, /* waste = C/tau + (tau/2 + D)/M */
  POD_REL_WASTE_DALY =
      1, /* Daly 2006: wall = M e^(D/M)(e^((tau+C)/M)-1) W/tau */
  POD_REL_WASTE_RENEWAL = 2 /* exact for the time model above given the
                            ** mean down time D (no failures while down):
                            ** wall = (M+D) sum(e^(s/M) - 1) */
} pod_rel_waste_model;

typedef enum pod_rel_repair_dist {
  POD_REL_REPAIR_EXP = 0,
  POD_REL_REPAIR_LOGNORMAL = 1 /* mean repair_h, log-sd repair_sigma */
} pod_rel_repair_dist;

typedef struct pod_rel_cfg {
  pod_rel_failures failures;
  /* footprint */
  int node_gpus;   /* GPUs per node/tray (8 HGX, 4 NVL72 tray) */
  int domain_gpus; /* GPUs per scale-up domain, multiple of node_gpus */
  int active_gpus; /* GPUs the job runs on */
  /* spares */
  int spare_per_domain; /* hot spares inside each domain, < domain_gpus;
                        ** each domain runs domain_gpus - spare_per_domain */
  int pool_units;       /* spare pool size, in pool_scope units */
  int pool_scope;       /* POD_REL_NODE or POD_REL_DOMAIN (checked only
                        ** when pool_units > 0) */
  double swap_s;        /* extra time to bring in a replacement */
  double repair_h;      /* mean time to repair a drained unit, > 0 */
  int repair_dist;      /* pod_rel_repair_dist (simulator only) */
  double repair_sigma;  /* lognormal log-sd, >= 0 */
  int shrink;           /* 0: wait for repair when no spare; 1: shrink */
  /* checkpoints and restarts */
  double ckpt_s;     /* C, time to write one checkpoint */
  int interval_rule; /* pod_rel_interval_rule */
  double interval_s; /* tau when interval_rule == FIXED */
  double restart_s;  /* R: detection + restart + reload */
  int waste_model;   /* pod_rel_waste_model (analytic only) */
  /* job length: work_h > 0, or tokens and tokens_per_s (work_h = 0) */
  double work_h; /* failure-free compute hours */
  double tokens;
  double tokens_per_s; /* failure-free job throughput */
  /* simulator: per-run seed.  A study samples u_seed ~ uniform[0,1) per
  ** sample (bound as a double by offset, like any parameter) and the
  ** kernel hashes its bits to a 64-bit seed: runs stay reproducible from
  ** the study's seed and chunking, with no extra field type. */
  double u_seed;
  /* Rate uncertainty for studies: the rates of causes counted per GPU,
  ** node, domain or job are multiplied by 10^x (0 = as listed, the
  ** default); sample e.g. uniform(-1, 1) for a 0.1x-10x range. */
  double gpu_rate_log10;
  double node_rate_log10;
  double domain_rate_log10;
  double job_rate_log10;
} pod_rel_cfg;

typedef struct pod_rel_result {
  double rate_per_h;            /* job interruption rate while running */
  double job_mtbf_h;            /* M = 1 / rate */
  double interruptions_per_day; /* 24 x rate */
  double per_gpu_hour;          /* rate / active GPUs */
  double hw_fraction;           /* share of interruptions draining hardware */
  double checkpoint_interval_s; /* tau (work_h x 3600 if no failures) */
  double p_no_spare;            /* P(an interruption finds no spare), in
                                ** equilibrium (the start-up transient
                                ** lowers it early in a run) */
  double down_s;                /* D: mean down time per interruption */
  double waste;                 /* 1 - goodput */
  double goodput;               /* work_h / wall_h */
  double work_h;
  double wall_h;
  double interruptions; /* expected count over the run */
  double wait_h;        /* expected hours waiting for repair */
  int nodes;            /* units in the footprint */
  int domains;
  int spare_gpus;           /* in-domain spares + pool */
  double spare_fraction;    /* spares / (active + spares) */
  double gpu_hours;         /* active x wall */
  double gpu_hours_charged; /* (active + spares) x wall */
} pod_rel_result;

typedef struct pod_relsim_result {
  double wall_h;
  double work_h;
  double goodput; /* work_h / wall_h */
  int interruptions;
  int by_cause[POD_REL_MAX_CAUSES];
  double lost_h;        /* running time lost to failures */
  double restart_h;     /* restart + swap time */
  double wait_h;        /* time waiting for a repair */
  double ckpt_h;        /* time writing completed checkpoints */
  double checkpoints;   /* completed checkpoints (a count; double
                        ** because tiny intervals over long jobs
                        ** exceed the int range) */
  int swaps;            /* interruptions served by a spare */
  int waits;            /* ... that waited for a repair */
  int shrinks;          /* ... that shrank the job */
  int spares_peak_gpus; /* most spare GPUs in use at once */
  int spare_gpus;
  double gpu_hours;         /* active x wall */
  double gpu_hours_charged; /* (active + spares) x wall */
} pod_relsim_result;

/* Defaults: empty failure list, 8-GPU nodes and domains, 1 active GPU, no
** spares (pool scope node), repair 24 h exponential, Young interval with
** C = 60 s, R = 600 s, renewal waste model (never fails on long waits,
** matches the simulator's mean within the bound above), work_h = 1. */
void pod_rel_cfg_init(pod_rel_cfg *c);

/* Failure presets: "llama3_h100" (Llama 3 Table 5), "gb200_nvl72".
** Copies into *out; POD_ENOENT when unknown. */
int pod_rel_failures_preset(const char *name, pod_rel_failures *out);
/* Iterate presets: i from 0 while non-NULL; *source gets the citation. */
const pod_rel_failures *pod_rel_failures_at(int i, const char **source);

/* Source of cause `cause` of preset `preset` (pod_rel_failures_at order),
** one line; NULL when out of range. */
const char *pod_rel_preset_cause_source(int preset, int cause);

/* "given", "sourced", "assumed" and back (POD_ENOENT); the table is
** indexed by basis, NULL-terminated. */
extern const char *const pod_rel_basis_names[];
const char *pod_rel_basis_name(int basis);
int pod_rel_basis_parse(const char *name, int *out);

/* Append a cause with basis GIVEN (POD_EINVAL on a bad field, POD_ERANGE
** when full). */
int pod_rel_failures_add(pod_rel_failures *f, const char *cause,
                         double rate_per_h, int unit, int blast, pod_err *err);

/* Enum names, the one table of each list (the Lua bindings read them):
** each table is indexed by the enum value and NULL-terminated; _name
** returns "?" out of range, _parse stores the value and returns POD_OK,
** or POD_ENOENT for an unknown name (or NULL).
**  - scope: "gpu", "node", "domain", "job" (pod_rel_scope);
**  - pool scope: "gpu", "node", "domain" (pod_rel_scope without job; the
**    check then wants node or domain when the pool is not empty);
**  - interval rule: "fixed", "young", "daly" (pod_rel_interval_rule);
**  - waste model: "first", "daly", "renewal" (pod_rel_waste_model);
**  - repair dist: "exponential", "lognormal" (pod_rel_repair_dist). */
extern const char *const pod_rel_scope_names[];
const char *pod_rel_scope_name(int scope);
int pod_rel_scope_parse(const char *name, int *out);
extern const char *const pod_rel_pool_scope_names[];
const char *pod_rel_pool_scope_name(int scope);
int pod_rel_pool_scope_parse(const char *name, int *out);
extern const char *const pod_rel_interval_rule_names[];
const char *pod_rel_interval_rule_name(int rule);
int pod_rel_interval_rule_parse(const char *name, int *out);
extern const char *const pod_rel_waste_model_names[];
const char *pod_rel_waste_model_name(int model);
int pod_rel_waste_model_parse(const char *name, int *out);
extern const char *const pod_rel_repair_dist_names[];
const char *pod_rel_repair_dist_name(int dist);
int pod_rel_repair_dist_parse(const char *name, int *out);

/* Bounds of the numeric fields (pod_field.h), the one home of each range:
** a cause's rate_per_h, and the config's counts, times and multipliers. */
extern const pod_field pod_rel_cause_fields[];
extern const pod_field pod_rel_cfg_fields[];

/* Check every field: the tables above, then the rules across fields and
** the enums (err->field e.g. "failures[3].rate_per_h", 1-based,
** "active_gpus", "interval_s"). */
int pod_rel_check(const pod_rel_cfg *c, pod_err *err);

/* Job interruption rate per running hour (checks nothing). */
double pod_rel_job_rate(const pod_rel_cfg *c);

/* Checkpoint interval in hours for job MTBF m_h (inf allowed) under the
** config's rule.  Checks nothing. */
double pod_rel_interval_h(const pod_rel_cfg *c, double m_h);

/* Analytic expectation.  POD_EINVAL on bad input; POD_ERANGE when the
** first-order waste reaches 1 (failures too frequent for the interval). */
int pod_rel_eval(const pod_rel_cfg *c, pod_rel_result *out, pod_err *err);

/* pod_rel_eval for a config whose failure list (c->failures) passed
** pod_rel_check before and has not changed since: checks every other
** field, not the list (a study's evaluation graph checks the list once
** when it is constant and only patches the other fields per sample).
** Same results, bit for bit. */
int pod_rel_eval_failures_checked(const pod_rel_cfg *c, pod_rel_result *out,
                                  pod_err *err);

/* What the analytic model reads of the config's integer and enum fields
** alone (rel.c; made per evaluation, or once in a pod_rel_prep). */
typedef struct pod_rel_shape {
  int key[10]; /* node_gpus, domain_gpus, active_gpus, spare_per_domain,
               ** pool_units, pool_scope, repair_dist, shrink,
               ** interval_rule, waste_model */
  int nodes, domains, spare_gpus;
  int b_abs_max, c_dom; /* the largest blast hot spares serve (of the
                        ** failure list's classes), their slots per domain */
  double spare_fraction, inv_dom2;
  double count[POD_REL_NSCOPES]; /* units in the footprint, by unit */
  double b[POD_REL_NSCOPES];     /* GPUs one failure drains, by blast */
  unsigned char hw[POD_REL_NSCOPES], in_dom[POD_REL_NSCOPES],
      in_pool[POD_REL_NSCOPES];
} pod_rel_shape;

/* What the analytic model reads of a failure list: the rates summed by
** (unit, blast) scope, in list order (the model depends on a cause only
** through those two and its rate).  pod_rel_prepare fills it from a list
** that passed pod_rel_check. */
typedef struct pod_rel_prep {
  double rate[POD_REL_NSCOPES][POD_REL_NSCOPES]; /* [unit][blast], per h */
  /* the (unit, blast) pairs of a rate > 0, by blast then unit: the terms
  ** of the per-blast sums, in the model's order */
  int nterms;
  unsigned char term_u[POD_REL_NSCOPES * POD_REL_NSCOPES];
  unsigned char term_b[POD_REL_NSCOPES * POD_REL_NSCOPES];
  /* The footprint's shape (pod_rel_prepare_cfg; shape 0: none), for
  ** evaluations whose integer and enum fields are sh.key's (compared each
  ** time): those take it from here and check only their doubles (the
  ** rest passed pod_rel_check with key's values); any other makes its own
  ** as without a shape.  Same bits either way. */
  int shape;
  pod_rel_shape sh;
} pod_rel_prep;
void pod_rel_prepare(const pod_rel_failures *f, pod_rel_prep *p);
/* pod_rel_prepare(&c->failures, p) and the shape of c's footprint (see
** pod_rel_prep.shape), for a config c that passed pod_rel_check. */
void pod_rel_prepare_cfg(const pod_rel_cfg *c, pod_rel_prep *p);

/* pod_rel_eval_failures_checked with the list's sums computed before
** (pod_rel_prepare(&c->failures, p), the list unchanged since): a study's
** graph prepares a constant list once.  Same results, bit for bit. */
int pod_rel_eval_prepared(const pod_rel_cfg *c, const pod_rel_prep *p,
                          pod_rel_result *out, pod_err *err);

/* pod_rel_eval_prepared of two configs that share pr, evaluated side by
** side (their fixed points interleaved, so the CPU overlaps their
** dependency chains): each result is pod_rel_eval_prepared's bit for bit.
** POD_OK when both succeed; else the error of the first that fails (a
** before b), its index (0: a, 1: b) in *failed and its message in err;
** a's result is stored when only b fails. */
int pod_rel_eval_prepared2(const pod_rel_cfg *ca, const pod_rel_cfg *cb,
                           const pod_rel_prep *pr, pod_rel_result *oa,
                           pod_rel_result *ob, int *failed, pod_err *err);

/* Simulator workspace: grows to the largest run it served and is reused,
** so runs after the first allocate nothing.  Not thread-safe: one per
** thread.  new returns NULL when out of memory. */
typedef struct pod_relsim_ws pod_relsim_ws;
pod_relsim_ws *pod_relsim_ws_new(void);
void pod_relsim_ws_free(pod_relsim_ws *ws);

/* One stochastic training run from `seed` (same seed, same run).  ws may
** be NULL (a workspace is made and freed inside).  POD_EINVAL on bad
** input, POD_ENOMEM, POD_ERANGE when the run does not finish within
** 10 million interruptions.  Ignores cfg->u_seed. */
int pod_relsim_run(const pod_rel_cfg *c, uint64_t seed, pod_relsim_ws *ws,
                   pod_relsim_result *out, pod_err *err);

/* The 64-bit seed the kernel uses for u_seed (splitmix64 of its bits). */
uint64_t pod_relsim_seed_from_u(double u_seed);

/* Analytic kernel; metrics: interruptions_per_day, job_mtbf_h, goodput,
** checkpoint_interval_s, wall_h, interruptions, wait_h, spare_gpus,
** spare_fraction, gpu_hours, gpu_hours_charged. */
extern const pod_kernel pod_rel_kernel;

/* Simulator kernel (seed from u_seed); metrics: wall_h, goodput,
** interruptions, lost_h, restart_h, wait_h, ckpt_h, spares_peak_gpus,
** gpu_hours, gpu_hours_charged.  Allocates one workspace per call. */
extern const pod_kernel pod_relsim_kernel;

#endif
