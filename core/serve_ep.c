/*
** serve_ep.c: expert dispatch and combine of the serving model
** (pod_serve.h: pod_serve_ep_time and the EP kernel names; serve.c times
** them inside a decode step or prefill pass), the expert imbalance, and
** the collective and range-check helpers serve.c shares (serve_int.h).
** Sources of the defaults serve.c sets (EP_LL_US, EP_LL_UP_US,
** EXPERT_CV):
**  - ep_ll_us 34: the fixed part of one DeepEP low-latency dispatch or
**    combine (kernel launch, GPU-initiated RDMA signalling).  FITTED on
**    one row of the DeepEP README table (deepseek-ai/DeepEP, legacy V1
**    "Low-latency kernels with pure RDMA": H800 + CX7 400 Gb/s, 128 tokens
**    per rank, hidden 7168, top-8, fp8 dispatch, bf16 combine; EP32
**    dispatch 155 us: 5.68 MB of remote traffic at 47 GB/s leaves 34 us);
**    the other nine rows of that table (EP16-EP256) are predictions
**    (tests/validation/s1_deepep_ll.lua);
**  - ep_ll_up_us 19: the same fixed part when every peer is on the
**    scale-up fabric (no network signalling).  FITTED on one row of the
**    NVLink low-latency table of deepseek-ai/DeepEP PR #173 (H20, 128
**    tokens, EP8 dispatch 37 us: 6.6 MB over NVLink at 371 GB/s leaves
**    19 us); its EP8 combine and EP16-EP64 rows are predictions
**    (tests/validation/s1_deepep_ll.lua).  This is the decode path of
**    GB200 NVL72's 72-GPU domain;
**  - ep_cast_us 10.4: DeepEP's NVFP4 low-latency dispatch casts each bf16
**    token inside the send (LMSYS 2025-09-25, "Fusing NVFP4 in DeepEP";
**    deepseek-ai/DeepEP internode_ll.cu dispatch, NVFP4 path of PR #341 at
**    ef73fd9): the kernel runs on SMs = ceil(E / ceil(E / SMs_gpu)) blocks
**    for E experts (its host launch rule: one warp group per expert, 32
**    warps per SM), each block takes tokens sm_id, sm_id + SMs, ... one at
**    a time, and for each casts the token with all but one of its warps
**    (bf16 read, amax per 16, e4m3 scale, e2m1 pack), waits on a block
**    barrier, then issues the top_k copies with one warp each before the
**    next token's cast: a token's cast and the link time of its copies add
**    on its SM.  pod_serve__ep_ll adds ceil(tokens / SMs) x ep_cast_us to
**    the bytes-bound send.  FITTED on one row of deepseek-ai/DeepEP PR #385
**    (GB200 NVL72, nvfp4, 48 ranks, 768 tokens: 117.5 us; 6 tokens per SM
**    of 144 for 288 experts, 55.3 us of fixed part and link time leave
**    6 x 10.4 us); its 128-token rows (1 token per SM) are predictions
**    (tests/validation/s1_deepep_ll.lua).  10 us is far above the cast's
**    arithmetic (7 elements per thread): it is the whole per-token chain of
**    that kernel version on one SM (reads, barrier, slot atomics, copy
**    issue, release), measured, not counted.  The fp8 dispatch casts too,
**    but its rows (H800, H20: 1-2 tokens per SM) leave no room for more
**    than ~1 us per token, so ep_cast_us applies to NVFP4 only;
**  - expert_cv 0.55: with EP the busiest GPU sets a MoE layer
**    (pod_serve__ep_imbalance below): its routed copies are a
**    multinomial count (what random routing leaves: SGLang's "simulated
**    perfect EPLB", DeepSeek's "absolutely balanced" profile) plus each
**    expert's per-batch load drifting about the mean its EPLB placement
**    balanced, relative sd expert_cv, independent over experts (LMSYS
**    2025-05-05, "larger batches reduce random fluctuations in expert
**    usage", "even with EPLB, some imbalance is inevitable"; LMSYS
**    2026-06-26, Waterfill/LPLB: "a single batch can still have residual
**    imbalance").  FITTED on the one published pair of the same
**    deployment with and without it: SGLang's 4K prefill on 32 H100, 59,337
**    tokens/s/node with simulated perfect EPLB over 50,302 with the default
**    placement (LMSYS 2025-05-05 profile table: 1.18x).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pod_coll.h"
#include "pod_field.h"
#include "pod_serve.h"
#include "serve_int.h"

#define FAIL(field, ...) pod_err_set(err, POD_EINVAL, field, __VA_ARGS__)

const char *const pod_serve_ep_kernel_names[] = {"deepep_ll", "nccl", NULL};
const char *const pod_serve_ep_time_kernel_names[] = {"deepep_ll", "nccl",
                                                      "deepep_normal", NULL};

const char *pod_serve_ep_kernel_name(int k) {
  if (k < 0 || k > POD_SERVE_EP_NCCL) return "?";
  return pod_serve_ep_kernel_names[k];
}

int pod_serve_ep_kernel_parse(const char *name, int *out) {
  for (int i = 0; i <= POD_SERVE_EP_NCCL; i++)
    if (name && strcmp(name, pod_serve_ep_kernel_names[i]) == 0) {
      *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

int pod_serve__range_error(double x, double lo, double hi, int open,
                           const char *field, pod_err *err) {
  return FAIL(field, "must be in %s%g, %g], got %g", open ? "(" : "[", lo, hi,
              x);
}

int pod_serve__coll(const pod_system *sys, pod_coll_op op, int ranks, int rpd,
                    double bytes, double *t, pod_err *err) {
  if (ranks <= 1) {
    *t = 0.0;
    return POD_OK;
  }
  pod_coll_args a = {ranks, rpd, bytes, POD_ALGO_AUTO};
  pod_coll_result r;
  int rc = pod_coll_eval(sys, op, &a, &r, err);
  *t = r.time_s;
  return rc;
}

/* x^n for a small n >= 0 (top_k), by squaring: cheaper than pow(). */
static double ipow(double x, int n) {
  double r = 1.0;
  for (; n > 0; n >>= 1, x *= x)
    if (n & 1) r *= x;
  return r;
}

/* Ranks of an `ep`-wide group sharing one scale-up domain (packed). */
static int ep_per_domain(const pod_system *sys, int ep) {
  return ep < sys->domain_gpus ? ep : sys->domain_gpus;
}

double pod_serve__sm_count(const pod_gpu *g) {
  /* B200 148 (NVIDIA Blackwell architecture technical brief), H100/H800
  ** SXM5 132 (NVIDIA H100 whitepaper), A100 108; the presets' GPUs;
  ** Blackwell: the GPUs with fp4 tensor cores */
  if (g->fp4_tflops > 0.0) return 148.0;
  return g->fp8_tflops > 0.0 ? 132.0 : 108.0;
}

int pod_serve__ep_ll_sms(const pod_gpu *g, int experts) {
  /* DeepEP internode_ll.cu, the dispatch launch: warp groups per SM
  ** ceil(E / SMs), blocks ceil(E / groups) */
  int sms = (int)pod_serve__sm_count(g);
  if (experts < 1) experts = 1;
  int groups = (experts + sms - 1) / sms;
  return (experts + groups - 1) / groups;
}

/* One DeepEP low-latency dispatch or combine of `bytes` per GPU to `ep`
** ranks: one-sided writes to all peers at once, NVLink to the peers in the
** domain, the NICs to the others (in parallel), plus the fixed cost, plus
** the NVFP4 cast of each token on its sending SM (see the header). */
double pod_serve__ep_ll(const pod_system *y, int ep, double bytes, double ll_us,
                        double ll_up_us, double tokens, int experts,
                        double cast_us) {
  int r = ep_per_domain(y, ep);
  double remote = bytes * (double)(ep - r) / ep;
  double local = bytes * (double)(r - 1) / ep;
  double nic =
      y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
  double up = y->up_GBps * 1e9 * y->up_eff;
  double t_out = remote / nic, t_up = local / up;
  double fixed = ep > r ? ll_us : ll_up_us; /* network signalling or not */
  double cast = 0.0;
  if (cast_us > 0.0 && tokens > 0.0)
    cast = ceil(tokens / pod_serve__ep_ll_sms(&y->gpu, experts)) * cast_us;
  return (fixed + cast) * 1e-6 + (t_out > t_up ? t_out : t_up);
}

/* One DeepEP normal (high-throughput) dispatch or combine of `tokens`
** per GPU of `row` bytes over `ep` ranks: a token crosses the scale-out
** network once per remote domain holding one of its top_k experts (then
** fans out over NVLink), and reaches each local rank holding one once;
** both paths run at once (DeepEP README, normal kernels). */
double pod_serve__ep_normal(const pod_system *y, int ep, int top_k,
                            double tokens, double row) {
  int r = ep_per_domain(y, ep);
  double nd = (double)ep / r; /* domains in the group */
  double remote_domains = (nd - 1.0) * (1.0 - ipow(1.0 - 1.0 / nd, top_k));
  double local_ranks = (r - 1.0) * (1.0 - ipow(1.0 - 1.0 / ep, top_k));
  double nic =
      y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
  double up = y->up_GBps * 1e9 * y->up_eff;
  double t_out = tokens * row * remote_domains / nic;
  double t_up = tokens * row * local_ranks / up;
  return (t_out > t_up ? t_out : t_up) + y->up_latency_us * 1e-6;
}

/* The time of a dispatch: finite (a denormal up_eff or NIC rate, within
** its bound, made it inf); else POD_ERANGE and *t reset to 0. */
static int time_ok(double *t, pod_err *err) {
  if (isfinite(*t) && *t >= 0.0) return POD_OK;
  double v = *t;
  *t = 0.0;
  return pod_err_set(err, POD_ERANGE, "time_s",
                     "is %g: the system's rates (a bandwidth or an efficiency "
                     "at the edge of its bound) overflow the dispatch time",
                     v);
}

int pod_serve_ep_time(const pod_system *sys, int ep, int top_k, double tokens,
                      double row_bytes, int kernel, int normal, double ll_us,
                      double ll_up_us, int experts, double cast_us,
                      double *time_s, pod_err *err) {
  int rc = pod_hw_system_check(sys, err);
  if (rc != POD_OK) return rc;
  const double arg[] = {ep, top_k, tokens, row_bytes, experts};
  for (int i = 0; pod_serve_ep_args[i].name; i++)
    if (!pod_field_ok(&pod_serve_ep_args[i], arg[i]))
      return pod_field_error(&pod_serve_ep_args[i], arg[i], NULL, err);
  /* the fixed costs and the cast take the bounds of the config's
  ** ep_ll_us, ep_ll_up_us and ep_cast_us */
  const double fixed[3] = {ll_us, ll_up_us, cast_us};
  static const char *const fixed_name[3] = {"ll_us", "ll_up_us", "cast_us"};
  static const char *const cfg_name[3] = {"ep_ll_us", "ep_ll_up_us",
                                          "ep_cast_us"};
  for (int i = 0; i < 3; i++) {
    const pod_field *f = pod_field_find(pod_serve_cfg_fields, cfg_name[i]);
    if (!pod_field_ok(f, fixed[i])) {
      pod_field_error(f, fixed[i], NULL, err);
      if (err) snprintf(err->field, sizeof err->field, "%s", fixed_name[i]);
      return POD_EINVAL;
    }
  }
  if (kernel < 0 || kernel > POD_SERVE_EP_NCCL)
    return FAIL("kernel", "unknown kernel %d", kernel);
  *time_s = 0.0;
  if (ep == 1) return POD_OK;
  if (normal) {
    *time_s = pod_serve__ep_normal(sys, ep, top_k, tokens, row_bytes);
    return time_ok(time_s, err);
  }
  double bytes = tokens * top_k * row_bytes;
  if (kernel == POD_SERVE_EP_DEEPEP_LL) {
    *time_s = pod_serve__ep_ll(sys, ep, bytes, ll_us, ll_up_us, tokens, experts,
                               cast_us);
    return time_ok(time_s, err);
  }
  return pod_serve__coll(sys, POD_COLL_ALL_TO_ALL, ep, 0, bytes, time_s, err);
}

int pod_serve__decode_ep(const pod_serve_cfg *c, int ep, double tokens,
                         double disp, double comb, double *t, double *t_comb,
                         pod_err *err) {
  double td, tc;
  if (c->ep_kernel == POD_SERVE_EP_DEEPEP_LL) {
    int halves = c->two_batch_overlap ? 2 : 1;
    /* the NVFP4 dispatch casts in the kernel (see the header) */
    double cast = c->dtype == POD_DTYPE_FP4 ? c->ep_cast_us : 0.0;
    int experts = c->model.experts + c->redundant_experts;
    td = halves * pod_serve__ep_ll(&c->system, ep, disp / halves, c->ep_ll_us,
                                   c->ep_ll_up_us, tokens / halves, experts,
                                   cast);
    tc = halves * pod_serve__ep_ll(&c->system, ep, comb / halves, c->ep_ll_us,
                                   c->ep_ll_up_us, 0.0, experts, 0.0);
  } else {
    int rc =
        pod_serve__coll(&c->system, POD_COLL_ALL_TO_ALL, ep, 0, disp, &td, err);
    if (rc == POD_OK)
      rc = pod_serve__coll(&c->system, POD_COLL_ALL_TO_ALL, ep, 0, comb, &tc,
                           err);
    if (rc != POD_OK) return rc;
  }
  *t = td + tc;
  *t_comb = tc;
  return POD_OK;
}

/* Phi^-1(p) for p in (0.5, 1) by Acklam's rational approximation
** (relative error below 1.2e-9): the serving kernel evaluates it per
** call, and it costs a fifth of the general quantile. */
static double normal_upper_quantile(double p) {
  static const double a[6] = {-3.969683028665376e+01, 2.209460984245205e+02,
                              -2.759285104469687e+02, 1.383577518672690e+02,
                              -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[5] = {-5.447609879822406e+01, 1.615858368580409e+02,
                              -1.556989798598866e+02, 6.680131188771972e+01,
                              -1.328068155288572e+01};
  static const double c[6] = {-7.784894002430293e-03, -3.223964580411365e-01,
                              -2.400758277161838e+00, -2.549732539343734e+00,
                              4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[4] = {7.784695709041462e-03, 3.224671290700398e-01,
                              2.445134137142996e+00, 3.754408661907416e+00};
  if (p <= 1.0 - 0.02425) {
    double q = p - 0.5, r = q * q;
    return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r +
            a[5]) *
           q /
           (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1.0);
  }
  double q = sqrt(-2.0 * log(1.0 - p));
  return -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q +
           c[5]) /
         ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1.0);
}

double pod_serve__normal_max(double n) {
  if (n <= 1.0) return 0.0;
  return normal_upper_quantile((n - 0.375) / (n + 0.25));
}

double pod_serve__ep_imbalance(int ep, int local, double copies, double cv) {
  if (ep <= 1 || local <= 0 || copies <= 0.0) return 1.0;
  double z = pod_serve__normal_max(ep);
  return 1.0 + z * sqrt(1.0 / copies + cv * cv / local);
}
