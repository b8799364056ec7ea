/*
** relsim.c: event-driven simulation of one training run under failures
** (see pod_rel.h for the time model).
**
** Cost per event is O(log n): failures are one merged Poisson process
** (next time from the total rate, cause by rate, unit uniformly within the
** cause's units); checkpoints between two events are counted in O(1) by
** arithmetic, not simulated one by one; spare returns sit in a binary
** heap and are applied lazily when the next failure needs a spare.  The
** workspace (per-domain hot-spare counts and two heaps) grows to the
** largest run and is reused, so steady-state runs allocate nothing.
** Random numbers: xoshiro256** seeded through splitmix64 (Blackman and
** Vigna, https://prng.di.unimi.it/), independent of GSL so one run is a
** pure function of its 64-bit seed.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "pod_rel.h"
#include "rel_geom.h"

/* --- random numbers ------------------------------------------------- */

typedef struct rng {
  uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x) {
  uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

static void rng_seed(rng *r, uint64_t seed) {
  uint64_t x = seed;
  for (int i = 0; i < 4; i++) r->s[i] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) {
  return (x << k) | (x >> (64 - k));
}

static inline uint64_t rng_next(rng *r) {
  uint64_t *s = r->s;
  uint64_t out = rotl(s[1] * 5, 7) * 9;
  uint64_t t = s[1] << 17;
  s[2] ^= s[0];
  s[3] ^= s[1];
  s[1] ^= s[2];
  s[0] ^= s[3];
  s[2] ^= t;
  s[3] = rotl(s[3], 45);
  return out;
}

/* Uniform in [0, 1). */
static inline double rng_u01(rng *r) {
  return (double)(rng_next(r) >> 11) * 0x1.0p-53;
}

/* Exponential with the given mean, from u uniform in (0, 1] (log is
** about three times faster than log1p here). */
static inline double rng_exp(rng *r, double mean) {
  return -mean * log((double)((rng_next(r) >> 11) + 1) * 0x1.0p-53);
}

/* Uniform integer in [0, n), n < 2^32 (Lemire's multiply-shift). */
static inline uint32_t rng_below(rng *r, uint32_t n) {
  return (uint32_t)(((rng_next(r) >> 32) * (uint64_t)n) >> 32);
}

/* Standard normal (Marsaglia polar method). */
static double rng_normal(rng *r) {
  double u, v, s;
  do {
    u = 2.0 * rng_u01(r) - 1.0;
    v = 2.0 * rng_u01(r) - 1.0;
    s = u * u + v * v;
  } while (s >= 1.0 || s == 0.0);
  return u * sqrt(-2.0 * log(s) / s);
}

uint64_t pod_relsim_seed_from_u(double u_seed) {
  uint64_t bits;
  memcpy(&bits, &u_seed, sizeof bits);
  return splitmix64(&bits);
}

/* --- workspace -------------------------------------------------------- */

/* A unit coming back from repair at time t: `gpus` spare GPUs to domain
** `dom` (dom >= 0), one pool unit (dom == -1), or capacity a shrunk job
** grows back into (grow heap). */
typedef struct ev {
  double t;
  int dom;
  int gpus;
} ev;

typedef struct heap {
  ev *a;
  int n, cap;
} heap;

struct pod_relsim_ws {
  int *dom_spare; /* hot spare GPUs free in each domain */
  int dom_cap;
  heap ret;  /* spare returns, applied lazily */
  heap grow; /* capacity returns of a shrunk job */
};

pod_relsim_ws *pod_relsim_ws_new(void) {
  return calloc(1, sizeof(pod_relsim_ws));
}

void pod_relsim_ws_free(pod_relsim_ws *ws) {
  if (ws == NULL) return;
  free(ws->dom_spare);
  free(ws->ret.a);
  free(ws->grow.a);
  free(ws);
}

static int heap_push(heap *h, ev e) {
  if (h->n == h->cap) {
    int cap = h->cap ? 2 * h->cap : 64;
    ev *a = realloc(h->a, (size_t)cap * sizeof *a);
    if (a == NULL) return POD_ENOMEM;
    h->a = a;
    h->cap = cap;
  }
  int i = h->n++;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (h->a[p].t <= e.t) break;
    h->a[i] = h->a[p];
    i = p;
  }
  h->a[i] = e;
  return POD_OK;
}

static ev heap_pop(heap *h) {
  ev top = h->a[0];
  ev last = h->a[--h->n];
  int i = 0;
  for (;;) {
    int l = 2 * i + 1;
    if (l >= h->n) break;
    int m = (l + 1 < h->n && h->a[l + 1].t < h->a[l].t) ? l + 1 : l;
    if (h->a[m].t >= last.t) break;
    h->a[i] = h->a[m];
    i = m;
  }
  if (h->n > 0) h->a[i] = last;
  return top;
}

/* --- the run ---------------------------------------------------------- */

/* One run: the constants derived from the configuration, the spare
** state and the clock. */
typedef struct sim {
  const pod_rel_cfg *c;
  pod_relsim_ws *ws;
  rng r;
  int spd;        /* spare_per_domain */
  int pool_avail; /* free pool units */
  int pool_gpus;
  int in_use; /* spare GPUs standing in for repairs now */
  int peak;
  double mu, sigma; /* lognormal repair parameters */
  /* the failure process: one Poisson process of total rate L */
  double cum[POD_REL_MAX_CAUSES]; /* cumulative cause rates, 1/h */
  int bg[POD_REL_MAX_CAUSES];     /* GPUs each cause drains */
  double L;                       /* total rate, 1/h */
  int last;                       /* last cause with a positive rate */
  double M;                       /* mean time between failures, h */
  /* the time model, hours */
  double W;    /* failure-free work */
  double tau;  /* checkpoint interval */
  double C, R; /* checkpoint write, restart */
  double swap; /* bringing in a replacement */
  double S;    /* one checkpointed segment, tau + C */
  int A;       /* active GPUs */
  int dact;    /* active GPUs per domain */
  int n_node, n_dom;
  /* the clock */
  double t;      /* now */
  double Wc;     /* work checkpointed or done */
  double t_fail; /* next failure */
  int active_now;
  pod_relsim_result res;
} sim;

static double repair_time(sim *s) {
  if (s->c->repair_dist == POD_REL_REPAIR_LOGNORMAL && s->sigma > 0.0)
    return exp(s->mu + s->sigma * rng_normal(&s->r));
  if (s->c->repair_dist == POD_REL_REPAIR_LOGNORMAL) return s->c->repair_h;
  return rng_exp(&s->r, s->c->repair_h);
}

static void apply_return(sim *s, ev e) {
  if (e.dom >= 0) {
    /* capped: the rack may have been replaced whole meanwhile */
    int *sp = &s->ws->dom_spare[e.dom];
    *sp = *sp + e.gpus > s->spd ? s->spd : *sp + e.gpus;
  } else
    s->pool_avail++;
  s->in_use -= e.gpus;
}

/* Replace `bg` GPUs of domain d (blast scope `blast`) by a spare, the
** failed unit coming back at t_back.  1 when swapped, 0 when no spare,
** POD_ENOMEM. */
static int try_swap(sim *s, int d, int bg, int blast, double t_back) {
  ev e;
  if (s->spd > 0 && blast != POD_REL_DOMAIN && s->ws->dom_spare[d] >= bg) {
    s->ws->dom_spare[d] -= bg;
    e.dom = d;
    e.gpus = bg;
  } else if (s->pool_avail > 0 && bg <= s->pool_gpus) {
    s->pool_avail--;
    /* a spare rack replacing a whole rack brings its own hot spares */
    if (s->spd > 0 && blast == POD_REL_DOMAIN) s->ws->dom_spare[d] = s->spd;
    e.dom = -1;
    e.gpus = s->pool_gpus;
  } else {
    return 0;
  }
  e.t = t_back;
  s->in_use += e.gpus;
  if (s->in_use > s->peak) s->peak = s->in_use;
  return heap_push(&s->ws->ret, e) ? POD_ENOMEM : 1;
}

/* Capacity of a shrunk job repaired by time t comes back at its restart. */
static int regrow_due(sim *s, double t) {
  int g = 0;
  while (s->ws->grow.n > 0 && s->ws->grow.a[0].t <= t)
    g += heap_pop(&s->ws->grow).gpus;
  return g;
}

#define MAX_INTERRUPTIONS 10000000

static int sim_nomem(pod_err *err) {
  return pod_err_set(err, POD_ENOMEM, "", "out of memory in the simulator");
}

/* Zero *s and derive the run's constants from c. */
static void sim_init(sim *s, const pod_rel_cfg *c, pod_relsim_ws *ws) {
  memset(s, 0, sizeof *s);
  s->c = c;
  s->ws = ws;
  const pod_rel_failures *f = &c->failures;
  s->A = c->active_gpus;
  s->dact = rel_domain_active(c);
  s->n_node = rel_unit_count(c, POD_REL_NODE);
  s->n_dom = rel_unit_count(c, POD_REL_DOMAIN);
  double L = 0.0;
  s->last = -1;
  for (int i = 0; i < f->ncauses; i++) {
    double lam = rel_cause_rate(c, i);
    L += lam;
    s->cum[i] = L;
    if (lam > 0.0) s->last = i;
    s->bg[i] = rel_blast_gpus(c, f->cause[i].blast);
  }
  s->L = L;
  s->M = L > 0.0 ? 1.0 / L : INFINITY;
  s->W = rel_work_h(c);
  s->tau = L > 0.0 || c->interval_rule == POD_REL_TAU_FIXED
               ? pod_rel_interval_h(c, s->M)
               : s->W;
  s->C = c->ckpt_s / 3600.0;
  s->R = c->restart_s / 3600.0;
  s->swap = c->swap_s / 3600.0;
  s->S = s->tau + s->C;
}

/* Seed the generator, fill the spares and reset the workspace; start the
** clock at the first failure. */
static int sim_start(sim *s, uint64_t seed, pod_err *err) {
  const pod_rel_cfg *c = s->c;
  pod_relsim_ws *ws = s->ws;
  rng_seed(&s->r, seed);
  s->spd = c->spare_per_domain;
  s->pool_avail = c->pool_units;
  s->pool_gpus = rel_pool_gpus(c);
  s->sigma = c->repair_sigma;
  s->mu = log(c->repair_h) - 0.5 * s->sigma * s->sigma;
  ws->ret.n = 0;
  ws->grow.n = 0;
  if (s->spd > 0) {
    const int n_dom = s->n_dom;
    if (ws->dom_cap < n_dom) {
      int *a = realloc(ws->dom_spare, (size_t)n_dom * sizeof *a);
      if (a == NULL)
        return pod_err_set(err, POD_ENOMEM, "", "no memory for %d domains",
                           n_dom);
      ws->dom_spare = a;
      ws->dom_cap = n_dom;
    }
    for (int i = 0; i < n_dom; i++) ws->dom_spare[i] = s->spd;
  }
  s->t = 0.0;
  s->Wc = 0.0;
  s->active_now = s->A;
  s->t_fail = s->L > 0.0 ? rng_exp(&s->r, s->M) : INFINITY;
  return POD_OK;
}

/* The stretch from now to the next event. */
typedef struct stretch {
  double rho;    /* share of the GPUs running */
  double sw;     /* work per checkpointed segment */
  double n_ck;   /* checkpoints left before the end */
  double t_grow; /* next capacity return */
  double te;     /* the event: a failure or a capacity return */
  double k;      /* whole segments (tau of compute, then a checkpoint) by te */
  double o;      /* running time since the last of them */
} stretch;

/* Run to the next event, counting the checkpoints completed on the way,
** or to the end of the job (then 1). */
static int run_stretch(sim *s, double Wr, stretch *g) {
  pod_relsim_result *res = &s->res;
  const double C = s->C;
  g->rho = (double)s->active_now / s->A;
  g->sw = g->rho * s->tau;
  double n_ck = ceil(Wr / g->sw - 1e-9) - 1.0;
  if (n_ck < 0.0) n_ck = 0.0;
  g->n_ck = n_ck;
  const double T_fin = s->t + Wr / g->rho + n_ck * C;
  g->t_grow = s->ws->grow.n > 0 ? s->ws->grow.a[0].t : INFINITY;
  if (s->t_fail >= T_fin && g->t_grow >= T_fin) {
    s->t = T_fin;
    res->checkpoints += n_ck;
    res->ckpt_h += n_ck * C;
    s->Wc = s->W;
    return 1;
  }
  const double te = s->t_fail <= g->t_grow ? s->t_fail : g->t_grow;
  g->te = te;
  double k = floor((te - s->t) / s->S);
  if (k > n_ck) k = n_ck;
  double o = (te - s->t) - k * s->S;
  if (o < 0.0) o = 0.0;
  g->k = k;
  g->o = o;
  s->Wc += k * g->sw;
  res->checkpoints += k;
  res->ckpt_h += k * C;
  return 0;
}

/* Repaired capacity: planned checkpoint (or finish the write in
** progress), restart on the larger footprint.  No work lost. */
static void regrow(sim *s, const stretch *g) {
  if (g->k < g->n_ck && g->o >= s->tau) {
    s->Wc += g->sw;
    s->t += (g->k + 1.0) * s->S;
  } else {
    s->Wc += g->rho * g->o;
    s->t = g->te + s->C;
  }
  s->res.checkpoints++;
  s->res.ckpt_h += s->C;
  s->t += s->R;
  s->res.restart_h += s->R;
  s->active_now += regrow_due(s, s->t);
  s->t_fail = s->t + rng_exp(&s->r, s->M);
}

/* The cause of a failure, drawn by rate. */
static int pick_cause(sim *s) {
  double x = rng_u01(&s->r) * s->L;
  int i = 0;
  while (i < s->last && x >= s->cum[i]) i++;
  return i;
}

/* The domain of the failed unit (0 without in-domain spares). */
static int pick_domain(sim *s, int unit) {
  if (s->spd <= 0) return 0;
  switch (unit) {
    case POD_REL_GPU:
      return (int)(rng_below(&s->r, (uint32_t)s->A) / s->dact);
    case POD_REL_NODE:
      return (int)((int64_t)rng_below(&s->r, (uint32_t)s->n_node) *
                   s->c->node_gpus / s->dact);
    default:
      return (int)rng_below(&s->r, (uint32_t)s->n_dom);
  }
}

/* No spare free: wait for the first of this unit's repair (back at
** t_back) or an earlier repair that frees a spare this failure can use;
** adds the wait and the swap to *down. */
static int wait_for_spare(sim *s, int d, int cause, double te, double t_back,
                          double *down, pod_err *err) {
  pod_relsim_ws *ws = s->ws;
  const int blast = s->c->failures.cause[cause].blast;
  s->res.waits++;
  double resume = t_back;
  while (ws->ret.n > 0 && ws->ret.a[0].t < t_back) {
    ev e = heap_pop(&ws->ret);
    apply_return(s, e);
    int sw_ok = try_swap(s, d, s->bg[cause], blast, t_back);
    if (sw_ok < 0) return sim_nomem(err);
    if (sw_ok) {
      resume = e.t;
      break;
    }
  }
  /* a rack back from repair has all its hot spares again */
  if (resume == t_back && s->spd > 0 && blast == POD_REL_DOMAIN)
    ws->dom_spare[d] = s->spd;
  s->res.wait_h += resume - te;
  *down += (resume - te) + s->swap;
  s->res.restart_h += s->swap;
  return POD_OK;
}

/* A failure of `cause` at te that drains hardware: swap in a spare,
** shrink the job, or wait; adds the extra down time to *down. */
static int drain(sim *s, int cause, double te, double *down, pod_err *err) {
  pod_relsim_ws *ws = s->ws;
  const pod_rel_cause *fc = &s->c->failures.cause[cause];
  const int bg = s->bg[cause];
  int d = pick_domain(s, fc->unit);
  /* spares whose repair finished by now are back */
  while (ws->ret.n > 0 && ws->ret.a[0].t <= te)
    apply_return(s, heap_pop(&ws->ret));
  const double t_back = te + repair_time(s);
  int sw_ok = try_swap(s, d, bg, fc->blast, t_back);
  if (sw_ok < 0) return sim_nomem(err);
  if (sw_ok) {
    s->res.swaps++;
    *down += s->swap;
    s->res.restart_h += s->swap;
  } else if (s->c->shrink && s->active_now - bg > 0) {
    s->res.shrinks++;
    s->active_now -= bg;
    ev g = {t_back, -2, bg};
    if (heap_push(&ws->grow, g)) return sim_nomem(err);
  } else {
    return wait_for_spare(s, d, cause, te, t_back, down, err);
  }
  return POD_OK;
}

/* A failure at te: the running time o since the checkpoint is lost. */
static int fail(sim *s, double te, double o, pod_err *err) {
  pod_relsim_result *res = &s->res;
  if (++res->interruptions > MAX_INTERRUPTIONS)
    return pod_err_set(err, POD_ERANGE, "failures",
                       "run did not finish within %d interruptions",
                       MAX_INTERRUPTIONS);
  res->lost_h += o;
  int i = pick_cause(s);
  res->by_cause[i]++;
  double down = s->R;
  res->restart_h += s->R;
  if (s->c->failures.cause[i].blast != POD_REL_JOB) {
    int rc = drain(s, i, te, &down, err);
    if (rc) return rc;
  }
  s->t = te + down;
  s->active_now += regrow_due(s, s->t);
  s->t_fail = s->t + rng_exp(&s->r, s->M);
  return POD_OK;
}

/* The event loop, until the work is done. */
static int sim_loop(sim *s, pod_err *err) {
  for (;;) {
    const double Wr = s->W - s->Wc;
    if (Wr <= s->W * 1e-12) return POD_OK;
    stretch g;
    if (run_stretch(s, Wr, &g)) return POD_OK;
    if (g.te == g.t_grow) {
      regrow(s, &g);
      continue;
    }
    int rc = fail(s, g.te, g.o, err);
    if (rc) return rc;
  }
}

static void sim_result(const sim *s, pod_relsim_result *out) {
  const pod_rel_cfg *c = s->c;
  pod_relsim_result res = s->res;
  const double t = s->t, W = s->W;
  res.wall_h = t;
  res.work_h = W;
  res.goodput = t > 0.0 ? W / t : 1.0;
  res.spares_peak_gpus = s->peak;
  res.spare_gpus =
      c->spare_per_domain * s->n_dom + c->pool_units * s->pool_gpus;
  res.gpu_hours = (double)s->A * t;
  res.gpu_hours_charged = ((double)s->A + res.spare_gpus) * t;
  *out = res;
}

int pod_relsim_run(const pod_rel_cfg *c, uint64_t seed, pod_relsim_ws *ws,
                   pod_relsim_result *out, pod_err *err) {
  int rc = pod_rel_check(c, err);
  if (rc) return rc;
  pod_relsim_ws *own = NULL;
  if (ws == NULL) {
    own = ws = pod_relsim_ws_new();
    if (ws == NULL) return pod_err_set(err, POD_ENOMEM, "", "no workspace");
  }
  sim s;
  sim_init(&s, c, ws);
  if (!(s.tau > 0.0) || !pod_finite(s.tau))
    rc = pod_err_set(err, POD_ERANGE, "interval_s",
                     "checkpoint interval is not a positive number");
  if (rc == POD_OK) rc = sim_start(&s, seed, err);
  if (rc == POD_OK) rc = sim_loop(&s, err);
  if (rc == POD_OK) sim_result(&s, out);
  pod_relsim_ws_free(own);
  return rc;
}

static const char *const relsim_metrics[] = {
    "wall_h", "goodput", "interruptions",    "lost_h",    "restart_h",
    "wait_h", "ckpt_h",  "spares_peak_gpus", "gpu_hours", "gpu_hours_charged"};

static int relsim_kernel_fn(const void *cfg, double *m, pod_err *err) {
  const pod_rel_cfg *c = (const pod_rel_cfg *)cfg;
  if (!pod_finite(c->u_seed) || c->u_seed < 0.0 || c->u_seed >= 1.0)
    return pod_err_set(err, POD_EINVAL, "u_seed", "must be in [0, 1)");
  pod_relsim_result r;
  int rc = pod_relsim_run(c, pod_relsim_seed_from_u(c->u_seed), NULL, &r, err);
  if (rc) return rc;
  m[0] = r.wall_h;
  m[1] = r.goodput;
  m[2] = r.interruptions;
  m[3] = r.lost_h;
  m[4] = r.restart_h;
  m[5] = r.wait_h;
  m[6] = r.ckpt_h;
  m[7] = r.spares_peak_gpus;
  m[8] = r.gpu_hours;
  m[9] = r.gpu_hours_charged;
  return POD_OK;
}

const pod_kernel pod_relsim_kernel = {
    "simulate_run", sizeof(pod_rel_cfg),
    (int)(sizeof relsim_metrics / sizeof relsim_metrics[0]), relsim_metrics,
    relsim_kernel_fn};
