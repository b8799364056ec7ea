/*
** rel_check.c: the reliability config's names, field bounds and checks
** (pod_rel.h; the model is in rel.c).
*/
#include "pod_field.h"
#include "rel_int.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const pod_rel_scope_names[POD_REL_NSCOPES + 1] = {
    "gpu", "node", "domain", "job", NULL};
const char *const pod_rel_pool_scope_names[POD_REL_JOB + 1] = {"gpu", "node",
                                                               "domain", NULL};
const char *const pod_rel_interval_rule_names[POD_REL_TAU_DALY + 2] = {
    "fixed", "young", "daly", NULL};
const char *const pod_rel_waste_model_names[POD_REL_WASTE_RENEWAL + 2] = {
    "first", "daly", "renewal", NULL};
const char *const pod_rel_repair_dist_names[POD_REL_REPAIR_LOGNORMAL + 2] = {
    "exponential", "lognormal", NULL};

const char *pod_rel_scope_name(int scope) {
  return pod_field_enum_name(pod_rel_scope_names, POD_REL_NSCOPES, scope);
}
int pod_rel_scope_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_rel_scope_names, name, out);
}
const char *pod_rel_pool_scope_name(int scope) {
  return pod_field_enum_name(pod_rel_pool_scope_names, POD_REL_JOB, scope);
}
int pod_rel_pool_scope_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_rel_pool_scope_names, name, out);
}
const char *pod_rel_interval_rule_name(int rule) {
  return pod_field_enum_name(pod_rel_interval_rule_names, POD_REL_TAU_DALY + 1,
                             rule);
}
int pod_rel_interval_rule_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_rel_interval_rule_names, name, out);
}
const char *pod_rel_waste_model_name(int model) {
  return pod_field_enum_name(pod_rel_waste_model_names,
                             POD_REL_WASTE_RENEWAL + 1, model);
}
int pod_rel_waste_model_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_rel_waste_model_names, name, out);
}
const char *pod_rel_repair_dist_name(int dist) {
  return pod_field_enum_name(pod_rel_repair_dist_names,
                             POD_REL_REPAIR_LOGNORMAL + 1, dist);
}
int pod_rel_repair_dist_parse(const char *name, int *out) {
  return pod_field_enum_parse(pod_rel_repair_dist_names, name, out);
}

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: pod_rel_check walks them and the Lua bindings read them.  The
** caps are sanity limits; POD_REL_MAX_GPUS bounds GPU and unit counts. */
const pod_field pod_rel_cause_fields[] = {
    POD_FIELD_D(pod_rel_cause, rate_per_h, 0, 1e6, 0,
                "failures per unit per hour"),
    POD_FIELD_END};

#define REL_CFG_FIELDS(X)                                                    \
  X(INT, node_gpus, 1, POD_REL_MAX_GPUS, 0, "GPUs per node or compute tray") \
  X(INT, domain_gpus, 1, POD_REL_MAX_GPUS, 0, "GPUs per scale-up domain")    \
  X(INT, active_gpus, 1, POD_REL_MAX_GPUS, 0, "GPUs")                        \
  X(INT, spare_per_domain, 0, POD_REL_MAX_GPUS, 0,                           \
    "hot spare GPUs per domain")                                             \
  X(INT, pool_units, 0, POD_REL_MAX_GPUS, 0, "spare nodes or domains")       \
  X(DOUBLE, swap_s, 0, 1e9, 0, "s")                                          \
  X(DOUBLE, repair_h, 0, 1e9, POD_F_MIN_OPEN, "h (mean)")                    \
  X(DOUBLE, repair_sigma, 0, 5, 0, "log-sd")                                 \
  X(BOOL, shrink, 0, 1, 0, "shrink instead of waiting")                      \
  X(DOUBLE, ckpt_s, 0, 1e9, 0, "s per checkpoint")                           \
  X(DOUBLE, interval_s, 0, 1e12, 0, "s (fixed rule: > 0)")                   \
  X(DOUBLE, restart_s, 0, 1e9, 0, "s")                                       \
  X(DOUBLE, work_h, 0, 1e9, 0, "h of failure-free compute")                  \
  X(DOUBLE, tokens, 0, 1e18, 0, "tokens")                                    \
  X(DOUBLE, tokens_per_s, 0, 1e15, 0, "tokens/s")                            \
  X(DOUBLE, u_seed, 0, 1, POD_F_MAX_OPEN,                                    \
    "uniform [0,1) hashed to the run's seed")                                \
  X(DOUBLE, gpu_rate_log10, -6, 6, 0, "log10 rate multiplier")               \
  X(DOUBLE, node_rate_log10, -6, 6, 0, "log10 rate multiplier")              \
  X(DOUBLE, domain_rate_log10, -6, 6, 0, "log10 rate multiplier")            \
  X(DOUBLE, job_rate_log10, -6, 6, 0, "log10 rate multiplier")
#define REL_CFG_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_rel_cfg, k, m, lo, hi, open, unit)
const pod_field pod_rel_cfg_fields[] = {REL_CFG_FIELDS(REL_CFG_E)
                                            POD_FIELD_END};
#define REL_CFG_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants (every evaluation) */
static int cfg_fields_ok(const pod_rel_cfg *x) {
  return 1 REL_CFG_FIELDS(REL_CFG_S);
}
#undef REL_CFG_E
#undef REL_CFG_S

/* Check one cause; `idx` 1-based for the field path. */
static int check_cause(const pod_rel_cause *k, int idx, pod_err *err) {
  char f[POD_ERR_FIELD_MAX];
  if (memchr(k->name, '\0', sizeof k->name) == NULL || k->name[0] == '\0') {
    snprintf(f, sizeof f, "failures[%d].cause", idx);
    return pod_err_set(err, POD_EINVAL, f, "must be a name of 1-%d characters",
                       POD_REL_NAME_MAX - 1);
  }
  /* the field path is formatted only for the error (every evaluation
  ** checks the list) */
  if (pod_field_check_all(pod_rel_cause_fields, k, "", NULL) != POD_OK) {
    snprintf(f, sizeof f, "failures[%d].", idx);
    pod_field_check_all(pod_rel_cause_fields, k, f, err);
    if (err) {
      size_t n = strlen(err->msg);
      snprintf(err->msg + n, sizeof err->msg - n, " (cause %s)", k->name);
    }
    return POD_EINVAL;
  }
  if (k->unit < 0 || k->unit >= POD_REL_NSCOPES) {
    snprintf(f, sizeof f, "failures[%d].unit", idx);
    return pod_err_set(err, POD_EINVAL, f,
                       "must be gpu, node, domain or job (cause %s)", k->name);
  }
  if (k->blast < 0 || k->blast >= POD_REL_NSCOPES) {
    snprintf(f, sizeof f, "failures[%d].blast", idx);
    return pod_err_set(err, POD_EINVAL, f,
                       "must be gpu, node, domain or job (cause %s)", k->name);
  }
  if (k->basis < 0 || k->basis >= POD_REL_NBASES) {
    snprintf(f, sizeof f, "failures[%d].basis", idx);
    return pod_err_set(err, POD_EINVAL, f,
                       "must be given, sourced or assumed (cause %s)", k->name);
  }
  return POD_OK;
}

int pod_rel_failures_add(pod_rel_failures *f, const char *cause,
                         double rate_per_h, int unit, int blast, pod_err *err) {
  if (f->ncauses < 0 || f->ncauses >= POD_REL_MAX_CAUSES)
    return pod_err_set(err, POD_ERANGE, "failures", "at most %d causes",
                       POD_REL_MAX_CAUSES);
  pod_rel_cause k;
  memset(&k, 0, sizeof k);
  if (cause == NULL || cause[0] == '\0' || strlen(cause) >= sizeof k.name) {
    char fld[POD_ERR_FIELD_MAX];
    snprintf(fld, sizeof fld, "failures[%d].cause", f->ncauses + 1);
    return pod_err_set(err, POD_EINVAL, fld,
                       "must be a name of 1-%d characters",
                       POD_REL_NAME_MAX - 1);
  }
  memcpy(k.name, cause, strlen(cause) + 1);
  k.rate_per_h = rate_per_h;
  k.unit = unit;
  k.blast = blast;
  int rc = check_cause(&k, f->ncauses + 1, err);
  if (rc) return rc;
  f->cause[f->ncauses++] = k;
  return POD_OK;
}

void pod_rel_cfg_init(pod_rel_cfg *c) {
  memset(c, 0, sizeof *c);
  snprintf(c->failures.name, sizeof c->failures.name, "none");
  c->node_gpus = 8;
  c->domain_gpus = 8;
  c->active_gpus = 1;
  c->pool_scope = POD_REL_NODE;
  c->repair_h = 24.0;
  c->repair_dist = POD_REL_REPAIR_EXP;
  c->ckpt_s = 60.0;
  c->interval_rule = POD_REL_TAU_YOUNG;
  c->restart_s = 600.0;
  c->waste_model = POD_REL_WASTE_RENEWAL;
  c->work_h = 1.0;
}

static int check_failures(const pod_rel_failures *f, pod_err *err) {
  int rc;
  if (f->ncauses < 0 || f->ncauses > POD_REL_MAX_CAUSES)
    return pod_err_set(err, POD_EINVAL, "failures", "must list 0-%d causes",
                       POD_REL_MAX_CAUSES);
  for (int i = 0; i < f->ncauses; i++)
    if ((rc = check_cause(&f->cause[i], i + 1, err))) return rc;
  return POD_OK;
}

/* Every check but the failure list's. */
int pod_rel__check_rest(const pod_rel_cfg *c, pod_err *err) {
  int rc;
  if (!cfg_fields_ok(c) &&
      (rc = pod_field_check_all(pod_rel_cfg_fields, c, "", err)))
    return rc;
  /* rules across fields and the enums */
  if (c->domain_gpus < c->node_gpus || c->domain_gpus % c->node_gpus != 0)
    return pod_err_set(err, POD_EINVAL, "domain_gpus",
                       "must be a multiple of node_gpus (%d), got %d",
                       c->node_gpus, c->domain_gpus);
  if (c->spare_per_domain >= c->domain_gpus)
    return pod_err_set(err, POD_EINVAL, "spare_per_domain",
                       "must be in [0, domain_gpus) = [0, %d)", c->domain_gpus);
  if (c->pool_scope < 0 || c->pool_scope >= POD_REL_NSCOPES ||
      (c->pool_units > 0 && c->pool_scope != POD_REL_NODE &&
       c->pool_scope != POD_REL_DOMAIN))
    return pod_err_set(err, POD_EINVAL, "pool_scope",
                       "must be node or domain (spare nodes or racks)");
  if (c->repair_dist != POD_REL_REPAIR_EXP &&
      c->repair_dist != POD_REL_REPAIR_LOGNORMAL)
    return pod_err_set(err, POD_EINVAL, "repair_dist",
                       "must be exponential or lognormal");
  if (c->interval_rule < POD_REL_TAU_FIXED ||
      c->interval_rule > POD_REL_TAU_DALY)
    return pod_err_set(err, POD_EINVAL, "interval_rule",
                       "must be fixed, young or daly");
  if (c->interval_rule == POD_REL_TAU_FIXED) {
    if (!(c->interval_s > 0.0))
      return pod_err_set(err, POD_EINVAL, "interval_s",
                         "must be a finite number > 0 for a fixed interval");
  } else if (c->ckpt_s <= 0.0) {
    return pod_err_set(err, POD_EINVAL, "ckpt_s",
                       "must be > 0 for an optimal (young/daly) interval");
  }
  if (c->waste_model < POD_REL_WASTE_FIRST ||
      c->waste_model > POD_REL_WASTE_RENEWAL)
    return pod_err_set(err, POD_EINVAL, "waste_model",
                       "must be first, daly or renewal");
  if (c->work_h > 0.0) {
    if (c->tokens > 0.0)
      return pod_err_set(err, POD_EINVAL, "tokens",
                         "give work_h or tokens, not both");
  } else {
    if (!(c->tokens > 0.0))
      return pod_err_set(err, POD_EINVAL, "work_h",
                         "give work_h > 0, or tokens > 0 and tokens_per_s");
    if (!(c->tokens_per_s > 0.0))
      return pod_err_set(err, POD_EINVAL, "tokens_per_s",
                         "must be > 0 when tokens are given");
    if (!isfinite(c->tokens / c->tokens_per_s))
      return pod_err_set(err, POD_EINVAL, "tokens", "job length overflows");
  }
  return POD_OK;
}

int pod_rel_check(const pod_rel_cfg *c, pod_err *err) {
  int rc = check_failures(&c->failures, err);
  return rc ? rc : pod_rel__check_rest(c, err);
}

/* The double fields' bounds, the inline screen of the list's doubles. */
#define REL_CFG_D(k, m, lo, hi, open, unit) REL_D_##k(m, lo, hi, open)
#define REL_D_DOUBLE(m, lo, hi, open) &pod_field_in(x->m, lo, hi, open)
#define REL_D_INT(m, lo, hi, open)
#define REL_D_BOOL(m, lo, hi, open)
static int cfg_doubles_ok(const pod_rel_cfg *x) {
  return 1 REL_CFG_FIELDS(REL_CFG_D);
}
#undef REL_CFG_D
#undef REL_D_DOUBLE
#undef REL_D_INT
#undef REL_D_BOOL

/* (rel_int.h) */
int pod_rel__check_shaped(const pod_rel_cfg *c, pod_err *err) {
  int ok = cfg_doubles_ok(c);
  if (c->interval_rule == POD_REL_TAU_FIXED)
    ok &= c->interval_s > 0.0;
  else
    ok &= !(c->ckpt_s <= 0.0);
  if (c->work_h > 0.0)
    ok &= !(c->tokens > 0.0);
  else
    ok &= c->tokens > 0.0 && c->tokens_per_s > 0.0 &&
          isfinite(c->tokens / c->tokens_per_s);
  return ok ? POD_OK : pod_rel__check_rest(c, err);
}
