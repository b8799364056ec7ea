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
*/
#include "train_int.h"
#include "train_bytes.h"

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- Placement -------------------------------------------------------- */

/* ---- The model -------------------------------------------------------- */

typedef struct ctx {
  const pod_train_cfg *c;
  pod_err *err;
  int rc;
  int no_comm;               /* memory-only pass: skip collective timing */
  pod_coll_graphs *graphs;   /* ring graphs of the step's system */
  int cur;                   /* collectives timed so far */
  const pod_train_prep *pc;  /* the step's collectives prepared, or NULL */
  pod_train_prep *rec;       /* prepare each collective into rec, or NULL */
  pod_train__coll_memo memo; /* this step's prepared times */
  pod_train__search_ctx *sc; /* the search's times so far, or NULL */
} ctx;

static double mlp_matrix_count(const pod_model *m) {
  return m->gated_mlp ? 3.0 : 2.0;
}

/* A collective of the search (x->sc): its time found again, else timed
** and kept in its slot (train_int.h: the same time either way). */
static double search_coll(ctx *x, pod_coll_op op, int n, int rpd,
                          double bytes) {
  pod_train__search_ctx *sc = x->sc;
  uint64_t b;
  memcpy(&b, &bytes, sizeof b);
  uint64_t key = b ^ ((uint64_t)op << 56 ^ (uint64_t)n << 24 ^ (uint64_t)rpd);
  key *= 0x9e3779b97f4a7c15ull;
  pod_train__coll_slot *e = &sc->slot[key >> 52 & (POD_TRAIN__CACHE_SLOTS - 1)];
  sc->lookups++;
  if (e->used && e->op == (int)op && e->n == n && e->r == rpd &&
      memcmp(&e->bytes, &bytes, sizeof bytes) == 0) {
    sc->hits++;
    return e->t;
  }
  double t;
  int rc = pod_coll_time_checked(&x->c->system, op, n, rpd, bytes, &sc->graphs,
                                 &t, x->err);
  if (rc != POD_OK) {
    x->rc = rc;
    return 0.0;
  }
  *e = (pod_train__coll_slot){bytes, t, (int)op, n, rpd, 1};
  return t;
}

static double coll(ctx *x, pod_coll_op op, int n, int rpd, double bytes) {
  if (n <= 1 || bytes <= 0.0 || x->rc != POD_OK || x->no_comm) return 0.0;
  if (x->sc) return search_coll(x, op, n, rpd, bytes); /* nothing prepared */
  double t;
  int k = x->cur++;
  const pod_coll_call call = {op, n, rpd, bytes};
  /* the system differs from the prepared one in its sampled fields only */
  int rc = pod_train__coll_prepared(x->pc, k, &call, &x->c->system, &x->memo,
                                    &t, x->err);
  if (rc < 0) {
    /* the system passed pod_train__check_common before any timing and
    ** stays the same for the step: its ring graphs are kept in x->graphs */
    rc = pod_coll_time_checked(&x->c->system, op, n, rpd, bytes, x->graphs, &t,
                               x->err);
    if (rc == POD_OK && x->rec)
      pod_train__coll_record(x->rec, k, &call, &x->c->system);
  }
  if (rc != POD_OK) {
    x->rc = rc;
    return 0.0;
  }
  return t;
}

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

typedef pod_train__layer_cost layer_cost; /* train_int.h */

/* Everything eval needs, computed once per config. */
typedef struct plan {
  int dp, edp, m;
  double T, Tt;               /* tokens per CP rank, per GPU on SP regions */
  double imb;                 /* expert load factor on the busiest rank */
  double lr;                  /* layer slots on the busiest pipeline rank */
  const pod_model_params *mp; /* the prepared config's, or own_mp */
  pod_model_params own_mp;    /* counted when not prepared */
  double tp_pair_s;  /* one TP all-gather + reduce-scatter; < 0 unset */
  double cp_hop_s;   /* one CP KV hop; < 0 unset */
  double hier;       /* the dispatcher's domain share (prepared); < 0 unset */
  double qh, qf, qr; /* fp8 cast traffic of the recipe (train_sw.c) per
                        hidden, FFN and routed element */
  const pod_train_figs *fg;        /* the prepared config's figures, the
                                   ** search's layout-free ones, or NULL */
  const pod_train_prep *pre;       /* the prepared config, or NULL */
  const pod_train__search_ctx *sc; /* the search's figures, or NULL */
  pod_train_prep *rec;             /* the config being prepared, or NULL */
} plan;

/* The groups of pod_train_prep.rpd. */
enum { G_EP, G_ETP, G_TP, G_CP, G_PP, G_DPD, G_DPE, G_AMAX };

/* pod_train__group_rpd of group g: the prepared value (the same layout
** and domain: the same result), else computed and kept in rec when
** preparing.  The step reads the same groups whatever its sampled
** fields. */
static int rpd_of(const plan *p, int g, int n, long stride, int D) {
  if (p->pre) return p->pre->rpd[g];
  int r = pod_train__group_rpd(n, stride, D);
  if (p->rec) p->rec->rpd[g] = r;
  return r;
}

/* The figures of pod_train_figs: the prepared value (or the search's,
** for those no layout changes), else the call; FIGL for those of the
** layout (the prepared value only). */
#define FIG(p, name, call) ((p)->fg ? (p)->fg->name : (call))
#define FIGL(p, name, call) ((p)->pre ? (p)->pre->figs.name : (call))

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

static double moe_ep_s(const pod_train_cfg *c, const plan *p, ctx *x);

/* pod_train__hier_share of k routed copies over d domains: the search's
** value for d when it has one (the same call: k and max_domains stay the
** same over the search), else the call. */
static double hier_of(const pod_train_cfg *c, pod_train__search_ctx *sc,
                      double k, int d) {
  int maxd = c->software.max_domains;
  if (sc == NULL || d < 0 || d >= POD_TRAIN__HIER_D)
    return pod_train__hier_share(k, d, maxd);
  if (!sc->have_hier[d]) {
    sc->hier[d] = pod_train__hier_share(k, d, maxd);
    sc->have_hier[d] = 1;
  }
  return sc->hier[d];
}

/* The MoE layer's MLP part of layer_costs: router, shared and routed
** experts (GEMMs, weight traffic, element-wise work), their stored
** activations, and the EP / ETP communication (moe_ep_s). */
static void moe_mlp_costs(const pod_train_cfg *c, const plan *p, ctx *x,
                          double wpass, double gin, layer_cost *o,
                          double *mlp_keep, double *mlp_recomp, int *tp_ops) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, T = p->T, Tt = p->Tt, tp = l->tp;
  double ef = m->expert_ffn, ew = mlp_matrix_count(m) * h * ef;
  double k = m->top_k, sh = m->shared_experts;
  o->gemm_flops += 6.0 * T * (h * m->experts + sh * ew) / tp +
                   6.0 * T * k * ew * p->imb / tp;
  o->gemm_expert_flops = 6.0 * T * k * ew * p->imb / tp;
  /* Local routed experts: experts/ep of them, each sliced by etp. */
  o->w_expert_bytes = (double)m->experts / l->ep * ew / l->etp * wpass;
  o->w_bytes += (h * m->experts + sh * ew) / tp * wpass;
  o->fixed_s = FIG(p, moe_layer_s, pod_train__moe_layer_s(c));
  double routed = k * p->imb, width = (routed + sh) * ef;
  /* A fused grouped MLP does the routed experts' activation and its
  ** quantisation in the GEMM epilogue: no separate pass over them. */
  double ew_width = c->software.fused_grouped_mlp ? sh * ef : width;
  double ew_routed =
      FIGL(p, stage_b, pod_train__moe_stage_bytes(c)) + p->qr * EW_FP8_ROUTED;
  o->ew_bytes +=
      Tt * (EW_HIDDEN * 0.5 * h + EW_FFN * ew_width + ew_routed * routed * h +
            pod_train__router_bytes() * m->experts +
            p->qh * EW_FP8_HIDDEN * 0.5 * h + p->qf * EW_FP8_FFN * ew_width);
  double up = m->gated_mlp ? 2.0 : 1.0;
  /* residual; dispatched tokens (fc1 input); fc1 outputs (for the
  ** activation backward).  The router probabilities multiply the
  ** activation output inside the experts (Megatron-Core TEGroupedMLP,
  ** activation_func_with_probs(fc1_output, permuted_probs), NVIDIA/
  ** Megatron-LM megatron/core/transformer/moe/experts.py), so the combine
  ** is an unweighted sum and its backward keeps no expert outputs. */
  *mlp_keep = h + routed * (gin * h + up * ef) + sh * up * ef;
  *mlp_recomp = gin * (h + (routed + sh) * ef);
  o->act_norm += gin * h;
  o->act_fn += gin * (routed + sh) * ef;
  if (sh > 0) *tp_ops += 4;
  /* a memory-only pass reads no time (late_comm makes it when it is
  ** wanted): left 0 */
  if (!x->no_comm) o->ep_s = moe_ep_s(c, p, x);
}

/* The MoE layer's EP and ETP time (before the recompute's scaling): EP
** dispatch + combine, forward + backward, of this rank's routed tokens;
** the busiest rank receives imb x the mean. */
static double moe_ep_s(const pod_train_cfg *c, const plan *p, ctx *x) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, Tt = p->Tt, k = m->top_k, e = 0.0;
  int D = c->system.domain_gpus;
  if (l->ep > 1) {
    /* Wire dtype.  Megatron-Core's training dispatchers (alltoall,
    ** DeepEP, HybridEP) send the hidden states in bf16 whatever the
    ** recipe: MoEAlltoAllTokenDispatcher.token_dispatch passes the
    ** permuted activations to all_to_all as they are, the DeepEP and
    ** HybridEP managers quantise nothing, and the one fp8 wire dtype,
    ** moe_dispatch_fwd_dtype = 'mxfp8', is refused by every backend but
    ** the later 'ncclep' and defaults to bf16 (NVIDIA/Megatron-LM
    ** megatron/core/transformer/moe/token_dispatcher.py and
    ** transformer_config.py at d98e8a6).  DeepSeek's own framework (the
    ** dualpipe schedule) casts the dispatch to fp8 and keeps the combine
    ** and both backward passes in bf16 (DeepSeek-V3 technical report,
    ** sec. 3.3.4, "Low-Precision Communication"). */
    double bytes = Tt * k * h;
    int rpd = rpd_of(p, G_EP, l->ep, l->etp, D);
    double t16 = coll(x, POD_COLL_ALL_TO_ALL, l->ep, rpd, 2.0 * bytes);
    double wb = FIG(p, disp_b, pod_train__dispatch_bytes(c));
    double td =
        wb < 2.0 ? coll(x, POD_COLL_ALL_TO_ALL, l->ep, rpd, wb * bytes) : t16;
    e = p->imb * (td + 3.0 * t16);
    if (c->software.dispatcher != POD_DISPATCH_ALLTOALL)
      e *= p->hier >= 0.0 ? p->hier : hier_of(c, x->sc, k, l->ep / rpd);
  }
  if (l->etp > 1) {
    double bytes = Tt * k * h * 2.0 * l->etp * p->imb;
    int rpd = rpd_of(p, G_ETP, l->etp, 1, D);
    e += 2.0 * coll(x, POD_COLL_ALL_GATHER, l->etp, rpd, bytes) +
         2.0 * coll(x, POD_COLL_REDUCE_SCATTER, l->etp, rpd, bytes);
  }
  return e;
}

/* All fields 0; copied rather than memset: a small memset of known size
** compiles to `rep stos`, whose start-up costs more than the copy. */
static const layer_cost LAYER_ZERO;

typedef pod_train__attn_part attn_part; /* pod_train.h */

/* The attention part of every layer's cost (layer_costs), into *a. */
static void attn_costs(const pod_train_cfg *c, const plan *p, attn_part *a) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, T = p->T, Tt = p->Tt, tp = l->tp;
  int fp8 = c->dtype != POD_DTYPE_BF16;
  layer_cost *o = &a->o;
  double attn_w = p->mp->attn_per_layer - h -
                  (m->attn == POD_ATTN_MLA ? m->q_lora + m->kv_lora : 0);
  double qk = pod_model_qk_dim(m), v = pod_model_v_dim(m);
  double H = m->heads;
  *o = LAYER_ZERO;
  /* Attention part (every layer). */
  o->gemm_flops = 6.0 * T * attn_w / tp;
  /* Weight traffic per micro-batch: forward, dgrad and wgrad read the
  ** weights (fp8 copies when training in fp8), wgrad reads and writes the
  ** gradient buffer.  A GEMM runs at the slower of its math and this
  ** traffic (roofline): routed experts with few tokens each become
  ** weight-bandwidth bound. */
  double wpass = 3.0 * (fp8 ? 1.0 : 2.0) + 2.0 * c->grad_reduce_bytes;
  o->w_bytes = attn_w / tp * wpass;
  o->attn_flops = 0.5 * 6.0 * T * c->seq * H * (qk + v) / tp;
  o->ew_bytes = Tt * (EW_HIDDEN * 0.5 + p->qh * EW_FP8_HIDDEN * 0.5) * h;
  int rcp = l->recompute;
  o->ew_bytes += Tt * (p->sc && rcp >= 0 && rcp <= 2 /* MLA only */
                           ? p->sc->mla_ew[rcp]
                           : pod_train__mla_ew_bytes(c));
  /* Stored activations, elements per token (Korthikanti et al. 2022,
  ** with flash attention: no s^2 term).  `keep` tensors are kept under
  ** selective recompute; `drop` ones (norm outputs, activation-function
  ** outputs, MLA up-projections) are recomputed.  GEMM inputs are saved
  ** in fp8 by Transformer Engine when training in fp8 (gin factor). */
  double gin = fp8 ? 0.5 : 1.0;
  double qkv_out = m->attn == POD_ATTN_MLA ? H * (qk + qk + v)
                                           : H * qk + pod_model_kv_elems(m);
  double latents =
      m->attn == POD_ATTN_MLA ? m->q_lora + m->kv_lora + m->qk_rope : 0.0;
  double a_attn_keep = h /* residual */ + gin * (latents + H * v /* fa out */);
  double a_attn_drop = gin * h /* norm out */;
  if (m->attn == POD_ATTN_MLA)
    a_attn_drop += qkv_out; /* recompute the up-projections */
  else
    a_attn_keep += qkv_out; /* core attention needs q, k, v */
  o->act_norm = gin * h;
  o->act_core = gin * H * v;
  if (m->attn == POD_ATTN_MLA) {
    o->act_up = qkv_out;
    o->up_flops = 2.0 * T * H *
                  (m->q_lora * qk + m->kv_lora * (double)(m->qk_nope + v)) / tp;
  }
  a->gin = gin;
  a->wpass = wpass;
  a->v = v;
  a->qkv_out = qkv_out;
  a->keep = a_attn_keep;
  a->drop = a_attn_drop;
}

/* A layer's TP and CP times (tp_ops TP collectives) into o->tp_s and
** o->cp_s. */
static void layer_comm(const pod_train_cfg *c, plan *p, ctx *x, int tp_ops,
                       layer_cost *o) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, T = p->T, tp = l->tp;
  int D = c->system.domain_gpus;
  if (x->no_comm) return; /* a memory-only pass: tp_s, cp_s left 0 */
  if (l->tp > 1) {
    if (p->tp_pair_s < 0.0) { /* same for dense and MoE layers: once */
      double bytes = T * h * 2.0;
      int rpd = rpd_of(p, G_TP, l->tp, 1, D);
      p->tp_pair_s = coll(x, POD_COLL_ALL_GATHER, l->tp, rpd, bytes) +
                     coll(x, POD_COLL_REDUCE_SCATTER, l->tp, rpd, bytes);
    }
    o->tp_s = (tp_ops / 2) * p->tp_pair_s;
  }
  if (l->cp > 1) {
    /* Ring attention: cp-1 KV hops forward; KV and dKV hops backward. */
    double bytes = T * pod_model_kv_elems(m) * 2.0 / tp;
    int rpd = rpd_of(p, G_CP, l->cp, l->tp, D) >= 2 ? 2 : 1;
    if (p->cp_hop_s < 0.0) /* same for dense and MoE layers: once */
      p->cp_hop_s = coll(x, POD_COLL_SEND_RECV, 2, rpd, bytes);
    o->cp_s = 3.0 * (l->cp - 1) * p->cp_hop_s;
  }
}

/* One layer's cost (a dense one, or moe): the attention part a, then the
** MLP's, communication and stored activations; returns the layer's TP
** collective count. */
static int layer_costs(const pod_train_cfg *c, plan *p, int moe, ctx *x,
                       const attn_part *a, layer_cost *o) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  double h = m->hidden, T = p->T, Tt = p->Tt, tp = l->tp;
  double gin = a->gin, wpass = a->wpass, v = a->v, qkv_out = a->qkv_out;
  double a_attn_keep = a->keep, a_attn_drop = a->drop;
  double H = m->heads;
  int tp_ops = 4; /* AG+RS forward, AG+RS backward */
  *o = a->o;
  double mlp_keep, mlp_recomp;
  if (!moe) {
    double f = m->ffn, w = mlp_matrix_count(m) * h * f;
    o->gemm_flops += 6.0 * T * w / tp;
    o->w_bytes += w / tp * wpass;
    o->ew_bytes +=
        Tt * (EW_HIDDEN * 0.5 * h + EW_FFN * f +
              p->qh * EW_FP8_HIDDEN * 0.5 * h + p->qf * EW_FP8_FFN * f);
    mlp_keep = h + (m->gated_mlp ? 2.0 : 1.0) * f;
    mlp_recomp = gin * (h + f);
    o->act_norm += gin * h;
    o->act_fn = gin * f;
    o->act_mlp = mlp_keep - h + mlp_recomp;
    o->mlp_fwd_flops = 2.0 * T * w / tp;
    tp_ops += 4;
  } else {
    moe_mlp_costs(c, p, x, wpass, gin, o, &mlp_keep, &mlp_recomp, &tp_ops);
  }
  layer_comm(c, p, x, tp_ops, o);
  double keep = a_attn_keep + mlp_keep, recomp = a_attn_drop + mlp_recomp;
  pod_train__apply_recompute(l->recompute, Tt, h, keep, recomp, o);
  if (l->recompute == POD_RECOMPUTE_NONE) pod_train__apply_modules(l, Tt, h, o);
  /* Offloadable tensors, elements per token, as stored after recompute
  ** (train_act.c): q, k, v stay unless MLA recomputes its up-projections;
  ** the attention output unless core attention is recomputed. */
  int none = l->recompute == POD_RECOMPUTE_NONE;
  int up_rec =
      m->attn == POD_ATTN_MLA && (l->recompute == POD_RECOMPUTE_SELECTIVE ||
                                  (none && l->recompute_modules.mla_up_proj));
  pod_train__act_parts ap = {
      h,
      up_rec ? 0.0 : qkv_out,
      none && l->recompute_modules.core_attn ? 0.0 : gin * H * v,
      h,
      moe ? gin * m->top_k * p->imb * h : 0.0,
      moe ? m->top_k * p->imb * (m->gated_mlp ? 2.0 : 1.0) * m->expert_ffn
          : 0.0};
  pod_train__apply_offload(l, Tt, &ap, o);
  return tp_ops;
}

/* The dense layer's cost: with prepared config pre its prepared cost,
** but for the TP and CP times (the one part a sampled field changes),
** timed and scaled by the recompute as layer_costs does; else
** layer_costs, kept in rec when preparing.  Returns its TP collective
** count. */
static int dense_costs(const pod_train_cfg *c, plan *p, ctx *x,
                       const attn_part *a, const pod_train_prep *pre,
                       pod_train_prep *rec, layer_cost *o) {
  if (pre == NULL) {
    int tp_ops = layer_costs(c, p, 0, x, a, o);
    if (rec) rec->dense = *o, rec->dense_tp_ops = tp_ops;
    return tp_ops;
  }
  *o = pre->dense;
  layer_cost cm = LAYER_ZERO;
  layer_comm(c, p, x, pre->dense_tp_ops, &cm);
  pod_train__apply_recompute(c->parallel.recompute, p->Tt, c->model.hidden, 0.0,
                             0.0, &cm);
  o->tp_s = cm.tp_s;
  o->cp_s = cm.cp_s;
  return pre->dense_tp_ops;
}

/* The late timing of want_time 2 (the search's: time a layout if it
** fits): the layers were costed without their collectives (no_comm), so
** their TP, CP and EP times are made now, as layer_costs makes them (the
** same collectives in the same order, scaled by the same recompute), into
** dl and ml (dense_ops, moe_ops their TP collective counts).  In a
** search, times made before for the same figures (all they read of the
** layout, pod_train__comm_slot) are the times made again. */
static void late_comm(const pod_train_cfg *c, plan *p, ctx *x, int dense_ops,
                      int moe_ops, layer_cost *dl, layer_cost *ml) {
  const pod_layout *l = &c->parallel;
  int rcp = l->recompute;
  double h = c->model.hidden;
  x->no_comm = 0;
  const int key[8] = {l->tp,  l->cp, l->microbatch, l->ep,
                      l->etp, rcp,   dense_ops,     moe_ops};
  pod_train__comm_slot *e = NULL;
  if (x->sc) {
    uint32_t hs = 0;
    for (int i = 0; i < 8; i++) hs = (hs ^ (uint32_t)key[i]) * 0x9e3779b1u;
    e = &x->sc->comm[hs >> 22 & (POD_TRAIN__COMM_SLOTS - 1)];
    if (e->used && memcmp(e->key, key, sizeof key) == 0) {
      if (dense_ops > 0) dl->tp_s = e->dtp, dl->cp_s = e->dcp;
      if (moe_ops > 0) ml->tp_s = e->mtp, ml->cp_s = e->mcp, ml->ep_s = e->mep;
      return;
    }
  }
  p->tp_pair_s = -1.0;
  p->cp_hop_s = -1.0;
  layer_cost cd = LAYER_ZERO, cm = LAYER_ZERO;
  if (dense_ops > 0) {
    layer_comm(c, p, x, dense_ops, &cd);
    pod_train__apply_recompute(rcp, p->Tt, h, 0.0, 0.0, &cd);
    dl->tp_s = cd.tp_s;
    dl->cp_s = cd.cp_s;
  }
  if (moe_ops > 0) {
    cm.ep_s = moe_ep_s(c, p, x);
    layer_comm(c, p, x, moe_ops, &cm);
    pod_train__apply_recompute(rcp, p->Tt, h, 0.0, 0.0, &cm);
    ml->tp_s = cm.tp_s;
    ml->cp_s = cm.cp_s;
    ml->ep_s = cm.ep_s;
  }
  if (e && x->rc == POD_OK) {
    memcpy(e->key, key, sizeof key);
    e->used = 1;
    e->dtp = cd.tp_s, e->dcp = cd.cp_s;
    e->mtp = cm.tp_s, e->mcp = cm.cp_s, e->mep = cm.ep_s;
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
    t = coll(x, POD_COLL_ALL_REDUCE, nd, rd, Pd * gb) +
        coll(x, POD_COLL_ALL_REDUCE, ne, re, Pe * gb);
  } else {
    double nrs = l->zero >= 2 ? p->m : 1.0;
    double nag = l->zero >= 3 ? 2.0 * p->m : 1.0;
    if (l->zero >= 2) window = p->m * stage_mb + b->bubble;
    t = nrs * (coll(x, POD_COLL_REDUCE_SCATTER, nd, rd, Pd * gb) +
               coll(x, POD_COLL_REDUCE_SCATTER, ne, re, Pe * gb)) +
        nag * (coll(x, POD_COLL_ALL_GATHER, nd, rd, Pd * wg) +
               coll(x, POD_COLL_ALL_GATHER, ne, re, Pe * wg));
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
    b->dp += K * coll(x, POD_COLL_ALL_REDUCE, (int)G,
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
  attn_costs(c, p, own);
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
    *dense_ops = dense_costs(c, p, x, at, pre, rec, dl);
  else
    *dl = LAYER_ZERO;
  if (n_moe > 0)
    *moe_ops = layer_costs(c, p, 1, x, at, ml);
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
    late_comm(c, &p, &x, dense_ops, moe_ops, &dl, &ml);
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
    double t = p.m * 2.0 * l->vp * coll(&x, POD_COLL_SEND_RECV, 2, rpd, bytes);
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
