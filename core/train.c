/*
** train.c: the training-step model (pod_train.h, DESIGN.md 4.3).
**
** One step of synchronous training with interleaved 1F1B pipelining:
**
**   step = m * stage_mb                            steady state
**        + bubble = (p-1)/(v*m) * m * stage_mb    (Narayanan et al. 2021;
**          = (p-1)/(v*m+p-1) of the pipelined time)
**        + exposed PP p2p + exposed DP + optimizer + straggler
**
** stage_mb is the time one pipeline rank spends on one micro-batch
** (forward and backward of its layers): compute plus the exposed part of
** the collectives inside each layer (TP, CP, EP), each timed by
** pod_coll_eval with the group's real placement over scale-up domains.
**
** Compute is split by what bounds it: GEMMs run at peak(dtype) *
** eff_gemm; flash attention at peak(bf16) * eff_attn (fp8 recipes keep
** attention in bf16); memory-bound element-wise work (norms, residuals,
** rotary, activation functions, fp8 casts, MoE permutes, the
** cross-entropy over the vocabulary) at HBM bandwidth * eff_hbm.  This is
** why fp8 gains less than 2x, and less on smaller models (the non-GEMM
** share grows as hidden shrinks).  Hardware FLOPs are causal; the model
** FLOPs behind MFU follow the convention in cfg->mfu_full_attn.
**
** A layer's costs and its TP, CP and EP collectives are in train_layer.c;
** the state both files share is in train_step.h.
*/
#include "train_step.h"
#include "train_bytes.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Placement -------------------------------------------------------- */

/* ---- The model -------------------------------------------------------- */

/* Exposed time of a transfer of time t, of which a fraction ov can hide
** under `window` seconds of independent work. */
static double exposed(double t, double ov, double window) {
  double hid = ov * t;
  if (hid > window) hid = window;
  return t - hid;
}

/* Exposed sequence-parallel TP time of a layer.  With tp_comm_overlap
** (Transformer Engine's userbuffers) overlap_tp of it hides under the
** layer's GEMMs (gemm_s).  Without it TE's Linear runs NCCL collectives
** (transformer_engine/pytorch/module/linear.py at d0067d0): the forward
** all-gather of a column-parallel input and reduce-scatter of a row-
** parallel output are waited on before the next kernel, and so is the
** backward all-gather of a row-parallel output gradient (grad_output_
** preprocess); only the column-parallel dgrad reduce-scatter is issued
** with async_op and waited on after the wgrad GEMM.  So one of the four
** collectives counted per Linear pair, TP_ASYNC_SHARE, hides, under at
** most the wgrad GEMMs, a third of the layer's GEMM time.  (The
** backward re-gather of a column-parallel input, also async, under the
** dgrad GEMM, is not counted in tp_s either way.)  Counted, not fitted. */
#define TP_ASYNC_SHARE 0.25
static double tp_exposed(const pod_train_cfg *c, double tp_s, double gemm_s) {
  if (c->software.tp_comm_overlap) return exposed(tp_s, c->overlap_tp, gemm_s);
  return exposed(tp_s, TP_ASYNC_SHARE, gemm_s / 3.0);
}

static void plan_layout(const pod_train_cfg *c, int dp,
                        const pod_train_prep *pre, pod_train_prep *rec,
                        const pod_train__search_ctx *sc, plan *p) {
  const pod_layout *l = &c->parallel;
  const pod_model *m = &c->model;
  p->dp = dp;
  p->pre = pre;
  p->rec = rec;
  p->sc = sc;
  if (pre) { /* the layout's figures, as made below when prepared */
    p->edp = pre->edp;
    p->m = pre->micro;
    p->T = pre->T;
    p->Tt = pre->Tt;
    p->lr = pre->lr;
  } else {
    p->edp = m->experts > 0
                 ? (int)((long)l->tp * l->cp * dp / ((long)l->ep * l->etp))
                 : 1;
    p->m = (int)(c->global_batch / ((long)dp * l->microbatch));
    p->T = (double)l->microbatch * c->seq / l->cp;
    p->Tt = p->T / l->tp;
    int slots = l->pp * l->vp;
    if (l->uneven)
      p->lr = (double)l->vp * ((m->layers + slots - 1) / slots);
    else
      p->lr = (double)m->layers / l->pp;
    if (rec) {
      rec->edp = p->edp;
      rec->micro = p->m;
      rec->T = p->T;
      rec->Tt = p->Tt;
      rec->lr = p->lr;
    }
  }
  double imb = m->imbalance;
  if (m->capacity_factor > 0.0 && imb > m->capacity_factor)
    imb = m->capacity_factor; /* tokens beyond capacity are dropped */
  p->imb = imb;
  p->tp_pair_s = -1.0;
  p->cp_hop_s = -1.0;
  p->hier = -1.0;
  p->fg = pre ? &pre->figs : sc ? &sc->figs : NULL;
  if (pre) { /* the same figures, made once (pod_train__prep_figures) */
    p->qh = pre->qh;
    p->qf = pre->qf;
    p->qr = pre->qr;
    p->mp = &pre->mp; /* read in place: no copy per evaluation */
    p->hier = pre->hier;
  } else if (sc) { /* the same calls, made once for the search */
    p->qh = sc->qh;
    p->qf = sc->qf;
    p->qr = sc->qr;
    p->mp = &sc->mp;
  } else {
    p->qh = pod_train__quant_scale(c, EW_FP8_HIDDEN_UNFUSED);
    p->qf = pod_train__quant_scale(c, EW_FP8_FFN_UNFUSED);
    p->qr = pod_train__quant_scale(c, EW_FP8_ROUTED_UNFUSED);
    pod_model_params_count(m, &p->own_mp);
    p->mp = &p->own_mp;
  }
}

/* Seconds of compute for a layer cost. */
typedef pod_train__rates rates;

static double t_compute(const layer_cost *o, const rates *r) {
  double fd = o->gemm_flops - o->gemm_expert_flops;
  double td = fd / r->gemm, wd = o->w_bytes / r->hbm;
  double te = o->gemm_expert_flops / r->gemm_e, we = o->w_expert_bytes / r->hbm;
  return (td > wd ? td : wd) + (te > we ? te : we) + o->attn_flops / r->attn +
         o->ew_bytes / r->hbm + o->fixed_s;
}

/* Achieved GEMM and attention efficiencies: the cfg's, else the GPU
** generation's defaults; the GEMM ones roll off with hidden size, the
** routed experts' grouped GEMMs with their own half size (*egx_out). */
static int resolve_eff(const pod_train_cfg *c, const pod_train_figs *fg,
                       double *eg_out, double *egx_out, double *ea_out,
                       pod_err *err) {
  const pod_model *m = &c->model;
  const pod_system *s = &c->system;
  double eg = c->eff_gemm, ea = c->eff_attn, kh = c->gemm_k_half;
  if (eg <= 0.0 || ea <= 0.0 || kh < 0.0) {
    double dg, da, dk;
    if (fg && fg->dflt_rc == POD_OK) {
      dg = fg->dg, da = fg->da, dk = fg->dk;
    } else {
      int rc = pod_train_default_eff(&s->gpu, c->dtype, &dg, &da, &dk, err);
      if (rc != POD_OK) return rc;
    }
    if (eg <= 0.0) eg = dg;
    if (ea <= 0.0) ea = da;
    if (kh < 0.0) kh = dk;
  }
  double khx = fg ? fg->khx : pod_train__k_half_expert(c);
  /* the recipe's GEMM kernels against per-tensor fp8 (MXFP8, train_sw.c) */
  double rel = fg ? fg->rel : pod_train__recipe_gemm_rel(c);
  double egx = eg * rel * c->eff_scale * m->hidden / (m->hidden + khx);
  eg *= rel * c->eff_scale * m->hidden / (m->hidden + kh);
  ea *= c->eff_scale;
  if (eg > 1.0) eg = 1.0;
  if (egx > 1.0) egx = 1.0;
  if (ea > 1.0) ea = 1.0;
  *eg_out = eg;
  *egx_out = egx;
  *ea_out = ea;
  return POD_OK;
}

/* Parameters per GPU of the busiest pipeline ranks (first and last
** stage; dense and expert), their ZeRO shard counts and the rest of the
** memory figures no sampled field changes (pod_train.h, train_mem.c). */
typedef pod_train__mem_part stage_params;

/* LM head, cross-entropy and MTP blocks (last stage), seconds per
** micro-batch. */
static double head_time(const pod_train_cfg *c, const plan *p, double tcd,
                        double tcm, const rates *rt) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, V = m->vocab, tp = l->tp;
  double rec = l->recompute == POD_RECOMPUTE_FULL ? 4.0 / 3.0 : 1.0;
  /* the FLOPs and bytes no sampled field changes, in the order they
  ** were always computed: prepared, else made (and kept when preparing) */
  double hg, he, mg;
  if (p->pre) {
    hg = p->pre->head_g, he = p->pre->head_e, mg = p->pre->mtp_g;
  } else {
    hg = rec * 6.0 * p->T * V * h / tp;
    he = p->Tt * V * EW_LOGITS;
    mg = rec * 6.0 * p->T * 2.0 * h * h / tp;
    if (p->rec) p->rec->head_g = hg, p->rec->head_e = he, p->rec->mtp_g = mg;
  }
  double head_s = hg / rt->gemm + he / rt->hbm;
  if (m->mtp_layers > 0) {
    /* an MTP block's compute: t_compute of the MoE (else dense) layer */
    head_s +=
        m->mtp_layers * ((m->experts > 0 ? tcm : tcd) + mg / rt->gemm + head_s);
  }
  return head_s;
}

/* DP: the local shard of this stage over dp*cp (dense) and edp
** (experts) ranks, into b->dp and b->optimizer. */
static void dp_time(const pod_train_cfg *c, const plan *p, ctx *x,
                    const stage_params *sp, double stage_mb, double hbm,
                    pod_train_breakdown *b) {
  const pod_layout *l = &c->parallel;
  int D = c->system.domain_gpus;
  double gb = c->grad_reduce_bytes;
  int nd = (int)sp->shard_d, ne = p->edp;
  int rd = rpd_of(p, G_DPD, nd, l->tp, D);
  int re = rpd_of(p, G_DPE, ne, (long)l->ep * l->etp, D);
  double Pd = sp->last_d > sp->first_d ? sp->last_d : sp->first_d;
  double Pe = sp->last_e;
  /* Overlap window: the gradient reduce-scatter runs under the last
  ** micro-batch's backward and the pipeline cool-down, the parameter
  ** all-gather under the next step's warm-up and first forward: one
  ** micro-batch of work plus the bubble (idle for compute, not for the
  ** network).  One collective per step: Megatron's per-bucket
  ** collectives (buckets of max(40M, 1M x DP) parameters) pay a ring
  ** latency each; modelled that way, the 405B DP slope comes out twice
  ** the published one (T4), so the buckets are not modelled. */
  double t = 0.0, window = stage_mb + b->bubble;
  /* bytes per parameter of the parameter all-gather: bf16, or the fp8
  ** weights themselves with fp8_param_gather */
  double wg = c->dtype != POD_DTYPE_BF16 && c->software.fp8_params
                  ? FIG(p, fp8pb, pod_train__fp8_param_bytes(c))
                  : B_WEIGHT;
  if (l->zero == 0) {
    t = pod_train__step_coll(x, POD_COLL_ALL_REDUCE, nd, rd, Pd * gb) +
        pod_train__step_coll(x, POD_COLL_ALL_REDUCE, ne, re, Pe * gb);
  } else {
    double nrs = l->zero >= 2 ? p->m : 1.0;
    double nag = l->zero >= 3 ? 2.0 * p->m : 1.0;
    if (l->zero >= 2) window = p->m * stage_mb + b->bubble;
    t = nrs *
            (pod_train__step_coll(x, POD_COLL_REDUCE_SCATTER, nd, rd, Pd * gb) +
             pod_train__step_coll(x, POD_COLL_REDUCE_SCATTER, ne, re,
                                  Pe * gb)) +
        nag * (pod_train__step_coll(x, POD_COLL_ALL_GATHER, nd, rd, Pd * wg) +
               pod_train__step_coll(x, POD_COLL_ALL_GATHER, ne, re, Pe * wg));
  }
  b->dp = exposed(t, c->overlap_dp, window);
  double local = l->zero >= 1 ? Pd / sp->shard_d + Pe / sp->shard_e : Pd + Pe;
  b->optimizer = local * B_ADAM / hbm;
  /* the step's fp8 cast of the local weights (train_sw.c): MXFP8 casts
  ** the bf16-gathered weights into its two copies every step */
  b->optimizer +=
      (Pd + Pe) * FIG(p, wcast, pod_train__weight_cast_bytes(c)) / hbm;
}

/* fp8 delayed scaling: amax all-reduces (see JITTER_SYNC above), added
** to b->dp; returns the wait for the slowest rank of the amax group. */
static double amax_sync(const pod_train_cfg *c, const plan *p, ctx *x, int dp,
                        double lr_eff, double stage_mb,
                        pod_train_breakdown *b) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  int D = c->system.domain_gpus;
  double sync_wait = 0.0;
  if (c->dtype != POD_DTYPE_BF16 && (c->fp8_recipe == POD_FP8_DELAYED ||
                                     c->fp8_recipe == POD_FP8_DELAYED_TP)) {
    long G = (long)l->tp * l->cp, g = G;
    if (c->fp8_recipe == POD_FP8_DELAYED) G *= dp;
    if (m->experts > 0 && (long)l->ep * l->etp > g) g = (long)l->ep * l->etp;
    double K = 2.0 * p->m * l->vp;
    double bytes = AMAX_BYTES_PER_LAYER * lr_eff / l->vp;
    b->dp += K * pod_train__step_coll(x, POD_COLL_ALL_REDUCE, (int)G,
                                      rpd_of(p, G_AMAX, (int)G, 1, D), bytes);
    if (G > g)
      sync_wait = c->jitter_sync * p->m * stage_mb *
                  (sqrt(2.0 * log((double)G)) - sqrt(2.0 * log((double)g)));
  }
  return sync_wait;
}

/* The step time: the breakdown plus the straggler wait (sync_wait from
** amax_sync); then the throughput figures of r. */
static int step_throughput(const pod_train_cfg *c, const pod_model_params *mp,
                           const pod_train_prep *prep,
                           const pod_train__search_ctx *sc, double sync_wait,
                           pod_train_result *r, pod_err *err) {
  pod_train_breakdown *b = &r->breakdown;
  double pre = b->compute + b->tp + b->cp + b->ep + b->host + b->bubble +
               b->pp + b->dp + b->optimizer;
  /* Straggler: every GPU waits for the slowest at each synchronous step.
  ** With per-GPU step times ~ N(mu, (jitter mu)^2), the expected maximum
  ** of N is mu + jitter mu sqrt(2 ln N) to leading order (extreme-value /
  ** Gumbel limit of the Gaussian maximum; slightly above the exact value
  ** for moderate N). */
  double N = c->gpus;
  double spread = prep ? prep->spread : sc ? sc->spread : sqrt(2.0 * log(N));
  b->straggler = N > 1 ? c->jitter * pre * spread : 0.0;
  b->straggler += sync_wait;
  r->step_s = pre + b->straggler;
  double tokens = (double)c->global_batch * c->seq;
  pod_model_flops f;
  if (prep)
    f = prep->flops;
  else if (sc)
    f = sc->flops;
  else
    pod_model_flops_with_params(&c->model, mp, c->seq, !c->mfu_full_attn, &f);
  r->flops_per_token = f.total;
  r->tokens_per_s = tokens / r->step_s;
  r->tokens_per_s_per_gpu = r->tokens_per_s / c->gpus;
  r->tflops_per_gpu = f.total * r->tokens_per_s_per_gpu / 1e12;
  r->mfu = r->tflops_per_gpu / r->peak_tflops;
  if (!isfinite(r->step_s) || r->step_s <= 0.0)
    return pod_err_set(err, POD_ERANGE, "step_s", "is not finite");
  return POD_OK;
}

/* The layers' attention part and the memory figures: pre's (a prepared
** config), else made into *own (and kept in rec when preparing). */
static const attn_part *attn_of(const pod_train_cfg *c, const plan *p,
                                const pod_train_prep *pre, pod_train_prep *rec,
                                attn_part *own) {
  if (pre) return &pre->attn;
  pod_train__attn_costs(c, p, own);
  if (rec) rec->attn = *own;
  return own;
}
static const stage_params *mem_of(const pod_train_cfg *c, const plan *p, int dp,
                                  const pod_train_prep *pre,
                                  pod_train_prep *rec, stage_params *own) {
  if (pre) return &pre->mem;
  pod_train__mem_figures(c, p->mp, dp, p->edp, p->m, p->T, p->lr, own);
  if (rec) rec->mem = *own;
  return own;
}

/* The attention part and the dense and MoE layers' costs (all 0 for a
** kind the model has none of) with their TP collective counts.  A
** search's memory-only pass finds them again at the same figures
** (pod_train__cost_slot): the same calls made them. */
static void layers_of(const pod_train_cfg *c, plan *p, ctx *x,
                      const pod_train_prep *pre, pod_train_prep *rec,
                      int n_dense, int n_moe, layer_cost *dl, layer_cost *ml,
                      int *dense_ops, int *moe_ops) {
  const pod_layout *l = &c->parallel;
  pod_train__cost_slot *e = NULL;
  const int key[6] = {l->tp, l->cp, l->microbatch, l->ep, l->etp, l->recompute};
  if (x->sc && x->no_comm && pre == NULL && rec == NULL) {
    uint32_t hs = 0;
    for (int i = 0; i < 6; i++) hs = (hs ^ (uint32_t)key[i]) * 0x9e3779b1u;
    e = &x->sc->cost[hs >> 21 & (POD_TRAIN__COST_SLOTS - 1)];
    if (e->used && memcmp(e->key, key, sizeof key) == 0) {
      *dl = e->dl, *ml = e->ml;
      *dense_ops = e->dense_ops, *moe_ops = e->moe_ops;
      return;
    }
  }
  attn_part own_attn;
  const attn_part *at = attn_of(c, p, pre, rec, &own_attn);
  if (n_dense > 0)
    *dense_ops = pod_train__dense_costs(c, p, x, at, pre, rec, dl);
  else
    *dl = LAYER_ZERO;
  if (n_moe > 0)
    *moe_ops = pod_train__layer_costs(c, p, 1, x, at, ml);
  else
    *ml = LAYER_ZERO;
  if (e && x->rc == POD_OK) {
    memcpy(e->key, key, sizeof key);
    e->used = 1;
    e->dl = *dl, e->ml = *ml;
    e->dense_ops = *dense_ops, e->moe_ops = *moe_ops;
  }
}

/* The core evaluation (train_int.h); pre: the figures of a prepared
** config (pod_train__eval_prep), or NULL. */
static int eval_step(const pod_train_cfg *c, int dp, const pod_train_prep *pre,
                     pod_train_result *r, int want_time,
                     pod_coll_graphs *graphs, pod_train_prep *rec,
                     pod_train__search_ctx *srch, pod_err *err) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  const pod_system *s = &c->system;
  static const pod_train_result RESULT_ZERO; /* see LAYER_ZERO */
  *r = RESULT_ZERO;
  double eg, egx, ea;
  const pod_train_figs *fg = pre ? &pre->figs : srch ? &srch->figs : NULL;
  int rc = resolve_eff(c, fg, &eg, &egx, &ea, err);
  if (rc != POD_OK) return rc;
  plan p;
  plan_layout(c, dp, pre, rec, srch, &p);
  pod_coll_graphs own; /* slots filled on use: only the count is set */
  own.n = 0;
  ctx x; /* the memo's times are read only where its mask says: not zeroed */
  x.c = c;
  x.err = err;
  x.rc = POD_OK;
  x.no_comm = want_time != 1;
  x.graphs = graphs ? graphs : &own;
  x.cur = 0;
  x.pc = pre;
  x.rec = rec;
  x.memo.mask = 0;
  x.memo.have_sr = 0;
  x.sc = srch;
  const pod_model_params *mp = p.mp;
  int L = m->layers, n_moe = mp->moe_layers, n_dense = L - n_moe;
  layer_cost dl, ml; /* layer_costs sets every field; else all 0 */
  int dense_ops = 0, moe_ops = 0;
  layers_of(c, &p, &x, pre, rec, n_dense, n_moe, &dl, &ml, &dense_ops,
            &moe_ops);
  if (x.rc != POD_OK) return x.rc;
  double fd = (double)n_dense / L, fm = (double)n_moe / L;
  double h = m->hidden;
  int D = s->domain_gpus;

  stage_params own_sp;
  const stage_params *sp = mem_of(c, &p, dp, pre, rec, &own_sp);
  pod_train__eval_memory(c, sp, fd, fm, &dl, &ml, r);
  r->dp = dp;
  r->edp = p.edp;
  r->microbatches = p.m;
  r->eff_gemm = eg;
  r->eff_attn = ea;
  r->peak_tflops = FIG(&p, peak, pod_train_peak_tflops(&s->gpu, c->dtype));
  if (!want_time || (want_time == 2 && !r->fits)) return POD_OK;
  if (want_time == 2) {
    pod_train__late_comm(c, &p, &x, dense_ops, moe_ops, &dl, &ml);
    if (x.rc != POD_OK) return x.rc;
  }

  /* ---- Time ---- */
  const pod_train_sw *sw = &c->software;
  rates rt;
  pod_train__rates_of(c, r->peak_tflops,
                      FIG(&p, clk, pod_train_sustained_clock(&s->gpu)), eg, egx,
                      ea, &rt, &r->clock);
  double tcd = t_compute(&dl, &rt), tcm = t_compute(&ml, &rt);
  double gd_s = dl.gemm_flops / rt.gemm, gm_s = ml.gemm_flops / rt.gemm;
  double ad_s = dl.attn_flops / rt.attn, am_s = ml.attn_flops / rt.attn;
  double tc = fd * tcd + fm * tcm;
  double ttp =
      fd * tp_exposed(c, dl.tp_s, gd_s) + fm * tp_exposed(c, ml.tp_s, gm_s);
  double tcp = fd * exposed(dl.cp_s, c->overlap_cp, ad_s) +
               fm * exposed(ml.cp_s, c->overlap_cp, am_s);
  /* MoE A2A overlap: the dispatch and combine of one micro-batch run
  ** under another's compute (Megatron's merged forward-backward of two
  ** micro-batches), hidden up to that compute. */
  int dual = sw->schedule == POD_SCHED_DUALPIPE;
  double ov_ep = sw->a2a_overlap || dual ? 1.0 : c->overlap_ep;
  double tep = fm * exposed(ml.ep_s, ov_ep, tcm);
  double thost = fm * FIGL(&p, host_s, pod_train__host_layer_s(c)) +
                 fd * pod_train__offload_s(c, dl.off_bytes, tcd) +
                 fm * pod_train__offload_s(c, ml.off_bytes, tcm);
  double head_s = head_time(c, &p, tcd, tcm, &rt);
  double lr_eff = p.lr, extra = head_s;
  double layer_all = tc + ttp + tcp + tep + thost;
  if (l->uneven) {
    double need = (L + head_s / layer_all) / l->pp;
    lr_eff = need > p.lr ? need : p.lr;
    extra = 0.0;
  }
  double sc = lr_eff * tc + extra, stp = lr_eff * ttp, scp = lr_eff * tcp,
         sep = lr_eff * tep, sho = lr_eff * thost;
  double stage_mb = sc + stp + scp + sep + sho;
  pod_train_breakdown *b = &r->breakdown;
  b->compute = p.m * sc;
  b->tp = p.m * stp;
  b->cp = p.m * scp;
  b->ep = p.m * sep;
  b->host = p.m * sho;
  /* DualPipe (DeepSeek-V3 report, Table 2): (pp/2 - 1)(F&B + B - 3W)
  ** against 1F1B's (pp - 1)(F + B); with F : B : W = 1 : 2 : 1 of a
  ** stage's micro-batch (the backward is input and weight gradients),
  ** F&B = F + B = stage_mb, so the bubble is (pp/2 - 1) 2/3 stage_mb. */
  b->bubble = dual ? (l->pp / 2 - 1.0) * (2.0 / 3.0) * stage_mb
                   : (l->pp - 1.0) / l->vp * stage_mb;
  if (l->pp > 1) {
    double bytes = p.Tt * h * 2.0;
    long stride = (long)l->tp * l->cp * dp;
    int rpd = rpd_of(&p, G_PP, l->pp, stride, D) >= 2 ? 2 : 1;
    double t = p.m * 2.0 * l->vp *
               pod_train__step_coll(&x, POD_COLL_SEND_RECV, 2, rpd, bytes);
    b->pp = exposed(t, c->overlap_pp, p.m * stage_mb);
  }
  dp_time(c, &p, &x, sp, stage_mb, rt.hbm, b);
  double sync_wait = amax_sync(c, &p, &x, dp, lr_eff, stage_mb, b);
  if (x.rc != POD_OK) return x.rc;
  return step_throughput(c, p.mp, pre, p.sc, sync_wait, r, err);
}

int pod_train__eval_core(const pod_train_cfg *c, int dp, pod_train_result *r,
                         int want_time, pod_coll_graphs *graphs, pod_err *err) {
  return eval_step(c, dp, NULL, r, want_time, graphs, NULL, NULL, err);
}

int pod_train__eval_search(const pod_train_cfg *c, int dp, pod_train_result *r,
                           int want_time, pod_train__search_ctx *sc,
                           pod_err *err) {
  return eval_step(c, dp, NULL, r, want_time, &sc->graphs, NULL, sc, err);
}

int pod_train__eval_record(const pod_train_cfg *c, int dp, pod_train_result *r,
                           pod_train_prep *pre, pod_err *err) {
  pre->ncoll = 0;
  return eval_step(c, dp, NULL, r, 1, &pre->graphs, pre, NULL, err);
}

int pod_train__eval_prep(const pod_train_cfg *c, pod_train_prep *pre,
                         pod_train_result *r, pod_err *err) {
  return eval_step(c, pre->dp, pre, r, 1, &pre->graphs, NULL, NULL, err);
}

int pod_train_eval(const pod_train_cfg *cfg, pod_train_result *out,
                   pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  pod_train_cfg c = *cfg;
  pod_train__normalize(&c.parallel);
  int dp = 0;
  int rc = pod_train__check_cfg(&c, &dp, err);
  if (rc != POD_OK) return rc;
  pod_train_result tmp;
  rc = pod_train__eval_core(&c, dp, out ? out : &tmp, 1, NULL, err);
  if (rc == POD_OK) pod_err_clear(err);
  return rc;
}
