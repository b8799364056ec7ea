/*
** rel.c: the analytic reliability model (see pod_rel.h for the time
** model; the checks are in rel_check.c, the presets in rel_presets.c).
*/
#include "pod_rel.h"
#include "rel_int.h"
#include "rel_erlang.h"
#include "rel_geom.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double pod_rel_job_rate(const pod_rel_cfg *c) {
  double L = 0.0;
  for (int i = 0; i < c->failures.ncauses; i++) L += rel_cause_rate(c, i);
  return L;
}

double pod_rel_interval_h(const pod_rel_cfg *c, double m_h) {
  double C = c->ckpt_s / 3600.0;
  switch (c->interval_rule) {
    case POD_REL_TAU_FIXED:
      return c->interval_s / 3600.0;
    case POD_REL_TAU_YOUNG:
      return sqrt(2.0 * C * m_h);
    default: {
      /* Daly (2006), "A higher order estimate of the optimum checkpoint
      ** interval for restart dumps", eq. 37. */
      if (!(C < 2.0 * m_h)) return m_h;
      double x = C / (2.0 * m_h);
      return sqrt(2.0 * C * m_h) * (1.0 + sqrt(x) / 3.0 + x / 9.0) - C;
    }
  }
}

/* ---------------------------------------------------------------------
** Spare availability (analytic).
**
** Per-cause job rates lam[i] count failures per RUNNING hour; repairs run
** on the wall clock.  A spare pool is a loss system in wall time: a unit
** is busy from the failure it serves until its repair ends.  Failures
** arrive only while the job runs, so the wall-clock arrival rate is the
** running-hour rate times the share of time the job runs.
**
** Derivation (exponential repairs, mean r).  Take one pool of k slots,
** n busy, fed by failures of rate lam while the job runs.  States:
** n = 0..k while not frozen, and F = "the job waits for this pool" (a
** failure that needs it found n = k).  In F nothing arrives, and a slot
** that frees is taken at once by the waiting failure whose own unit then
** goes to repair, so n stays k; F is left at rate (k + 1)/r, back to n = k.
** Cutting the F periods out of the time line leaves a birth-death chain
** with births at the wall-clock rate beta and deaths n/r, so an arrival
** finds the pool full with probability B(k, beta r) (Erlang loss), with
**     beta = lam / (T - T_F),
** T = wall hours per running hour (1 + restart and swap time + waiting)
** and T_F = the waiting that freezes this pool, per running hour.  The
** blocked failure waits min(own repair, k busy repairs) = r / (k + 1).
** The old form used beta = lam (a wall hour counted as a running hour):
** it overstates the load by the factor T - T_F, which is 1.2-2 when
** restarts and waits take a fifth or more of the wall time, and so
** overstated waiting (goodput 0.687 vs the simulator's 0.700 for 32,768
** GB200 GPUs, 8 hot spares per rack, 4 spare racks, 24 h repairs).
**
** What remains approximate (the grid test in test_relsim.c bounds it):
**  - arrivals in non-frozen wall time are Poisson only between restarts
**    (none arrive during the R + swap after each failure); the smoothing
**    is of order (R + swap) / r;
**  - the overflow of full domains into the pool is peakier than Poisson;
**  - a domain that waits freezes only itself, others' repairs go on;
**  - the run starts with every spare free (the simulator's transient,
**    of order r / wall, lowers its waiting);
**  - a rack replaced whole brings fresh hot spares (ignored here);
**  - non-exponential repairs: r / (k + 1) is exact for exponential only.
** T depends on the waiting, which depends on the loads: a fixed point,
** solved by damped iteration (a few steps; none when nothing waits).
** --------------------------------------------------------------------- */
/* The causes by blast scope (what one failure drains): the spare model
** depends on a cause only through its blast (GPUs drained, which spares
** serve it, its wait) and its rate, so it runs on at most four classes
** whatever the length of the failure list, their rates summed in list
** order.  The totals L, L_hw, L_abs and down_nw are summed per cause in
** list order. */
typedef struct rel_causes {
  int n;                       /* classes: POD_REL_NSCOPES, by blast */
  double lam[POD_REL_NSCOPES]; /* job rate per running hour */
  double b[POD_REL_NSCOPES];   /* GPUs drained */
  int hw[POD_REL_NSCOPES];     /* drains hardware */
  int in_dom[POD_REL_NSCOPES]; /* a hot spare can serve it */
  int in_pool[POD_REL_NSCOPES];
  double w[POD_REL_NSCOPES]; /* wait when blocked, r / (1 + slots) */
  int c_dom;                 /* hot-spare slots per domain */
  double L, L_hw;            /* all causes; those draining hardware */
  double L_abs;              /* rate of causes hot spares can serve */
  double down_nw;   /* restart + swap hours per running hour (no shrink) */
  double r_eff;     /* repair_past(c, R + swap) */
  double a_dom_num; /* L_abs / domains x r_eff: the domain load x T_dom */
  int domains;
  double inv_dom2; /* 1 / domains when domains is a power of two (x / 2^j
                   ** and x * 2^-j are the same double), else 0 */
  /* Over the classes that drain hardware at a rate > 0, by which spares
  ** serve them (in_dom + 2 in_pool): the sums of rate x wait, and the
  ** pool's arrival rate by in_dom, so a step of the fixed point is a few
  ** products of the two P(full). */
  double wl[4], lp[2];
} rel_causes;

/* Per-cause outcome of the spare model at given wall-time loads. */
typedef struct rel_spare_state {
  double p_blk[POD_REL_NSCOPES]; /* P(no spare), by class */
  double w[POD_REL_NSCOPES];     /* mean wait when blocked (0: shrinks) */
  double down_nw;                /* restart + swap hours per running hour */
  double wait;                   /* waiting hours per running hour */
  double wait_pool;              /* ... of waits that freeze the pool */
  double wait_dom;               /* ... that freeze one given domain */
  double grow;                   /* grow-back restart rate per running hour */
  double cap_loss;            /* capacity lost to shrinking, per running hour */
  double a_dom, a_pool;       /* offered loads (Erlang) */
  double T_pool, T_dom;       /* the wall hours per running hour they are at */
  double B_dom, B_pool;       /* P(full) */
  double L_pool;              /* pool arrivals per running hour */
  double wbar_dom, wbar_pool; /* mean wait of an arrival finding it full */
} rel_spare_state;

/* E[(X - d)+] for the repair time X: the part of a repair left after the
** job's own restart and swap (d), during which no failure can arrive. */
static double repair_past(const pod_rel_cfg *c, double d) {
  const double r = c->repair_h, sg = c->repair_sigma;
  if (d <= 0.0) return r;
  if (c->repair_dist != POD_REL_REPAIR_LOGNORMAL) return r * exp(-d / r);
  if (sg <= 0.0) return r > d ? r - d : 0.0;
  /* lognormal, mean r: E[(X-d)+] = r Phi(d1) - d Phi(d2) */
  double mu = log(r) - 0.5 * sg * sg;
  double d2 = (mu - log(d)) / sg, d1 = d2 + sg;
  return r * 0.5 * erfc(-d1 / sqrt(2.0)) - d * 0.5 * erfc(-d2 / sqrt(2.0));
}

/* The blocking probabilities at T_pool, T_dom into s (B_dom, L_pool,
** B_pool, and the T's: spare_finish sets the loads a_dom, a_pool). */
static void spare_loads(const pod_rel_cfg *c, const rel_causes *k,
                        double T_pool, double T_dom, rel_spare_state *s) {
  const double B_dom =
      k->L_abs > 0.0 ? rel_erlang_b_ratio(k->c_dom, k->a_dom_num, T_dom) : 0.0;
  const double L_pool = k->lp[1] * B_dom + k->lp[0];
  s->T_pool = T_pool;
  s->T_dom = T_dom;
  s->B_dom = B_dom;
  s->B_pool = rel_erlang_b_ratio(c->pool_units, L_pool * k->r_eff, T_pool);
  s->L_pool = L_pool;
}

/* The waits without shrinking at P(full) B_dom, B_pool: per running
** hour, of them those that freeze the pool, and one given domain. */
static inline void spare_waits(const rel_causes *k, double B_dom, double B_pool,
                               rel_spare_state *s) {
  const double pd = k->wl[1] * B_dom, pp = k->wl[2] * B_pool,
               pb = k->wl[3] * (B_dom * B_pool);
  s->wait = ((k->wl[0] + pd) + pp) + pb;
  s->wait_pool = pp + pb;
  /* on the fixed point's dependency chain: a product where exact */
  s->wait_dom =
      k->inv_dom2 > 0.0 ? (pd + pb) * k->inv_dom2 : (pd + pb) / k->domains;
}

/* The rest of the spare model at the loads in s (spare_loads): every
** other field of s. */
static void spare_finish(const pod_rel_cfg *c, const rel_causes *k,
                         rel_spare_state *s) {
  const double r_h = c->repair_h, A = c->active_gpus;
  const double R = c->restart_s / 3600.0, swap = c->swap_s / 3600.0;
  const double B_dom = s->B_dom, B_pool = s->B_pool, L_pool = s->L_pool;
  s->a_dom = k->a_dom_num / s->T_dom;
  s->a_pool = L_pool * k->r_eff / s->T_pool;
  memset(s->p_blk, 0, sizeof s->p_blk);
  memset(s->w, 0, sizeof s->w);
  /* without shrinking down_nw does not depend on the loads (summed per
  ** cause once, rel_causes_init) */
  s->down_nw = c->shrink ? 0.0 : k->down_nw;
  s->wait = s->wait_pool = s->wait_dom = 0.0;
  s->grow = s->cap_loss = s->wbar_dom = s->wbar_pool = 0.0;
  for (int i = 0; i < k->n; i++) {
    double lam = k->lam[i];
    if (c->shrink) s->down_nw += lam * R;
    if (!k->hw[i] || lam <= 0.0) continue;
    double p = (k->in_dom[i] ? B_dom : 1.0) * (k->in_pool[i] ? B_pool : 1.0);
    s->p_blk[i] = p;
    if (c->shrink && k->b[i] < A) {
      /* blocked: continue on fewer GPUs until repaired */
      s->down_nw += lam * (1.0 - p) * swap;
      s->cap_loss += lam * p * r_h * k->b[i] / A;
      s->grow += lam * p;
    } else {
      s->w[i] = k->w[i];
      if (c->shrink) {
        double wl = lam * p * s->w[i];
        s->down_nw += lam * swap;
        s->wait += wl;
        if (k->in_pool[i]) s->wait_pool += wl;
        if (k->in_dom[i]) s->wait_dom += wl / k->domains;
      }
      if (k->in_pool[i] && L_pool > 0.0)
        s->wbar_pool += lam * (k->in_dom[i] ? B_dom : 1.0) * s->w[i] / L_pool;
      if (k->in_dom[i])
        s->wbar_dom +=
            lam * (k->in_pool[i] ? B_pool : 1.0) * s->w[i] / k->L_abs;
    }
  }
  if (!c->shrink) spare_waits(k, B_dom, B_pool, s);
}

/* The spare model at given loads (r_eff and the domain load's numerator
** in k, computed once). */
static void spare_state(const pod_rel_cfg *c, const rel_causes *k,
                        double T_pool, double T_dom, rel_spare_state *s) {
  spare_loads(c, k, T_pool, T_dom, s);
  spare_finish(c, k, s);
}

/* What one step of the fixed point reads of spare_state when the job
** does not shrink: the same sums (spare_waits, so the same bits),
** without the per-class outputs only the final state needs.  down_nw
** does not depend on the loads then (k->down_nw). */
static inline void spare_step(const pod_rel_cfg *c, const rel_causes *k,
                              double T_pool, double T_dom, rel_spare_state *s) {
  spare_loads(c, k, T_pool, T_dom, s);
  spare_waits(k, s->B_dom, s->B_pool, s);
  s->down_nw = k->down_nw;
  s->grow = 0.0;
}

/* ---------------------------------------------------------------------
** Start-up transient.  The run starts with every spare free, so for its
** first few repair times it finds a spare more often than in equilibrium.
** For a birth-death chain with equilibrium pi, the integral over time of
** P_0k(t) - pi_k is pi_k (E_pi[T_k] - E_0[T_k]) (the deviation matrix),
** and the upward hitting times are sums of h_j = S(<=j) / (beta pi_j), so
** the blocked arrivals missed over a long run, started empty, are
**     Delta = pi_k sum_{j<k} rho_j S(>j),  rho_j = S(<=j) / pi_j,
** a pure number (no time scale).  Over a run of n arrivals the missed
** count is taken as Delta (1 - exp(-n B / Delta)): exact at both ends
** (n B at first, Delta after many repair times), exponential between
** (rel_erlang_deficit in rel_erlang.h).
** --------------------------------------------------------------------- */

/* Solve the fixed point T = 1 + down + wait (+ grow-back restarts).
** Without shrinking each step needs only the waits (spare_step; the
** same arithmetic as spare_state's), the rest once at the end. */
static void spare_solve(const pod_rel_cfg *c, const rel_causes *k,
                        rel_spare_state *s) {
  const double CR = (c->ckpt_s + c->restart_s) / 3600.0;
  const int shrink = c->shrink;
  /* Without shrinking T >= T0 = 1 + down_nw + the waits no spare can
  ** shorten (wl[0]), and T_pool = T - wait_pool = T0 + the waits for hot
  ** spares alone.  With no hot spares (L_abs = 0) that is T0 itself:
  ** the pool's load is explicit and one step is the fixed point (HGX
  ** pools).  Otherwise the iteration starts from T0. */
  const double T0 = shrink ? 1.0 : 1.0 + k->down_nw + k->wl[0];
  if (!shrink && !(k->L_abs > 0.0)) {
    spare_step(c, k, T0, T0, s);
    spare_finish(c, k, s);
    return;
  }
  double T = T0, Tp = T0, Td = T0, d_prev = INFINITY, h = 1.0;
  if (shrink)
    spare_state(c, k, Tp, Td, s);
  else
    spare_step(c, k, Tp, Td, s);
  for (int it = 0; it < 500; it++) {
    double T1 = 1.0 + s->down_nw + s->wait + s->grow * CR;
    double Tp1 = T1 - s->wait_pool, Td1 = T1 - s->wait_dom;
    double d = fabs(T1 - T) + fabs(Tp1 - Tp) + fabs(Td1 - Td);
    if (d <= 1e-12 * T1) break;
    /* The map is decreasing in T: plain steps converge fast when waiting
    ** depends weakly on the load; when a step does not shrink the
    ** residual (oscillation), halve the step, which always converges. */
    if (d >= d_prev && h > 1.0 / 64) h *= 0.5;
    d_prev = d;
    T += h * (T1 - T);
    Tp += h * (Tp1 - Tp);
    Td += h * (Td1 - Td);
    if (shrink)
      spare_state(c, k, Tp, Td, s);
    else
      spare_step(c, k, Tp, Td, s);
  }
  if (!shrink) spare_finish(c, k, s);
}

/* One lane of spare_solve's iteration without shrinking, for two fixed
** points side by side (spare_solve2): each lane runs spare_solve's
** operations in its order, and a converged lane stops. */
typedef struct fp_lane {
  double T, Tp, Td, d_prev, h, CR;
  int it, done;
} fp_lane;

static void fp_start(const pod_rel_cfg *c, const rel_causes *k,
                     rel_spare_state *s, fp_lane *f) {
  const double T0 = 1.0 + k->down_nw + k->wl[0];
  f->CR = (c->ckpt_s + c->restart_s) / 3600.0;
  f->T = f->Tp = f->Td = T0;
  f->d_prev = INFINITY;
  f->h = 1.0;
  f->it = 0;
  f->done = 0;
  spare_step(c, k, T0, T0, s);
}

/* spare_solve's loop body, once (nothing when the lane is done). */
static inline void fp_step(const pod_rel_cfg *c, const rel_causes *k,
                           rel_spare_state *s, fp_lane *f) {
  if (f->done) return;
  double T1 = 1.0 + s->down_nw + s->wait + s->grow * f->CR;
  double Tp1 = T1 - s->wait_pool, Td1 = T1 - s->wait_dom;
  double d = fabs(T1 - f->T) + fabs(Tp1 - f->Tp) + fabs(Td1 - f->Td);
  if (d <= 1e-12 * T1) {
    f->done = 1;
    return;
  }
  if (d >= f->d_prev && f->h > 1.0 / 64) f->h *= 0.5;
  f->d_prev = d;
  f->T += f->h * (T1 - f->T);
  f->Tp += f->h * (Tp1 - f->Tp);
  f->Td += f->h * (Td1 - f->Td);
  spare_step(c, k, f->Tp, f->Td, s);
  if (++f->it >= 500) f->done = 1;
}

/* spare_solve of two configs side by side: the fixed points' dependency
** chains (a few divisions per step) overlap; each lane's results are
** spare_solve's bit for bit. */
static void spare_solve2(const pod_rel_cfg *ca, const rel_causes *ka,
                         rel_spare_state *sa, const pod_rel_cfg *cb,
                         const rel_causes *kb, rel_spare_state *sb) {
  /* the iteration without shrinking and with hot spares in both, else
  ** one after the other */
  if (ca->shrink || cb->shrink || !(ka->L_abs > 0.0) || !(kb->L_abs > 0.0)) {
    spare_solve(ca, ka, sa);
    spare_solve(cb, kb, sb);
    return;
  }
  fp_lane fa, fb;
  fp_start(ca, ka, sa, &fa);
  fp_start(cb, kb, sb, &fb);
  while (!(fa.done & fb.done)) {
    fp_step(ca, ka, sa, &fa);
    fp_step(cb, kb, sb, &fb);
  }
  spare_finish(ca, ka, sa);
  spare_finish(cb, kb, sb);
}

void pod_rel_prepare(const pod_rel_failures *f, pod_rel_prep *p) {
  memset(p, 0, sizeof *p);
  for (int i = 0; i < f->ncauses; i++) {
    const pod_rel_cause *q = &f->cause[i];
    p->rate[q->unit][q->blast] += q->rate_per_h;
  }
  for (int bl = 0; bl < POD_REL_NSCOPES; bl++)
    for (int u = 0; u < POD_REL_NSCOPES; u++)
      if (p->rate[u][bl] > 0.0) {
        p->term_u[p->nterms] = (unsigned char)u;
        p->term_b[p->nterms++] = (unsigned char)bl;
      }
}

/* The integer and enum fields of c in pod_rel_shape.key's order. */
#define SHAPE_KEY(c)                                                           \
  {                                                                            \
    (c)->node_gpus, (c)->domain_gpus, (c)->active_gpus, (c)->spare_per_domain, \
        (c)->pool_units, (c)->pool_scope, (c)->repair_dist, (c)->shrink,       \
        (c)->interval_rule, (c)->waste_model                                   \
  }

static int shape_matches(const pod_rel_cfg *c, const pod_rel_shape *sh) {
  const int k[10] = SHAPE_KEY(c);
  int d = 0;
  for (int i = 0; i < 10; i++) d |= k[i] ^ sh->key[i];
  return d == 0;
}

/* The shape of c's footprint (checked), with the failure list's terms pr. */
static void shape_fill(const pod_rel_cfg *c, const pod_rel_prep *pr,
                       pod_rel_shape *sh) {
  const int key[10] = SHAPE_KEY(c);
  memcpy(sh->key, key, sizeof key);
  const int domains = rel_unit_count(c, POD_REL_DOMAIN);
  sh->nodes = rel_unit_count(c, POD_REL_NODE);
  sh->domains = domains;
  sh->spare_gpus =
      c->spare_per_domain * domains + c->pool_units * rel_pool_gpus(c);
  const double A = c->active_gpus;
  sh->spare_fraction = sh->spare_gpus / (A + sh->spare_gpus);
  sh->inv_dom2 =
      domains > 0 && (domains & (domains - 1)) == 0 && domains < 1 << 30
          ? 1.0 / domains
          : 0.0;
  const int pool_gpus = rel_pool_gpus(c);
  unsigned char has[POD_REL_NSCOPES] = {0}; /* a term of the list */
  for (int t = 0; t < pr->nterms; t++) has[pr->term_b[t]] = 1;
  sh->b_abs_max = 0;
  for (int u = 0; u < POD_REL_NSCOPES; u++) sh->count[u] = rel_unit_count(c, u);
  for (int bl = 0; bl < POD_REL_NSCOPES; bl++) {
    double b = rel_blast_gpus(c, bl);
    int hw = bl != POD_REL_JOB;
    sh->b[bl] = b;
    sh->hw[bl] = (unsigned char)hw;
    sh->in_dom[bl] =
        (unsigned char)(hw && bl != POD_REL_DOMAIN && c->spare_per_domain >= b);
    sh->in_pool[bl] =
        (unsigned char)(hw && c->pool_units > 0 && b <= pool_gpus);
    if (sh->in_dom[bl] && has[bl] && b > sh->b_abs_max) sh->b_abs_max = (int)b;
  }
  sh->c_dom = sh->b_abs_max > 0 ? c->spare_per_domain / sh->b_abs_max : 0;
}

/* The classes of the causes (rel_causes) of c on its footprint's shape. */
static void rel_causes_init(const pod_rel_cfg *c, const pod_rel_prep *pr,
                            const pod_rel_shape *sh, rel_causes *k) {
  const double R = c->restart_s / 3600.0, swap = c->swap_s / 3600.0;
  int b_abs_max = 0;
  /* per unit scope: the rate scale, and units in the footprint x scale */
  double scale[POD_REL_NSCOPES], mult[POD_REL_NSCOPES];
  const double lg[POD_REL_NSCOPES] = {c->gpu_rate_log10, c->node_rate_log10,
                                      c->domain_rate_log10, c->job_rate_log10};
  for (int u = 0; u < POD_REL_NSCOPES; u++) {
    int same = -1; /* a scope with the same exponent: the same power */
    for (int v = 0; v < u && same < 0; v++)
      if (lg[v] == lg[u]) same = v;
    scale[u] = same >= 0 ? scale[same] : rel_unit_scale(c, u);
    mult[u] = sh->count[u] * scale[u];
  }
  /* every field is set below; the sums start from +0 (no copy of the
  ** whole struct: a block copy's start-up costs more than these stores) */
  for (int i = 0; i < POD_REL_NSCOPES; i++) k->lam[i] = k->wl[i] = 0.0;
  k->lp[0] = k->lp[1] = 0.0;
  k->L = k->L_hw = k->L_abs = 0.0;
  k->n = POD_REL_NSCOPES;
  k->domains = sh->domains;
  k->inv_dom2 = sh->inv_dom2;
  /* lam[bl] = sum over u of rate[u][bl] mult[u], in u order; the terms of
  ** a zero rate add +0 to a sum >= +0 (mult is finite): skipped, the same
  ** bits */
  for (int t = 0; t < pr->nterms; t++) {
    int u = pr->term_u[t], bl = pr->term_b[t];
    k->lam[bl] += pr->rate[u][bl] * mult[u];
  }
  for (int bl = 0; bl < POD_REL_NSCOPES; bl++) {
    double lam = k->lam[bl];
    k->b[bl] = sh->b[bl];
    k->hw[bl] = sh->hw[bl];
    k->in_dom[bl] = sh->in_dom[bl];
    k->in_pool[bl] = sh->in_pool[bl];
    k->L += lam;
    if (k->hw[bl]) k->L_hw += lam;
    if (k->in_dom[bl] && lam > 0.0) {
      k->L_abs += lam;
      if (k->b[bl] > b_abs_max) b_abs_max = (int)k->b[bl];
    }
  }
  k->down_nw = k->L * R + k->L_hw * swap;
  /* each domain's hot spares: spare_per_domain / largest blast slots (the
  ** shape's unless a rate underflowed to 0) */
  k->c_dom = b_abs_max == sh->b_abs_max ? sh->c_dom
             : b_abs_max > 0            ? c->spare_per_domain / b_abs_max
                                        : 0;
  k->r_eff = repair_past(c, (c->restart_s + c->swap_s) / 3600.0);
  k->a_dom_num = k->L_abs / k->domains * k->r_eff;
  for (int bl = 0; bl < POD_REL_NSCOPES; bl++) {
    int slots =
        (k->in_dom[bl] ? k->c_dom : 0) + (k->in_pool[bl] ? c->pool_units : 0);
    k->w[bl] = c->repair_h / (1.0 + slots);
    if (!k->hw[bl] || !(k->lam[bl] > 0.0)) continue;
    k->wl[k->in_dom[bl] + 2 * k->in_pool[bl]] += k->lam[bl] * k->w[bl];
    if (k->in_pool[bl]) k->lp[k->in_dom[bl]] += k->lam[bl];
  }
}

/* Wall time for W hours of work at job MTBF M, mean down time Dh. */
static int wall_time(const pod_rel_cfg *c, double W, double L, double tau,
                     double Dh, double *wall, pod_err *err) {
  const double C = c->ckpt_s / 3600.0, M = 1.0 / L;
  switch (c->waste_model) {
    case POD_REL_WASTE_FIRST: {
      double w = C / tau + (L > 0.0 ? (tau / 2.0 + Dh) * L : 0.0);
      if (w >= 1.0)
        return pod_err_set(err, POD_ERANGE, "interval_s",
                           "first-order waste %.3g >= 1: failures too "
                           "frequent for this checkpoint interval",
                           w);
      *wall = W / (1.0 - w);
      return POD_OK;
    }
    case POD_REL_WASTE_DALY:
      *wall = L > 0.0 ? M * exp(Dh / M) * expm1((tau + C) / M) * W / tau
                      : W * (tau + C) / tau;
      return POD_OK;
    default: {
      /* n checkpointed segments of tau + C, then a last one of f <= tau. */
      double n = ceil(W / tau - 1e-12) - 1.0;
      if (n < 0.0) n = 0.0;
      double fl = W - n * tau;
      *wall = L > 0.0 ? (M + Dh) * (n * expm1((tau + C) / M) + expm1(fl / M))
                      : W + n * C;
      return POD_OK;
    }
  }
}

static int rel_eval(const pod_rel_cfg *c, const pod_rel_prep *pr,
                    const pod_rel_shape *sh, pod_rel_result *out, pod_err *err);

/* rel_eval of a checked config with its own shape. */
static int rel_eval_own(const pod_rel_cfg *c, const pod_rel_prep *pr,
                        pod_rel_result *out, pod_err *err) {
  pod_rel_shape sh;
  shape_fill(c, pr, &sh);
  return rel_eval(c, pr, &sh, out, err);
}

int pod_rel_eval(const pod_rel_cfg *c, pod_rel_result *out, pod_err *err) {
  int rc = pod_rel_check(c, err);
  if (rc) return rc;
  pod_rel_prep pr;
  pod_rel_prepare(&c->failures, &pr);
  return rel_eval_own(c, &pr, out, err);
}

int pod_rel_eval_failures_checked(const pod_rel_cfg *c, pod_rel_result *out,
                                  pod_err *err) {
  int rc = pod_rel__check_rest(c, err);
  if (rc) return rc;
  pod_rel_prep pr;
  pod_rel_prepare(&c->failures, &pr);
  return rel_eval_own(c, &pr, out, err);
}

void pod_rel_prepare_cfg(const pod_rel_cfg *c, pod_rel_prep *p) {
  pod_rel_prepare(&c->failures, p);
  /* a shape skips the integer fields' checks: only a checked config's */
  if (pod_rel_check(c, NULL) != POD_OK) return;
  shape_fill(c, p, &p->sh);
  p->shape = 1;
}

int pod_rel_eval_prepared(const pod_rel_cfg *c, const pod_rel_prep *pr,
                          pod_rel_result *out, pod_err *err) {
  if (pr->shape && shape_matches(c, &pr->sh)) {
    int rc = pod_rel__check_shaped(c, err);
    return rc ? rc : rel_eval(c, pr, &pr->sh, out, err);
  }
  int rc = pod_rel__check_rest(c, err);
  return rc ? rc : rel_eval_own(c, pr, out, err);
}

/* One evaluation between the fixed point and what comes before and after
** it (rel_begin, spare_solve, rel_end): rel_eval, or two side by side. */
typedef struct rel_run {
  pod_rel_result r;
  rel_causes k;
  rel_spare_state s;
} rel_run;

/* The footprint's figures and the causes' classes of checked config c. */
static void rel_begin(const pod_rel_cfg *c, const pod_rel_prep *pr,
                      const pod_rel_shape *sh, rel_run *u) {
  pod_rel_result *r = &u->r;
  memset(r, 0, sizeof *r);
  const double A = c->active_gpus;
  r->nodes = sh->nodes;
  r->domains = sh->domains;
  r->spare_gpus = sh->spare_gpus;
  r->spare_fraction = sh->spare_fraction;
  rel_causes_init(c, pr, sh, &u->k);
  const double L = u->k.L, L_hw = u->k.L_hw;
  r->rate_per_h = L;
  r->job_mtbf_h = L > 0.0 ? 1.0 / L : INFINITY;
  r->interruptions_per_day = 24.0 * L;
  r->per_gpu_hour = L / A;
  r->hw_fraction = L > 0.0 ? L_hw / L : 0.0;
}

/* The rest of the evaluation after the fixed point (u->s), into *out. */
static int rel_end(const pod_rel_cfg *c, rel_run *u, pod_rel_result *out,
                   pod_err *err) {
  int rc;
  pod_rel_result *r = &u->r;
  const rel_causes *k = &u->k;
  const rel_spare_state *s = &u->s;
  const double A = c->active_gpus;
  const double R = c->restart_s / 3600.0, C = c->ckpt_s / 3600.0;
  const double W = rel_work_h(c);
  const double L = k->L;
  double blk_sum = 0.0;
  for (int i = 0; i < k->n; i++) blk_sum += k->lam[i] * s->p_blk[i];
  const double Dh = L > 0.0 ? (s->down_nw + s->wait) / L : R; /* hours */
  r->down_s = Dh * 3600.0;
  r->p_no_spare = L > 0.0 ? blk_sum / L : 0.0;

  /* Checkpoint interval (one segment when nothing fails). */
  double tau = L > 0.0 || c->interval_rule == POD_REL_TAU_FIXED
                   ? pod_rel_interval_h(c, r->job_mtbf_h)
                   : W;
  if (!(tau > 0.0) || !isfinite(tau))
    return pod_err_set(err, POD_ERANGE, "interval_s",
                       "checkpoint interval is not a positive number");
  r->checkpoint_interval_s = tau * 3600.0;

  double wall = 0.0;
  if ((rc = wall_time(c, W, L, tau, Dh, &wall, err))) return rc;
  /* Shrinking trades waiting for lost capacity and planned restarts: a
  ** shrink loses r b / A of work, and its grow-back costs C + R unless the
  ** repair ends while the job is down anyway (then the next restart picks
  ** the capacity up).  With running time = wall / den,
  ** den = 1 + L D + L_pl (C + R), and L_pl the planned-restart rate,
  ** wall = base / (1 - q), q = (sum(lambda_b r b / A) + L_pl (C + R)) / den. */
  double den = 1.0 + L * Dh + s->grow * (C + R);
  const double L_pl = s->grow / den; /* share of repairs ending while up */
  den = 1.0 + L * Dh + L_pl * (C + R);
  if (s->grow > 0.0) {
    double q = (s->cap_loss + L_pl * (C + R)) / den;
    if (q >= 1.0)
      return pod_err_set(err, POD_ERANGE, "shrink",
                         "the job would shrink faster than it is repaired");
    wall /= 1.0 - q;
  }
  /* Start-up transient (waiting only; a shrinking job does not wait). */
  double saved = 0.0;
  if (L > 0.0 && isfinite(wall)) {
    double run_h = wall / den;
    saved = rel_erlang_deficit(c->pool_units, s->a_pool, s->B_pool,
                               s->L_pool * run_h) *
                s->wbar_pool +
            r->domains *
                rel_erlang_deficit(k->c_dom, s->a_dom, s->B_dom,
                                   k->L_abs / r->domains * run_h) *
                s->wbar_dom;
    if (saved > s->wait * run_h) saved = s->wait * run_h;
    wall -= saved;
  }
  if (!isfinite(wall))
    return pod_err_set(err, POD_ERANGE, "work_h", "wall time overflows");
  r->work_h = W;
  r->wall_h = wall;
  r->goodput = W / wall;
  r->waste = 1.0 - r->goodput;
  /* Alternating renewal: each interruption cycle is M running + D down
  ** (+ planned grow-back restarts). */
  r->interruptions = L * wall / den;
  r->wait_h = r->interruptions * (L > 0.0 ? s->wait / L : 0.0) - saved;
  if (r->wait_h < 0.0) r->wait_h = 0.0;
  r->gpu_hours = A * wall;
  r->gpu_hours_charged = (A + r->spare_gpus) * wall;
  *out = *r;
  return POD_OK;
}

/* pod_rel_eval on a checked config, pr its failure list's sums, sh its
** footprint's shape. */
static int rel_eval(const pod_rel_cfg *c, const pod_rel_prep *pr,
                    const pod_rel_shape *sh, pod_rel_result *out,
                    pod_err *err) {
  rel_run u;
  rel_begin(c, pr, sh, &u);
  spare_solve(c, &u.k, &u.s);
  return rel_end(c, &u, out, err);
}

/* The shape a prepared evaluation of c runs on: pr's, or *own made. */
static const pod_rel_shape *shape_for(const pod_rel_cfg *c,
                                      const pod_rel_prep *pr,
                                      pod_rel_shape *own, int *shaped) {
  *shaped = pr->shape && shape_matches(c, &pr->sh);
  if (*shaped) return &pr->sh;
  shape_fill(c, pr, own);
  return own;
}

int pod_rel_eval_prepared2(const pod_rel_cfg *ca, const pod_rel_cfg *cb,
                           const pod_rel_prep *pr, pod_rel_result *oa,
                           pod_rel_result *ob, int *failed, pod_err *err) {
  *failed = -1;
  pod_rel_shape own_a, own_b;
  int sa, sb;
  const pod_rel_shape *sha = shape_for(ca, pr, &own_a, &sa);
  const pod_rel_shape *shb = shape_for(cb, pr, &own_b, &sb);
  int rc = sa ? pod_rel__check_shaped(ca, err) : pod_rel__check_rest(ca, err);
  if (rc) {
    *failed = 0;
    return rc;
  }
  pod_err eb;
  pod_err_clear(&eb);
  rc = sb ? pod_rel__check_shaped(cb, &eb) : pod_rel__check_rest(cb, &eb);
  if (rc) { /* a alone, then b's error */
    int ra = rel_eval(ca, pr, sha, oa, err);
    *failed = ra ? 0 : 1;
    if (ra) return ra;
    if (err) *err = eb;
    return rc;
  }
  rel_run ua, ub;
  rel_begin(ca, pr, sha, &ua);
  rel_begin(cb, pr, shb, &ub);
  spare_solve2(ca, &ua.k, &ua.s, cb, &ub.k, &ub.s);
  if ((rc = rel_end(ca, &ua, oa, err))) {
    *failed = 0;
    return rc;
  }
  if ((rc = rel_end(cb, &ub, ob, err))) {
    *failed = 1;
    return rc;
  }
  return POD_OK;
}

static const char *const rel_metrics[] = {"interruptions_per_day",
                                          "job_mtbf_h",
                                          "goodput",
                                          "checkpoint_interval_s",
                                          "wall_h",
                                          "interruptions",
                                          "wait_h",
                                          "spare_gpus",
                                          "spare_fraction",
                                          "gpu_hours",
                                          "gpu_hours_charged"};

static int rel_kernel_fn(const void *cfg, double *m, pod_err *err) {
  pod_rel_result r;
  int rc = pod_rel_eval((const pod_rel_cfg *)cfg, &r, err);
  if (rc) return rc;
  m[0] = r.interruptions_per_day;
  m[1] = r.job_mtbf_h;
  m[2] = r.goodput;
  m[3] = r.checkpoint_interval_s;
  m[4] = r.wall_h;
  m[5] = r.interruptions;
  m[6] = r.wait_h;
  m[7] = r.spare_gpus;
  m[8] = r.spare_fraction;
  m[9] = r.gpu_hours;
  m[10] = r.gpu_hours_charged;
  return POD_OK;
}

const pod_kernel pod_rel_kernel = {
    "reliability", sizeof(pod_rel_cfg),
    (int)(sizeof rel_metrics / sizeof rel_metrics[0]), rel_metrics,
    rel_kernel_fn};
