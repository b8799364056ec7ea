/*
** serve_int.h: internals of the serving model (core/serve*.c) shared by
** serve.c (prefill and decode) and serve_ep.c (dispatch, combine and
** helpers); callers use pod_serve.h only.  Convention as train_int.h:
** pod_serve__name is not part of the API.
*/
#ifndef POD_SERVE_INT_H
#define POD_SERVE_INT_H

#include "pod_coll.h"
#include "pod_serve.h"

/* A resolved layout of one instance. */
typedef struct lay {
  int n, tp, dp, pp, ep, etp, local; /* local: physical experts per GPU */
} lay;

/* Resolve layout p of n GPUs for model m (with `redundant` extra expert
** replicas) into *o; errors name `pre` + the field (serve_check.c). */
int pod_serve__resolve(const pod_model *m, int n, const pod_serve_par *p,
                       int redundant, const char *pre, lay *o, pod_err *err);

/* Every check of pod_serve_check beyond the system and the model (the
** entry point of a config whose system and model are checked). */
int pod_serve__check_rest(const pod_serve_cfg *c, pod_err *err);

/* The result of an evaluation: every figure finite and not negative, the
** step, the pass and the rates positive; else POD_ERANGE naming the
** result field (extreme inputs within their bounds, a denormal peak, can
** overflow a figure). */
int pod_serve__check_result(const pod_serve_result *o, pod_err *err);

/* POD_EINVAL naming `field`: x is not in [lo, hi] ((lo, hi] with open). */
int pod_serve__range_error(double x, double lo, double hi, int open,
                           const char *field, pod_err *err);

/* POD_OK when x is finite and in [lo, hi] ((lo, hi] with open), else
** pod_serve__range_error (inline: a config check runs ~20 of these). */
static inline int pod_serve__check_num(double x, double lo, double hi, int open,
                                       const char *field, pod_err *err) {
  if (pod_finite(x) && (open ? x > lo : x >= lo) && x <= hi) return POD_OK;
  return pod_serve__range_error(x, lo, hi, open, field, err);
}

/* pod_coll_eval's time of op on `ranks` ranks (0 for one rank). */
int pod_serve__coll(const pod_system *sys, pod_coll_op op, int ranks, int rpd,
                    double bytes, double *t, pod_err *err);

/* Streaming multiprocessors per GPU by generation (serve_ep.c). */
double pod_serve__sm_count(const pod_gpu *g);

/* One DeepEP low-latency dispatch or combine of `bytes` per GPU over `ep`
** ranks, fixed cost ll_us (network peers) or ll_up_us (all on NVLink);
** with cast_us > 0 (the NVFP4 dispatch) plus cast_us per token on its
** sending SM: ceil(tokens / SMs) tokens per SM, the kernel's SMs set by
** `experts` (DeepEP's launch rule, pod_serve__ep_ll_sms). */
double pod_serve__ep_ll(const pod_system *y, int ep, double bytes, double ll_us,
                        double ll_up_us, double tokens, int experts,
                        double cast_us);

/* Wave quantisation of the NVFP4 masked grouped expert GEMMs in decode
** (serve.c): the work ceil(tiles / SMs) waves of 128 x 128 tiles do over
** the useful work of fc1 (N 2f, K h) and fc2 (N h, K f) for `local`
** experts of `me` rows each; 1 unless dtype is fp4 on Blackwell. */
double pod_serve__masked_waves(const pod_gpu *g, int dtype, double h, double f,
                               int local, double me);

/* SMs DeepEP's low-latency kernels launch on for `experts` experts. */
int pod_serve__ep_ll_sms(const pod_gpu *g, int experts);

/* One DeepEP normal dispatch or combine of `tokens` per GPU of `row`
** bytes over `ep` ranks to top_k experts each. */
double pod_serve__ep_normal(const pod_system *y, int ep, int top_k,
                            double tokens, double row);

/* One decode dispatch (disp bytes per GPU, `tokens` sent per GPU) and
** combine (comb) over `ep` ranks with c's kernel: DeepEP low-latency (the
** fixed cost paid per micro-batch with two-batch overlap; the NVFP4
** dispatch adds c->ep_cast_us per token on its sending SM) or NCCL
** all-to-all; *t both, *t_comb the combine's part. */
int pod_serve__decode_ep(const pod_serve_cfg *c, int ep, double tokens,
                         double disp, double comb, double *t, double *t_comb,
                         pod_err *err);

/* E[max of n standard normals], Blom's approximation Phi^-1((n - 0.375) /
** (n + 0.25)) (0 for n <= 1); rl.c's slowest-instance split shares it. */
double pod_serve__normal_max(double n);

/* Busiest over mean GPU load of one MoE layer over `ep` ranks, each
** holding `local` physical experts that receive `copies` routed token
** copies on average: 1 + z_ep sqrt(1 / copies + cv^2 / local), the
** multinomial count of a GPU's copies (Poisson) plus each expert's
** per-batch load drifting about its placement mean with relative sd cv
** (independent over the local experts); 1 for ep <= 1. */
double pod_serve__ep_imbalance(int ep, int local, double copies, double cv);

/* The default cost of one kernel boundary in a graph, us (serve_launch.c). */
double pod_serve__kernel_us_default(void);

/* Kernels of one layer of m (moe: a routed-expert layer) with dense GEMMs
** in dense_dtype (pod_dtype), as counted in serve_launch.c. */
double pod_serve__layer_kernels(const pod_model *m, int dense_dtype, int moe);

/* Kernels of one forward pass of mb micro-batches over `layers` layers of
** which `moe_layers` route experts, plus the per-step embedding, head and
** sampling (once). */
double pod_serve__pass_kernels(const pod_model *m, int dense_dtype,
                               double layers, double moe_layers, double mb);

/* Fixed GPU time of a pass's kernel boundaries, s: layers x c->layer_us
** when c->layer_us >= 0, else the counted kernels (of both micro-batches
** with two_batch_overlap) x c->kernel_us. */
double pod_serve__fixed_launch(const pod_serve_cfg *c, int dense_dtype,
                               double layers, double moe_layers);

/* The default host time per decode step, us (serve_host.c). */
double pod_serve__host_us_default(void);

/* Host time a decode step of gpu_s seconds adds: c->host_us, or with
** c->host_overlap only what outlasts the GPU step. */
double pod_serve__host_step(const pod_serve_cfg *c, double gpu_s);

#endif
