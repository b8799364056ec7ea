/*
** train_step.h: the training step's private state, shared by train.c
** (the step: placement, data-parallel, pipeline and step time) and
** train_layer.c (the per-layer costs and their collectives).  Included
** only by train*.c.
*/
#ifndef POD_TRAIN_STEP_H
#define POD_TRAIN_STEP_H

#include "train_int.h"

/* One evaluation's collective timing state. */
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

typedef pod_train__layer_cost layer_cost; /* train_int.h */
typedef pod_train__attn_part attn_part;   /* pod_train.h */

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
static inline int rpd_of(const plan *p, int g, int n, long stride, int D) {
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

/* All fields 0; copied rather than memset: a small memset of known size
** compiles to `rep stos`, whose start-up costs more than the copy. */
static const layer_cost LAYER_ZERO;

/* ---- train_layer.c ---------------------------------------------------- */

/* The time of one collective of the step (0 for a single rank, no bytes,
** an earlier error or a memory-only pass): the search's kept time, the
** prepared one, else pod_coll_time_checked (recorded when preparing);
** an error goes to x->rc and x->err. */
double pod_train__step_coll(ctx *x, pod_coll_op op, int n, int rpd,
                            double bytes);
/* The attention part of every layer's cost, into *a. */
void pod_train__attn_costs(const pod_train_cfg *c, const plan *p, attn_part *a);
/* One layer's cost (a dense one, or moe) from its attention part a: the
** MLP's, communication and stored activations; returns the layer's TP
** collective count. */
int pod_train__layer_costs(const pod_train_cfg *c, plan *p, int moe, ctx *x,
                           const attn_part *a, layer_cost *o);
/* The dense layer's cost: prepared (pre) but for its TP and CP times,
** else pod_train__layer_costs, kept in rec when preparing; returns its TP
** collective count. */
int pod_train__dense_costs(const pod_train_cfg *c, plan *p, ctx *x,
                           const attn_part *a, const pod_train_prep *pre,
                           pod_train_prep *rec, layer_cost *o);
/* The layers' TP, CP and EP times of a pass costed without them
** (no_comm), into dl and ml (dense_ops, moe_ops their TP collective
** counts), kept in the search's comm slots. */
void pod_train__late_comm(const pod_train_cfg *c, plan *p, ctx *x,
                          int dense_ops, int moe_ops, layer_cost *dl,
                          layer_cost *ml);

#endif
