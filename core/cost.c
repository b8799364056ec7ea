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

/* Non-negative finite check for field `name`. */
static int nonneg(double x, const char *name, pod_err *err) {
  if (!pod_finite(x))
    return pod_err_set(err, POD_EINVAL, name, "must be a finite number");
  if (x < 0.0)
    return pod_err_set(err, POD_EINVAL, name, "must be >= 0 (got %g)", x);
  return POD_OK;
}

int pod_cost_tco_eval(const pod_tco *t, pod_tco_parts *out, pod_err *err) {
  int rc;
  if ((rc = nonneg(t->capex_usd_per_gpu, "tco.capex_usd_per_gpu", err)))
    return rc;
  if ((rc = nonneg(t->amort_years, "tco.amort_years", err))) return rc;
  if (t->amort_years <= 0.0)
    return pod_err_set(err, POD_EINVAL, "tco.amort_years", "must be > 0");
  if ((rc = nonneg(t->capital_rate, "tco.capital_rate", err))) return rc;
  if (t->capital_rate > 1.0)
    return pod_err_set(err, POD_EINVAL, "tco.capital_rate",
                       "is an annual fraction, must be <= 1 (got %g)",
                       t->capital_rate);
  if ((rc = nonneg(t->power_kw_per_gpu, "tco.power_kw_per_gpu", err)))
    return rc;
  if (!pod_finite(t->pue))
    return pod_err_set(err, POD_EINVAL, "tco.pue", "must be a finite number");
  if (t->pue < 1.0)
    return pod_err_set(err, POD_EINVAL, "tco.pue", "must be >= 1 (got %g)",
                       t->pue);
  if ((rc = nonneg(t->usd_per_kwh, "tco.usd_per_kwh", err))) return rc;
  if ((rc = nonneg(t->hosting_usd_per_kw_month, "tco.hosting_usd_per_kw_month",
                   err)))
    return rc;
  if ((rc = nonneg(t->ops_usd_per_gpu_year, "tco.ops_usd_per_gpu_year", err)))
    return rc;

  pod_tco_parts p;
  const double H = POD_COST_HOURS_PER_YEAR;
  p.capital_usd =
      t->capex_usd_per_gpu * pod_cost_crf(t->capital_rate, t->amort_years) / H;
  p.energy_usd = t->power_kw_per_gpu * t->pue * t->usd_per_kwh;
  p.hosting_usd =
      t->power_kw_per_gpu * t->hosting_usd_per_kw_month / (H / 12.0);
  p.ops_usd = t->ops_usd_per_gpu_year / H;
  p.usd_per_gpu_hour = p.capital_usd + p.energy_usd + p.hosting_usd + p.ops_usd;
  if (!(p.usd_per_gpu_hour > 0.0) || !pod_finite(p.usd_per_gpu_hour))
    return pod_err_set(err, POD_EINVAL, "tco",
                       "gives no positive finite price per GPU-hour");
  *out = p;
  return POD_OK;
}

int pod_cost_eval(const pod_cost_cfg *c, pod_cost_result *out, pod_err *err) {
  int rc;
  pod_cost_result r;
  memset(&r, 0, sizeof r);

  if ((rc = nonneg(c->usd_per_gpu_hour, "usd_per_gpu_hour", err))) return rc;
  if (c->usd_per_gpu_hour > 0.0) {
    /* the TCO parts go unused with a rental price, but a non-finite one is
    ** still a bad input (every kernel refuses non-finite inputs) */
    const double tco[] = {c->tco.capex_usd_per_gpu,
                          c->tco.amort_years,
                          c->tco.capital_rate,
                          c->tco.power_kw_per_gpu,
                          c->tco.pue,
                          c->tco.usd_per_kwh,
                          c->tco.hosting_usd_per_kw_month,
                          c->tco.ops_usd_per_gpu_year};
    for (size_t i = 0; i < sizeof tco / sizeof tco[0]; i++)
      if (!pod_finite(tco[i]))
        return pod_err_set(err, POD_EINVAL, "tco",
                           "every TCO part must be finite");
    r.price.usd_per_gpu_hour = c->usd_per_gpu_hour;
  } else if ((rc = pod_cost_tco_eval(&c->tco, &r.price, err))) {
    return rc;
  }
  if (!pod_finite(c->tokens_per_s_per_gpu) || c->tokens_per_s_per_gpu <= 0.0)
    return pod_err_set(err, POD_EINVAL, "tokens_per_s_per_gpu",
                       "must be a finite number > 0");
  if (c->active_gpus < 1)
    return pod_err_set(err, POD_EINVAL, "active_gpus", "must be >= 1 (got %d)",
                       c->active_gpus);
  if (c->spare_gpus < 0)
    return pod_err_set(err, POD_EINVAL, "spare_gpus", "must be >= 0 (got %d)",
                       c->spare_gpus);
  if (!pod_finite(c->goodput) || c->goodput <= 0.0 || c->goodput > 1.0)
    return pod_err_set(err, POD_EINVAL, "goodput", "must be in (0, 1]");
  if ((rc = nonneg(c->step_s, "step_s", err))) return rc;
  if ((rc = nonneg(c->tokens, "tokens", err))) return rc;

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
  if (!pod_finite(r.usd_total_charged) || !pod_finite(r.usd_per_m_tokens))
    return pod_err_set(err, POD_ERANGE, "tokens", "cost overflows");
  if (!pod_finite(r.usd_per_m_tokens_charged))
    return pod_err_set(err, POD_ERANGE, "spare_gpus",
                       "cost per million tokens overflows");
  if (!pod_finite(r.usd_per_step_charged))
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
