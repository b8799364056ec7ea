/*
** train_search.c: the layout search over tp, pp, vp, ep, etp, cp and
** micro-batch, keeping the best n layouts (see pod_train.h).
*/
#include "train_int.h"
#include "train_bytes.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- Layout search ---------------------------------------------------- */

static const pod_train__coll_slot SLOT_ZERO;

/* train_int.h: the calls train.c makes per evaluation without a search
** context, made here once on the same config. */
void pod_train__search_ctx_init(const pod_train_cfg *c,
                                pod_train__search_ctx *sc) {
  const pod_model *m = &c->model;
  sc->graphs.n = 0;
  sc->qh = pod_train__quant_scale(c, EW_FP8_HIDDEN_UNFUSED);
  sc->qf = pod_train__quant_scale(c, EW_FP8_FFN_UNFUSED);
  sc->qr = pod_train__quant_scale(c, EW_FP8_ROUTED_UNFUSED);
  pod_model_params_count(m, &sc->mp);
  pod_model_flops_with_params(m, &sc->mp, c->seq, !c->mfu_full_attn,
                              &sc->flops);
  double N = c->gpus;
  sc->spread = sqrt(2.0 * log(N));
  pod_train_cfg r = *c; /* mla_ew_bytes reads the recompute mode */
  for (int i = 0; i < 3; i++) {
    r.parallel.recompute = i;
    sc->mla_ew[i] = pod_train__mla_ew_bytes(&r);
  }
  pod_train__figs_layout_free(c, &sc->figs); /* stage_b, host_s: 0 */
  memset(sc->have_hier, 0, sizeof sc->have_hier);
  sc->lookups = sc->hits = 0;
  for (int i = 0; i < POD_TRAIN__CACHE_SLOTS; i++) sc->slot[i] = SLOT_ZERO;
  for (int i = 0; i < POD_TRAIN__COMM_SLOTS; i++) sc->comm[i].used = 0;
  for (int i = 0; i < POD_TRAIN__COST_SLOTS; i++) sc->cost[i].used = 0;
}

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
  long *seq; /* each item's place in the whole search's order */
  int n, cap;
} topn;

static int better(const pod_train_search_item *a,
                  const pod_train_search_item *b) {
  if (a->tokens_per_s_per_gpu != b->tokens_per_s_per_gpu)
    return a->tokens_per_s_per_gpu > b->tokens_per_s_per_gpu;
  return a->memory_gb < b->memory_gb;
}

/* Items come in the search's order (seq ascending): an item goes after
** the ones it does not beat, so ties keep that order. */
static void topn_add(topn *t, const pod_train_search_item *it, long seq) {
  if (t->cap <= 0) return;
  if (t->n == t->cap && !better(it, &t->items[t->n - 1])) return;
  int i = t->n < t->cap ? t->n++ : t->n - 1;
  while (i > 0 && better(it, &t->items[i - 1])) {
    t->items[i] = t->items[i - 1];
    t->seq[i] = t->seq[i - 1];
    i--;
  }
  t->items[i] = *it;
  t->seq[i] = seq;
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
                              int rlo, int rhi, long k, topn *t,
                              pod_train_search_stats *st,
                              pod_train__search_ctx *sc, pod_err *err) {
  pod_layout *l = &c->parallel;
  pod_train_result r;
  int rc;
  int rtop = rhi;
  for (int z = zlo; z <= zhi && rtop >= rlo; z++) {
    l->zero = z;
    for (int rcp = rlo; rcp <= rtop; rcp++) {
      l->recompute = rcp;
      /* its memory, and its time when it fits (want_time 2): one pass */
      rc = pod_train__eval_search(c, dp, &r, 2, sc, err);
      if (rc != POD_OK && !r.fits) return rc;
      st->checked++;
      if (!r.fits) continue;
      st->fitting++;
      if (rc != POD_OK) return rc;
      st->evaluated++;
      pod_train_search_item it = {*l, r.tokens_per_s_per_gpu, r.step_s, r.mfu,
                                  r.memory.total_gb};
      topn_add(t, &it, k * 4 + z); /* z <= 3 */
      rtop = rcp - 1;
      break; /* more recompute only slows this layout */
    }
  }
  return POD_OK;
}

/* The checks of a search before any candidate (pod_train_search's
** POD_EINVAL cases). */
static int search_checks(const pod_train_cfg *base,
                         const pod_train_search_opts *opts, pod_err *err) {
  int rc = search_check_opts(opts, err);
  if (rc != POD_OK) return rc;
  rc = pod_train__check_common(base, err);
  if (rc != POD_OK) return rc;
  double dg;
  rc = pod_train_default_eff(&base->system.gpu, base->dtype, &dg, NULL, NULL,
                             NULL);
  if (rc != POD_OK && (base->eff_gemm <= 0.0 || base->eff_attn <= 0.0 ||
                       base->gemm_k_half < 0.0))
    return pod_train_default_eff(&base->system.gpu, base->dtype, NULL, NULL,
                                 NULL, err);
  return POD_OK;
}

/* A part's walk: the loops of the search in their order; candidate k (its
** place among those that pass the divisibility rules) is this part's when
** k % nparts == part. */
typedef struct walk {
  const pod_train_search_opts *opts;
  int part, nparts;
  const atomic_int *stop;
  long k;      /* candidates passed so far, of every part */
  long fail_k; /* the candidate that failed */
  pod_train_cfg c;
  topn t;
  pod_train_search_stats st;
  pod_train__search_ctx sc; /* c.system stays the same over the search */
  /* the (ep, etp) pairs that pass walk_experts' rules at world `pairs_w`
  ** (they read nothing else of the layout), in its order; -1: none made */
  long pairs_w;
  int npairs;
  int pairs[][2];
} walk;

/* The number of (ep, etp) pairs walk_pairs can list at most: ep divides
** the experts (or is 1), etp the expert FFN up to max_tp (or is 1). */
static long pairs_cap(const pod_train_cfg *c, const pod_train_search_opts *o) {
  const pod_model *m = &c->model;
  long emax = m->experts > 0 ? m->experts : 1, ne = 0, nt = 0;
  for (long ep = 1; ep <= emax; ep++)
    if (emax % ep == 0) ne++;
  int tmax = m->experts > 0 ? o->max_tp : 1;
  for (int etp = 1; etp <= tmax; etp++)
    if (m->experts <= 0 || m->expert_ffn % etp == 0) nt++;
  return ne * nt;
}

/* The (ep, etp) pairs of world ranks into w->pairs, in the walk's order
** (ep, then etp, ascending). */
static void walk_pairs(walk *w, long world) {
  const pod_layout *f = &w->opts->fix;
  const pod_model *m = &w->c.model;
  int emax = m->experts > 0 ? m->experts : 1, n = 0;
  for (int ep = 1; ep <= emax; ep++) {
    if (!dim_ok(f->ep, ep) || emax % ep || world % ep) continue;
    int tmax = m->experts > 0 ? w->opts->max_tp : 1;
    for (int etp = 1; etp <= tmax; etp++) {
      if (!dim_ok(f->etp, etp) || world % ((long)ep * etp)) continue;
      if (m->experts > 0 && m->expert_ffn % etp) continue;
      w->pairs[n][0] = ep;
      w->pairs[n][1] = etp;
      n++;
    }
  }
  w->npairs = n;
  w->pairs_w = world;
}

/* The candidates of tp, cp, pp, dp, vp and mb (c.parallel holds them) over
** ep and etp. */
static int walk_experts(walk *w, int dp, int uneven, pod_err *err) {
  const pod_layout *f = &w->opts->fix;
  pod_layout *l = &w->c.parallel;
  int tp = l->tp, pp = l->pp, vp = l->vp, cp = l->cp, mb = l->microbatch;
  int zlo = f->zero >= 0 ? f->zero : 1, zhi = f->zero >= 0 ? f->zero : 3;
  int rlo = f->recompute >= 0 ? f->recompute : 0;
  int rhi = f->recompute >= 0 ? f->recompute : 2;
  long world = (long)tp * cp * dp;
  if (w->pairs_w != world) walk_pairs(w, world);
  for (int i = 0; i < w->npairs; i++) {
    int ep = w->pairs[i][0], etp = w->pairs[i][1];
    long k = w->k++;
    if (k % w->nparts != w->part) continue;
    if (w->stop && atomic_load_explicit(w->stop, memory_order_relaxed)) {
      w->fail_k = k;
      return pod_err_set(err, POD_ECANCELED, NULL, "search stopped");
    }
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
                      l->recompute_modules,
                      l->offload_modules};
    w->st.candidates++;
    int rc = try_zero_recompute(&w->c, dp, zlo, zhi, rlo, rhi, k, &w->t, &w->st,
                                &w->sc, err);
    if (rc != POD_OK) {
      w->fail_k = k;
      return rc;
    }
  }
  return POD_OK;
}

/* pp's vp and micro-batch choices at tp, cp and dp. */
static int walk_stages(walk *w, int dp, pod_err *err) {
  const pod_layout *f = &w->opts->fix;
  pod_layout *l = &w->c.parallel;
  int pp = l->pp, L = w->c.model.layers;
  int per_replica = w->c.global_batch / dp;
  int vmax = pp == 1 ? 1 : w->opts->max_vp;
  for (int vp = 1; vp <= vmax; vp++) {
    /* uneven layouts may add an embedding-only and a loss-only virtual
    ** stage (train_check.c): pp*vp up to L + 2 */
    long smax = f->uneven != 0 ? (long)L + 2 : L;
    if (!dim_ok(f->vp, vp) || (long)pp * vp > smax) continue;
    int uneven = L % (pp * vp) != 0;
    if (f->uneven >= 0 && uneven && !f->uneven) continue;
    if (f->uneven == 1) uneven = 1;
    for (int mb = 1; mb <= w->opts->max_mb && mb <= per_replica; mb++) {
      if (!dim_ok(f->microbatch, mb) || per_replica % mb) continue;
      /* interleaving needs >= pp micro-batches (train_check.c) */
      if (vp > 1 && per_replica / mb < pp) continue;
      l->vp = vp;
      l->microbatch = mb;
      int rc = walk_experts(w, dp, uneven, err);
      if (rc != POD_OK) return rc;
    }
  }
  return POD_OK;
}

static int walk_all(walk *w, pod_err *err) {
  const pod_layout *f = &w->opts->fix;
  const pod_model *m = &w->c.model;
  pod_layout *l = &w->c.parallel;
  int G = w->c.gpus, L = m->layers, B = w->c.global_batch;
  for (int tp = 1; tp <= w->opts->max_tp && tp <= m->heads; tp++) {
    if (!dim_ok(f->tp, tp) || G % tp || m->heads % tp) continue;
    if (m->attn != POD_ATTN_MLA && m->kv_heads % tp) continue;
    /* tp <= G and cp <= max_cp (2^16): tp*cp in long, and cp stops
    ** growing once tp*cp exceeds G (in int it wrapped to 0, SIGFPE) */
    for (int cp = 1; cp <= w->opts->max_cp && (long)tp * cp <= G; cp *= 2) {
      if (!dim_ok(f->cp, cp) || G % (tp * cp)) continue;
      if (cp > 1 && w->c.seq % (2 * cp)) continue;
      int rest = G / (tp * cp);
      for (int pp = 1; pp <= w->opts->max_pp && pp <= L && pp <= rest; pp++) {
        if (!dim_ok(f->pp, pp) || rest % pp) continue;
        int dp = rest / pp;
        if (!dim_ok(f->dp, dp) || B % dp) continue;
        l->tp = tp;
        l->cp = cp;
        l->pp = pp;
        int rc = walk_stages(w, dp, err);
        if (rc != POD_OK) return rc;
      }
    }
  }
  return POD_OK;
}

int pod_train_search_part_run(const pod_train_cfg *base,
                              const pod_train_search_opts *opts, int part,
                              int nparts, const atomic_int *stop,
                              pod_train_search_part *p) {
  pod_train_search_opts dflt;
  if (opts == NULL) {
    pod_train_search_opts_init(&dflt);
    opts = &dflt;
  }
  p->n = 0;
  p->fail_k = -1;
  memset(&p->stats, 0, sizeof p->stats);
  pod_err_clear(&p->err);
  pod_err *err = &p->err;
  if (nparts < 1 || part < 0 || part >= nparts)
    return p->rc = pod_err_set(err, POD_EINVAL, "part",
                               "must be in [0, nparts) with nparts >= 1");
  if (p->cap < 0 || (p->cap > 0 && (p->items == NULL || p->seq == NULL)))
    return p->rc = pod_err_set(err, POD_EINVAL, "out",
                               "needs buffers of cap >= 0 items");
  if ((p->rc = search_checks(base, opts, err)) != POD_OK) return p->rc;
  long np = pairs_cap(base, opts);
  walk *w = malloc(sizeof *w + sizeof w->pairs[0] * (size_t)np);
  if (w == NULL)
    return p->rc = pod_err_set(err, POD_ENOMEM, "search", "out of memory");
  memset(w, 0, sizeof *w);
  w->pairs_w = -1;
  w->opts = opts;
  w->part = part;
  w->nparts = nparts;
  w->stop = stop;
  w->c = *base;
  pod_train__search_ctx_init(&w->c, &w->sc);
  w->t =
      (topn){p->items, p->seq, 0, p->cap < opts->top_n ? p->cap : opts->top_n};
  p->rc = walk_all(w, err);
  p->fail_k = w->fail_k;
  p->n = w->t.n;
  p->stats = w->st;
  free(w);
  if (p->rc == POD_OK) pod_err_clear(err);
  return p->rc;
}

typedef struct ranked {
  const pod_train_search_item *it;
  long seq;
} ranked;

static int cmp_ranked(const void *pa, const void *pb) {
  const ranked *a = pa, *b = pb;
  if (better(a->it, b->it)) return -1;
  if (better(b->it, a->it)) return 1;
  return (a->seq > b->seq) - (a->seq < b->seq);
}

int pod_train_search_merge(const pod_train_search_part *parts, int nparts,
                           pod_train_search_item *out, int cap, int *n,
                           pod_train_search_stats *stats, pod_err *err) {
  if (n == NULL) return pod_err_set(err, POD_EINVAL, "n", "is NULL");
  *n = 0;
  NEED(cap >= 0 && (cap == 0 || out != NULL), "out",
       "needs a buffer of cap >= 0 items");
  NEED(nparts >= 1 && parts != NULL, "parts", "needs nparts >= 1 parts");
  /* the first failure in the search's order is the search's (a check
  ** before any candidate fails every part alike, at -1) */
  const pod_train_search_part *bad = NULL;
  long total = 0;
  for (int i = 0; i < nparts; i++) {
    if (parts[i].rc != POD_OK && (bad == NULL || parts[i].fail_k < bad->fail_k))
      bad = &parts[i];
    total += parts[i].n;
  }
  if (bad) {
    if (err) *err = bad->err;
    return bad->rc;
  }
  ranked *all = malloc(sizeof *all * (size_t)(total > 0 ? total : 1));
  if (all == NULL)
    return pod_err_set(err, POD_ENOMEM, "search", "out of memory");
  pod_train_search_stats st = {0, 0, 0, 0};
  long m = 0;
  for (int i = 0; i < nparts; i++) {
    for (int j = 0; j < parts[i].n; j++)
      all[m++] = (ranked){&parts[i].items[j], parts[i].seq[j]};
    st.candidates += parts[i].stats.candidates;
    st.checked += parts[i].stats.checked;
    st.fitting += parts[i].stats.fitting;
    st.evaluated += parts[i].stats.evaluated;
  }
  /* the seqs are distinct: the order is total, whatever qsort does */
  qsort(all, (size_t)m, sizeof *all, cmp_ranked);
  int k = m < cap ? (int)m : cap;
  for (int i = 0; i < k; i++) out[i] = *all[i].it;
  free(all);
  *n = k;
  if (stats) *stats = st;
  pod_err_clear(err);
  return POD_OK;
}

int pod_train_search(const pod_train_cfg *base,
                     const pod_train_search_opts *opts,
                     pod_train_search_item *out, int cap, int *n,
                     pod_train_search_stats *stats, pod_err *err) {
  if (n == NULL) return pod_err_set(err, POD_EINVAL, "n", "is NULL");
  *n = 0;
  NEED(cap >= 0 && (cap == 0 || out != NULL), "out",
       "needs a buffer of cap >= 0 items");
  long *seq = malloc(sizeof *seq * (size_t)(cap > 0 ? cap : 1));
  if (seq == NULL)
    return pod_err_set(err, POD_ENOMEM, "search", "out of memory");
  pod_train_search_part p = {.items = out, .seq = seq, .cap = cap};
  int rc = pod_train_search_part_run(base, opts, 0, 1, NULL, &p);
  if (rc != POD_OK) {
    free(seq);
    if (err) *err = p.err;
    return rc;
  }
  /* one part is already in order: the merge only counts */
  *n = p.n;
  if (stats) *stats = p.stats;
  free(seq);
  pod_err_clear(err);
  return POD_OK;
}
