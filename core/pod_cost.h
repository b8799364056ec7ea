/*
** pod_cost.h: cost of GPU time and of training (DESIGN.md 4.4).
**
** A GPU-hour price is either given (rental, `usd_per_gpu_hour` > 0) or
** built from total-cost-of-ownership parts (pod_tco).  The training side
** comes in as plain numbers (failure-free tokens/s per active GPU, the
** goodput left after failures, the step time): this module does not
** depend on the training or reliability modules.
**
** Spare GPUs are reported both ways, as the seed articles compare them:
** "charged" bills the job for active + spare GPUs, "excluded" bills only
** the active GPUs (spares assumed to do other paid work).
**
** Units: USD, hours (_h), seconds (_s), kW.  A year is 8760 h.
** Everything here is pure, allocation-free, reentrant and thread-safe.
*/
#ifndef POD_COST_H
#define POD_COST_H

#include "pod_err.h"
#include "pod_field.h"
#include "pod_kernel.h"

#define POD_COST_HOURS_PER_YEAR 8760.0

/* Ownership cost parts of one GPU.  All fields >= 0 and finite;
** amort_years > 0, pue >= 1. */
typedef struct pod_tco {
  double capex_usd_per_gpu;        /* server + its share of network and
                                   ** installation, per GPU */
  double amort_years;              /* straight or annuity amortization */
  double capital_rate;             /* annual cost of capital (0.08 = 8%);
                                   ** 0 = straight-line depreciation */
  double power_kw_per_gpu;         /* all-in IT power per GPU (GPU, its
                                   ** share of host, network, storage) */
  double pue;                      /* facility power / IT power, >= 1 */
  double usd_per_kwh;              /* electricity price */
  double hosting_usd_per_kw_month; /* colocation per kW of IT power */
  double ops_usd_per_gpu_year;     /* staff, support, software */
} pod_tco;

/* Cost per GPU-hour and its parts. */
typedef struct pod_tco_parts {
  double usd_per_gpu_hour; /* the sum of the four parts */
  double capital_usd;      /* capex x capital recovery factor / 8760 */
  double energy_usd;       /* kW x PUE x USD/kWh */
  double hosting_usd;      /* kW x hosting / (8760/12) */
  double ops_usd;          /* ops per year / 8760 */
} pod_tco_parts;

typedef struct pod_cost_cfg {
  double usd_per_gpu_hour;     /* rental price; 0 = build it from tco */
  pod_tco tco;                 /* used only when usd_per_gpu_hour == 0 */
  double tokens_per_s_per_gpu; /* failure-free throughput per active GPU */
  int active_gpus;             /* >= 1 */
  int spare_gpus;              /* >= 0, idle GPUs kept for the job */
  double goodput;              /* (0,1]: useful / wall time (1 = no
                               ** failures); wall = tokens / (rate x goodput) */
  double step_s;               /* >= 0; 0 = no step cost */
  double tokens;               /* tokens to train, >= 0; 0 = no totals */
} pod_cost_cfg;

typedef struct pod_cost_result {
  pod_tco_parts price;             /* price.usd_per_gpu_hour is the price
                                   ** used; parts are 0 for rental */
  double tokens_per_s;             /* job, failure-free: per GPU x active */
  double usd_per_m_tokens;         /* spares excluded */
  double usd_per_m_tokens_charged; /* spares charged */
  double usd_per_step;             /* active GPUs x step_s (0 if no step) */
  double usd_per_step_charged;
  double train_h;           /* wall time for `tokens` */
  double gpu_hours;         /* active x train_h */
  double gpu_hours_charged; /* (active + spares) x train_h */
  double usd_total;         /* = usd_per_m_tokens x tokens / 1e6 */
  double usd_total_charged;
  double spare_fraction; /* spares / (active + spares) */
} pod_cost_result;

/* Set *c to defaults: zero price and TCO, 1 active GPU, no spares,
** goodput 1, no step, no tokens (tokens_per_s_per_gpu must still be set). */
void pod_cost_cfg_init(pod_cost_cfg *c);

/* Bounds of the numeric fields of pod_tco and pod_cost_cfg (pod_field.h),
** the one home of each range; the evaluators below check them first. */
extern const pod_field pod_cost_tco_fields[];
extern const pod_field pod_cost_cfg_fields[];

/* Price of one GPU-hour from TCO parts.  Capital uses the capital
** recovery factor r(1+r)^n / ((1+r)^n - 1) (1/n when r = 0).
** POD_EINVAL with err->field "tco.<field>" on bad input, or "tco" when
** the total is not positive. */
int pod_cost_tco_eval(const pod_tco *t, pod_tco_parts *out, pod_err *err);

/* Capital recovery factor for annual rate r >= 0 over n > 0 years. */
double pod_cost_crf(double r, double n);

/* Evaluate the cost of a training job.  POD_EINVAL with err->field set
** to the offending field ("usd_per_gpu_hour", "tco.pue",
** "tokens_per_s_per_gpu", "active_gpus", "spare_gpus", "goodput",
** "step_s", "tokens"). */
int pod_cost_eval(const pod_cost_cfg *c, pod_cost_result *out, pod_err *err);

/* Kernel over pod_cost_cfg; metrics in this order: usd_per_gpu_hour,
** usd_per_m_tokens, usd_per_m_tokens_charged, usd_total,
** usd_total_charged, train_h, gpu_hours, gpu_hours_charged, usd_per_step,
** spare_fraction. */
extern const pod_kernel pod_cost_kernel;

#endif
