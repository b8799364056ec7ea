/*
** train_prep.c: a training configuration prepared once for many
** evaluations that differ only in their sampled fields (pod_train_prepare,
** pod_train_eval_prepared, pod_train.h).
**
** What a study samples (efficiencies, overlaps, the routing imbalance, the
** links' achieved fractions of line rate) changes the step's arithmetic
** but none of: the layout's rules and data-parallel size, the model's
** parameter and FLOP counts, the recipe's fp8 cast shares, or the ring
** graphs NCCL would search on the system (they follow its line rates and
** GPU generation, core/coll_tune.c pod_coll__net_graph).  Those are made
** here once; the evaluation runs the same code on them, so its results are
** those of pod_train_eval bit for bit.
*/
#include "train_int.h"
#include "train_bytes.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* The sampled fields: doubles of pod_train_cfg that no prepared figure
** and no skipped check reads (train.c reads them per evaluation; the
** layout's checks, train_check.c, never). */
#define SAMPLED_OFF(m) offsetof(pod_train_cfg, m),
static const size_t SAMPLED[] = {POD_TRAIN__SAMPLED_CFG(SAMPLED_OFF)
                                     offsetof(pod_train_cfg, model.imbalance),
                                 offsetof(pod_train_cfg, system.up_eff),
                                 offsetof(pod_train_cfg, system.out_eff)};

int pod_train_prep_sampled(size_t offset, size_t size) {
  if (size == 0 || size > sizeof(double)) return 0;
  for (size_t i = 0; i < sizeof SAMPLED / sizeof SAMPLED[0]; i++)
    if (offset >= SAMPLED[i] && offset - SAMPLED[i] + size <= sizeof(double))
      return 1;
  return 0;
}

static const pod_train_prep PREP_ZERO;

/* The bounds of the sampled fields of cfg, the one part of
** pod_train__check_fields a config equal to the prepared one outside its
** sampled fields can fail; on a failure that whole check (the same error
** as unprepared). */
static int check_sampled(const pod_train_cfg *cfg, pod_err *err) {
  return pod_train__sampled_ok(cfg) ? POD_OK
                                    : pod_train__check_fields(cfg, err);
}

int pod_train_prepare(const pod_train_cfg *cfg, pod_train_prep *prep,
                      pod_err *err) {
  if (prep == NULL) return pod_err_set(err, POD_EINVAL, "prep", "is NULL");
  *prep = PREP_ZERO;
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  pod_train_cfg c = *cfg;
  pod_train__normalize(&c.parallel);
  int dp = 0;
  int rc = pod_train__check_cfg(&c, &dp, err);
  if (rc != POD_OK) return rc;
  prep->dp = dp;
  prep->parallel = c.parallel;
  prep->normalized =
      memcmp(&c.parallel, &cfg->parallel, sizeof c.parallel) == 0;
  pod_train__prep_figures(&c, prep);
  prep->graphs.n = 0;
  /* one evaluation: its errors are pod_train_eval's, and it finds the
  ** ring graphs the step's collectives use and prepares them */
  pod_train_result r;
  rc = pod_train__eval_record(&c, dp, &r, prep, err);
  if (rc != POD_OK) {
    *prep = PREP_ZERO;
    return rc;
  }
  prep->ok = 1;
  pod_err_clear(err);
  return POD_OK;
}

int pod_train_eval_prepared(const pod_train_cfg *cfg, pod_train_prep *prep,
                            pod_train_result *out, pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  if (prep == NULL || !prep->ok)
    return pod_err_set(err, POD_EINVAL, "prep",
                       "is not prepared (pod_train_prepare)");
  /* the sampled fields' bounds; every other check (the config's other
  ** fields, the layout's rules, the system's and model's) holds as
  ** prepared: those bytes are the prepared config's */
  int rc = check_sampled(cfg, err);
  if (rc != POD_OK) return rc;
  pod_train_result tmp;
  pod_train_result *r = out ? out : &tmp;
  if (prep->normalized) {
    rc = pod_train__eval_prep(cfg, prep, r, err);
  } else {
    pod_train_cfg c = *cfg;
    c.parallel = prep->parallel;
    rc = pod_train__eval_prep(&c, prep, r, err);
  }
  if (rc == POD_OK) pod_err_clear(err);
  return rc;
}

/* train_int.h; the figures train.c reads as FIG and from pre */
void pod_train__prep_figures(const pod_train_cfg *c, pod_train_prep *pre) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  pre->qh = pod_train__quant_scale(c, EW_FP8_HIDDEN_UNFUSED);
  pre->qf = pod_train__quant_scale(c, EW_FP8_FFN_UNFUSED);
  pre->qr = pod_train__quant_scale(c, EW_FP8_ROUTED_UNFUSED);
  pod_model_params_count(m, &pre->mp);
  pod_model_flops_with_params(m, &pre->mp, c->seq, !c->mfu_full_attn,
                              &pre->flops);
  int rpd = pod_train__group_rpd(l->ep, l->etp, c->system.domain_gpus);
  pre->hier =
      pod_train__hier_share(m->top_k, l->ep / rpd, c->software.max_domains);
  double N = c->gpus;
  pre->spread = sqrt(2.0 * log(N));
  pod_train__figs_layout_free(c, &pre->figs);
  /* and, the layout being fixed here, the two that read it */
  pre->figs.stage_b = pod_train__moe_stage_bytes(c);
  pre->figs.host_s = pod_train__host_layer_s(c);
}

void pod_train__figs_layout_free(const pod_train_cfg *c, pod_train_figs *f) {
  memset(f, 0, sizeof *f);
  f->moe_layer_s = pod_train__moe_layer_s(c);
  f->disp_b = pod_train__dispatch_bytes(c);
  f->peak = pod_train_peak_tflops(&c->system.gpu, c->dtype);
  f->khx = pod_train__k_half_expert(c);
  f->rel = pod_train__recipe_gemm_rel(c);
  f->fp8pb = pod_train__fp8_param_bytes(c);
  f->wcast = pod_train__weight_cast_bytes(c);
  f->clk = pod_train_sustained_clock(&c->system.gpu);
  f->dflt_rc = pod_train_default_eff(&c->system.gpu, c->dtype, &f->dg, &f->da,
                                     &f->dk, NULL);
}

/* ---- the step's collectives (train.c coll) ----------------------------- */

void pod_train__coll_record(pod_train_prep *pre, int k, const pod_coll_call *c,
                            const pod_system *s) {
  if (k < 0 || k >= POD_TRAIN_PREP_COLLS) return;
  pod_coll_prep *p = &pre->coll[k];
  if (pod_coll_prepare(s, c->op, c->n, c->r, c->bytes, p, NULL) != POD_OK)
    return;
  pre->same[k] = -1;
  for (int j = 0; j < k && pre->same[k] < 0; j++)
    if (pod_coll_prep_same(&pre->coll[j], p)) pre->same[k] = (signed char)j;
  if (pre->ncoll < k + 1) pre->ncoll = k + 1;
}

int pod_train__coll_prepared(const pod_train_prep *pre, int k,
                             const pod_coll_call *c, const pod_system *s,
                             pod_train__coll_memo *m, double *t, pod_err *err) {
  if (pre == NULL || k >= pre->ncoll) return -1;
  const pod_coll_prep *p = &pre->coll[k];
  if (p->op != (signed char)c->op || p->n != c->n || p->r != c->r ||
      (p->S != c->bytes && !pod_coll_prep_any_bytes(p)))
    return -1;
  int j = pre->same[k];
  if (j >= 0 && (m->mask >> j & 1u) && m->bytes[j] == c->bytes) {
    *t = m->t[j]; /* the same operations on the same values */
    return POD_OK;
  }
  if (!m->have_sr) { /* the step's system: its figures once per step */
    pod_coll_sys_rates_of(s, &m->sr);
    m->have_sr = 1;
  }
  int rc = pod_coll_time_prepared_sr(p, s, &m->sr, c->bytes, t, err);
  if (rc == POD_OK) {
    m->mask |= 1u << k;
    m->bytes[k] = c->bytes;
    m->t[k] = *t;
  }
  return rc;
}
