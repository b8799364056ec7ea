/*
** rel_int.h: internals shared by rel.c (the analytic model),
** rel_spare.c (its spare model) and rel_check.c (its checks); callers use
** pod_rel.h only.  Convention as
** train_int.h: pod_rel__name is not part of the API.
*/
#ifndef POD_REL_INT_H
#define POD_REL_INT_H

#include "pod_rel.h"

/* Every check of a config but its failure list's. */
int pod_rel__check_rest(const pod_rel_cfg *c, pod_err *err);

/* pod_rel__check_rest for a config whose integer and enum fields are
** those of a checked config's shape (pod_rel_shape.key), so that every
** rule on them alone holds: the doubles' bounds and the rules they enter,
** as pod_rel__check_rest tests them; on a failure pod_rel__check_rest
** itself, so the error is the same. */
int pod_rel__check_shaped(const pod_rel_cfg *c, pod_err *err);

/* The spare model (rel_spare.c), on the causes' classes of rel.c.
** The causes by blast scope (what one failure drains): the spare model
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

/* Solve the spare model's fixed point for c's classes k into s (every
** field of s). */
void pod_rel__spare_solve(const pod_rel_cfg *c, const rel_causes *k,
                          rel_spare_state *s);
/* pod_rel__spare_solve of two configs side by side, each lane's result
** bit for bit its own. */
void pod_rel__spare_solve2(const pod_rel_cfg *ca, const rel_causes *ka,
                           rel_spare_state *sa, const pod_rel_cfg *cb,
                           const rel_causes *kb, rel_spare_state *sb);

#endif
