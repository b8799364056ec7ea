/*
** train_int.h: internals of the training-step model (core/train*.c),
** shared by train.c (the step model), train_check.c (names, defaults,
** checks) and train_search.c (the layout search); callers use pod_train.h
** only.
**
** Convention: a non-static function shared between these files carries the
** module prefix with a double underscore, pod_train__name (as libuv's
** uv__); it is not part of the API and may change freely.
*/
#ifndef POD_TRAIN_INT_H
#define POD_TRAIN_INT_H

#include "pod_train.h"

/* Default cfg->jitter_sync, the fast per-interval rank jitter: FITTED on the
** T3 fp8 weak-scaling slope (the derivation and sources beside the shared
** physical parameters in train.c). */
#define JITTER_SYNC 0.030

/* Returns POD_EINVAL on `field` from the enclosing function (which has a
** pod_err *err) unless cond holds. */
#define NEED(cond, field, ...)                                            \
  do {                                                                    \
    if (!(cond)) return pod_err_set(err, POD_EINVAL, field, __VA_ARGS__); \
  } while (0)

/* The sampled fields of pod_train_cfg's own (pod_train_prep_sampled
** accepts these and model.imbalance, system.up_eff, system.out_eff). */
#define POD_TRAIN__SAMPLED_CFG(X) \
  X(eff_gemm)                     \
  X(eff_attn)                     \
  X(eff_scale)                    \
  X(eff_hbm)                      \
  X(overlap_tp)                   \
  X(overlap_cp)                   \
  X(overlap_ep)                   \
  X(overlap_pp)                   \
  X(overlap_dp)                   \
  X(overlap_offload)              \
  X(jitter)                       \
  X(jitter_sync)
/* 1 when the sampled fields of pod_train_cfg_fields hold their bounds
** (the inline screen of those entries; train_check.c). */
int pod_train__sampled_ok(const pod_train_cfg *c);
/* 0 in a layout dimension means its default, 1. */
void pod_train__normalize(pod_layout *l);
/* The checks that do not depend on the layout. */
int pod_train__check_common(const pod_train_cfg *c, pod_err *err);
/* Every check, the layout's included; *dp gets the data-parallel size. */
int pod_train__check_cfg(const pod_train_cfg *c, int *dp, pod_err *err);
/* The checks of check_common but the system's and the model's, and of
** check_cfg but those two (for a system and a model checked already). */
int pod_train__check_fields(const pod_train_cfg *c, pod_err *err);
int pod_train__check_cfg_fields(const pod_train_cfg *c, int *dp, pod_err *err);
/* The core evaluation on a checked config with dp resolved.  With
** want_time 0 only the memory fields are filled; with 2 (the search's)
** the time too when the layout fits, as want_time 1 makes it.  graphs:
** the ring graphs of c->system kept across calls on that unchanged
** system (pod_coll_time_checked; zeroed by the caller once), or NULL:
** kept for this call only. */
int pod_train__eval_core(const pod_train_cfg *c, int dp, pod_train_result *r,
                         int want_time, pod_coll_graphs *graphs, pod_err *err);
/* The layout search's state across its evaluations of one config that
** changes in its layout only (its parallel sizes, vp, micro-batch, zero,
** recompute, uneven; recompute_modules and offload_modules as at init):
** the figures no layout changes, made once (the same calls, so the same
** values), and the collective times met so far.  pod_coll_time_checked
** is a pure function of the system and its arguments, and the system
** stays the same: a time found again under the same op, ranks, ranks per
** domain and bytes (bit for bit) is the time it would compute. */
#define POD_TRAIN__CACHE_SLOTS 4096 /* a power of two */
#define POD_TRAIN__HIER_D 128       /* domains of the kept hier shares */
typedef struct pod_train__coll_slot {
  double bytes, t;
  int op, n, r, used;
} pod_train__coll_slot;
/* The layers' TP, CP and EP times of one (tp, cp, micro-batch, ep, etp,
** recompute) and TP collective counts: all they read of the layout
** (train_layer.c pod_train__late_comm). */
#define POD_TRAIN__COMM_SLOTS 1024 /* a power of two */
typedef struct pod_train__comm_slot {
  int key[8]; /* tp, cp, microbatch, ep, etp, recompute, dense, moe ops */
  int used;
  double dtp, dcp, mtp, mcp, mep; /* dense tp_s, cp_s; MoE tp_s, cp_s, ep_s */
} pod_train__comm_slot;
/* The dense and MoE layers' costs of a memory-only (no_comm) pass at one
** (tp, cp, micro-batch, ep, etp, recompute): all they read of the layout
** (train.c layers_of), with their TP collective counts. */
#define POD_TRAIN__COST_SLOTS 2048 /* a power of two */
typedef struct pod_train__cost_slot {
  int key[6], used, dense_ops, moe_ops;
  pod_train__layer_cost dl, ml;
} pod_train__cost_slot;
typedef struct pod_train__search_ctx {
  pod_coll_graphs graphs; /* the system's ring graphs (graphs.n 0 at init) */
  pod_train_figs figs;    /* the layout-free ones; stage_b, host_s unset */
  double qh, qf, qr, spread;
  double mla_ew[3]; /* pod_train__mla_ew_bytes at recompute 0..2 */
  /* pod_train__hier_share(top_k, d, max_domains) at d domains, once made */
  double hier[POD_TRAIN__HIER_D];
  unsigned char have_hier[POD_TRAIN__HIER_D];
  pod_model_params mp;
  pod_model_flops flops;
  long lookups, hits; /* collective cache use (the search benchmark) */
  pod_train__coll_slot slot[POD_TRAIN__CACHE_SLOTS];
  pod_train__comm_slot comm[POD_TRAIN__COMM_SLOTS];
  pod_train__cost_slot cost[POD_TRAIN__COST_SLOTS];
} pod_train__search_ctx;
/* The figures of checked, normalized config c into *sc; an empty cache. */
void pod_train__search_ctx_init(const pod_train_cfg *c,
                                pod_train__search_ctx *sc);
/* pod_train__eval_core on a config that differs from sc's in its layout
** only: the same result and errors, bit for bit. */
int pod_train__eval_search(const pod_train_cfg *c, int dp, pod_train_result *r,
                           int want_time, pod_train__search_ctx *sc,
                           pod_err *err);
/* Ranks per scale-up domain of a group of n ranks whose members are
** `stride` apart in the rank order, in a job packed over domains of D GPUs:
** the members that share one domain, rounded down to a divisor of n so
** the group splits evenly (an EP group of 64 at stride 1 on NVL72 stays in
** one domain; on 8-GPU nodes it spans 8 nodes, 8 per node). */
static inline int pod_train__group_rpd(int n, long stride, int D) {
  if (n <= 1) return 1;
  long fit = stride >= D ? 1 : D / stride;
  if (fit >= n) return n;
  if ((n & (n - 1)) == 0) { /* a power of two: the largest one <= fit */
#if defined(__GNUC__)
    return (int)(1ULL << (63 - __builtin_clzll((unsigned long long)fit)));
#else
    long r = 1;
    while (2 * r <= fit) r *= 2;
    return (int)r;
#endif
  }
  for (long r = fit; r > 1; r--)
    if (n % r == 0) return (int)r;
  return 1;
}

/* The figures of checked, normalized config c that pod_train__eval_prep
** reuses (train.c): cast shares, model counts, the dispatcher's domain
** share, the straggler's spread sqrt(2 ln gpus). */
void pod_train__prep_figures(const pod_train_cfg *c, pod_train_prep *pre);
/* pod_train__eval_core with the figures of prepared config pre (its dp,
** its ring graphs; train_prep.c). */
int pod_train__eval_prep(const pod_train_cfg *c, pod_train_prep *pre,
                         pod_train_result *r, pod_err *err);
/* One collective of the step (train.c coll) and the prepared times of
** one evaluation so far: bit k set when slot k was timed prepared, with
** its bytes and time. */
typedef struct pod_coll_call {
  pod_coll_op op;
  int n, r;
  double bytes;
} pod_coll_call;
typedef struct pod_train__coll_memo {
  unsigned mask;
  int have_sr;           /* sr is made (on the first prepared time) */
  pod_coll_sys_rates sr; /* the system's figures, the same for the step */
  double bytes[POD_TRAIN_PREP_COLLS], t[POD_TRAIN_PREP_COLLS];
} pod_train__coll_memo;
/* The k-th collective of a step of prepared config pre (NULL: none) on
** system s: POD_OK or an error of pod_coll_time_prepared with its time in
** *t, the same as pod_coll_time_checked's; -1 when pre's slot k does not
** hold this call (time it unprepared).  An earlier slot of the same
** evaluation that times the same collective (pre->same) gives its time. */
int pod_train__coll_prepared(const pod_train_prep *pre, int k,
                             const pod_coll_call *c, const pod_system *s,
                             pod_train__coll_memo *m, double *t, pod_err *err);
/* Prepare call c, timed at slot k of the step, into pre's slot k. */
void pod_train__coll_record(pod_train_prep *pre, int k, const pod_coll_call *c,
                            const pod_system *s);
/* pod_train__eval_core (want_time 1, pre's ring graphs) that also
** prepares each collective of the step into pre->coll, in order
** (train_prep.c). */
int pod_train__eval_record(const pod_train_cfg *c, int dp, pod_train_result *r,
                           pod_train_prep *pre, pod_err *err);

/* ---- train_mem.c: memory of the busiest pipeline ranks ---- */

/* The memory figures of the first and last pipeline stages that do not
** depend on the layers' costs (mp the model's counts, micro the
** micro-batches per step, T tokens per CP rank, lr layer slots on the
** busiest rank), into *sp. */
void pod_train__mem_figures(const pod_train_cfg *c, const pod_model_params *mp,
                            int dp, int edp, int micro, double T, double lr,
                            pod_train__mem_part *sp);
/* Memory of the busiest pipeline ranks into r->memory and r->fits, from
** the figures sp and the dense and MoE layers' costs dl and ml (fd, fm
** their shares of the layers). */
void pod_train__eval_memory(const pod_train_cfg *c,
                            const pod_train__mem_part *sp, double fd, double fm,
                            const pod_train__layer_cost *dl,
                            const pod_train__layer_cost *ml,
                            pod_train_result *r);

/* ---- train_act.c: stored activations (recompute, offload) ---- */

/* pod_train__layer_cost: pod_train.h (a prepared config keeps one). */

/* Elements per token of the tensors offload_modules can move, as stored
** (0 when a recompute drops them), in offload-flag order. */
typedef struct pod_train__act_parts {
  double attn_in, qkv, attn_out, mlp_in, fc1_in, fc1_out;
} pod_train__act_parts;

/* Stored activations and recomputed work under parallel.recompute. */
void pod_train__apply_recompute(int recompute, double Tt, double h, double keep,
                                double recomp, pod_train__layer_cost *o);
/* recompute_modules on top of recompute "none". */
void pod_train__apply_modules(const pod_layout *l, double Tt, double h,
                              pod_train__layer_cost *o);
/* offload_modules: o->off_bytes out of o->act_bytes (Tt tokens). */
void pod_train__apply_offload(const pod_layout *l, double Tt,
                              const pod_train__act_parts *a,
                              pod_train__layer_cost *o);
/* 1 when the layout offloads anything. */
int pod_train__offloads(const pod_layout *l);
/* Exposed seconds per micro-batch of one layer's offload (d2h under its
** forward) and reload (h2d under its backward), compute_s its compute. */
double pod_train__offload_s(const pod_train_cfg *c, double bytes,
                            double compute_s);
/* The offload checks (flags 0/1, a host link and host memory). */
int pod_train__check_offload(const pod_train_cfg *c, pod_err *err);

/* ---- train_sw.c: software features and per-SKU terms ---- */

/* Achieved rates of one config. */
typedef struct pod_train__rates {
  double gemm, attn, hbm; /* FLOP/s, FLOP/s, B/s achieved */
  double gemm_e;          /* FLOP/s of the routed-expert GEMMs */
} pod_train__rates;

/* POD_OK, or POD_EINVAL naming "system.gpu.power_w" when a Blackwell
** GPU's power limit does not exceed the static power of its dies
** (train_sw.c, BLACKWELL_STATIC_W): no clock sustains it. */
int pod_train__clock_check(const pod_gpu *g, pod_err *err);
/* The rates at the GPU's sustained clock clk (pod_train_sustained_clock,
** > 0 by pod_train_check; *clock gets it) from the dtype peak (TFLOP/s)
** and the dense GEMM, routed-expert GEMM and attention efficiencies. */
void pod_train__rates_of(const pod_train_cfg *c, double peak, double clk,
                         double eg, double egx, double ea, pod_train__rates *rt,
                         double *clock);
/* The routed experts' grouped-GEMM half size (cfg, else the table). */
double pod_train__k_half_expert(const pod_train_cfg *c);
/* Fixed GPU time per MoE layer per micro-batch, forward and backward. */
double pod_train__moe_layer_s(const pod_train_cfg *c);
/* Exposed host time per MoE layer per micro-batch (all its passes): the
** eager expert launches after the dropless sync and, without CUDA graphs,
** the router and preprocess launches. */
double pod_train__host_layer_s(const pod_train_cfg *c);
/* Bytes per hidden element of the forward EP dispatch on the wire: 2
** (bf16) under Megatron-Core's dispatchers whatever the dtype, 1 for an
** fp8 step under DeepSeek's dualpipe framework (train.c). */
double pod_train__dispatch_bytes(const pod_train_cfg *c);
/* Staging traffic of the MoE dispatcher, bytes per routed hidden element
** (forward and backward). */
double pod_train__moe_stage_bytes(const pod_train_cfg *c);
/* The figures of c no layout changes, into *f (core/train_prep.c): every
** field of pod_train_figs but stage_b and host_s, which read the layout
** and are left 0 (a prep, whose layout is fixed, sets them). */
void pod_train__figs_layout_free(const pod_train_cfg *c, pod_train_figs *f);
/* The router's fp32 traffic, bytes per token per expert (forward and
** backward). */
double pod_train__router_bytes(void);
/* Element-wise HBM traffic of multi-head latent attention beyond the
** Llama-derived per-hidden count, bytes per token per layer (forward and
** backward; 0 for other attention kinds): the q/k/v rotary and split
** kernels over the heads' widths, the latent norms and the fp8 casts of
** the up- and output-projection operands, and with `mla_up_proj`
** recompute (recompute none) the rerun below. */
double pod_train__mla_ew_bytes(const pod_train_cfg *c);
/* The share of it `mla_up_proj` recompute runs again in the backward:
** the forward rotary and split and the up-projections' input casts. */
double pod_train__mla_rerun_bytes(const pod_train_cfg *c);
/* Share of the EP all-to-all bytes a hierarchical dispatcher puts on the
** network: k routed copies over d domains, max_domains (0: no limit). */
double pod_train__hier_share(double k, int d, int max_domains);
/* The fp8 element-wise cast traffic of the recipe over the Hopper
** per-tensor count the EW_FP8_* terms hold (0 for bf16); `unfused` is
** the share of the operand elements whose producer does not compute the
** amax (current scaling's extra pass). */
double pod_train__quant_scale(const pod_train_cfg *c, double unfused);
/* GEMM kernel speed of the recipe against per-tensor fp8 (MXFP8). */
double pod_train__recipe_gemm_rel(const pod_train_cfg *c);
/* Bytes per local weight of the step's fp8 weight cast (0: none). */
double pod_train__weight_cast_bytes(const pod_train_cfg *c);
/* Bytes per weight with fp8 primary weights. */
double pod_train__fp8_param_bytes(const pod_train_cfg *c);

#endif
