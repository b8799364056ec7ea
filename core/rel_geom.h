/*
** rel_geom.h: footprint geometry shared by rel.c and relsim.c (internal;
** not part of the public API).  Inputs are assumed checked.
*/
#ifndef POD_REL_GEOM_H
#define POD_REL_GEOM_H

#include <math.h>

#include "pod_rel.h"

/* Active GPUs per domain. */
static inline int rel_domain_active(const pod_rel_cfg *c) {
  return c->domain_gpus - c->spare_per_domain;
}

static inline int rel_ceil_div(int a, int b) {
  return (a + b - 1) / b;
}

/* Units of `unit` scope in the job's footprint. */
static inline int rel_unit_count(const pod_rel_cfg *c, int unit) {
  switch (unit) {
    case POD_REL_GPU:
      return c->active_gpus;
    case POD_REL_NODE:
      return rel_ceil_div(c->active_gpus, c->node_gpus);
    case POD_REL_DOMAIN:
      return rel_ceil_div(c->active_gpus, rel_domain_active(c));
    default:
      return 1;
  }
}

/* GPUs one failure of `blast` scope takes out of the job (0 for job). */
static inline int rel_blast_gpus(const pod_rel_cfg *c, int blast) {
  switch (blast) {
    case POD_REL_GPU:
      return 1;
    case POD_REL_NODE:
      return c->node_gpus;
    case POD_REL_DOMAIN:
      return rel_domain_active(c);
    default:
      return 0;
  }
}

/* GPUs in one pool spare. */
static inline int rel_pool_gpus(const pod_rel_cfg *c) {
  return c->pool_scope == POD_REL_NODE ? c->node_gpus : c->domain_gpus;
}

/* Multiplier of the rates of causes counted per `unit`. */
static inline double rel_unit_scale(const pod_rel_cfg *c, int unit) {
  double x = unit == POD_REL_GPU      ? c->gpu_rate_log10
             : unit == POD_REL_NODE   ? c->node_rate_log10
             : unit == POD_REL_DOMAIN ? c->domain_rate_log10
                                      : c->job_rate_log10;
  return x == 0.0 ? 1.0 : pow(10.0, x);
}

/* Job-level rate of cause i: rate x scale x units in the footprint. */
static inline double rel_cause_rate(const pod_rel_cfg *c, int i) {
  const pod_rel_cause *k = &c->failures.cause[i];
  return k->rate_per_h * rel_unit_scale(c, k->unit) *
         rel_unit_count(c, k->unit);
}

/* Failure-free compute hours of the job. */
static inline double rel_work_h(const pod_rel_cfg *c) {
  return c->work_h > 0.0 ? c->work_h : c->tokens / c->tokens_per_s / 3600.0;
}

#endif
