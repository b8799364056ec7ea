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

typedef struct sim {
  const pod_rel_cfg *c;
  pod_relsim_ws *ws;
  rng r;
  int spd;        /* spare_per_domain */
  int pool_avail; /* free pool units */
  int pool_gpus;
  int in_use;     /* spare GPUs standing in for repairs now */
  int peak;
  double mu, sigma; /* lognormal repair parameters */
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

int pod_relsim_run(const pod_rel_cfg *c, uint64_t seed, pod_relsim_ws *ws,
                   pod_relsim_result *out, pod_err *err) {
  int rc = pod_rel_check(c, err);
  if (rc) return rc;
  pod_relsim_ws *own = NULL;
  if (ws == NULL) {
    own = ws = pod_relsim_ws_new();
    if (ws == NULL) return pod_err_set(err, POD_ENOMEM, "", "no workspace");
  }

  const pod_rel_failures *f = &c->failures;
  const int nc = f->ncauses;
  const int A = c->active_gpus;
  const int dact = rel_domain_active(c);
  const int n_node = rel_unit_count(c, POD_REL_NODE);
  const int n_dom = rel_unit_count(c, POD_REL_DOMAIN);

  double cum[POD_REL_MAX_CAUSES];
  int bg[POD_REL_MAX_CAUSES];
  double L = 0.0;
  int last = -1;
  for (int i = 0; i < nc; i++) {
    double lam = rel_cause_rate(c, i);
    L += lam;
    cum[i] = L;
    if (lam > 0.0) last = i;
    bg[i] = rel_blast_gpus(c, f->cause[i].blast);
  }
  const double M = L > 0.0 ? 1.0 / L : INFINITY;
  const double W = rel_work_h(c);
  const double tau = L > 0.0 || c->interval_rule == POD_REL_TAU_FIXED
                         ? pod_rel_interval_h(c, M)
                         : W;
  const double C = c->ckpt_s / 3600.0, R = c->restart_s / 3600.0;
  const double swap = c->swap_s / 3600.0;
  const double S = tau + C;

  pod_relsim_result res;
  memset(&res, 0, sizeof res);
  if (!(tau > 0.0) || !pod_finite(tau)) {
    rc = pod_err_set(err, POD_ERANGE, "interval_s",
                     "checkpoint interval is not a positive number");
    goto done;
  }

  sim s;
  memset(&s, 0, sizeof s);
  s.c = c;
  s.ws = ws;
  rng_seed(&s.r, seed);
  s.spd = c->spare_per_domain;
  s.pool_avail = c->pool_units;
  s.pool_gpus = rel_pool_gpus(c);
  s.sigma = c->repair_sigma;
  s.mu = log(c->repair_h) - 0.5 * s.sigma * s.sigma;
  ws->ret.n = 0;
  ws->grow.n = 0;
  if (s.spd > 0) {
    if (ws->dom_cap < n_dom) {
      int *a = realloc(ws->dom_spare, (size_t)n_dom * sizeof *a);
      if (a == NULL) {
        rc = pod_err_set(err, POD_ENOMEM, "", "no memory for %d domains",
                         n_dom);
        goto done;
      }
      ws->dom_spare = a;
      ws->dom_cap = n_dom;
    }
    for (int i = 0; i < n_dom; i++) ws->dom_spare[i] = s.spd;
  }

  double t = 0.0, Wc = 0.0;
  int active_now = A;
  double t_fail = L > 0.0 ? rng_exp(&s.r, M) : INFINITY;
  for (;;) {
    const double Wr = W - Wc;
    if (Wr <= W * 1e-12) break;
    const double rho = (double)active_now / A;
    const double sw = rho * tau; /* work per checkpointed segment */
    double n_ck = ceil(Wr / sw - 1e-9) - 1.0;
    if (n_ck < 0.0) n_ck = 0.0;
    const double T_fin = t + Wr / rho + n_ck * C;
    const double t_grow = ws->grow.n > 0 ? ws->grow.a[0].t : INFINITY;
    if (t_fail >= T_fin && t_grow >= T_fin) {
      t = T_fin;
      res.checkpoints += n_ck;
      res.ckpt_h += n_ck * C;
      Wc = W;
      break;
    }
    const double te = t_fail <= t_grow ? t_fail : t_grow;
    /* k whole segments (tau of compute, then a checkpoint) done by te. */
    double k = floor((te - t) / S);
    if (k > n_ck) k = n_ck;
    double o = (te - t) - k * S;
    if (o < 0.0) o = 0.0;
    Wc += k * sw;
    res.checkpoints += k;
    res.ckpt_h += k * C;

    if (te == t_grow) {
      /* Repaired capacity: planned checkpoint (or finish the write in
      ** progress), restart on the larger footprint.  No work lost. */
      if (k < n_ck && o >= tau) {
        Wc += sw;
        t += (k + 1.0) * S;
      } else {
        Wc += rho * o;
        t = te + C;
      }
      res.checkpoints++;
      res.ckpt_h += C;
      t += R;
      res.restart_h += R;
      active_now += regrow_due(&s, t);
      t_fail = t + rng_exp(&s.r, M);
      continue;
    }

    /* A failure at te: the running time since the checkpoint is lost. */
    if (++res.interruptions > MAX_INTERRUPTIONS) {
      rc = pod_err_set(err, POD_ERANGE, "failures",
                       "run did not finish within %d interruptions",
                       MAX_INTERRUPTIONS);
      goto done;
    }
    res.lost_h += o;
    double x = rng_u01(&s.r) * L;
    int i = 0;
    while (i < last && x >= cum[i]) i++;
    res.by_cause[i]++;
    const int blast = f->cause[i].blast;
    double down = R;
    res.restart_h += R;
    if (blast != POD_REL_JOB) {
      int d = 0;
      if (s.spd > 0) {
        switch (f->cause[i].unit) {
          case POD_REL_GPU: d = (int)(rng_below(&s.r, (uint32_t)A) / dact); break;
          case POD_REL_NODE:
            d = (int)((int64_t)rng_below(&s.r, (uint32_t)n_node) *
                      c->node_gpus / dact);
            break;
          default: d = (int)rng_below(&s.r, (uint32_t)n_dom);
        }
      }
      /* spares whose repair finished by now are back */
      while (ws->ret.n > 0 && ws->ret.a[0].t <= te)
        apply_return(&s, heap_pop(&ws->ret));
      const double t_back = te + repair_time(&s);
      int sw_ok = try_swap(&s, d, bg[i], blast, t_back);
      if (sw_ok < 0) goto nomem;
      if (sw_ok) {
        res.swaps++;
        down += swap;
        res.restart_h += swap;
      } else if (c->shrink && active_now - bg[i] > 0) {
        res.shrinks++;
        active_now -= bg[i];
        ev g = {t_back, -2, bg[i]};
        if (heap_push(&ws->grow, g)) goto nomem;
      } else {
        /* wait for the first of: this unit's repair, or an earlier repair
        ** that frees a spare this failure can use */
        res.waits++;
        double resume = t_back;
        while (ws->ret.n > 0 && ws->ret.a[0].t < t_back) {
          ev e = heap_pop(&ws->ret);
          apply_return(&s, e);
          sw_ok = try_swap(&s, d, bg[i], blast, t_back);
          if (sw_ok < 0) goto nomem;
          if (sw_ok) {
            resume = e.t;
            break;
          }
        }
        /* a rack back from repair has all its hot spares again */
        if (resume == t_back && s.spd > 0 && blast == POD_REL_DOMAIN)
          ws->dom_spare[d] = s.spd;
        res.wait_h += resume - te;
        down += (resume - te) + swap;
        res.restart_h += swap;
      }
    }
    t = te + down;
    active_now += regrow_due(&s, t);
    t_fail = t + rng_exp(&s.r, M);
  }

  res.wall_h = t;
  res.work_h = W;
  res.goodput = t > 0.0 ? W / t : 1.0;
  res.spares_peak_gpus = s.peak;
  res.spare_gpus = c->spare_per_domain * n_dom + c->pool_units * s.pool_gpus;
  res.gpu_hours = (double)A * t;
  res.gpu_hours_charged = ((double)A + res.spare_gpus) * t;
  *out = res;
  rc = POD_OK;
  goto done;
nomem:
  rc = pod_err_set(err, POD_ENOMEM, "", "out of memory in the simulator");
done:
  pod_relsim_ws_free(own);
  return rc;
}

static const char *const relsim_metrics[] = {
    "wall_h", "goodput", "interruptions", "lost_h", "restart_h",
    "wait_h", "ckpt_h", "spares_peak_gpus", "gpu_hours", "gpu_hours_charged"};

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
