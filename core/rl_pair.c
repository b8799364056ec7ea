/*
** rl_pair.c: the paired RL evaluator (pod_rl_pair_eval, pod_rl_pair_kernel,
** pod_rl.h): one system against another on the same RL step, or on a
** pre-training run, with the sampled efficiencies, prices and imbalance
** applied to both sides; cost per million tokens with spares charged.
*/
#include <math.h>
#include <string.h>

#include "pod_rl.h"
#include "rl_int.h"

void pod_rl_pair_cfg_init(pod_rl_pair_cfg *c) {
  memset(c, 0, sizeof *c);
  pod_rl_cfg_init(&c->a);
  pod_rl_cfg_init(&c->b);
}

static void set_system(pod_system *y, double up, double out, double price) {
  if (up > 0.0) y->up_eff = up;
  if (out > 0.0) y->out_eff = out;
  if (price > 0.0) y->usd_per_gpu_hour = price;
}

static void apply(const pod_rl_pair_cfg *p, pod_rl_cfg *x, double up,
                  double out, double price) {
  set_system(&x->rollout.system, up, out, price);
  set_system(&x->train.system, up, out, price);
  if (p->eff_scale > 0.0) x->train.eff_scale *= p->eff_scale;
  if (p->overlap > 0.0) x->rollout.overlap = p->overlap;
  /* trainers only: the rollouts' serving model has its own expert
  ** imbalance (expert_cv), which a shared factor would count twice */
  if (p->imbalance > 0.0) x->train.model.imbalance = p->imbalance;
  if (p->resp_scale > 0.0) {
    if (x->response.kind == POD_DIST_LOGNORMAL)
      x->response.p[0] += log(p->resp_scale);
    else
      for (int i = 0; i < 4; i++) x->response.p[i] *= p->resp_scale;
  }
}

/* Pre-training cost per million tokens, spares charged. */
static int pretrain_side(const pod_rl_cfg *x, double *cost, double *step,
                         double *goodput, double *tps, pod_err *err) {
  pod_train_result t;
  int rc = pod_rl__nested(pod_train_eval(&x->train, &t, err), "train.", err);
  if (rc) return rc;
  if (!t.fits)
    return FAIL("train.parallel", "needs %.1f GB per GPU, more than %.0f",
                t.memory.total_gb, x->train.system.gpu.hbm_gb);
  pod_rel_cfg r = x->rel;
  r.active_gpus = x->train.gpus;
  r.work_h = x->hours;
  r.tokens = 0.0;
  r.tokens_per_s = 0.0;
  pod_rel_result rr;
  if ((rc = pod_rl__nested(pod_rel_eval(&r, &rr, err), "reliability.", err)))
    return rc;
  double gpus = x->train.gpus + rr.spare_gpus;
  *cost = x->train.system.usd_per_gpu_hour * gpus / 3600.0 /
          (t.tokens_per_s * rr.goodput) * 1e6;
  *step = t.step_s;
  *goodput = rr.goodput;
  *tps = t.tokens_per_s_per_gpu;
  return POD_OK;
}

static int side(const pod_rl_pair_cfg *p, const pod_rl_cfg *x0, double up,
                double out, double price, const char *pre, double *cost,
                double *step, double *goodput, double *tps, pod_err *err) {
  pod_rl_cfg x = *x0;
  apply(p, &x, up, out, price);
  int rc;
  if (p->pretrain) {
    rc = pretrain_side(&x, cost, step, goodput, tps, err);
  } else {
    pod_rl_result r;
    rc = pod_rl_eval(&x, &r, err);
    if (rc == POD_OK) {
      *cost = r.usd_per_m_tokens_charged;
      *step = r.step_s;
      *goodput = r.goodput;
      *tps = r.rollout_tokens_per_s_per_gpu;
    }
  }
  return pod_rl__nested(rc, pre, err);
}

int pod_rl_pair_eval(const pod_rl_pair_cfg *p, pod_rl_pair_result *o,
                     pod_err *err) {
  memset(o, 0, sizeof *o);
  int rc = pod_field_check_all(pod_rl_pair_fields, p, "", err);
  if (rc) return rc;
  rc = side(p, &p->a, p->up_eff_a, p->out_eff_a, p->price_a, "a.", &o->cost_a,
            &o->step_a, &o->goodput_a, &o->tokens_per_s_per_gpu_a, err);
  if (rc) return rc;
  rc = side(p, &p->b, p->up_eff_b, p->out_eff_b, p->price_b, "b.", &o->cost_b,
            &o->step_b, &o->goodput_b, &o->tokens_per_s_per_gpu_b, err);
  if (rc) return rc;
  o->ratio = o->cost_a / o->cost_b;
  /* each side's figures passed its screens, but a pre-training cost and
  ** the ratio of two costs at the edges of their bounds (a denormal peak
  ** on one side, a denormal price on the other) can still overflow */
  const struct {
    const char *name;
    double v;
  } fig[] = {{"cost_a", o->cost_a},
             {"cost_b", o->cost_b},
             {"ratio", o->ratio},
             {"step_a", o->step_a},
             {"step_b", o->step_b}};
  for (size_t i = 0; i < sizeof fig / sizeof fig[0]; i++)
    if (!isfinite(fig[i].v) || !(fig[i].v > 0.0))
      return pod_err_set(err, POD_ERANGE, fig[i].name,
                         "is %g, not finite and positive: the comparison "
                         "needs both costs finite and positive (a zero "
                         "price, or a peak or price at the edge of its "
                         "bound, on one side)",
                         fig[i].v);
  return POD_OK;
}

static const char *const pair_metric_names[] = {"cost_a",
                                                "cost_b",
                                                "ratio",
                                                "a_cheaper",
                                                "step_a",
                                                "step_b",
                                                "goodput_a",
                                                "goodput_b",
                                                "tokens_per_s_per_gpu_a",
                                                "tokens_per_s_per_gpu_b"};

static int pair_fn(const void *cfg, double *x, pod_err *err) {
  pod_rl_pair_result r;
  int rc = pod_rl_pair_eval(cfg, &r, err);
  if (rc) return rc;
  x[0] = r.cost_a;
  x[1] = r.cost_b;
  x[2] = r.ratio;
  x[3] = r.cost_a < r.cost_b ? 1.0 : 0.0;
  x[4] = r.step_a;
  x[5] = r.step_b;
  x[6] = r.goodput_a;
  x[7] = r.goodput_b;
  x[8] = r.tokens_per_s_per_gpu_a;
  x[9] = r.tokens_per_s_per_gpu_b;
  return POD_OK;
}

const pod_kernel pod_rl_pair_kernel = {
    "rl_pair", sizeof(pod_rl_pair_cfg),
    (int)(sizeof pair_metric_names / sizeof pair_metric_names[0]),
    pair_metric_names, pair_fn};
