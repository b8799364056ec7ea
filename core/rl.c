/*
** rl.c: one step of on-policy RL post-training (pod_rl.h).
**
** Sources of the defaults:
**  - host_GBps 64: PCIe Gen5 x16 line rate per direction.  The weight
**    pipeline of checkpoint-engine moves whole models at this rate
**    (MoonshotAI/checkpoint-engine README benchmark: Kimi-K2 fp8 on 256
**    H20 in 16.04 s = 64.2 GB/s; tests/validation/l1_weight_sync.lua marks
**    that row the fit); GB200 reaches its Grace memory over NVLink-C2C
**    (900 GB/s per Grace and its two GPUs): the scenario sets 200 there;
**  - sync_fixed_s 2: pausing the inference engine, flushing its KV cache
**    and resuming (verl / OpenRLHF weight-update paths), plus metadata
**    exchange: checkpoint-engine reports 0.1-1.3 s for GatherMetas alone;
**  - response lengths: reasoning RL responses are long-tailed (DeepSeek-R1
**    report, fig. 3: mean length grows to ~10k tokens; DAPO and Kimi k1.5
**    cap generation at 16k-32k); default lognormal median 2048, log-sd
**    0.8, cap 16384 - a prior to override per workload;
**  - a forward pass costs a third of the training step's compute (2 of
**    the 6 FLOPs per parameter per token);
**  - static split: verl, OpenRLHF and their peers hand each rollout
**    instance a fixed share of the step's sequences up front (verl's
**    rollout splits the batch over its data-parallel engines; RollPacker,
**    arXiv 2509.21009, and the asynchronous systems it cites name the
**    resulting imbalance).  Every instance generates n = sequences /
**    instances responses of independent lengths, so its work is
**    n x mean with a coefficient of variation cv / sqrt(n) (cv of one
**    capped length); the step waits for the slowest of the I instances,
**    E[max of I standard normals] (Blom's approximation, Phi^-1((I -
**    0.375) / (I + 0.25))) deviations above the mean.  Not fitted;
**  - token-weighted context: decode costs s0 + s1 b per step with s1 at
**    the mean context of the generated tokens, prompt + E[L^2]/(2 E[L])
**    (see rollout_time), so sum over steps = s0 x steps + s1 x tokens
**    holds for the KV reads of long-tailed responses.
*/
#include "pod_rl.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pod_coll.h"
#include "rl_int.h"
#include "serve_int.h"

const char *const pod_rl_placement_names[] = {"colocated", "disaggregated",
                                              NULL};
const char *const pod_rl_sync_names[] = {"reshard", "broadcast", NULL};

const char *pod_rl_placement_name(int p) {
  return p >= 0 && p <= POD_RL_DISAGGREGATED ? pod_rl_placement_names[p] : "?";
}
const char *pod_rl_sync_name(int s) {
  return s >= 0 && s <= POD_RL_SYNC_BROADCAST ? pod_rl_sync_names[s] : "?";
}

void pod_rl_cfg_init(pod_rl_cfg *c) {
  memset(c, 0, sizeof *c);
  pod_serve_cfg_init(&c->rollout);
  pod_train_cfg_init(&c->train);
  c->placement = POD_RL_COLOCATED;
  c->prompts = 512;
  c->samples = 16;
  c->input_tokens = 1024;
  c->response.kind = POD_DIST_LOGNORMAL;
  c->response.p[0] = log(2048.0);
  c->response.p[1] = 0.8;
  c->max_response = 16384;
  c->ref_model = 1;
  c->old_logprob = 1;
  c->minibatches = 1;
  c->epochs = 1;
  c->sync_method = POD_RL_SYNC_RESHARD;
  c->sync_bytes = 2.0;
  c->host_GBps = 64.0;
  c->offload = 1;
  c->sync_fixed_s = 2.0;
  c->hours = 100.0;
  pod_rel_cfg_init(&c->rel);
}

static pod_dist to_dist(const pod_rl_length *l) {
  pod_dist d;
  memset(&d, 0, sizeof d);
  d.kind = (pod_dist_kind)l->kind;
  memcpy(d.p, l->p, sizeof d.p);
  return d;
}

/* Lowest value of the support, for the kinds with a bounded one. */
static int length_check(const pod_rl_length *l, pod_err *err) {
  if (l->kind < 0 || l->kind >= POD_DIST_DISCRETE)
    return FAIL("response", "must be a continuous distribution (kind %d)",
                l->kind);
  pod_dist d = to_dist(l);
  pod_err e;
  pod_err_clear(&e);
  if (pod_dist_check(&d, &e) != POD_OK)
    return FAIL("response", "%s: %s", e.field, e.msg);
  double lo;
  switch (l->kind) {
    case POD_DIST_FIXED:
      lo = l->p[0];
      break;
    case POD_DIST_UNIFORM:
    case POD_DIST_LOGUNIFORM:
    case POD_DIST_TRIANGULAR:
      lo = l->p[0];
      break;
    case POD_DIST_BETA:
    case POD_DIST_TRUNCNORMAL:
      lo = l->p[2];
      break;
    case POD_DIST_NORMAL:
      lo = -INFINITY;
      break;
    default:
      lo = 0.0 + 1e-300; /* lognormal, gamma, weibull, exponential */
  }
  if (!(lo > 0.0))
    return FAIL("response",
                "%s has non-positive support (lowest value %g): a response "
                "length must be positive",
                pod_dist_kind_name(d.kind), lo);
  return POD_OK;
}

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: the checks walk these tables and the Lua bindings read them. */
const pod_field pod_rl_length_fields[] = {
    {"a", offsetof(pod_rl_length, p[0]), POD_F_DOUBLE, -HUGE_VAL, HUGE_VAL, 0,
     "pod_dist parameter"},
    {"b", offsetof(pod_rl_length, p[1]), POD_F_DOUBLE, -HUGE_VAL, HUGE_VAL, 0,
     "pod_dist parameter"},
    {"c", offsetof(pod_rl_length, p[2]), POD_F_DOUBLE, -HUGE_VAL, HUGE_VAL, 0,
     "pod_dist parameter"},
    {"d", offsetof(pod_rl_length, p[3]), POD_F_DOUBLE, -HUGE_VAL, HUGE_VAL, 0,
     "pod_dist parameter"},
    POD_FIELD_END};

#define RD(m, lo, hi, open, unit) POD_FIELD_D(pod_rl_cfg, m, lo, hi, open, unit)
#define RI(m, lo, hi, unit) POD_FIELD_I(pod_rl_cfg, m, lo, hi, unit)
#define RB(m, unit) POD_FIELD_B(pod_rl_cfg, m, unit)
const pod_field pod_rl_cfg_fields[] = {
    RI(rollout_gpus, 0, 1 << 24,
       "GPUs of the rollout pool (>= 1 disaggregated)"),
    RB(async, "one-step-stale overlap"),
    RB(partial, "partial rollouts"),
    RI(prompts, 1, 1 << 24, "prompts per step"),
    RI(samples, 1, 1 << 16, "responses per prompt"),
    RD(input_tokens, 1, 1 << 22, 0, "prompt tokens"),
    RD(max_response, 1, 1 << 22, 0, "generation cap, tokens"),
    RB(ref_model, "reference forward"),
    RB(old_logprob, "old-policy forward"),
    RB(reward_model, "reward-model forward"),
    RB(critic, "PPO critic"),
    RD(reward_s, 0, 1e7, 0, "s of non-GPU scoring"),
    RI(minibatches, 1, 1 << 16, "optimizer steps per epoch"),
    RI(epochs, 1, 1024, "passes"),
    RD(sync_bytes, 0, 8, POD_F_MIN_OPEN, "bytes per parameter"),
    RB(offload, "colocated: offload training state"),
    RD(host_GBps, 0, 1e5, POD_F_MIN_OPEN, "GB/s GPU-host per direction"),
    RD(sync_fixed_s, 0, 1e6, 0, "s"),
    RD(hours, 0, 1e7, POD_F_MIN_OPEN, "h of job (reliability)"),
    POD_FIELD_END};
#undef RD
#undef RI
#undef RB

/* pod_rl_best_split's budget (an argument: offset unused). */
const pod_field pod_rl_split_gpus = {
    "gpus", 0, POD_F_INT, 2, 1 << 24, 0, "GPUs to split between the pools"};

#define PD(m, unit) POD_FIELD_D(pod_rl_pair_cfg, m, 0, 1e6, 0, unit)
const pod_field pod_rl_pair_fields[] = {
    POD_FIELD_B(pod_rl_pair_cfg, pretrain, "pre-training instead of RL"),
    PD(eff_scale, "multiplies both trainers' eff_scale (0: keep)"),
    PD(overlap, "both rollouts' overlap (0: keep)"),
    PD(imbalance, "MoE imbalance (0: keep)"),
    PD(resp_scale, "response length multiplier (0: keep)"),
    PD(up_eff_a, "scale-up efficiency, side a (0: keep)"),
    PD(up_eff_b, "scale-up efficiency, side b (0: keep)"),
    PD(out_eff_a, "scale-out efficiency, side a (0: keep)"),
    PD(out_eff_b, "scale-out efficiency, side b (0: keep)"),
    PD(price_a, "USD per GPU-hour, side a (0: keep)"),
    PD(price_b, "USD per GPU-hour, side b (0: keep)"),
    POD_FIELD_END};
#undef PD

/* Prefix a nested error's field ("rollout." + "parallel.tp"). */
int pod_rl__nested(int rc, const char *pre, pod_err *err) {
  if (rc != POD_OK && err) {
    size_t lp = strlen(pre), lf = strlen(err->field);
    if (lp + lf < POD_ERR_FIELD_MAX) {
      memmove(err->field + lp, err->field, lf + 1);
      memcpy(err->field, pre, lp);
    }
  }
  return rc;
}

int pod_rl_check(const pod_rl_cfg *c, pod_err *err) {
  int rc;
  if ((rc = pod_field_check_all(pod_rl_cfg_fields, c, "", err)) ||
      (rc = pod_field_check_all(pod_rl_length_fields, &c->response, "response.",
                                err)))
    return rc;
  if (c->placement < 0 || c->placement > POD_RL_DISAGGREGATED)
    return FAIL("placement", "unknown placement %d", c->placement);
  if (c->async && c->placement != POD_RL_DISAGGREGATED)
    return FAIL("async", "needs the disaggregated placement");
  if ((rc = length_check(&c->response, err))) return rc;
  if (c->sync_method < 0 || c->sync_method > POD_RL_SYNC_BROADCAST)
    return FAIL("sync_method", "unknown method %d", c->sync_method);
  if (c->train.gpus < 1) return FAIL("train.gpus", "must be >= 1");
  if (c->rollout.gpus < 1) return FAIL("rollout.gpus", "must be >= 1");
  int pool = c->placement == POD_RL_COLOCATED ? c->train.gpus : c->rollout_gpus;
  if (c->placement == POD_RL_DISAGGREGATED && c->rollout_gpus < 1)
    return FAIL("rollout_gpus", "must be >= 1 when disaggregated (got %d)",
                c->rollout_gpus);
  if (pool % c->rollout.gpus != 0)
    return FAIL(
        c->placement == POD_RL_COLOCATED ? "rollout.gpus" : "rollout_gpus",
        "%d rollout GPUs do not split into instances of %d", pool,
        c->rollout.gpus);
  if (c->placement == POD_RL_COLOCATED &&
      strcmp(c->rollout.system.name, c->train.system.name) != 0)
    return FAIL("rollout.system",
                "colocated rollout and training share one pool: %s vs %s",
                c->rollout.system.name, c->train.system.name);
  if (strcmp(c->rollout.model.name, c->train.model.name) != 0)
    return FAIL("rollout.model", "the policy is one model: %s vs %s",
                c->rollout.model.name, c->train.model.name);
  return POD_OK;
}

/* ---- order statistics ------------------------------------------------- */

/* 8-point Gauss-Legendre on [-1, 1]. */
static const double GL_X[8] = {-0.9602898564975363, -0.7966664774136267,
                               -0.5255324099163290, -0.1834346424956498,
                               0.1834346424956498,  0.5255324099163290,
                               0.7966664774136267,  0.9602898564975363};
static const double GL_W[8] = {0.1012285362903763, 0.2223810344533745,
                               0.3137066578778874, 0.3626837833783620,
                               0.3626837833783620, 0.3137066578778874,
                               0.2223810344533745, 0.1012285362903763};
/* Panels in v, dense towards v = 1 where the tail lives. */
static const double PANEL[6] = {0.0, 0.6, 0.9, 0.99, 0.999, 1.0};

/* E[min(X, cap)] of a lognormal in closed form:
** e^(mu + s^2/2) Phi((ln c - mu - s^2)/s) + c (1 - Phi((ln c - mu)/s)). */
static double lognormal_capped_mean(double mu, double s, double cap) {
  if (!(cap < HUGE_VAL)) return exp(mu + 0.5 * s * s);
  double z = (log(cap) - mu) / s;
  double phi_a = 0.5 * erfc(-(z - s) / 1.4142135623730951),
         q = 0.5 * erfc(z / 1.4142135623730951);
  return exp(mu + 0.5 * s * s) * phi_a + cap * q;
}

/* E[min(X, cap)^2]: lognormal in closed form, else the quadrature of
** pod_rl_expected_max at n = 1. */
static double capped_m2(const pod_rl_length *len, double cap) {
  if (len->kind == POD_DIST_LOGNORMAL) {
    double mu = len->p[0], s = len->p[1];
    if (!(cap < HUGE_VAL)) return exp(2.0 * mu + 2.0 * s * s);
    double z = (log(cap) - mu) / s;
    double phi_a = 0.5 * erfc(-(z - 2.0 * s) / 1.4142135623730951),
           q = 0.5 * erfc(z / 1.4142135623730951);
    return exp(2.0 * mu + 2.0 * s * s) * phi_a + cap * cap * q;
  }
  pod_dist d = to_dist(len);
  double m = 0.0;
  for (int p = 0; p < 5; p++) {
    double a = PANEL[p], b = PANEL[p + 1], h = 0.5 * (b - a);
    for (int i = 0; i < 8; i++) {
      double q = pod_dist_quantile(&d, a + h * (GL_X[i] + 1.0));
      if (q > cap) q = cap;
      m += GL_W[i] * h * q * q;
    }
  }
  return m;
}

double pod_rl_expected_max(const pod_rl_length *len, double n, double cap) {
  if (n <= 1.0 && len->kind == POD_DIST_LOGNORMAL)
    return lognormal_capped_mean(len->p[0], len->p[1], cap);
  pod_dist d = to_dist(len);
  double s = 0.0, inv = 1.0 / (n >= 1.0 ? n : 1.0);
  for (int p = 0; p < 5; p++) {
    double a = PANEL[p], b = PANEL[p + 1], h = 0.5 * (b - a);
    for (int i = 0; i < 8; i++) {
      double v = a + h * (GL_X[i] + 1.0);
      double u = inv == 1.0 ? v : exp(log(v) * inv);
      double q = pod_dist_quantile(&d, u);
      s += GL_W[i] * h * (q < cap ? q : cap);
    }
  }
  return s < cap ? s : cap; /* the weights sum to 1 within 1e-8 */
}

const pod_field pod_rl_expected_max_args[] = {
    {"n", 0, POD_F_DOUBLE, 1, 1e12, 0, "draws"},
    {"cap", 0, POD_F_DOUBLE, 0, HUGE_VAL, POD_F_MIN_OPEN, "tokens"},
    POD_FIELD_END};

int pod_rl_expected_max_checked(const pod_rl_length *len, double n, double cap,
                                double *out, pod_err *err) {
  int rc;
  if ((rc = pod_field_check_all(pod_rl_length_fields, len, "response.", err)) ||
      (rc = length_check(len, err)))
    return rc;
  const pod_field *fn = &pod_rl_expected_max_args[0],
                  *fc = &pod_rl_expected_max_args[1];
  if (!pod_field_ok(fn, n)) return pod_field_error(fn, n, NULL, err);
  if (!(cap == HUGE_VAL) && !pod_field_ok(fc, cap))
    return pod_field_error(fc, cap, NULL, err);
  *out = pod_rl_expected_max(len, n, cap);
  return POD_OK;
}

/* ---- the step ------------------------------------------------------------ */

static double wbytes_of(pod_dtype d) {
  return d == POD_DTYPE_FP8 ? 1.0 : d == POD_DTYPE_FP4 ? 0.5625 : 2.0;
}

static int coll(const pod_system *y, pod_coll_op op, int n, int rpd,
                double bytes, double *t, pod_err *err) {
  *t = 0.0;
  if (n <= 1) return POD_OK;
  pod_coll_args a = {n, rpd, bytes, POD_ALGO_AUTO};
  pod_coll_result r;
  int rc = pod_coll_eval(y, op, &a, &r, err);
  if (rc == POD_OK) *t = r.time_s;
  return rc;
}

static double nic_Bps(const pod_system *y) {
  return y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
}

typedef struct step_ctx {
  int pool_r, pool_t; /* rollout and trainer GPUs (same when colocated) */
  int inst;           /* rollout instances */
  double n_seq, mean, lmax;
  double split; /* slowest instance's work over the mean instance's */
  double m2;    /* E[min(L, cap)^2] */
} step_ctx;

/* Generation: prompt prefill, then decode while the batch drains. */
static int rollout_time(const pod_rl_cfg *c, const step_ctx *k,
                        pod_rl_result *o, pod_err *err) {
  pod_serve_cfg s = c->rollout;
  s.disaggregated = 0;
  /* Decode at the token-weighted context: a sequence's token p reads
  ** input + p of KV, so over all generated tokens the mean context is
  ** input + E[L^2] / (2 E[L]) (not input + E[L] / 2), and under
  ** continuous batching a sequence in flight holds that much KV on
  ** average (length-biased: long responses occupy their slots longer).
  ** podsim.serve reads input + output/2 and holds input + output, so one
  ** output token at a shifted input gives both. */
  double ctx = k->mean > 0.0 ? k->m2 / (2.0 * k->mean) : 0.0;
  s.input_tokens = c->input_tokens + (ctx > 0.5 ? ctx - 0.5 : 0.0);
  s.output_tokens = 1.0;
  double per_inst = k->n_seq / k->inst;
  int want = s.batch, maxb = 0;
  int rc = pod_rl__nested(pod_serve_max_batch(&s, &maxb, err), "rollout.", err);
  if (rc) return rc;
  double cap = want > 0 && want < maxb ? want : maxb;
  double b0 = per_inst < cap ? ceil(per_inst) : cap;
  if (b0 < 1) b0 = 1;
  s.batch = (int)b0;
  if ((rc = pod_rl__nested(pod_serve_eval_checked(&s, &o->serve, err),
                           "rollout.", err)))
    return rc;
  double t1 = o->serve.tpot_s * o->serve.tokens_per_step; /* one step */
  double s0 = t1, s1 = 0.0;
  if (b0 >= 2) {
    pod_serve_result half;
    s.batch = (int)(b0 / 2);
    if ((rc = pod_rl__nested(pod_serve_eval_checked(&s, &half, err), "rollout.",
                             err)))
      return rc;
    double t2 = half.tpot_s * half.tokens_per_step;
    s1 = (t1 - t2) / (b0 - s.batch);
    if (s1 < 0.0) s1 = 0.0;
    s0 = t1 - s1 * b0;
    if (s0 < 0.0) s0 = 0.0;
  }
  double tps = o->serve.tokens_per_step;
  double dec, tail, split = 0.0;
  if (c->partial) {
    dec = per_inst * k->mean * t1 / (b0 * tps);
    tail = 0.0;
  } else if (per_inst <= b0) {
    split = s1 * per_inst * k->mean * (k->split - 1.0) / tps;
    dec = (s0 * k->lmax + s1 * per_inst * k->mean) / tps + split;
    tail = dec - split - t1 * k->mean / tps;
  } else {
    tail = s0 * (k->lmax - k->mean) / tps;
    double work = per_inst * k->mean * t1 / (b0 * tps);
    split = work * (k->split - 1.0);
    dec = work + split + tail;
  }
  if (tail < 0.0) tail = 0.0;
  double prompts = (double)c->prompts / k->inst; /* samples share a prefix */
  pod_serve_result pr;
  s.input_tokens = c->input_tokens;
  s.output_tokens = 1.0;
  s.batch = 1;
  if ((rc = pod_rl__nested(pod_serve_eval_checked(&s, &pr, err), "rollout.",
                           err)))
    return rc;
  double pre = prompts * c->input_tokens /
               (pr.prefill_tokens_per_s_per_gpu * c->rollout.gpus);
  o->rollout_s = pre + dec;
  o->tail_s = tail;
  o->split_s = split;
  o->rollout_batch = (int)b0;
  return POD_OK;
}

static int train_time(const pod_rl_cfg *c, const step_ctx *k, pod_rl_result *o,
                      pod_err *err) {
  pod_train_cfg t = c->train;
  if (c->placement == POD_RL_DISAGGREGATED) t.gpus = k->pool_t;
  const pod_layout *l = &t.parallel;
  int tp = l->tp > 0 ? l->tp : 1, pp = l->pp > 0 ? l->pp : 1;
  int cp = l->cp > 0 ? l->cp : 1, mb = l->microbatch > 0 ? l->microbatch : 1;
  long tpc = (long)tp * pp * cp;
  int dp = l->dp > 0 ? l->dp : (int)(t.gpus / tpc);
  if (dp < 1) dp = 1;
  double seq = ceil(c->input_tokens + k->mean);
  if (cp > 1) seq = ceil(seq / (2.0 * cp)) * 2.0 * cp;
  long unit = (long)dp * mb;
  double gbs = ceil(k->n_seq / c->minibatches / unit) * unit;
  if (seq > 1 << 24 || gbs > 1 << 28)
    return FAIL("train.global_batch", "step too large (%g x %g)", gbs, seq);
  t.seq = (int)seq;
  t.global_batch = (int)gbs;
  int rc = pod_rl__nested(pod_train_eval(&t, &o->train, err), "train.", err);
  if (rc) return rc;
  if (!o->train.fits)
    return FAIL("train.gpus",
                "the training step needs %.1f GB per GPU, more than the "
                "%.0f GB HBM",
                o->train.memory.total_gb, t.system.gpu.hbm_gb);
  double passes = (double)c->minibatches * c->epochs;
  o->train_s = o->train.step_s * passes * (c->critic ? 2.0 : 1.0);
  double fwd = o->train.breakdown.compute * c->minibatches / 3.0;
  int nf = c->ref_model + c->old_logprob + c->reward_model + c->critic;
  o->score_s = nf * fwd + c->reward_s;
  return POD_OK;
}

static int sync_time(const pod_rl_cfg *c, const step_ctx *k, pod_rl_result *o,
                     pod_err *err) {
  pod_model_params p;
  pod_model_params_count(&c->train.model, &p);
  double model = p.total * c->sync_bytes;
  double shard = o->serve.memory.weights_gb * 1e9 /
                 wbytes_of(c->rollout.dtype) * c->sync_bytes;
  const pod_system *ry = &c->rollout.system;
  double t = 0.0, x = 0.0;
  int rc;
  o->sync_bytes = model;
  if (c->sync_method == POD_RL_SYNC_BROADCAST) {
    /* checkpoint-engine: buckets of the model are copied in from host
    ** memory one at a time (by their owner) and broadcast to every
    ** rollout GPU, the next bucket's copy overlapping this broadcast; the
    ** copies share PCIe with the NIC traffic (checkpoint-engine README,
    ** limitations), so one copy is in flight */
    double h2d = model / (c->host_GBps * 1e9);
    if ((rc = coll(ry, POD_COLL_BROADCAST, k->pool_r, 0, model, &x, err)))
      return rc;
    t = h2d > x ? h2d : x;
  } else if (c->placement == POD_RL_COLOCATED) {
    /* gather each GPU's rollout shard from the training layout */
    if ((rc = coll(ry, POD_COLL_ALL_GATHER, c->rollout.gpus, 0,
                   shard * c->rollout.gpus, &x, err)))
      return rc;
    t = x;
  } else {
    const pod_system *ty = &c->train.system;
    int same = k->pool_r + k->pool_t <= ry->domain_gpus &&
               strcmp(ry->name, ty->name) == 0;
    double rin = same ? ry->up_GBps * 1e9 * ry->up_eff : nic_Bps(ry);
    double tout = same ? ty->up_GBps * 1e9 * ty->up_eff : nic_Bps(ty);
    double recv = shard / rin, send = model * k->inst / k->pool_t / tout;
    t = (recv > send ? recv : send) +
        (same ? ry->up_latency_us : ry->out_latency_us) * 1e-6;
  }
  if (c->placement == POD_RL_COLOCATED && c->offload) {
    const pod_train_memory *m = &o->train.memory;
    double state = (m->weights_gb + m->grads_gb + m->optimizer_gb) * 1e9;
    t += 2.0 * state / (c->host_GBps * 1e9); /* offload, then reload */
  }
  o->sync_s = t + c->sync_fixed_s;
  return POD_OK;
}

static int cost(const pod_rl_cfg *c, const step_ctx *k, pod_rl_result *o,
                pod_err *err) {
  int colo = c->placement == POD_RL_COLOCATED;
  o->total_gpus = colo ? k->pool_t : k->pool_r + k->pool_t;
  o->gpu_hours_per_step = o->total_gpus * o->step_s / 3600.0;
  double pr = c->rollout.system.usd_per_gpu_hour;
  double pt = c->train.system.usd_per_gpu_hour;
  o->usd_per_step =
      colo ? pt * k->pool_t * o->step_s / 3600.0
           : (pr * k->pool_r + pt * k->pool_t) * o->step_s / 3600.0;
  o->usd_per_m_tokens = o->usd_per_step / (o->generated_tokens / 1e6);
  pod_rel_cfg r = c->rel;
  r.active_gpus = o->total_gpus;
  r.work_h = c->hours;
  r.tokens = 0.0;
  r.tokens_per_s = 0.0;
  pod_rel_result rr;
  int rc = pod_rl__nested(pod_rel_eval(&r, &rr, err), "reliability.", err);
  if (rc) return rc;
  o->goodput = rr.goodput;
  o->spare_gpus = rr.spare_gpus;
  o->usd_per_m_tokens_charged = o->usd_per_m_tokens / rr.goodput *
                                (o->total_gpus + rr.spare_gpus) / o->total_gpus;
  return POD_OK;
}

/* The step's figures: finite and not negative, the step, rollout and
** training times positive; else POD_ERANGE naming the figure (a peak at
** the edge of its bound, a denormal, makes a finite step whose cost
** overflows).  The nested results passed their own screens. */
#define RES(m, pos) POD_RESULT_FIELD(pod_rl_result, m, pos)
static const pod_result_field RESULT[] = {RES(step_s, 1),
                                          RES(rollout_s, 1),
                                          RES(tail_s, 0),
                                          RES(split_s, 0),
                                          RES(score_s, 0),
                                          RES(train_s, 1),
                                          RES(sync_s, 0),
                                          RES(idle_s, 0),
                                          RES(sequences, 1),
                                          RES(mean_response, 1),
                                          RES(max_response, 1),
                                          RES(generated_tokens, 1),
                                          RES(sync_bytes, 0),
                                          RES(gpu_hours_per_step, 1),
                                          RES(usd_per_step, 0),
                                          RES(usd_per_m_tokens, 0),
                                          RES(usd_per_m_tokens_charged, 0),
                                          RES(rollout_util, 0),
                                          RES(train_util, 0),
                                          RES(goodput, 1),
                                          RES(rollout_tokens_per_s_per_gpu, 1)};
#undef RES

static int check_result(const pod_rl_result *o, pod_err *err) {
  return pod_field_check_result(RESULT, sizeof RESULT / sizeof RESULT[0], o,
                                err);
}

int pod_rl_eval(const pod_rl_cfg *c, pod_rl_result *o, pod_err *err) {
  memset(o, 0, sizeof *o);
  int rc = pod_rl_check(c, err);
  if (rc) return rc;
  step_ctx k;
  int colo = c->placement == POD_RL_COLOCATED;
  k.pool_t = c->train.gpus;
  k.pool_r = colo ? c->train.gpus : c->rollout_gpus;
  k.inst = k.pool_r / c->rollout.gpus;
  k.n_seq = (double)c->prompts * c->samples;
  k.mean = pod_rl_expected_max(&c->response, 1.0, c->max_response);
  k.lmax = pod_rl_expected_max(&c->response, k.n_seq, c->max_response);
  k.m2 = capped_m2(&c->response, c->max_response);
  k.split = 1.0;
  if (k.inst > 1 && !c->partial) {
    double var = k.m2 - k.mean * k.mean;
    double cv = var > 0.0 ? sqrt(var) / k.mean : 0.0;
    k.split += pod_serve__normal_max(k.inst) * cv / sqrt(k.n_seq / k.inst);
  }
  o->sequences = k.n_seq;
  o->mean_response = k.mean;
  o->max_response = k.lmax;
  o->generated_tokens = k.n_seq * k.mean;
  o->instances = k.inst;
  if ((rc = rollout_time(c, &k, o, err))) return rc;
  if ((rc = train_time(c, &k, o, err))) return rc;
  if ((rc = sync_time(c, &k, o, err))) return rc;
  double busy_t = o->score_s + o->train_s;
  if (colo) {
    o->step_s = o->rollout_s + busy_t + o->sync_s;
    o->rollout_util = o->rollout_s / o->step_s;
    o->train_util = busy_t / o->step_s;
    o->idle_s = 0.0;
  } else {
    if (c->async) {
      double a = o->rollout_s + o->sync_s;
      o->step_s = a > busy_t ? a : busy_t;
    } else {
      o->step_s = o->rollout_s + busy_t + o->sync_s;
    }
    o->rollout_util = o->rollout_s / o->step_s;
    o->train_util = busy_t / o->step_s;
    o->idle_s = (k.pool_r * (1.0 - o->rollout_util) +
                 k.pool_t * (1.0 - o->train_util)) /
                (k.pool_r + k.pool_t) * o->step_s;
  }
  o->rollout_tokens_per_s_per_gpu =
      o->generated_tokens / o->rollout_s / k.pool_r;
  if ((rc = cost(c, &k, o, err))) return rc;
  return check_result(o, err);
}

int pod_rl_sync_eval(const pod_rl_cfg *c, double *sync_s, double *bytes,
                     pod_err *err) {
  pod_rl_result *o = &(pod_rl_result){0};
  int rc = pod_rl_check(c, err);
  if (rc) return rc;
  step_ctx k;
  int colo = c->placement == POD_RL_COLOCATED;
  k.pool_t = c->train.gpus;
  k.pool_r = colo ? c->train.gpus : c->rollout_gpus;
  k.inst = k.pool_r / c->rollout.gpus;
  k.n_seq = (double)c->prompts * c->samples;
  k.mean = pod_rl_expected_max(&c->response, 1.0, c->max_response);
  k.lmax = k.mean;
  pod_serve_cfg s = c->rollout;
  s.batch = 1;
  s.input_tokens = c->input_tokens;
  s.output_tokens = k.mean;
  s.disaggregated = 0;
  if ((rc =
           pod_rl__nested(pod_serve_eval(&s, &o->serve, err), "rollout.", err)))
    return rc;
  if (colo && c->offload && (rc = train_time(c, &k, o, err))) return rc;
  if ((rc = sync_time(c, &k, o, err))) return rc;
  *sync_s = o->sync_s;
  *bytes = o->sync_bytes;
  return POD_OK;
}

int pod_rl_best_split(const pod_rl_cfg *base, int gpus, int *rollout_gpus,
                      pod_rl_result *out, pod_err *err) {
  if (!pod_field_ok(&pod_rl_split_gpus, gpus))
    return pod_field_error(&pod_rl_split_gpus, gpus, NULL, err);
  pod_rl_cfg c = *base;
  c.placement = POD_RL_DISAGGREGATED;
  int step = c.rollout.gpus > 0 ? c.rollout.gpus : 1;
  int found = 0;
  pod_rl_result r;
  pod_err last;
  pod_err_clear(&last);
  for (int g = step; g < gpus; g += step) {
    c.rollout_gpus = g;
    c.train.gpus = gpus - g;
    if (pod_rl_eval(&c, &r, &last) != POD_OK) continue;
    if (!found || r.step_s < out->step_s) {
      *out = r;
      *rollout_gpus = g;
      found = 1;
    }
  }
  if (!found)
    return pod_err_set(err, POD_ENOTSUP, last.field,
                       "no split of %d GPUs is valid (last: %s)", gpus,
                       last.msg);
  return POD_OK;
}

/* ---- kernel -------------------------------------------------------------- */

static const char *const metric_names[] = {"step_s",
                                           "rollout_s",
                                           "tail_s",
                                           "score_s",
                                           "train_s",
                                           "sync_s",
                                           "idle_s",
                                           "gpu_hours_per_step",
                                           "usd_per_step",
                                           "usd_per_m_tokens",
                                           "usd_per_m_tokens_charged",
                                           "rollout_util",
                                           "train_util",
                                           "goodput",
                                           "generated_tokens",
                                           "max_response"};

static int kernel_fn(const void *cfg, double *x, pod_err *err) {
  pod_rl_result r;
  int rc = pod_rl_eval(cfg, &r, err);
  if (rc) return rc;
  x[0] = r.step_s;
  x[1] = r.rollout_s;
  x[2] = r.tail_s;
  x[3] = r.score_s;
  x[4] = r.train_s;
  x[5] = r.sync_s;
  x[6] = r.idle_s;
  x[7] = r.gpu_hours_per_step;
  x[8] = r.usd_per_step;
  x[9] = r.usd_per_m_tokens;
  x[10] = r.usd_per_m_tokens_charged;
  x[11] = r.rollout_util;
  x[12] = r.train_util;
  x[13] = r.goodput;
  x[14] = r.generated_tokens;
  x[15] = r.max_response;
  return POD_OK;
}

const pod_kernel pod_rl_kernel = {
    "rl", sizeof(pod_rl_cfg),
    (int)(sizeof metric_names / sizeof metric_names[0]), metric_names,
    kernel_fn};
