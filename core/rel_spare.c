/*
** rel_spare.c: the analytic spare model of rel.c (pod_rel.h): per-class
** failure loads on hot spares and the spare pool as Erlang loss systems
** in wall time, and the fixed point of the wall hours per running hour
** they wait at (internal, rel_int.h).
*/
#include "rel_erlang.h"
#include "rel_int.h"

#include <math.h>
#include <string.h>

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

/* One step of the damped iteration: each of T, Tp, Td moves by h times
** its residual; undamped (h = 1) by the residual itself, x 1 = x exact
** (one multiply less on the chain, the same bits). */
static inline void fp_move(double h, double dT, double dTp, double dTd,
                           double *T, double *Tp, double *Td) {
  if (h == 1.0) {
    *T += dT;
    *Tp += dTp;
    *Td += dTd;
  } else {
    *T += h * dT;
    *Tp += h * dTp;
    *Td += h * dTd;
  }
}

/* Solve the fixed point T = 1 + down + wait (+ grow-back restarts).
** Without shrinking each step needs only the waits (spare_step; the
** same arithmetic as spare_state's), the rest once at the end. */
void pod_rel__spare_solve(const pod_rel_cfg *c, const rel_causes *k,
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
    fp_move(h, T1 - T, Tp1 - Tp, Td1 - Td, &T, &Tp, &Td);
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
  /* spare_solve's T1 + grow CR: without shrinking grow = 0, and T1 >= 1
  ** (or NaN) + 0 is T1 */
  double T1 = 1.0 + s->down_nw + s->wait;
  double Tp1 = T1 - s->wait_pool, Td1 = T1 - s->wait_dom;
  const double dT = T1 - f->T, dTp = Tp1 - f->Tp, dTd = Td1 - f->Td;
  double d = fabs(dT) + fabs(dTp) + fabs(dTd);
  if (d <= 1e-12 * T1) {
    f->done = 1;
    return;
  }
  if (d >= f->d_prev && f->h > 1.0 / 64) f->h *= 0.5;
  f->d_prev = d;
  fp_move(f->h, dT, dTp, dTd, &f->T, &f->Tp, &f->Td);
  spare_step(c, k, f->Tp, f->Td, s);
  if (++f->it >= 500) f->done = 1;
}

/* spare_solve of two configs side by side: the fixed points' dependency
** chains (a few divisions per step) overlap; each lane's results are
** spare_solve's bit for bit. */
void pod_rel__spare_solve2(const pod_rel_cfg *ca, const rel_causes *ka,
                           rel_spare_state *sa, const pod_rel_cfg *cb,
                           const rel_causes *kb, rel_spare_state *sb) {
  /* without shrinking and with no hot spares in either, spare_solve's
  ** one step of each side by side (the flagship's HGX pools) */
  if (!ca->shrink && !cb->shrink && !(ka->L_abs > 0.0) && !(kb->L_abs > 0.0)) {
    const double T0a = 1.0 + ka->down_nw + ka->wl[0],
                 T0b = 1.0 + kb->down_nw + kb->wl[0];
    spare_step(ca, ka, T0a, T0a, sa);
    spare_step(cb, kb, T0b, T0b, sb);
    spare_finish(ca, ka, sa);
    spare_finish(cb, kb, sb);
    return;
  }
  /* the iteration without shrinking and with hot spares in both, else
  ** one after the other */
  if (ca->shrink || cb->shrink || !(ka->L_abs > 0.0) || !(kb->L_abs > 0.0)) {
    pod_rel__spare_solve(ca, ka, sa);
    pod_rel__spare_solve(cb, kb, sb);
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
