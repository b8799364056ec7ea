/*
** train_mem.c: memory of the training step's busiest pipeline ranks
** (pod_train.h, DESIGN.md 4.3): weights, gradients and optimizer state
** per GPU under ZeRO, stored activations in flight, logits, and the
** offloaded activations in host memory.  pod_train__mem_figures holds
** what no sampled field changes (a prepared config makes it once,
** train_prep.c); pod_train__eval_memory adds the layers' activations.
*/
#include "train_int.h"
#include "train_bytes.h"

/* Bytes per GPU of one stage's kinds of memory. */
typedef struct memq {
  double weights, grads, opt, act, logits;
} memq;

/* Activations in HBM beyond the stored ones: one layer's full set while
** full recompute reruns it, and the offloaded bytes of the layer being
** reloaded (train_act.c). */
static double act_working_set(const pod_layout *l,
                              const pod_train__layer_cost *dl,
                              const pod_train__layer_cost *ml) {
  double w = 0.0;
  if (l->recompute == POD_RECOMPUTE_FULL)
    w = dl->full_act_bytes > ml->full_act_bytes ? dl->full_act_bytes
                                                : ml->full_act_bytes;
  return w + (dl->off_bytes > ml->off_bytes ? dl->off_bytes : ml->off_bytes);
}

void pod_train__mem_figures(const pod_train_cfg *c, const pod_model_params *mp,
                            int dp, int edp, int micro, double T, double lr,
                            pod_train__mem_part *sp) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  int L = m->layers;
  double V = m->vocab, tp = l->tp;
  double lr_layers = lr < L ? lr : L;
  /* Megatron's account_for_embedding/loss_in_pipeline_split: with an
  ** uneven layout the embedding and the loss take the spare layer slots
  ** (pp x vp x ceil(L / (pp x vp)) - L of them), the embedding in the
  ** first stage's first chunk and the loss in the last stage's last, so
  ** those stages hold one layer fewer (the Llama 3 paper's 405B layout:
  ** 126 layers over PP16, 7 on the first and last stage, 8 elsewhere). */
  double lr_first = lr_layers, lr_last = lr_layers;
  if (l->uneven && l->pp > 1) {
    long slots = (long)l->pp * l->vp;
    long spare = slots * ((L + slots - 1) / slots) - L;
    if (spare >= 1 && lr_first > 1.0) lr_first -= 1.0;
    if (spare >= 2 && lr_last > 1.0) lr_last -= 1.0;
  }
  /* DualPipe: each rank holds stage i and stage pp-1-i (2x parameters;
  ** rank 0 both ends of the model), pp + 1 micro-batches of one stage's
  ** activations (DeepSeek-V3 report, Table 2). */
  int dual = c->software.schedule == POD_SCHED_DUALPIPE;
  if (dual) {
    lr_first = lr_last = lr_first + lr_last;
    if (lr_first > L) lr_first = lr_last = L;
  }
  double pd = mp->layers_dense * lr_first / L / tp;
  double pe = mp->layers_expert * lr_first / L / ((double)l->ep * l->etp);
  double pd_last = mp->layers_dense * lr_last / L / tp;
  double pe_last = mp->layers_expert * lr_last / L / ((double)l->ep * l->etp);
  double emb = mp->embedding / tp, head = mp->head / tp;
  double mtp_d = 0.0, mtp_e = 0.0;
  if (m->mtp_layers > 0) {
    mtp_e = m->experts > 0 ? m->mtp_layers * mp->expert * m->experts /
                                 ((double)l->ep * l->etp)
                           : 0.0;
    mtp_d = (mp->mtp - mtp_e * l->ep * l->etp) / tp;
  }
  double first_d = pd + emb, last_d = pd_last + head + mtp_d;
  double last_e = pe_last + mtp_e;
  if (l->pp == 1 || dual) first_d = last_d = pd + emb + head + mtp_d;
  if (dual) last_e = pe + mtp_e;
  double shard_d = (double)dp * l->cp, shard_e = edp;
  sp->first_d = first_d;
  sp->last_d = last_d;
  sp->last_e = last_e;
  sp->shard_d = shard_d;
  sp->shard_e = shard_e;
  sp->lr_first = lr_first;
  sp->lr_last = lr_last;
  double bw = B_WEIGHT + (c->dtype != POD_DTYPE_BF16 ? B_WEIGHT_FP8 : 0.0);
  if (c->dtype != POD_DTYPE_BF16 && c->software.fp8_params)
    bw = pod_train__fp8_param_bytes(c);
  double inflight = 1.0;
  if (dual) {
    inflight = (l->pp + 1.0) / 2.0; /* of the two stages' layers */
  } else if (l->pp > 1) {
    double mm = micro < l->pp ? micro : l->pp;
    inflight =
        mm * (l->vp > 1 ? 1.0 + (l->pp - 1.0) / ((double)l->pp * l->vp) : 1.0);
  }
  sp->inflight = inflight;
  sp->logits = T * V / tp * 4.0 * 2.0; /* fp32 logits and gradient */
  for (int i = 0; i < 2; i++) {
    double d = i == 0 ? first_d : last_d, e = i == 0 ? pe : last_e;
    double wd = d, we = e;
    if (l->zero >= 3) wd /= shard_d, we /= shard_e;
    sp->weights[i] = (wd + we) * bw;
    double gd = d, ge = e;
    if (l->zero >= 2) gd /= shard_d, ge /= shard_e;
    sp->grads[i] = (gd + ge) * c->grad_reduce_bytes;
    double od = d, oe = e;
    if (l->zero >= 1) od /= shard_d, oe /= shard_e;
    sp->opt[i] = (od + oe) * B_OPT;
  }
}

void pod_train__eval_memory(const pod_train_cfg *c,
                            const pod_train__mem_part *sp, double fd, double fm,
                            const pod_train__layer_cost *dl,
                            const pod_train__layer_cost *ml,
                            pod_train_result *r) {
  const pod_layout *l = &c->parallel;
  const pod_system *s = &c->system;
  int dual = c->software.schedule == POD_SCHED_DUALPIPE;
  double act_layer = fd * dl->act_bytes + fm * ml->act_bytes;
  double act_work = act_working_set(l, dl, ml);
  double off_layer = fd * dl->off_bytes + fm * ml->off_bytes;
  memq st[2] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
  double host[2];
  for (int i = 0; i < 2; i++) {
    st[i].weights = sp->weights[i];
    st[i].grads = sp->grads[i];
    st[i].opt = sp->opt[i];
    double infl = i == 0 || dual ? sp->inflight : 1.0;
    double lr = i == 0 ? sp->lr_first : sp->lr_last;
    st[i].act = act_layer * lr * infl + act_work;
    host[i] = off_layer * lr * infl;
    st[i].logits = (i == 1 || l->pp == 1 || dual) ? sp->logits : 0.0;
  }
  int worst = 0;
  double tot[2];
  for (int i = 0; i < 2; i++)
    tot[i] = st[i].weights + st[i].grads + st[i].opt + st[i].act + st[i].logits;
  if (l->pp > 1 && tot[1] > tot[0]) worst = 1;
  r->memory.weights_gb = st[worst].weights / 1e9;
  r->memory.grads_gb = st[worst].grads / 1e9;
  r->memory.optimizer_gb = st[worst].opt / 1e9;
  r->memory.activations_gb = (st[worst].act + st[worst].logits) / 1e9;
  r->memory.reserve_gb = c->mem_reserve_gb;
  r->memory.total_gb = tot[worst] / 1e9 + c->mem_reserve_gb;
  r->memory.host_gb = (host[0] > host[1] ? host[0] : host[1]) / 1e9;
  r->fits = r->memory.total_gb <= s->gpu.hbm_gb &&
            r->memory.host_gb <= s->host_mem_gb;
}
