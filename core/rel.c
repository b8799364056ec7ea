/*
** rel.c: the analytic reliability model (see pod_rel.h for the time
** model; the checks are in rel_check.c, the presets in rel_presets.c).
*/
#include "pod_rel.h"
#include "rel_int.h"
#include "rel_erlang.h"
#include "rel_geom.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

double pod_rel_job_rate(const pod_rel_cfg *c) {
  double L = 0.0;
  for (int i = 0; i < c->failures.ncauses; i++) L += rel_cause_rate(c, i);
  return L;
}

/* pod_rel_interval_h with C = c->ckpt_s / 3600 given (an evaluation has
** it). */
static inline double interval_h(const pod_rel_cfg *c, double C, double m_h) {
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

double pod_rel_interval_h(const pod_rel_cfg *c, double m_h) {
  return interval_h(c, c->ckpt_s / 3600.0, m_h);
}

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
    /* the wait is read only of classes that drain hardware at a rate > 0
    ** (spare_finish, the sums here) */
    k->w[bl] = 0.0;
    if (!k->hw[bl] || !(k->lam[bl] > 0.0)) continue;
    k->w[bl] = c->repair_h / (1.0 + slots);
    k->wl[k->in_dom[bl] + 2 * k->in_pool[bl]] += k->lam[bl] * k->w[bl];
    if (k->in_pool[bl]) k->lp[k->in_dom[bl]] += k->lam[bl];
  }
}

/* Wall time for W hours of work at job rate L, MTBF M = 1 / L, mean down
** time Dh, checkpoint write C hours. */
static int wall_time(const pod_rel_cfg *c, double W, double L, double M,
                     double tau, double Dh, double C, double *wall,
                     pod_err *err) {
  /* M = 1 / L (inf when L = 0), C = c->ckpt_s / 3600 */
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
** it (rel_begin, the spare model, the steps of rel_end): rel_eval, or two
** side by side. */
typedef struct rel_run {
  pod_rel_result r;
  rel_causes k;
  rel_spare_state s;
  /* between rel_end's steps: the work, the mean down time (h), the
  ** checkpoint interval, the wall time so far and its running-time
  ** divisor, the running hours and the waiting the transient saves */
  double W, Dh, tau, wall, den, run_h, saved;
  double R, C;   /* restart and checkpoint write, hours */
  int transient; /* the start-up transient applies (end_transient) */
} rel_run;

/* The footprint's figures and the causes' classes of checked config c. */
static void rel_begin(const pod_rel_cfg *c, const pod_rel_prep *pr,
                      const pod_rel_shape *sh, rel_run *u) {
  pod_rel_result *r = &u->r;
  /* every field is set here or by rel_end's steps; the padding after the
  ** ints is zeroed so that a result's bytes are the same every time (no
  ** block clear of the whole struct: its start-up costs more) */
  memset((char *)r + offsetof(pod_rel_result, spare_gpus) + sizeof(int), 0,
         offsetof(pod_rel_result, spare_fraction) -
             offsetof(pod_rel_result, spare_gpus) - sizeof(int));
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

/* rel_end, the evaluation after the fixed point (u->s), in steps that
** two evaluations take side by side (end_tau, end_wall, end_transient,
** end_out); each stores what the next reads in *u. */

/* The mean down time and the checkpoint interval. */
static int end_tau(const pod_rel_cfg *c, rel_run *u, pod_err *err) {
  pod_rel_result *r = &u->r;
  const rel_causes *k = &u->k;
  const rel_spare_state *s = &u->s;
  const double R = c->restart_s / 3600.0, C = c->ckpt_s / 3600.0;
  const double W = rel_work_h(c);
  const double L = k->L;
  double blk_sum = 0.0;
  for (int i = 0; i < k->n; i++) blk_sum += k->lam[i] * s->p_blk[i];
  const double Dh = L > 0.0 ? (s->down_nw + s->wait) / L : R; /* hours */
  r->down_s = Dh * 3600.0;
  r->p_no_spare = L > 0.0 ? blk_sum / L : 0.0;
  u->W = W;
  u->Dh = Dh;
  u->R = R;
  u->C = C;
  /* Checkpoint interval (one segment when nothing fails). */
  double tau = L > 0.0 || c->interval_rule == POD_REL_TAU_FIXED
                   ? interval_h(c, C, r->job_mtbf_h)
                   : W;
  if (!(tau > 0.0) || !isfinite(tau))
    return pod_err_set(err, POD_ERANGE, "interval_s",
                       "checkpoint interval is not a positive number");
  r->checkpoint_interval_s = tau * 3600.0;
  u->tau = tau;
  return POD_OK;
}

/* The wall time before the start-up transient. */
static int end_wall(const pod_rel_cfg *c, rel_run *u, pod_err *err) {
  int rc;
  const rel_spare_state *s = &u->s;
  const double R = u->R, C = u->C;
  const double L = u->k.L, Dh = u->Dh;
  double wall = 0.0;
  if ((rc = wall_time(c, u->W, L, u->r.job_mtbf_h, u->tau, Dh, C, &wall, err)))
    return rc;
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
  u->den = den;
  u->wall = wall;
  /* Start-up transient (waiting only; a shrinking job does not wait). */
  u->transient = L > 0.0 && isfinite(wall);
  u->run_h = u->transient ? wall / den : 0.0;
  u->saved = 0.0;
  return POD_OK;
}

/* Arrivals at one domain's hot spares over the run. */
static double dom_arrivals(const rel_run *u) {
  const rel_causes *k = &u->k;
  /* L_abs / domains, as a product when exact (a power of two) */
  const double per =
      k->inv_dom2 > 0.0 ? k->L_abs * k->inv_dom2 : k->L_abs / u->r.domains;
  return per * u->run_h;
}

/* The waiting the transient saves, from the pool's and a domain's
** deficits. */
static void end_saved(rel_run *u, double def_pool, double def_dom) {
  const rel_spare_state *s = &u->s;
  double saved = def_pool * s->wbar_pool + u->r.domains * def_dom * s->wbar_dom;
  if (saved > s->wait * u->run_h) saved = s->wait * u->run_h;
  u->wall -= saved;
  u->saved = saved;
}

/* The start-up transient of one evaluation. */
static void end_transient(const pod_rel_cfg *c, rel_run *u) {
  if (!u->transient) return;
  const rel_spare_state *s = &u->s;
  end_saved(
      u,
      rel_erlang_deficit(c->pool_units, s->a_pool, s->B_pool,
                         s->L_pool * u->run_h),
      rel_erlang_deficit(u->k.c_dom, s->a_dom, s->B_dom, dom_arrivals(u)));
}

/* end_transient of two evaluations, their deficits side by side. */
static void end_transient2(const pod_rel_cfg *ca, rel_run *ua,
                           const pod_rel_cfg *cb, rel_run *ub) {
  const rel_spare_state *sa = &ua->s, *sb = &ub->s;
  /* a lane without the transient has no servers: no deficit */
  const int on_a = ua->transient, on_b = ub->transient;
  const int kp[2] = {on_a ? ca->pool_units : 0, on_b ? cb->pool_units : 0};
  const int kd[2] = {on_a ? ua->k.c_dom : 0, on_b ? ub->k.c_dom : 0};
  const double ap[2] = {sa->a_pool, sb->a_pool},
               Bp[2] = {sa->B_pool, sb->B_pool};
  const double np[2] = {sa->L_pool * ua->run_h, sb->L_pool * ub->run_h};
  const double ad[2] = {sa->a_dom, sb->a_dom}, Bd[2] = {sa->B_dom, sb->B_dom};
  const double nd[2] = {dom_arrivals(ua), dom_arrivals(ub)};
  double dp[2], dd[2];
  rel_erlang_deficit2(kp, ap, Bp, np, dp);
  rel_erlang_deficit2(kd, ad, Bd, nd, dd);
  if (on_a) end_saved(ua, dp[0], dd[0]);
  if (on_b) end_saved(ub, dp[1], dd[1]);
}

/* The results, into *out. */
static int end_out(const pod_rel_cfg *c, rel_run *u, pod_rel_result *out,
                   pod_err *err) {
  pod_rel_result *r = &u->r;
  const double A = c->active_gpus;
  const double L = u->k.L, W = u->W, wall = u->wall, den = u->den;
  const double saved = u->saved, wait = u->s.wait;
  if (!isfinite(wall))
    return pod_err_set(err, POD_ERANGE, "work_h", "wall time overflows");
  r->work_h = W;
  r->wall_h = wall;
  r->goodput = W / wall;
  r->waste = 1.0 - r->goodput;
  /* Alternating renewal: each interruption cycle is M running + D down
  ** (+ planned grow-back restarts). */
  r->interruptions = L * wall / den;
  r->wait_h = r->interruptions * (L > 0.0 ? wait / L : 0.0) - saved;
  if (r->wait_h < 0.0) r->wait_h = 0.0;
  r->gpu_hours = A * wall;
  r->gpu_hours_charged = (A + r->spare_gpus) * wall;
  *out = *r;
  return POD_OK;
}

static int rel_end(const pod_rel_cfg *c, rel_run *u, pod_rel_result *out,
                   pod_err *err) {
  int rc;
  if ((rc = end_tau(c, u, err)) || (rc = end_wall(c, u, err))) return rc;
  end_transient(c, u);
  return end_out(c, u, out, err);
}

/* rel_end of two evaluations, step by step side by side: the results of
** each as its own, and the first failure (a before b) as rel_end's of
** a then b: its code, lane in *failed and message in err (b's through
** eb); a's result stored when only b fails. */
static int rel_end2(const pod_rel_cfg *ca, rel_run *ua, pod_rel_result *oa,
                    const pod_rel_cfg *cb, rel_run *ub, pod_rel_result *ob,
                    int *failed, pod_err *err) {
  pod_err eb;
  pod_err_clear(&eb);
  int ra = end_tau(ca, ua, err), rb = end_tau(cb, ub, &eb);
  if (!ra) ra = end_wall(ca, ua, err);
  if (!rb) rb = end_wall(cb, ub, &eb);
  if (!ra && !rb)
    end_transient2(ca, ua, cb, ub);
  else if (!ra)
    end_transient(ca, ua);
  if (!ra) ra = end_out(ca, ua, oa, err);
  if (ra) {
    *failed = 0;
    return ra;
  }
  if (!rb) rb = end_out(cb, ub, ob, &eb);
  if (rb) {
    *failed = 1;
    if (err) *err = eb;
  }
  return rb;
}

/* pod_rel_eval on a checked config, pr its failure list's sums, sh its
** footprint's shape. */
static int rel_eval(const pod_rel_cfg *c, const pod_rel_prep *pr,
                    const pod_rel_shape *sh, pod_rel_result *out,
                    pod_err *err) {
  rel_run u;
  rel_begin(c, pr, sh, &u);
  pod_rel__spare_solve(c, &u.k, &u.s);
  return rel_end(c, &u, out, err);
}

/* Check c as a prepared evaluation does: its doubles only when its
** integer and enum fields are pr's shape's (*shaped), else all but the
** list. */
static int check_for(const pod_rel_cfg *c, const pod_rel_prep *pr, int *shaped,
                     pod_err *err) {
  *shaped = pr->shape && shape_matches(c, &pr->sh);
  return *shaped ? pod_rel__check_shaped(c, err) : pod_rel__check_rest(c, err);
}

/* The shape of checked config c: pr's when it matched, else *own made. */
static const pod_rel_shape *shape_for(const pod_rel_cfg *c,
                                      const pod_rel_prep *pr, int shaped,
                                      pod_rel_shape *own) {
  if (shaped) return &pr->sh;
  shape_fill(c, pr, own);
  return own;
}

int pod_rel_eval_prepared2(const pod_rel_cfg *ca, const pod_rel_cfg *cb,
                           const pod_rel_prep *pr, pod_rel_result *oa,
                           pod_rel_result *ob, int *failed, pod_err *err) {
  *failed = -1;
  pod_rel_shape own_a, own_b;
  int sa, sb;
  /* a shape is made only of a checked config (shape_fill divides by its
  ** counts) */
  int rc = check_for(ca, pr, &sa, err);
  if (rc) {
    *failed = 0;
    return rc;
  }
  const pod_rel_shape *sha = shape_for(ca, pr, sa, &own_a);
  pod_err eb;
  pod_err_clear(&eb);
  if ((rc = check_for(cb, pr, &sb, &eb))) { /* a alone, then b's error */
    int ra = rel_eval(ca, pr, sha, oa, err);
    *failed = ra ? 0 : 1;
    if (ra) return ra;
    if (err) *err = eb;
    return rc;
  }
  const pod_rel_shape *shb = shape_for(cb, pr, sb, &own_b);
  rel_run ua, ub;
  rel_begin(ca, pr, sha, &ua);
  rel_begin(cb, pr, shb, &ub);
  pod_rel__spare_solve2(ca, &ua.k, &ua.s, cb, &ub.k, &ub.s);
  return rel_end2(ca, &ua, oa, cb, &ub, ob, failed, err);
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
