/*
** train_search.c: the layout search over tp, pp, vp, ep, etp, cp and
** micro-batch, keeping the best n layouts (see pod_train.h).
*/
#include "train_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Layout search ---------------------------------------------------- */

void pod_train_search_opts_init(pod_train_search_opts *o) {
  memset(o, 0, sizeof *o);
  pod_layout *f = &o->fix;
  f->tp = f->pp = f->vp = f->dp = f->ep = f->etp = f->cp = f->microbatch = -1;
  f->zero = f->recompute = f->uneven = -1;
  o->top_n = 10;
  o->max_tp = 64;
  o->max_pp = 64;
  o->max_vp = 16;
  o->max_cp = 16;
  o->max_mb = 16;
}

typedef struct topn {
  pod_train_search_item *items;
  int n, cap;
} topn;

static int better(const pod_train_search_item *a,
                  const pod_train_search_item *b) {
  if (a->tokens_per_s_per_gpu != b->tokens_per_s_per_gpu)
    return a->tokens_per_s_per_gpu > b->tokens_per_s_per_gpu;
  return a->memory_gb < b->memory_gb;
}

static void topn_add(topn *t, const pod_train_search_item *it) {
  if (t->cap <= 0) return;
  if (t->n == t->cap && !better(it, &t->items[t->n - 1])) return;
  int i = t->n < t->cap ? t->n++ : t->n - 1;
  while (i > 0 && better(it, &t->items[i - 1])) {
    t->items[i] = t->items[i - 1];
    i--;
  }
  t->items[i] = *it;
}

/* A free dimension (fix < 0) ranges over candidates; a fixed one over its
** value only. */
static int dim_ok(int fix, int v) {
  return fix < 0 || fix == v;
}

const pod_field pod_train_search_opts_fields[] = {
    POD_FIELD_I(pod_train_search_opts, top_n, 1, 1000, "layouts kept"),
    POD_FIELD_I(pod_train_search_opts, max_tp, 1, 1 << 16, "largest tp tried"),
    POD_FIELD_I(pod_train_search_opts, max_pp, 1, 1 << 16, "largest pp tried"),
    POD_FIELD_I(pod_train_search_opts, max_vp, 1, 1 << 16, "largest vp tried"),
    POD_FIELD_I(pod_train_search_opts, max_cp, 1, 1 << 16, "largest cp tried"),
    POD_FIELD_I(pod_train_search_opts, max_mb, 1, 1 << 16,
                "largest micro-batch tried"),
    POD_FIELD_END};

static int search_check_opts(const pod_train_search_opts *o, pod_err *err) {
  const pod_layout *f = &o->fix;
  /* a fixed dimension (not -1) meets the layout's bound; the parallel
  ** sizes are >= 1 (a layout's 0 = 1 is not a fix) */
  for (const pod_field *b = pod_train_layout_fields; b->name; b++) {
    int v = (int)pod_field_get(b, f);
    if (v == -1) continue;
    int size = strcmp(b->name, "zero") != 0 && b->type == POD_F_INT;
    if (size && v < 1 && v <= b->max) {
      char path[POD_ERR_FIELD_MAX];
      snprintf(path, sizeof path, "fix.%s", b->name);
      return pod_err_set(err, POD_EINVAL, path,
                         "must be in [1, %.10g] (got %d)", b->max, v);
    }
    if (!pod_field_ok(b, v)) return pod_field_error(b, v, "fix.", err);
  }
  NEED(f->recompute >= -1 && f->recompute <= 2, "fix.recompute",
       "must be -1 (free) or 0..2");
  return pod_field_check_all(pod_train_search_opts_fields, o, "", err);
}

/* Every ZeRO stage in zlo..zhi and recompute mode in rlo..rhi of the
** layout in c->parallel: the least recompute that fits at each stage goes
** into the top n.  A higher ZeRO stage only adds traffic; it can win only
** by needing less recompute than the stage below. */
static int try_zero_recompute(pod_train_cfg *c, int dp, int zlo, int zhi,
                              int rlo, int rhi, topn *t,
                              pod_train_search_stats *st, pod_coll_graphs *gs,
                              pod_err *err) {
  pod_layout *l = &c->parallel;
  pod_train_result r;
  int rc;
  int rtop = rhi;
  for (int z = zlo; z <= zhi && rtop >= rlo; z++) {
    l->zero = z;
    for (int rcp = rlo; rcp <= rtop; rcp++) {
      l->recompute = rcp;
      rc = pod_train__eval_core(c, dp, &r, 0, gs, err);
      if (rc != POD_OK) return rc;
      st->checked++;
      if (!r.fits) continue;
      st->fitting++;
      rc = pod_train__eval_core(c, dp, &r, 1, gs, err);
      if (rc != POD_OK) return rc;
      st->evaluated++;
      pod_train_search_item it = {*l, r.tokens_per_s_per_gpu, r.step_s, r.mfu,
                                  r.memory.total_gb};
      topn_add(t, &it);
      rtop = rcp - 1;
      break; /* more recompute only slows this layout */
    }
  }
  return POD_OK;
}

int pod_train_search(const pod_train_cfg *base,
                     const pod_train_search_opts *opts,
                     pod_train_search_item *out, int cap, int *n,
                     pod_train_search_stats *stats, pod_err *err) {
  pod_train_search_opts dflt;
  if (opts == NULL) {
    pod_train_search_opts_init(&dflt);
    opts = &dflt;
  }
  if (n == NULL) return pod_err_set(err, POD_EINVAL, "n", "is NULL");
  *n = 0;
  NEED(cap >= 0 && (cap == 0 || out != NULL), "out",
       "needs a buffer of cap >= 0 items");
  int rc = search_check_opts(opts, err);
  if (rc != POD_OK) return rc;
  rc = pod_train__check_common(base, err);
  if (rc != POD_OK) return rc;
  {
    double dg;
    rc = pod_train_default_eff(&base->system.gpu, base->dtype, &dg, NULL, NULL,
                               NULL);
    if (rc != POD_OK && (base->eff_gemm <= 0.0 || base->eff_attn <= 0.0 ||
                         base->gemm_k_half < 0.0))
      return pod_train_default_eff(&base->system.gpu, base->dtype, NULL, NULL,
                                   NULL, err);
  }
  const pod_layout *f = &opts->fix;
  const pod_model *m = &base->model;
  int G = base->gpus, L = m->layers, B = base->global_batch;
  pod_train_search_stats st = {0, 0, 0, 0};
  topn t = {out, 0, cap < opts->top_n ? cap : opts->top_n};
  pod_train_cfg c = *base;
  pod_layout *l = &c.parallel;
  pod_coll_graphs gs; /* c.system stays the same over the search */
  gs.n = 0;
  int zlo = f->zero >= 0 ? f->zero : 1, zhi = f->zero >= 0 ? f->zero : 3;
  int rlo = f->recompute >= 0 ? f->recompute : 0;
  int rhi = f->recompute >= 0 ? f->recompute : 2;
  for (int tp = 1; tp <= opts->max_tp && tp <= m->heads; tp++) {
    if (!dim_ok(f->tp, tp) || G % tp || m->heads % tp) continue;
    if (m->attn != POD_ATTN_MLA && m->kv_heads % tp) continue;
    /* tp <= G and cp <= max_cp (2^16): tp*cp in long, and cp stops
    ** growing once tp*cp exceeds G (in int it wrapped to 0, SIGFPE) */
    for (int cp = 1; cp <= opts->max_cp && (long)tp * cp <= G; cp *= 2) {
      if (!dim_ok(f->cp, cp) || G % (tp * cp)) continue;
      if (cp > 1 && base->seq % (2 * cp)) continue;
      int rest = G / (tp * cp);
      for (int pp = 1; pp <= opts->max_pp && pp <= L && pp <= rest; pp++) {
        if (!dim_ok(f->pp, pp) || rest % pp) continue;
        int dp = rest / pp;
        if (!dim_ok(f->dp, dp) || B % dp) continue;
        int per_replica = B / dp;
        int vmax = pp == 1 ? 1 : opts->max_vp;
        for (int vp = 1; vp <= vmax; vp++) {
          /* uneven layouts may add an embedding-only and a loss-only
          ** virtual stage (train_check.c): pp*vp up to L + 2 */
          long smax = f->uneven != 0 ? (long)L + 2 : L;
          if (!dim_ok(f->vp, vp) || (long)pp * vp > smax) continue;
          int uneven = L % (pp * vp) != 0;
          if (f->uneven >= 0 && uneven && !f->uneven) continue;
          if (f->uneven == 1) uneven = 1;
          for (int mb = 1; mb <= opts->max_mb && mb <= per_replica; mb++) {
            if (!dim_ok(f->microbatch, mb) || per_replica % mb) continue;
            /* interleaving needs >= pp micro-batches (train_check.c) */
            if (vp > 1 && per_replica / mb < pp) continue;
            int emax = m->experts > 0 ? m->experts : 1;
            long world = (long)tp * cp * dp;
            for (int ep = 1; ep <= emax; ep++) {
              if (!dim_ok(f->ep, ep) || emax % ep || world % ep) continue;
              int tmax = m->experts > 0 ? opts->max_tp : 1;
              for (int etp = 1; etp <= tmax; etp++) {
                if (!dim_ok(f->etp, etp) || world % ((long)ep * etp)) continue;
                if (m->experts > 0 && m->expert_ffn % etp) continue;
                *l = (pod_layout){tp,
                                  pp,
                                  vp,
                                  dp,
                                  ep,
                                  etp,
                                  cp,
                                  mb,
                                  0,
                                  0,
                                  uneven,
                                  base->parallel.recompute_modules,
                                  base->parallel.offload_modules};
                st.candidates++;
                rc = try_zero_recompute(&c, dp, zlo, zhi, rlo, rhi, &t, &st,
                                        &gs, err);
                if (rc != POD_OK) return rc;
              }
            }
          }
        }
      }
    }
  }
  *n = t.n;
  if (stats) *stats = st;
  pod_err_clear(err);
  return POD_OK;
}
