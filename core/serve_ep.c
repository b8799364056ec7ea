/*
** serve_ep.c: expert dispatch and combine of the serving model
** (pod_serve.h: pod_serve_ep_time and the EP kernel names; serve.c times
** them inside a decode step or prefill pass), and the collective and
** range-check helpers serve.c shares (serve_int.h).  Sources of the
** DeepEP fixed costs are with their defaults in serve.c.
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

/* One DeepEP low-latency dispatch or combine of `bytes` per GPU to `ep`
** ranks: one-sided writes to all peers at once, NVLink to the peers in the
** domain, the NICs to the others (in parallel), plus the fixed cost. */
double pod_serve__ep_ll(const pod_system *y, int ep, double bytes, double ll_us,
                        double ll_up_us) {
  int r = ep_per_domain(y, ep);
  double remote = bytes * (double)(ep - r) / ep;
  double local = bytes * (double)(r - 1) / ep;
  double nic =
      y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
  double up = y->up_GBps * 1e9 * y->up_eff;
  double t_out = remote / nic, t_up = local / up;
  double fixed = ep > r ? ll_us : ll_up_us; /* network signalling or not */
  return fixed * 1e-6 + (t_out > t_up ? t_out : t_up);
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

int pod_serve_ep_time(const pod_system *sys, int ep, int top_k, double tokens,
                      double row_bytes, int kernel, int normal, double ll_us,
                      double ll_up_us, double *time_s, pod_err *err) {
  int rc = pod_hw_system_check(sys, err);
  if (rc != POD_OK) return rc;
  const double arg[] = {ep, top_k, tokens, row_bytes};
  for (int i = 0; pod_serve_ep_args[i].name; i++)
    if (!pod_field_ok(&pod_serve_ep_args[i], arg[i]))
      return pod_field_error(&pod_serve_ep_args[i], arg[i], NULL, err);
  /* the fixed costs take the bounds of the config's ep_ll_us, ep_ll_up_us */
  const double fixed[2] = {ll_us, ll_up_us};
  static const char *const fixed_name[2] = {"ll_us", "ll_up_us"};
  for (int i = 0; i < 2; i++) {
    const pod_field *f =
        pod_field_find(pod_serve_cfg_fields, i ? "ep_ll_up_us" : "ep_ll_us");
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
    return POD_OK;
  }
  double bytes = tokens * top_k * row_bytes;
  if (kernel == POD_SERVE_EP_DEEPEP_LL) {
    *time_s = pod_serve__ep_ll(sys, ep, bytes, ll_us, ll_up_us);
    return POD_OK;
  }
  return pod_serve__coll(sys, POD_COLL_ALL_TO_ALL, ep, 0, bytes, time_s, err);
}

int pod_serve__decode_ep(const pod_serve_cfg *c, int ep, double disp,
                         double comb, double *t, pod_err *err) {
  double td, tc;
  if (c->ep_kernel == POD_SERVE_EP_DEEPEP_LL) {
    int halves = c->two_batch_overlap ? 2 : 1;
    td = halves * pod_serve__ep_ll(&c->system, ep, disp / halves, c->ep_ll_us,
                                   c->ep_ll_up_us);
    tc = halves * pod_serve__ep_ll(&c->system, ep, comb / halves, c->ep_ll_us,
                                   c->ep_ll_up_us);
  } else {
    int rc =
        pod_serve__coll(&c->system, POD_COLL_ALL_TO_ALL, ep, 0, disp, &td, err);
    if (rc == POD_OK)
      rc = pod_serve__coll(&c->system, POD_COLL_ALL_TO_ALL, ep, 0, comb, &tc,
                           err);
    if (rc != POD_OK) return rc;
  }
  *t = td + tc;
  return POD_OK;
}
