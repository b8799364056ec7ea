/*
** pod_train.h: the training-step model and the layout search
** (DESIGN.md 4.3).
**
** pod_train_cfg is a self-contained value (no pointers): a Monte Carlo
** evaluator copies a base config and overwrites single double/int fields by
** offset per sample (see pod_kernel.h).  pod_train_eval turns one config
** into step time, throughput, MFU, memory and a breakdown of the step;
** communication goes through pod_coll_eval with each parallel group's real
** placement over scale-up domains.  pod_train_search enumerates the valid
** layouts that fit and ranks them by tokens/s/GPU.
**
** Everything here is pure, reentrant, allocation-free (the search writes
** into a caller buffer) and thread-safe.
*/
#ifndef POD_TRAIN_H
#define POD_TRAIN_H

#include <stdatomic.h>

#include "pod_coll.h"
#include "pod_err.h"
#include "pod_hw.h"
#include "pod_kernel.h"
#include "pod_model.h"

typedef enum pod_dtype {
  POD_DTYPE_BF16,
  POD_DTYPE_FP8,
  POD_DTYPE_FP4
} pod_dtype;

/* How fp8 (and fp4) tensors get their scales (Transformer Engine recipes).
** Only the delayed-scaling recipes synchronise ranks: TE's DelayedScaling
** (reduce_amax = True) all-reduces the amax of every fp8 tensor of an
** fp8_autocast region over the amax-reduction group when the region's
** forward ends and when its backward ends. */
typedef enum pod_fp8_recipe {
  POD_FP8_DELAYED,    /* per-tensor delayed scaling, amax reduced over the
                         tp*cp*dp ranks of a pipeline stage (Megatron's
                         amax reduction group; TE's default recipe and
                         NeMo 2.0's performance-script default "ds") */
  POD_FP8_DELAYED_TP, /* the same, amax reduced over tp*cp only (Megatron
                         tp_only_amax_red; TE's NVTE_DP_AMAX_REDUCE_
                         INTERVAL = 0) */
  POD_FP8_CURRENT,    /* per-tensor current scaling: amax of each tensor
                         computed before its cast, no step-wide reduction */
  POD_FP8_BLOCK       /* block scaling (MXFP8 on Blackwell, 128-element
                         blocks on Hopper): scales are local; rowwise and
                         columnwise copies of every operand, and slower
                         block-scaled GEMM kernels (train_sw.c) */
} pod_fp8_recipe;

typedef enum pod_recompute {
  POD_RECOMPUTE_NONE,
  POD_RECOMPUTE_SELECTIVE, /* recompute core attention, norms, activation
                              functions (Megatron --recompute-modules) */
  POD_RECOMPUTE_FULL       /* keep only each layer's input; rerun forward */
} pod_recompute;

/* Recompute per module (Megatron-Core recompute_modules, applied with
** recompute_granularity "selective"); each flag drops the named stored
** activations and reruns their forward in the backward.  They add to
** parallel.recompute "none" or "selective" (full already reruns all). */
typedef struct pod_recompute_set {
  int core_attn;   /* flash-attention output (rerun attention forward) */
  int layernorm;   /* norm outputs (rerun the norms) */
  int mla_up_proj; /* MLA query/key/value up-projections (rerun the two
                      up-projection GEMMs) */
  int moe_act;     /* expert activation-function outputs (rerun SwiGLU) */
  int mlp;         /* dense MLP blocks: keep only their input (rerun the
                      block's forward) */
} pod_recompute_set;

/* Fine-grained activation offload (Megatron-Core
** fine_grained_activation_offloading with offload_modules; NVIDIA/
** Megatron-LM docs/source/api-guide/fine_grained_activation_offloading.md).
** Each flag moves the tensors the named module saves for its backward to
** host memory after its forward and reloads them before its backward,
** over system.host_link_GBps (train_act.c).  Tensors a recompute flag
** already drops are not stored, so not offloaded. */
typedef struct pod_offload_set {
  int attn_norm;  /* the attention norm's input (the layer input) */
  int core_attn;  /* core attention's q, k, v */
  int attn_proj;  /* the output projection's input (attention output) */
  int mlp_norm;   /* the MLP norm's input (the residual after attention) */
  int expert_fc1; /* the routed experts' fc1 input (dispatched tokens) */
  int moe_act;    /* the routed experts' activation input (fc1 output) */
} pod_offload_set;

/* Parallel layout.  0 in tp, pp, vp, ep, etp, cp or microbatch means 1.
** Ranks are ordered TP innermost, then CP, DP, PP
** outermost (Megatron's default order "tp-cp-ep-dp-pp"); the expert part
** of each pipeline stage folds its tp*cp*dp ranks as ETP innermost, EP,
** then expert-DP (Megatron MoE parallel folding, Liu et al. 2025). */
typedef struct pod_layout {
  int tp;         /* tensor parallel (with sequence parallel) */
  int pp;         /* pipeline stages */
  int vp;         /* virtual stages per pipeline rank (interleaved 1F1B) */
  int dp;         /* data parallel; 0 = gpus / (tp * pp * cp) */
  int ep;         /* expert parallel (MoE only; 1 for dense) */
  int etp;        /* expert tensor parallel (MoE only) */
  int cp;         /* context parallel */
  int microbatch; /* sequences per micro-batch */
  int zero;       /* 0: replicated optimizer; 1: distributed optimizer
                     (optimizer state sharded, = ZeRO-1); 2: + gradients
                     sharded (reduce-scatter per micro-batch); 3: +
                     weights sharded (all-gather per micro-batch) */
  int recompute;  /* pod_recompute */
  int uneven;     /* 1: allow layers not divisible by pp*vp (Megatron's
                     pipeline layout / account_for_embedding_in_pipeline_
                     split): each virtual stage holds ceil(L/(pp*vp))
                     layer slots and embedding/head fill spare slots;
                     pp*vp may reach L + 2 (an embedding-only first and
                     a loss-only last virtual stage) */
  pod_recompute_set recompute_modules; /* per-module recompute */
  pod_offload_set offload_modules;     /* per-module activation offload */
} pod_layout;

/* Communication backend of the MoE token dispatcher (Megatron-Core
** moe_token_dispatcher_type / moe_flex_dispatcher_backend). */
typedef enum pod_dispatcher {
  POD_DISPATCH_ALLTOALL, /* NCCL all-to-all: every routed copy of a token
                            travels to its expert's rank */
  POD_DISPATCH_DEEPEP,   /* DeepEP (flex dispatcher): a token crosses the
                            network once per destination scale-up domain
                            and is forwarded over NVLink inside it;
                            node-limited routing caps the domains */
  POD_DISPATCH_HYBRIDEP  /* HybridEP (flex dispatcher): the same
                            hierarchical forwarding, TMA-driven */
} pod_dispatcher;

/* CUDA graph capture (Megatron-Core cuda_graph_impl / cuda_graph_scope). */
typedef enum pod_cuda_graphs {
  POD_GRAPHS_NONE,    /* eager launches */
  POD_GRAPHS_PARTIAL, /* Transformer Engine graphs of the MoE router and
                         MoE preprocess scopes, with or without attn (no
                         eager attention launches are charged, so the
                         attn scope changes nothing) */
  POD_GRAPHS_FULL     /* cuda_graph_impl = "full_iteration": the whole
                         forward-backward of a step is one graph */
} pod_cuda_graphs;

/* Pipeline schedule. */
typedef enum pod_schedule {
  POD_SCHED_1F1B,    /* Megatron's 1F1B, interleaved when vp > 1 */
  POD_SCHED_DUALPIPE /* DualPipe (DeepSeek-V3 report, sec. 3.2.1): micro-
                        batches fed from both ends, each rank holds two
                        stages; bubble (pp/2 - 1)(F&B + B - 3W), 2x the
                        parameters, pp + 1 micro-batches of activations,
                        the EP all-to-all hidden under the paired chunk */
} pod_schedule;

/* Software features of a training release, as a recipe sets them (see
** lua/README.md "software" for the release presets). */
typedef struct pod_train_sw {
  int cuda_graphs;       /* pod_cuda_graphs */
  int a2a_overlap;       /* 1: moe_a2a_overlap, the EP dispatch/combine of
                            one micro-batch runs under the compute of
                            another (Megatron's 1F1B with A2A overlap) */
  int fused_grouped_mlp; /* 1: fused grouped MLP (cutedsl_fused_grouped_
                            mlp): activation and its quantisation fused
                            into the expert GEMMs */
  int fp8_attention;     /* 1: fp8_dot_product_attention: attention on
                            fp8 tensor cores (fp8/fp4 dtypes only) */
  int dispatcher;        /* pod_dispatcher */
  int max_domains;       /* node-limited routing: scale-up domains a token
                            may reach (DeepSeek-V3: 4 nodes); 0 = no limit */
  int schedule;          /* pod_schedule */
  int fp8_params;        /* 1: fp8_param_gather, fp8 primary weights (no
                            bf16 copy) and the parameter all-gather in
                            fp8 (fp8/fp4 dtypes only) */
  int tp_comm_overlap;   /* 1: tp_comm_overlap, Transformer Engine's
                            userbuffers overlap of the sequence-parallel
                            TP collectives with the GEMMs (overlap_tp
                            hidden); 0: NCCL collectives, of which only
                            the column-parallel dgrad reduce-scatter runs
                            under a GEMM (the wgrad) */
} pod_train_sw;

typedef struct pod_train_cfg {
  pod_system system;
  pod_model model;
  int gpus;
  int seq;          /* tokens per sequence */
  int global_batch; /* sequences per step */
  pod_dtype dtype;  /* GEMM precision; attention stays bf16 */
  pod_layout parallel;
  /* Physical parameters a study can sample.  pod_train_cfg_defaults fills
  ** them; a value <= 0 in an eff_* field means "take the default of the
  ** table keyed by GPU generation and dtype" (see train.c). */
  double eff_gemm;    /* achieved fraction of dense dtype peak in GEMMs */
  double eff_attn;    /* achieved fraction of bf16 peak in flash attention */
  double gemm_k_half; /* GEMM efficiency falls as eff_gemm * h / (h + k_half)
                         with the hidden size h (fp8 kernels lose more at
                         small shapes); < 0 = table default per dtype */
  double gemm_w_half; /* routed-expert GEMMs fall further as
                         w / (w + w_half), w = expert_ffn / etp; < 0 =
                         table default per dtype */
  double eff_scale;   /* software maturity: multiplies the GEMM and
                         attention efficiencies; 1 = the releases the
                         table was fitted on (see train.c) */
  double eff_hbm;     /* achieved fraction of HBM bandwidth, memory-bound ops */
  double overlap_tp;  /* fraction of TP collectives hidden under GEMMs */
  double overlap_cp;  /* fraction of CP ring p2p hidden under attention */
  double overlap_ep;  /* fraction of EP all-to-all hidden */
  double overlap_pp;  /* fraction of PP p2p hidden */
  double overlap_dp;  /* fraction of DP grad/param traffic hidden, bounded
                         by one micro-batch of work plus the bubble */
  double overlap_offload;   /* fraction of the activation offload and reload
                               copies hidden, bounded by the layer's forward
                               (offload) and backward (reload) compute */
  double jitter;            /* coefficient of variation of per-GPU step time */
  double grad_reduce_bytes; /* bytes per gradient element in the gradient
                               buffer and on the wire (2 = bf16, 4 = fp32) */
  double mem_reserve_gb;    /* CUDA context, allocator slack, buffers */
  int mfu_full_attn;        /* 1: model FLOPs count full (non-causal) attention,
                               the convention of NeMo 2.0 llama recipes; 0:
                               causal (Megatron-Core >= 0.9, Megatron-Bridge) */
  int fp8_recipe;           /* pod_fp8_recipe; ignored for bf16 */
  pod_train_sw software;    /* release features (default: none of them,
                               NCCL all-to-all dispatcher) */
  double host_expert_us;    /* exposed host time per local expert per MoE
                               layer per micro-batch pass (forward or
                               backward) with eager expert launches, after
                               the dropless token-count sync (train.c,
                               HOST_EXPERT_US); < 0 = default */
  double jitter_sync;       /* coefficient of variation of one GPU's time over
                               one interval between two synchronisations of a
                               group, independent from interval to interval
                               (the fast part of the jitter): every delayed-
                               scaling amax all-reduce over a group larger than
                               the TP/CP/EP groups, which synchronise every layer
                               anyway, waits for the group's slowest rank */
  double moe_layer_us;      /* fixed GPU time per MoE layer per micro-batch
                               (forward and backward), whatever its tokens:
                               router, dispatcher set-up, permutation
                               bookkeeping, the chain of small dependent
                               kernels (train_sw.c, MOE_LAYER_US); < 0 =
                               default */
  double gemm_k_half_expert; /* the routed experts' grouped GEMMs roll off
                                as eff_gemm * h / (h + k_half_expert), in
                                place of gemm_k_half (train_sw.c,
                                K_HALF_EXPERT_FP8); < 0 = table per dtype */
} pod_train_cfg;

/* Step-time breakdown in seconds; parts add up to step_s. */
typedef struct pod_train_breakdown {
  double compute;   /* GEMM + attention + memory-bound ops, incl. recompute */
  double tp;        /* exposed TP (sequence-parallel AG/RS) */
  double cp;        /* exposed CP ring p2p */
  double ep;        /* exposed EP all-to-all (+ ETP gathers) */
  double pp;        /* exposed PP p2p */
  double dp;        /* exposed DP grad reduce / param gather, and the
                       fp8 amax all-reduces (delayed scaling) */
  double bubble;    /* pipeline bubble */
  double optimizer; /* optimizer step (memory-bound) */
  double host;      /* exposed host (launch) time at the MoE token-count
                       syncs not covered by CUDA graphs, and the exposed
                       activation offload/reload copies over the host link */
  double straggler; /* expected max of per-GPU jitter over all GPUs, plus
                       the waits at each amax all-reduce (delayed
                       scaling over the DP domain) */
} pod_train_breakdown;

typedef struct pod_train_memory {
  double weights_gb;
  double grads_gb;
  double optimizer_gb;
  double activations_gb;
  double reserve_gb;
  double total_gb;
  double host_gb; /* offloaded activations held in host memory per GPU */
} pod_train_memory;

typedef struct pod_train_result {
  double step_s;
  double tokens_per_s;
  double tokens_per_s_per_gpu;
  double tflops_per_gpu;  /* model FLOPs (convention in cfg) per GPU */
  double mfu;             /* tflops_per_gpu / peak_tflops, in [0, 1] */
  double peak_tflops;     /* dense peak of the GPU in cfg->dtype */
  double flops_per_token; /* model FLOPs per token used for MFU */
  double eff_gemm;        /* efficiencies actually used (after shape
                             roll-off and eff_scale) */
  double eff_attn;
  double clock;     /* sustained fraction of the boost clock under
                       the GPU's power limit (train.c) */
  int microbatches; /* per pipeline per step */
  int dp;           /* resolved data-parallel size */
  int edp;          /* expert data-parallel size */
  pod_train_memory memory;
  int fits; /* memory.total_gb <= GPU HBM and memory.host_gb <= the
               system's host_mem_gb */
  pod_train_breakdown breakdown;
} pod_train_result;

/* Fill the sampled parameters of *cfg with their shared defaults (table
** efficiencies, overlaps, jitter, reserve); leaves the rest untouched. */
void pod_train_cfg_defaults(pod_train_cfg *cfg);

/* A ready config ("default" preset in Lua): defaults plus layout
** tp=pp=vp=ep=etp=cp=mb=1, dp=0,
** zero=1, recompute none, bf16. system/model/gpus/seq/batch still to set. */
void pod_train_cfg_init(pod_train_cfg *cfg);

/* Bounds of the numeric fields (pod_field.h), the one home of each range
** (the Lua bindings read them): the config's own, the layout's (0 means
** 1 in a dimension), the recompute flags' and the software release's.
** pod_train_check walks them before the rules across fields. */
extern const pod_field pod_train_cfg_fields[];
extern const pod_field pod_train_layout_fields[];
extern const pod_field pod_train_recompute_set_fields[];
extern const pod_field pod_train_offload_set_fields[];
extern const pod_field pod_train_sw_fields[];

/* Check the config without timing it.  POD_EINVAL with err->field naming
** the constraint ("parallel.tp", "gpus", "global_batch", ...) and a
** message saying which constraint failed. */
int pod_train_check(const pod_train_cfg *cfg, pod_err *err);

/* Check everything but the layout (the search's base config). */
int pod_train_check_base(const pod_train_cfg *cfg, pod_err *err);

/* Evaluate one training step.  Returns POD_OK, POD_EINVAL (bad config,
** see pod_train_check), POD_ENOTSUP (no default efficiency for the GPU and
** dtype, or dtype without peak on the GPU) or a pod_coll_eval error. */
int pod_train_eval(const pod_train_cfg *cfg, pod_train_result *out,
                   pod_err *err);

/* pod_train_eval for a config whose system and model passed
** pod_hw_system_check and pod_model_check and have not changed since
** (a study's evaluation graph, when they are the bytes of checked spec
** nodes): checks every other field, not those two.  Same results, bit
** for bit (train_graph.c). */
int pod_train_eval_specs_checked(const pod_train_cfg *cfg,
                                 pod_train_result *out, pod_err *err);

/* A training configuration prepared once for many evaluations that
** differ only in its sampled fields (a study's graph node, train_prep.c):
** the layout's checks and data-parallel size, the model's parameter and
** FLOP counts, the recipe's cast traffic, the MoE dispatcher's domain
** share, the straggler's spread and the system's ring graphs, all made
** once; per evaluation only the arithmetic that the sampled
** fields change.  The sampled fields are the ones
** pod_train_prep_sampled accepts: eff_gemm, eff_attn, eff_scale,
** eff_hbm, overlap_tp, _cp, _ep, _pp, _dp, _offload, jitter,
** jitter_sync, model.imbalance, system.up_eff and system.out_eff (none
** of them feeds a prepared figure: the ring graphs follow the system's
** line rates and generation, not its efficiencies).  Fields are private;
** a prep keeps ring graphs as it is used, so one per thread. */
/* a step's collectives prepared at most (a prep is copied with its node's
** result per traced sample: keep it small) */
#define POD_TRAIN_PREP_COLLS 16
/* The work and stored activations of one layer per micro-batch per GPU
** (train.c fills it). */
typedef struct pod_train__layer_cost {
  double gemm_flops, attn_flops, ew_bytes; /* per micro-batch per GPU */
  double gemm_expert_flops;                /* routed-expert part of gemm */
  double w_bytes, w_expert_bytes;          /* weight traffic of the GEMMs */
  double tp_s, cp_s, ep_s;                 /* raw communication times */
  double act_bytes;                        /* stored activations */
  double full_act_bytes;                   /* without recompute */
  /* Elements per token of the recomputable tensors (recompute modules):
  ** norm outputs, activation-function outputs, MLA up-projection
  ** outputs, flash-attention output; MLP block (dense layers). */
  double act_norm, act_fn, act_up, act_core, act_mlp;
  double up_flops, mlp_fwd_flops; /* forward FLOPs to rerun them */
  double fixed_s;   /* fixed GPU time per micro-batch (MoE layers) */
  double off_bytes; /* stored activations offloaded to host memory */
} pod_train__layer_cost;
/* The attention part of a layer's cost, the same for every layer of a
** config and changed by no sampled field (train.c attn_costs): the cost
** so far and the figures the layer's MLP part reads. */
typedef struct pod_train__attn_part {
  pod_train__layer_cost o;
  double gin, wpass, v, qkv_out, keep, drop;
} pod_train__attn_part;
/* The memory figures of a config that no sampled field changes (train.c
** mem_part): the busiest stages' parameters per GPU (first and last;
** dense and expert) and their ZeRO shard counts, their layer counts and
** micro-batches in flight, the logits' bytes, and the weights', the
** gradients' and the optimizer's bytes of each. */
typedef struct pod_train__mem_part {
  double first_d, last_d, last_e;
  double shard_d, shard_e;
  double lr_first, lr_last, inflight, logits;
  double weights[2], grads[2], opt[2];
} pod_train__mem_part;
/* Figures of a prepared config that no sampled field changes, each the
** value of the function named (train.c reads them per evaluation). */
typedef struct pod_train_figs {
  double moe_layer_s;  /* pod_train__moe_layer_s */
  double stage_b;      /* pod_train__moe_stage_bytes */
  double disp_b;       /* pod_train__dispatch_bytes */
  double host_s;       /* pod_train__host_layer_s */
  double peak;         /* pod_train_peak_tflops */
  double khx, rel;     /* pod_train__k_half_expert, __recipe_gemm_rel */
  double fp8pb, wcast; /* pod_train__fp8_param_bytes, __weight_cast_bytes */
  double dg, da, dk;   /* pod_train_default_eff, when dflt_rc is POD_OK */
  int dflt_rc;
  double clk; /* pod_train_sustained_clock */
} pod_train_figs;
/* The groups whose ranks per scale-up domain a step reads (train.c
** pod_train__group_rpd), one slot each in pod_train_prep.rpd. */
#define POD_TRAIN_PREP_GROUPS 8
typedef struct pod_train_prep {
  int ok, dp;
  int normalized;      /* the prepared layout had no 0 (default) dimension */
  pod_layout parallel; /* the normalized layout */
  pod_model_params mp;
  pod_model_flops flops;
  double qh, qf, qr, hier, spread;
  pod_train_figs figs;
  /* the layout's figures (train.c plan_layout): expert data-parallel
  ** size, micro-batches, tokens per CP rank and per GPU, layer slots on
  ** the busiest rank; and each group's ranks per domain */
  int edp, micro;
  double T, Tt, lr;
  double head_g, head_e, mtp_g; /* the LM head's FLOPs and logits bytes, an
                                ** MTP block's extra FLOPs (head_time) */
  int rpd[POD_TRAIN_PREP_GROUPS];
  pod_train__attn_part attn;   /* the layers' attention part */
  pod_train__mem_part mem;     /* the memory figures */
  pod_train__layer_cost dense; /* a dense layer's cost but its TP, CP times */
  int dense_tp_ops;            /* its TP collectives */
  pod_coll_graphs graphs;
  /* the step's collectives in the order it times them, prepared
  ** (pod_coll_prepare): an evaluation times a collective whose op,
  ** ranks, placement and bytes match its slot with pod_coll_time_prepared,
  ** any other with pod_coll_time_checked (bytes that a sampled field
  ** scales); both give the same time bit for bit */
  int ncoll;
  pod_coll_prep coll[POD_TRAIN_PREP_COLLS];
  signed char same[POD_TRAIN_PREP_COLLS]; /* an earlier slot that times the
                                          ** same collective, or -1 */
} pod_train_prep;

/* Check cfg as pod_train_check does and evaluate it once (errors as
** pod_train_eval's), then fill *prep.  On an error prep->ok is 0. */
int pod_train_prepare(const pod_train_cfg *cfg, pod_train_prep *prep,
                      pod_err *err);

/* Non-zero when bytes [offset, offset + size) of a pod_train_cfg lie in
** one sampled field (above). */
int pod_train_prep_sampled(size_t offset, size_t size);

/* pod_train_eval_specs_checked for a config equal to the prepared one in
** every byte outside the sampled fields, its system and model checked
** (pod_hw_system_check, pod_model_check): the config's own fields are
** checked, nothing else again.  Same results, bit for bit.  POD_EINVAL
** when prep was not prepared. */
int pod_train_eval_prepared(const pod_train_cfg *cfg, pod_train_prep *prep,
                            pod_train_result *out, pod_err *err);

/* Default efficiencies of the shared table for a GPU and dtype (any
** output pointer may be NULL).  POD_ENOTSUP when the table has none. */
int pod_train_default_eff(const pod_gpu *gpu, pod_dtype dtype, double *eff_gemm,
                          double *eff_attn, double *k_half, pod_err *err);

/* Dense peak TFLOP/s of `gpu` in `dtype` (0 when the GPU has none). */
double pod_train_peak_tflops(const pod_gpu *gpu, pod_dtype dtype);

/* Sustained fraction of the boost clock under the board power limit
** (core/train_sw.c, BLACKWELL_STATIC_W): 1 for Hopper, Ampere and a GPU
** of unknown power; 0 for a Blackwell GPU whose power limit does not
** exceed the static power of its dies (pod_train_check rejects it). */
double pod_train_sustained_clock(const pod_gpu *gpu);

/* Names ("bf16", "fp8", "fp4"; "none", "selective", "full"; "delayed",
** "delayed_tp", "current", "block") and parsers (POD_ENOENT when
** unknown). */
/* Name tables, indexed by the enum value, NULL-terminated: dtype
** (pod_dtype), recompute, fp8 recipe, CUDA graphs, MoE dispatcher and
** pipeline schedule. */
extern const char *const pod_train_dtype_names[];
extern const char *const pod_train_recompute_names[];
extern const char *const pod_train_fp8_recipe_names[];
extern const char *const pod_train_graphs_names[];
extern const char *const pod_train_dispatcher_names[];
extern const char *const pod_train_schedule_names[];
const char *pod_train_dtype_name(pod_dtype d);
int pod_train_dtype_parse(const char *name, pod_dtype *out);
const char *pod_train_recompute_name(int r);
int pod_train_recompute_parse(const char *name, int *out);
const char *pod_train_fp8_recipe_name(int r);
int pod_train_fp8_recipe_parse(const char *name, int *out);

/* Software release presets: a named pod_train_sw (name in `name`).
** pod_train_sw_preset copies one (POD_ENOENT when unknown);
** pod_train_sw_at returns the i-th (NULL past the end) and its source. */
typedef struct pod_train_sw_preset_t {
  const char *name;
  pod_train_sw sw;
} pod_train_sw_preset_t;
int pod_train_sw_preset(const char *name, pod_train_sw *out);
const pod_train_sw_preset_t *pod_train_sw_at(int i, const char **source);

/* Names of the software enums ("none", "partial", "full"; "alltoall",
** "deepep", "hybridep"; "1f1b", "dualpipe"). */
const char *pod_train_graphs_name(int g);
const char *pod_train_dispatcher_name(int d);
const char *pod_train_schedule_name(int s);

/* Built-in evaluator: cfg = pod_train_cfg; metrics in this order:
** step_s, tokens_per_s, tokens_per_s_per_gpu, tflops_per_gpu, mfu,
** memory_gb, fits, compute_s, tp_s, cp_s, ep_s, pp_s, dp_s, bubble_s,
** optimizer_s, straggler_s, host_s. */
extern const pod_kernel pod_train_kernel;

/* ---- Layout search ---------------------------------------------------- */

/* Options: in `fix`, a field >= 0 fixes that dimension (tp, pp, vp, dp,
** ep, etp, cp, microbatch > 0; zero, recompute, uneven >= 0), -1 leaves it
** free.  Free dimensions range over: tp dividing heads up to max_tp; pp up
** to max_pp; vp dividing layers/pp (any with uneven) up to max_vp; cp
** powers of two up to max_cp; ep dividing experts; etp dividing tp*cp*dp/ep
** up to max_tp; microbatch dividing the per-replica batch up to max_mb;
** zero 1..3 (0 only when fixed: it is dominated by 1); recompute none,
** selective, full (for each zero stage the least recompute that fits).
** recompute_modules and offload_modules are the base's: the search
** considers activation offload only when the base layout asks for it. */
typedef struct pod_train_search_opts {
  pod_layout fix;
  int top_n; /* keep the best top_n (<= caller's capacity) */
  int max_tp, max_pp, max_vp, max_cp, max_mb;
} pod_train_search_opts;

typedef struct pod_train_search_item {
  pod_layout layout; /* dp resolved */
  double tokens_per_s_per_gpu;
  double step_s;
  double mfu;
  double memory_gb;
} pod_train_search_item;

typedef struct pod_train_search_stats {
  long candidates; /* layouts (without zero/recompute) that passed the
                      divisibility rules */
  long checked;    /* layouts with a ZeRO stage and recompute policy
                      whose memory was evaluated */
  long fitting;    /* of those, layouts that fit in memory */
  long evaluated;  /* step-time evaluations (each fitting layout) */
} pod_train_search_stats;

/* All dimensions free, top_n 10, max_tp 64, max_pp 64, max_vp 16,
** max_cp 16, max_mb 16. */
void pod_train_search_opts_init(pod_train_search_opts *o);

/* Bounds of the search options (pod_field.h); a fixed layout dimension
** (not -1) meets pod_train_layout_fields and, for the parallel sizes,
** is >= 1. */
extern const pod_field pod_train_search_opts_fields[];

/* Search layouts of base->gpus GPUs for base (its layout is ignored except
** as fixed by opts).  Writes up to min(top_n, cap) items into out, best
** first (tokens/s/GPU descending; ties by memory ascending); *n gets the
** count.  stats may be NULL.  POD_EINVAL for bad options or base; POD_OK
** with *n = 0 when no layout fits. */
int pod_train_search(const pod_train_cfg *base,
                     const pod_train_search_opts *opts,
                     pod_train_search_item *out, int cap, int *n,
                     pod_train_search_stats *stats, pod_err *err);

/* A search in parts, for several threads.  Part `part` of `nparts` takes
** the candidates (layouts that pass the divisibility rules, in
** pod_train_search's order) whose place k has k % nparts == part, and
** keeps its best min(top_n, cap) in items (best first) with each item's
** place in the whole search in seq.  pod_train_search_merge then gives
** exactly pod_train_search's result (the same items in the same order, the
** same stats, the first error in the search's order), whatever nparts.
** The caller sets items, seq and cap; part_run fills the rest and returns
** rc.  stop (may be NULL): once it reads nonzero the part ends with
** POD_ECANCELED.  Thread-safe: base and opts are only read, each part
** writes only its own p. */
typedef struct pod_train_search_part {
  pod_train_search_item *items; /* cap items (caller's) */
  long *seq;                    /* cap places (caller's) */
  int cap;
  int n;                        /* items kept */
  pod_train_search_stats stats; /* of this part's candidates */
  int rc;                       /* POD_OK, or why the part stopped */
  long fail_k; /* the candidate it stopped at; -1: before any */
  pod_err err;
} pod_train_search_part;

int pod_train_search_part_run(const pod_train_cfg *base,
                              const pod_train_search_opts *opts, int part,
                              int nparts, const atomic_int *stop,
                              pod_train_search_part *p);

/* The parts' result as pod_train_search's (out, cap, n, stats as there);
** a failed part's rc and error when any failed.  POD_ENOMEM. */
int pod_train_search_merge(const pod_train_search_part *parts, int nparts,
                           pod_train_search_item *out, int cap, int *n,
                           pod_train_search_stats *stats, pod_err *err);

#endif
