/*
** train_act.c: stored activations of the training step (pod_train.h,
** DESIGN.md 4.3): recompute, whole and per module, and fine-grained
** activation offload to host memory.
**
** Offload (Megatron-Core fine_grained_activation_offloading,
** offload_modules; NVIDIA/Megatron-LM
** docs/source/api-guide/fine_grained_activation_offloading.md and the
** Megatron Core developer guide 0.18-0.19, "Fine-Grained Activation
** Offloading"): a flagged module's saved tensors go to host memory
** after its forward and come back before its backward, on the copy
** engines, prefetched one module ahead.  Per layer and micro-batch, with
** B the offloaded bytes and R = host_link_GBps x host_link_eff:
**
**   HBM:   stored activations - B x (layers x micro-batches in flight)
**          + B (the layer being reloaded: the working set)
**   host:  B x layers x micro-batches in flight <= host_mem_gb
**   time:  exposed(B / R, overlap_offload, forward)     d2h
**        + exposed(B / R, overlap_offload, backward)    h2d
**
** the forward being 1/3 and the backward 2/3 of the layer's compute (the
** 2 : 4 FLOPs of forward and backward GEMMs).  Offload and reload run in
** opposite directions, each at the per-direction rate.  On 8-GPU PCIe
** nodes R is ~53 GB/s, on GB200/GB300 superchips ~173 GB/s per GPU
** (hw.c): the mechanism by which NVL72 hides offload that HGX exposes.
*/
#include "train_int.h"

/* Stored activations and the recomputed work under cfg->recompute. */
void pod_train__apply_recompute(int recompute, double Tt, double h, double keep,
                                double recomp, pod_train__layer_cost *o) {
  o->full_act_bytes = 2.0 * Tt * (keep + recomp);
  switch (recompute) {
    case POD_RECOMPUTE_NONE:
      o->act_bytes = o->full_act_bytes;
      break;
    case POD_RECOMPUTE_SELECTIVE:
      o->act_bytes = 2.0 * Tt * keep;
      o->attn_flops *= 4.0 / 3.0;
      o->ew_bytes *= 4.0 / 3.0;
      break;
    default: /* full: keep the layer input; rerun the forward */
      o->act_bytes = 2.0 * Tt * h;
      o->gemm_flops *= 4.0 / 3.0;
      o->gemm_expert_flops *= 4.0 / 3.0;
      o->attn_flops *= 4.0 / 3.0;
      o->ew_bytes *= 4.0 / 3.0;
      o->tp_s *= 1.5;
      o->ep_s *= 1.5;
      o->cp_s *= 4.0 / 3.0;
      o->fixed_s *= 4.0 / 3.0;
      break;
  }
}

/* Recompute modules on top of "none": each drops its stored tensors and
** adds the forward work that rebuilds them (norms and activation
** functions: one read and one write of their bf16 input and output). */
void pod_train__apply_modules(const pod_layout *l, double Tt, double h,
                              pod_train__layer_cost *o) {
  const pod_recompute_set *r = &l->recompute_modules;
  double drop = 0.0;
  if (r->layernorm) {
    drop += o->act_norm;
    o->ew_bytes += Tt * 8.0 * h * 2.0;
  }
  if (r->moe_act && o->gemm_expert_flops > 0.0) {
    drop += o->act_fn;
    o->ew_bytes += Tt * 6.0 * o->act_fn;
  }
  if (r->mla_up_proj && o->up_flops > 0.0) {
    drop += o->act_up;
    o->gemm_flops += o->up_flops;
  }
  if (r->core_attn) {
    drop += o->act_core;
    o->attn_flops *= 4.0 / 3.0;
  }
  if (r->mlp && o->mlp_fwd_flops > 0.0) {
    drop += o->act_mlp - (r->layernorm ? o->act_norm * 0.5 : 0.0);
    o->gemm_flops += o->mlp_fwd_flops;
  }
  o->act_bytes -= 2.0 * Tt * drop;
  if (o->act_bytes < 2.0 * Tt * h) o->act_bytes = 2.0 * Tt * h;
}

/* Elements per token the flags of l take from the stored tensors. */
static double offload_elems(const pod_offload_set *f,
                            const pod_train__act_parts *a) {
  return (f->attn_norm ? a->attn_in : 0.0) + (f->core_attn ? a->qkv : 0.0) +
         (f->attn_proj ? a->attn_out : 0.0) + (f->mlp_norm ? a->mlp_in : 0.0) +
         (f->expert_fc1 ? a->fc1_in : 0.0) + (f->moe_act ? a->fc1_out : 0.0);
}

int pod_train__offloads(const pod_layout *l) {
  const pod_offload_set *f = &l->offload_modules;
  return f->attn_norm | f->core_attn | f->attn_proj | f->mlp_norm |
         f->expert_fc1 | f->moe_act;
}

void pod_train__apply_offload(const pod_layout *l, double Tt,
                              const pod_train__act_parts *a,
                              pod_train__layer_cost *o) {
  o->off_bytes = 0.0;
  if (!pod_train__offloads(l)) return;
  pod_train__act_parts st = *a;
  /* Full recompute keeps only the layer input (the attention norm's). */
  if (l->recompute == POD_RECOMPUTE_FULL)
    st = (pod_train__act_parts){a->attn_in, 0, 0, 0, 0, 0};
  double b = 2.0 * Tt * offload_elems(&l->offload_modules, &st);
  if (b > o->act_bytes) b = o->act_bytes;
  o->off_bytes = b;
  o->act_bytes -= b;
}

/* Exposed time of a copy of t seconds, a fraction ov of it hidden under
** `window` seconds of compute. */
static double exposed_copy(double t, double ov, double window) {
  double hid = ov * t;
  return t - (hid > window ? window : hid);
}

double pod_train__offload_s(const pod_train_cfg *c, double bytes,
                            double compute_s) {
  if (bytes <= 0.0) return 0.0;
  const pod_system *s = &c->system;
  double t = bytes / (s->host_link_GBps * s->host_link_eff * 1e9);
  double ov = c->overlap_offload;
  return exposed_copy(t, ov, compute_s / 3.0) +
         exposed_copy(t, ov, 2.0 * compute_s / 3.0);
}

int pod_train__check_offload(const pod_train_cfg *c, pod_err *err) {
  /* the flags' bounds: pod_train_offload_set_fields (train_check.c) */
  if (!pod_train__offloads(&c->parallel)) return POD_OK;
  const pod_system *s = &c->system;
  NEED(s->host_link_GBps > 0.0 && s->host_link_eff > 0.0,
       "parallel.offload_modules",
       "needs a host link: system.host_link_GBps and host_link_eff are %g "
       "and %g",
       s->host_link_GBps, s->host_link_eff);
  NEED(s->host_mem_gb > 0.0, "parallel.offload_modules",
       "needs host memory: system.host_mem_gb is 0");
  return POD_OK;
}
