/*
** cost.c: cost of GPU time and of training (see pod_cost.h).
*/
#include "pod_cost.h"

#include <math.h>
#include <string.h>

void pod_cost_cfg_init(pod_cost_cfg *c) {
  memset(c, 0, sizeof *c);
  c->tco.amort_years = 1.0;
  c->tco.pue = 1.0;
  c->active_gpus = 1;
  c->goodput = 1.0;
}

double pod_cost_crf(double r, double n) {
  if (r <= 0.0) return 1.0 / n;
  double g = pow(1.0 + r, n);
  return r * g / (g - 1.0);
}

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: the checks below walk these tables and the Lua bindings read
** them.  The caps are sanity limits. */
#define TCO_FIELDS(X)                                                        \
  X(capex_usd_per_gpu, 0, 1e9, 0,                                            \
    "USD per GPU (server, network share, installation)")                     \
  X(amort_years, 0, 100, POD_F_MIN_OPEN, "years")                            \
  X(capital_rate, 0, 1, 0, "annual cost of capital (0.08 = 8%)")             \
  X(power_kw_per_gpu, 0, 100, 0, "kW of IT power per GPU, all-in")           \
  X(pue, 1, 10, 0, "facility power / IT power")                              \
  X(usd_per_kwh, 0, 100, 0, "USD per kWh")                                   \
  X(hosting_usd_per_kw_month, 0, 1e6, 0, "USD per kW of IT power per month") \
  X(ops_usd_per_gpu_year, 0, 1e8, 0, "USD per GPU per year")
#define TD(m, lo, hi, open, unit) POD_FIELD_D(pod_tco, m, lo, hi, open, unit),
const pod_field pod_cost_tco_fields[] = {TCO_FIELDS(TD) POD_FIELD_END};
#undef TD
/* 1 when every TCO part is finite (the test of a rental price's unused
** parts, inline over the same list) */
#define TF(m, lo, hi, open, unit) &isfinite(t->m)
static int tco_finite(const pod_tco *t) {
  return 1 TCO_FIELDS(TF);
}
#undef TF

#define COST_CFG_FIELDS(X)                                                 \
  X(DOUBLE, usd_per_gpu_hour, 0, 1e6, 0, "USD per GPU-hour (0: from tco)") \
  X(DOUBLE, tokens_per_s_per_gpu, 0, 1e12, POD_F_MIN_OPEN,                 \
    "tokens/s per active GPU")                                             \
  X(INT, active_gpus, 1, 1e8, 0, "GPUs")                                   \
  X(INT, spare_gpus, 0, 1e8, 0, "GPUs")                                    \
  X(DOUBLE, goodput, 0, 1, POD_F_MIN_OPEN, "useful / wall time")           \
  X(DOUBLE, step_s, 0, 1e9, 0, "s")                                        \
  X(DOUBLE, tokens, 0, 1e18, 0, "tokens")
#define COST_CFG_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_cost_cfg, k, m, lo, hi, open, unit)
const pod_field pod_cost_cfg_fields[] = {COST_CFG_FIELDS(COST_CFG_E)
                                             POD_FIELD_END};
#define COST_CFG_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants (every evaluation) */
static int cfg_fields_ok(const pod_cost_cfg *x) {
  return 1 COST_CFG_FIELDS(COST_CFG_S);
}
#undef COST_CFG_E
#undef COST_CFG_S

int pod_cost_tco_eval(const pod_tco *t, pod_tco_parts *out, pod_err *err) {
  int rc = pod_field_check_all(pod_cost_tco_fields, t, "tco.", err);
  if (rc) return rc;

  pod_tco_parts p;
  const double H = POD_COST_HOURS_PER_YEAR;
  p.capital_usd =
      t->capex_usd_per_gpu * pod_cost_crf(t->capital_rate, t->amort_years) / H;
  p.energy_usd = t->power_kw_per_gpu * t->pue * t->usd_per_kwh;
  p.hosting_usd =
      t->power_kw_per_gpu * t->hosting_usd_per_kw_month / (H / 12.0);
  p.ops_usd = t->ops_usd_per_gpu_year / H;
  p.usd_per_gpu_hour = p.capital_usd + p.energy_usd + p.hosting_usd + p.ops_usd;
  if (!(p.usd_per_gpu_hour > 0.0) || !isfinite(p.usd_per_gpu_hour))
    return pod_err_set(err, POD_EINVAL, "tco",
                       "gives no positive finite price per GPU-hour");
  *out = p;
  return POD_OK;
}

int pod_cost_eval(const pod_cost_cfg *c, pod_cost_result *out, pod_err *err) {
  int rc;
  pod_cost_result r; /* every field set below (no block clear: its start-up
                     ** costs more than the stores) */

  if (!cfg_fields_ok(c) &&
      (rc = pod_field_check_all(pod_cost_cfg_fields, c, "", err)))
    return rc;
  if (c->usd_per_gpu_hour > 0.0) {
    /* the TCO parts go unused with a rental price, but a non-finite one is
    ** still a bad input (every kernel refuses non-finite inputs) */
    if (!tco_finite(&c->tco))
      return pod_err_set(err, POD_EINVAL, "tco",
                         "every TCO part must be finite");
    r.price.usd_per_gpu_hour = c->usd_per_gpu_hour;
    r.price.capital_usd = r.price.energy_usd = 0.0;
    r.price.hosting_usd = r.price.ops_usd = 0.0;
  } else if ((rc = pod_cost_tco_eval(&c->tco, &r.price, err))) {
    return rc;
  }

  const double price = r.price.usd_per_gpu_hour;
  const double active = c->active_gpus;
  const double all = active + (double)c->spare_gpus;
  const double charge = all / active; /* spares billed per active GPU */

  r.tokens_per_s = c->tokens_per_s_per_gpu * active;
  /* DESIGN.md 4.4: usd_per_gpu_hour / (tokens_per_s_per_gpu * 3600 / 1e6),
  ** on useful tokens (goodput scales the rate actually achieved). */
  r.usd_per_m_tokens =
      price / (c->tokens_per_s_per_gpu * c->goodput * 3600.0 / 1e6);
  r.usd_per_m_tokens_charged = r.usd_per_m_tokens * charge;
  r.usd_per_step = price * active * c->step_s / 3600.0;
  r.usd_per_step_charged = r.usd_per_step * charge;
  r.train_h = c->tokens / (r.tokens_per_s * c->goodput) / 3600.0;
  r.gpu_hours = active * r.train_h;
  r.gpu_hours_charged = all * r.train_h;
  r.usd_total = price * r.gpu_hours;
  r.usd_total_charged = price * r.gpu_hours_charged;
  r.spare_fraction = (double)c->spare_gpus / all;
  if (!isfinite(r.usd_total_charged) || !isfinite(r.usd_per_m_tokens))
    return pod_err_set(err, POD_ERANGE, "tokens", "cost overflows");
  if (!isfinite(r.usd_per_m_tokens_charged))
    return pod_err_set(err, POD_ERANGE, "spare_gpus",
                       "cost per million tokens overflows");
  if (!isfinite(r.usd_per_step_charged))
    return pod_err_set(err, POD_ERANGE, "step_s", "cost per step overflows");
  *out = r;
  return POD_OK;
}

static const char *const cost_metrics[] = {
    "usd_per_gpu_hour", "usd_per_m_tokens",  "usd_per_m_tokens_charged",
    "usd_total",        "usd_total_charged", "train_h",
    "gpu_hours",        "gpu_hours_charged", "usd_per_step",
    "spare_fraction"};

static int cost_kernel_fn(const void *cfg, double *m, pod_err *err) {
  pod_cost_result r;
  int rc = pod_cost_eval((const pod_cost_cfg *)cfg, &r, err);
  if (rc) return rc;
  m[0] = r.price.usd_per_gpu_hour;
  m[1] = r.usd_per_m_tokens;
  m[2] = r.usd_per_m_tokens_charged;
  m[3] = r.usd_total;
  m[4] = r.usd_total_charged;
  m[5] = r.train_h;
  m[6] = r.gpu_hours;
  m[7] = r.gpu_hours_charged;
  m[8] = r.usd_per_step;
  m[9] = r.spare_fraction;
  return POD_OK;
}

const pod_kernel pod_cost_kernel = {
    "cost", sizeof(pod_cost_cfg),
    (int)(sizeof cost_metrics / sizeof cost_metrics[0]), cost_metrics,
    cost_kernel_fn};
