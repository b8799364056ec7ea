/*
** train_check.c: the training model's names (dtype, recompute, fp8
** recipe), config defaults and checks (see pod_train.h).
*/
#include "train_int.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- Names ------------------------------------------------------------ */

const char *const pod_train_dtype_names[] = {"bf16", "fp8", "fp4", NULL};
const char *const pod_train_recompute_names[] = {"none", "selective", "full",
                                                 NULL};
const char *const pod_train_fp8_recipe_names[] = {"delayed", "delayed_tp",
                                                  "current", "block", NULL};

const char *pod_train_dtype_name(pod_dtype d) {
  return ((int)d >= 0 && d <= POD_DTYPE_FP4) ? pod_train_dtype_names[d] : "?";
}

int pod_train_dtype_parse(const char *name, pod_dtype *out) {
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, pod_train_dtype_names[i]) == 0) {
      if (out) *out = (pod_dtype)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

const char *pod_train_recompute_name(int r) {
  return (r >= 0 && r <= 2) ? pod_train_recompute_names[r] : "?";
}

int pod_train_recompute_parse(const char *name, int *out) {
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, pod_train_recompute_names[i]) == 0) {
      if (out) *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

const char *pod_train_fp8_recipe_name(int r) {
  return (r >= 0 && r <= POD_FP8_BLOCK) ? pod_train_fp8_recipe_names[r] : "?";
}

int pod_train_fp8_recipe_parse(const char *name, int *out) {
  for (int i = 0; i <= POD_FP8_BLOCK; i++)
    if (name && strcmp(name, pod_train_fp8_recipe_names[i]) == 0) {
      if (out) *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

const char *const pod_train_graphs_names[] = {"none", "partial", "full", NULL};
const char *const pod_train_dispatcher_names[] = {"alltoall", "deepep",
                                                  "hybridep", NULL};

const char *pod_train_graphs_name(int g) {
  return (g >= 0 && g <= POD_GRAPHS_FULL) ? pod_train_graphs_names[g] : "?";
}

const char *const pod_train_schedule_names[] = {"1f1b", "dualpipe", NULL};

const char *pod_train_schedule_name(int s) {
  return (s >= 0 && s <= POD_SCHED_DUALPIPE) ? pod_train_schedule_names[s]
                                             : "?";
}

const char *pod_train_dispatcher_name(int d) {
  return (d >= 0 && d <= POD_DISPATCH_HYBRIDEP) ? pod_train_dispatcher_names[d]
                                                : "?";
}

/* ---- Software releases ------------------------------------------------ */

/* Each release preset is the feature set of that release's flagship MoE
** recipe (DeepSeek-V3 MXFP8 on GB200 NVL72) in NVIDIA-NeMo/Megatron-
** Bridge scripts/performance/configs/deepseek/deepseek_workload_base_
** configs.py at the release tag; a case on another system overrides what
** its own recipe changes (fp8 attention on GB300, partial graphs on
** DGX-B300, ...), as its recipe did.  Fields: cuda_graphs, a2a_overlap,
** fused_grouped_mlp, fp8_attention, dispatcher, max_domains, fp8_params
** (every fp8 recipe of both releases sets fp8_param_gather = True:
** src/megatron/bridge/training/mixed_precision.py), tp_comm_overlap (on
** in every preset, "none" included: overlap_tp is podsim's prior for
** TE's userbuffers overlap, which every published Llama recipe runs; the
** NVFP4 Llama 3.1 405B recipes turn it off, scripts/performance/configs/
** llama/llama31_llm_pretrain.py at v0.5.0). */
static const struct {
  pod_train_sw_preset_t p;
  const char *source;
} SW[] = {
    {{"none",
      {POD_GRAPHS_NONE, 0, 0, 0, POD_DISPATCH_ALLTOALL, 0, POD_SCHED_1F1B, 0,
       1}},
     "no CUDA graphs, no A2A overlap, unfused experts, bf16 attention, NCCL "
     "all-to-all dispatcher (Megatron-Core defaults)"},
    {{"megatron_bridge_26_02",
      {POD_GRAPHS_NONE, 0, 0, 0, POD_DISPATCH_HYBRIDEP, 0, POD_SCHED_1F1B, 1,
       1}},
     "Megatron-Bridge v0.3.0 (NeMo 26.02): DEEPSEEK_V3_PRETRAIN_CONFIG_"
     "GB300_V1: moe_flex_dispatcher_backend hybridep, moe_a2a_overlap False, "
     "cuda_graph_scope [] (the GB200 recipe adds transformer_engine graphs "
     "of attn, moe_router, moe_preprocess)"},
    {{"megatron_bridge_26_04",
      {POD_GRAPHS_NONE, 0, 0, 0, POD_DISPATCH_HYBRIDEP, 0, POD_SCHED_1F1B, 1,
       1}},
     "Megatron-Bridge v0.4.0 (NeMo 26.04): DEEPSEEK_V3_PRETRAIN_CONFIG_"
     "GB300_V1: moe_flex_dispatcher_backend hybridep, moe_a2a_overlap False, "
     "cuda_graph_scope [] (the GB200 recipe adds transformer_engine graphs "
     "of attn, moe_router, moe_preprocess)"},
    {{"megatron_bridge_26_06",
      {POD_GRAPHS_FULL, 1, 1, 0, POD_DISPATCH_HYBRIDEP, 0, POD_SCHED_1F1B, 1,
       1}},
     "Megatron-Bridge v0.5.0 (NeMo 26.06): DEEPSEEK_V3_PRETRAIN_CONFIG_"
     "GB200_FP8_MX_V1: cuda_graph_impl full_iteration, moe_a2a_overlap True, "
     "cutedsl_fused_grouped_mlp True, hybridep (the GB300 recipe adds "
     "fp8_dot_product_attention; DGX-B300's keeps transformer_engine graphs "
     "and no overlap)"},
};

int pod_train_sw_preset(const char *name, pod_train_sw *out) {
  for (size_t i = 0; i < sizeof SW / sizeof SW[0]; i++)
    if (name && strcmp(name, SW[i].p.name) == 0) {
      if (out) *out = SW[i].p.sw;
      return POD_OK;
    }
  return POD_ENOENT;
}

const pod_train_sw_preset_t *pod_train_sw_at(int i, const char **source) {
  if (i < 0 || (size_t)i >= sizeof SW / sizeof SW[0]) return NULL;
  if (source) *source = SW[i].source;
  return &SW[i].p;
}

/* ---- Defaults --------------------------------------------------------- */

void pod_train_cfg_defaults(pod_train_cfg *c) {
  c->eff_gemm = 0.0; /* table */
  c->eff_attn = 0.0; /* table */
  /* Sustained fraction of HBM bandwidth for streaming kernels (STREAM-
  ** like copies reach 80-90% on H100/B200; NVIDIA H100 tuning guide). */
  c->eff_hbm = 0.8;
  c->gemm_k_half = -1.0; /* table */
  c->gemm_w_half = -1.0; /* table */
  c->eff_scale = 1.0;
  /* Overlap priors (not fitted): Transformer Engine userbuffers overlap
  ** of TP all-gather/reduce-scatter with the GEMMs, used in NVIDIA's
  ** Llama recipes (tp_comm_overlap): most of it hidden. */
  c->overlap_tp = 0.7;
  /* CP ring attention overlaps each KV hop with the previous block's
  ** attention (Megatron cp_comm_type p2p). */
  c->overlap_cp = 0.8;
  /* EP all-to-all: dispatch/combine sit between the router and the
  ** expert GEMMs; shared-expert overlap and batch-level overlap
  ** (--overlap-moe-expert-parallel-comm) hide part of it; prior 0.5. */
  c->overlap_ep = 0.5;
  /* PP p2p is asynchronous in the interleaved schedule. */
  c->overlap_pp = 0.8;
  /* overlap_grad_reduce / overlap_param_gather: hidden behind the last
  ** micro-batch's backward and the next step's first forward. */
  c->overlap_dp = 0.9;
  /* Activation offload: the copies run on the copy engines, concurrent
  ** with the kernels (Megatron-Core's offload manager issues them on a
  ** side stream and prefetches the next module), so all of a copy may
  ** hide; the compute window of its pass bounds it (train_act.c). */
  c->overlap_offload = 1.0;
  /* Per-GPU step-time coefficient of variation (kernel-time noise, host
  ** jitter, thermal/clock variation): FITTED on the T3 bf16 weak-scaling
  ** slope (Llama 3.1 70B on H100, MFU 54.5% -> 53.7% from 64 to 2,048
  ** GPUs); the T4, T5 and T7 slopes are predictions (the fp8 slopes with
  ** jitter_sync, fitted on T3 fp8). */
  c->jitter = 0.0153;
  c->grad_reduce_bytes = 2.0; /* bf16 grad reduce (NeMo perf recipes) */
  c->mem_reserve_gb = 4.0;    /* CUDA context, NCCL buffers, allocator */
  c->mfu_full_attn = 0;
  /* Transformer Engine's default recipe (DelayedScaling) and NeMo 2.0's
  ** performance scripts' default (--fp8_recipe ds; the Llama 3 70B and
  ** 405B scripts leave tp_only_amax_red off, scripts/performance/llm/
  ** pretrain_llama3_70b.py, 2025). */
  c->fp8_recipe = POD_FP8_DELAYED;
  c->jitter_sync = JITTER_SYNC;
  c->host_expert_us = -1.0;     /* table (train.c, HOST_EXPERT_US) */
  c->moe_layer_us = -1.0;       /* table (train_sw.c, MOE_LAYER_US) */
  c->gemm_k_half_expert = -1.0; /* table (train_sw.c, K_HALF_EXPERT_FP8) */
}

void pod_train_cfg_init(pod_train_cfg *c) {
  memset(c, 0, sizeof *c);
  pod_train_cfg_defaults(c);
  c->dtype = POD_DTYPE_BF16;
  pod_layout *l = &c->parallel;
  l->tp = l->pp = l->vp = l->ep = l->etp = l->cp = l->microbatch = 1;
  l->dp = 0;
  l->zero = 1;
  l->recompute = POD_RECOMPUTE_NONE;
  l->uneven = 0;
  c->software.tp_comm_overlap = 1; /* as every preset (above) */
}

/* ---- Checks ----------------------------------------------------------- */

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: the checks below walk these tables and the Lua bindings read
** them.  Layout dimensions of 0 mean 1 (pod_train__normalize). */
#define TRAIN_CFG_FIELDS(X)                                                    \
  X(INT, gpus, 1, 1 << 24, 0, "GPUs")                                          \
  X(INT, seq, 1, 1 << 24, 0, "tokens per sequence")                            \
  X(INT, global_batch, 1, 1 << 28, 0, "sequences per step")                    \
  X(DOUBLE, eff_gemm, -1, 1, 0, "fraction of peak (<= 0: table)")              \
  X(DOUBLE, eff_attn, -1, 1, 0, "fraction of bf16 peak (<= 0: table)")         \
  X(DOUBLE, gemm_k_half, -1, 1e9, 0, "hidden size (< 0: table)")               \
  X(DOUBLE, gemm_k_half_expert, -1, 1e9, 0, "expert K (< 0: table)")           \
  X(DOUBLE, gemm_w_half, -1, 1e9, 0, "expert width (< 0: table)")              \
  X(DOUBLE, eff_scale, 0, 2, POD_F_MIN_OPEN, "software maturity multiplier")   \
  X(DOUBLE, eff_hbm, 0, 1, POD_F_MIN_OPEN, "fraction of HBM bandwidth")        \
  X(DOUBLE, overlap_tp, 0, 1, 0, "fraction hidden")                            \
  X(DOUBLE, overlap_cp, 0, 1, 0, "fraction hidden")                            \
  X(DOUBLE, overlap_ep, 0, 1, 0, "fraction hidden")                            \
  X(DOUBLE, overlap_pp, 0, 1, 0, "fraction hidden")                            \
  X(DOUBLE, overlap_dp, 0, 1, 0, "fraction hidden")                            \
  X(DOUBLE, overlap_offload, 0, 1, 0, "fraction hidden")                       \
  X(DOUBLE, jitter, 0, 1, POD_F_MAX_OPEN, "per-GPU step-time CV")              \
  X(DOUBLE, grad_reduce_bytes, 0, 8, POD_F_MIN_OPEN,                           \
    "bytes per gradient element")                                              \
  X(DOUBLE, mem_reserve_gb, 0, 1e6, 0, "GB")                                   \
  X(BOOL, mfu_full_attn, 0, 1, 0, "MFU counts full attention")                 \
  X(DOUBLE, jitter_sync, 0, 1, POD_F_MAX_OPEN, "per-interval CV (amax syncs)") \
  X(DOUBLE, host_expert_us, -1, 1e6, 0,                                        \
    "us per local expert per MoE pass (< 0: default)")                         \
  X(DOUBLE, moe_layer_us, -1, 1e6, 0,                                          \
    "us per MoE layer per micro-batch (< 0: default)")
#define TRAIN_CFG_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_train_cfg, k, m, lo, hi, open, unit)
const pod_field pod_train_cfg_fields[] = {TRAIN_CFG_FIELDS(TRAIN_CFG_FIELDS_E)
                                              POD_FIELD_END};
#define TRAIN_CFG_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int cfg_fields_ok(const pod_train_cfg *x) {
  return 1 TRAIN_CFG_FIELDS(TRAIN_CFG_FIELDS_S);
}
/* The same screen of the sampled fields only: the term of any other
** member folds to 1 (is_sampled of a constant offset is a constant). */
#define SAMPLED_AT(m) | (off == offsetof(pod_train_cfg, m))
static inline int is_sampled(size_t off) {
  return 0 POD_TRAIN__SAMPLED_CFG(SAMPLED_AT);
}
#define TRAIN_SAMPLED_S(k, m, lo, hi, open, unit) \
  &((!is_sampled(offsetof(pod_train_cfg, m))) |   \
    POD_FIELD_SCREEN_##k(x->m, (lo), (hi), (open)))
int pod_train__sampled_ok(const pod_train_cfg *x) {
  return 1 TRAIN_CFG_FIELDS(TRAIN_SAMPLED_S);
}
#undef TRAIN_SAMPLED_S
#undef SAMPLED_AT
#undef TRAIN_CFG_FIELDS_E
#undef TRAIN_CFG_FIELDS_S

#define LAYOUT_FIELDS(X)                                                \
  X(INT, tp, 0, 1 << 16, 0, "tensor parallel (0: 1)")                   \
  X(INT, pp, 0, 1 << 16, 0, "pipeline stages (0: 1)")                   \
  X(INT, vp, 0, 1 << 16, 0, "virtual stages per rank (0: 1)")           \
  X(INT, dp, 0, 1 << 24, 0, "data parallel (0: derived)")               \
  X(INT, ep, 0, 1 << 20, 0, "expert parallel (0: 1)")                   \
  X(INT, etp, 0, 1 << 16, 0, "expert tensor parallel (0: 1)")           \
  X(INT, cp, 0, 1 << 16, 0, "context parallel (0: 1)")                  \
  X(INT, microbatch, 0, 1 << 20, 0, "sequences per micro-batch (0: 1)") \
  X(INT, zero, 0, 3, 0, "0 replicated, 1 distributed optimizer, 2, 3")  \
  X(BOOL, uneven, 0, 1, 0, "uneven pipeline layout")
#define LAYOUT_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_layout, k, m, lo, hi, open, unit)
const pod_field pod_train_layout_fields[] = {LAYOUT_FIELDS(LAYOUT_FIELDS_E)
                                                 POD_FIELD_END};
#define LAYOUT_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int layout_fields_ok(const pod_layout *x) {
  return 1 LAYOUT_FIELDS(LAYOUT_FIELDS_S);
}
#undef LAYOUT_FIELDS_E
#undef LAYOUT_FIELDS_S

#define RECOMPUTE_FIELDS(X)                                         \
  X(BOOL, core_attn, 0, 1, 0, "recompute attention")                \
  X(BOOL, layernorm, 0, 1, 0, "recompute the norms")                \
  X(BOOL, mla_up_proj, 0, 1, 0, "recompute the MLA up-projections") \
  X(BOOL, moe_act, 0, 1, 0, "recompute the expert activation")      \
  X(BOOL, mlp, 0, 1, 0, "recompute the dense MLP")
#define RECOMPUTE_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_recompute_set, k, m, lo, hi, open, unit)
const pod_field pod_train_recompute_set_fields[] = {
    RECOMPUTE_FIELDS(RECOMPUTE_FIELDS_E) POD_FIELD_END};
#define RECOMPUTE_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int recompute_fields_ok(const pod_recompute_set *x) {
  return 1 RECOMPUTE_FIELDS(RECOMPUTE_FIELDS_S);
}
#undef RECOMPUTE_FIELDS_E
#undef RECOMPUTE_FIELDS_S

#define OFFLOAD_FIELDS(X)                                       \
  X(BOOL, attn_norm, 0, 1, 0, "offload the attention input")    \
  X(BOOL, core_attn, 0, 1, 0, "offload q, k, v")                \
  X(BOOL, attn_proj, 0, 1, 0, "offload the attention output")   \
  X(BOOL, mlp_norm, 0, 1, 0, "offload the MLP residual")        \
  X(BOOL, expert_fc1, 0, 1, 0, "offload the dispatched tokens") \
  X(BOOL, moe_act, 0, 1, 0, "offload the experts' fc1 output")
#define OFFLOAD_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_offload_set, k, m, lo, hi, open, unit)
const pod_field pod_train_offload_set_fields[] = {
    OFFLOAD_FIELDS(OFFLOAD_FIELDS_E) POD_FIELD_END};
#define OFFLOAD_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
static int offload_fields_ok(const pod_offload_set *x) {
  return 1 OFFLOAD_FIELDS(OFFLOAD_FIELDS_S);
}
#undef OFFLOAD_FIELDS_E
#undef OFFLOAD_FIELDS_S

#define SW_FIELDS(X)                                                    \
  X(BOOL, a2a_overlap, 0, 1, 0, "moe_a2a_overlap")                      \
  X(BOOL, fused_grouped_mlp, 0, 1, 0, "cutedsl_fused_grouped_mlp")      \
  X(BOOL, fp8_attention, 0, 1, 0, "fp8_dot_product_attention")          \
  X(INT, max_domains, 0, 1 << 20, 0, "domains per token (0: no limit)") \
  X(BOOL, fp8_params, 0, 1, 0, "fp8_param_gather")                      \
  X(BOOL, tp_comm_overlap, 0, 1, 0, "tp_comm_overlap")
#define SW_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_train_sw, k, m, lo, hi, open, unit)
const pod_field pod_train_sw_fields[] = {SW_FIELDS(SW_FIELDS_E) POD_FIELD_END};
#define SW_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int sw_fields_ok(const pod_train_sw *x) {
  return 1 SW_FIELDS(SW_FIELDS_S);
}
#undef SW_FIELDS_E
#undef SW_FIELDS_S

/* The expert part of the layout (MoE parallel folding, see check_layout):
** ep and etp of a dense model are 1; of a MoE model ep divides the
** experts, etp expert_ffn, and ep*etp the tp*cp*dp ranks. */
static int check_expert_layout(const pod_train_cfg *c, int dp, pod_err *err) {
  const pod_layout *l = &c->parallel;
  const pod_model *m = &c->model;
  if (m->experts == 0) {
    NEED(l->ep == 1, "parallel.ep", "must be 1 for a dense model (got %d)",
         l->ep);
    NEED(l->etp == 1, "parallel.etp", "must be 1 for a dense model (got %d)",
         l->etp);
  } else {
    NEED(m->experts % l->ep == 0, "parallel.ep",
         "must divide the routed experts (%d experts, ep %d)", m->experts,
         l->ep);
    NEED(m->expert_ffn % l->etp == 0, "parallel.etp",
         "must divide expert_ffn (%d, etp %d)", m->expert_ffn, l->etp);
    long world = (long)l->tp * l->cp * dp;
    NEED(world % ((long)l->ep * l->etp) == 0, "parallel.ep",
         "ep*etp = %ld must divide tp*cp*dp = %ld (MoE parallel folding)",
         (long)l->ep * l->etp, world);
  }
  return POD_OK;
}

/* Resolve dp; check the layout rules.  Rules (Megatron-LM):
**  - tp divides heads (and KV heads for GQA: num_query_groups % tp);
**  - tp * pp * cp * dp = gpus (dense part);
**  - pp <= layers; vp > 1 needs pp > 1; pp*vp divides layers unless
**    uneven (then pp*vp <= layers + 2: Megatron's account_for_embedding_
**    in_pipeline_split and account_for_loss_in_pipeline_split count the
**    embedding and the loss as one layer each, so a layout may hold an
**    embedding-only first and a loss-only last virtual stage, as the
**    Llama 3.1 405B MXFP8 recipe's PP16 VP8 over 126 layers does);
**  - cp > 1 needs seq divisible by 2*cp (load-balanced causal split);
**  - MoE parallel folding (Liu et al. 2025, "MoE Parallel Folding",
**    Megatron-Core): the expert part of each pipeline stage re-folds the
**    same tp*cp*dp ranks as etp x ep x edp, so ep*etp must divide tp*cp*dp;
**    ep divides experts; etp divides expert_ffn; dense models need
**    ep = etp = 1;
**  - global_batch divisible by dp * microbatch;
**  - vp > 1: at least pp micro-batches per pipeline (Megatron-Core's
**    interleaved schedule). */
static int check_layout(const pod_train_cfg *c, int *dp_out, pod_err *err) {
  const pod_layout *l = &c->parallel;
  const pod_model *m = &c->model;
  /* the table's bounds (0 = 1 was normalized before), then the rules */
  int rc = POD_OK;
  if (!(layout_fields_ok(l) & recompute_fields_ok(&l->recompute_modules) &
        offload_fields_ok(&l->offload_modules))) {
    rc = pod_field_check_all(pod_train_layout_fields, l, "parallel.", err);
    if (rc == POD_OK)
      rc = pod_field_check_all(pod_train_recompute_set_fields,
                               &l->recompute_modules,
                               "parallel.recompute_modules.", err);
    if (rc == POD_OK)
      rc =
          pod_field_check_all(pod_train_offload_set_fields, &l->offload_modules,
                              "parallel.offload_modules.", err);
  }
  if (rc != POD_OK) return rc;
  NEED(l->tp <= m->heads && m->heads % l->tp == 0, "parallel.tp",
       "must divide the attention heads (%d heads, tp %d)", m->heads, l->tp);
  NEED(m->attn == POD_ATTN_MLA || m->kv_heads % l->tp == 0, "parallel.tp",
       "must divide the KV heads (%d kv_heads, tp %d)", m->kv_heads, l->tp);
  NEED(l->pp >= 1 && l->pp <= m->layers, "parallel.pp",
       "must be in [1, layers=%d] (got %d)", m->layers, l->pp);
  NEED(l->vp == 1 || l->pp > 1, "parallel.vp",
       "virtual stages (vp %d) need pp > 1", l->vp);
  /* every virtual stage holds at least one layer, or with uneven the
  ** embedding or the loss: pp*vp <= layers (+ 2), which also keeps the
  ** int products of pp and vp below in range */
  long slots_max = (long)m->layers + (l->uneven == 1 ? 2 : 0);
  NEED((long)l->pp * l->vp <= slots_max, "parallel.vp",
       "pp*vp = %ld exceeds layers (%d)%s", (long)l->pp * l->vp, m->layers,
       l->uneven == 1 ? " + 2 (the embedding and loss stages)" : "");
  NEED(l->tp <= c->gpus && l->cp <= c->gpus && l->ep <= c->gpus &&
           l->etp <= c->gpus,
       "parallel", "no parallel dimension may exceed gpus (%d)", c->gpus);
  if (!l->uneven && l->vp == 1) {
    NEED(m->layers % l->pp == 0, "parallel.pp",
         "must divide layers (%d layers, pp %d); set uneven for an uneven "
         "pipeline layout",
         m->layers, l->pp);
  } else if (!l->uneven) {
    NEED(m->layers % (l->pp * l->vp) == 0, "parallel.vp",
         "pp*vp must divide layers (%d layers, pp %d, vp %d); set uneven for "
         "an uneven pipeline layout",
         m->layers, l->pp, l->vp);
  }
  NEED(l->cp == 1 || c->seq % (2 * l->cp) == 0, "parallel.cp",
       "seq (%d) must be divisible by 2*cp (%d) for the load-balanced "
       "causal split",
       c->seq, 2 * l->cp);
  /* tp, pp and cp are each within their bounds and tp, cp within gpus, but
  ** their product may not be (2^16 * 2^16 * 2^16 = 2^48; times dp up to
  ** 2^24 it wraps a 64-bit integer): the product in double (exact below
  ** 2^53) is bounded by gpus before any integer product of the layout, so
  ** tp*pp*cp*dp and every product below stays under 2^48. */
  double tpc_d = (double)l->tp * l->pp * l->cp;
  NEED(tpc_d <= c->gpus, "parallel",
       "tp*pp*cp = %.0f (tp %d, pp %d, cp %d) exceeds gpus (%d)", tpc_d, l->tp,
       l->pp, l->cp, c->gpus);
  long tpc = (long)l->tp * l->pp * l->cp;
  int dp = l->dp;
  if (dp == 0) {
    NEED(c->gpus % tpc == 0, "gpus",
         "must be a multiple of tp*pp*cp = %ld (got %d)", tpc, c->gpus);
    dp = (int)(c->gpus / tpc);
  } else {
    NEED(tpc * dp == c->gpus, "parallel.dp",
         "tp*pp*cp*dp = %ld must equal gpus (%d)", tpc * dp, c->gpus);
  }
  rc = check_expert_layout(c, dp, err);
  if (rc != POD_OK) return rc;
  NEED(c->global_batch % ((long)dp * l->microbatch) == 0, "global_batch",
       "must be divisible by dp*microbatch = %ld (got %d)",
       (long)dp * l->microbatch, c->global_batch);
  NEED(l->recompute >= 0 && l->recompute <= 2, "parallel.recompute",
       "must be none, selective or full (got %d)", l->recompute);
  /* Interleaved 1F1B runs the micro-batches in groups of
  ** microbatch_group_size_per_vp_stage per virtual stage, which must lie
  ** in [pp, M] (NVIDIA/Megatron-LM megatron/core/pipeline_parallel/
  ** schedules.py at d98e8a6): M >= pp whatever the group size (its
  ** default, pp, also wants M a multiple of pp). */
  long nmb = c->global_batch / ((long)dp * l->microbatch);
  NEED(l->vp == 1 || nmb >= l->pp, "parallel.vp",
       "interleaved stages (vp %d) need at least pp (%d) micro-batches per "
       "pipeline (got %ld)",
       l->vp, l->pp, nmb);
  if (c->software.schedule == POD_SCHED_DUALPIPE) {
    /* DeepSeek-V3 report, sec. 3.2.1: "DualPipe only requires that the
    ** pipeline stages and micro-batches be divisible by 2"; its own
    ** bidirectional placement, no virtual stages */
    NEED(l->pp >= 2 && l->pp % 2 == 0, "parallel.pp",
         "DualPipe needs an even pp >= 2 (got %d)", l->pp);
    NEED(l->vp == 1, "parallel.vp", "DualPipe has no virtual stages (vp %d)",
         l->vp);
    NEED(nmb % 2 == 0, "global_batch",
         "DualPipe needs an even number of micro-batches per pipeline (got "
         "%ld)",
         nmb);
  }
  rc = pod_train__check_offload(c, err);
  if (rc != POD_OK) return rc;
  *dp_out = dp;
  return POD_OK;
}

static int prefix_err(pod_err *err, int rc, const char *prefix) {
  if (err && rc != POD_OK) {
    char f[POD_ERR_FIELD_MAX];
    size_t n = strlen(prefix);
    memcpy(f, prefix, n);
    snprintf(f + n, sizeof f - n, ".%s", err->field);
    memcpy(err->field, f, sizeof f);
  }
  return rc;
}

int pod_train__check_common(const pod_train_cfg *c, pod_err *err) {
  if (c == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  int rc = pod_hw_system_check(&c->system, err);
  if (rc != POD_OK) return prefix_err(err, rc, "system");
  rc = pod_model_check(&c->model, err);
  if (rc != POD_OK) return prefix_err(err, rc, "model");
  return pod_train__check_fields(c, err);
}

int pod_train__check_fields(const pod_train_cfg *c, pod_err *err) {
  int rc;
  if (!(cfg_fields_ok(c) & sw_fields_ok(&c->software)) &&
      ((rc = pod_field_check_all(pod_train_cfg_fields, c, "", err)) ||
       (rc = pod_field_check_all(pod_train_sw_fields, &c->software, "software.",
                                 err))))
    return rc;
  NEED((int)c->dtype >= 0 && c->dtype <= POD_DTYPE_FP4, "dtype",
       "must be bf16, fp8 or fp4");
  if (pod_train_peak_tflops(&c->system.gpu, c->dtype) <= 0.0)
    return pod_err_set(err, POD_ENOTSUP, "dtype", "GPU '%s' has no %s peak",
                       c->system.gpu.name, pod_train_dtype_name(c->dtype));
  if ((rc = pod_train__clock_check(&c->system.gpu, err))) return rc;
  NEED(c->fp8_recipe >= 0 && c->fp8_recipe <= POD_FP8_BLOCK, "fp8_recipe",
       "must be delayed, delayed_tp, current or block (got %d)", c->fp8_recipe);
  const pod_train_sw *sw = &c->software;
  NEED(sw->cuda_graphs >= POD_GRAPHS_NONE && sw->cuda_graphs <= POD_GRAPHS_FULL,
       "software.cuda_graphs", "must be none, partial or full (got %d)",
       sw->cuda_graphs);
  NEED(sw->dispatcher >= POD_DISPATCH_ALLTOALL &&
           sw->dispatcher <= POD_DISPATCH_HYBRIDEP,
       "software.dispatcher", "must be alltoall, deepep or hybridep (got %d)",
       sw->dispatcher);
  NEED(sw->schedule >= POD_SCHED_1F1B && sw->schedule <= POD_SCHED_DUALPIPE,
       "software.schedule", "must be 1f1b or dualpipe (got %d)", sw->schedule);
  return POD_OK;
}

int pod_train__check_cfg(const pod_train_cfg *c, int *dp, pod_err *err) {
  int rc = pod_train__check_common(c, err);
  if (rc != POD_OK) return rc;
  return check_layout(c, dp, err);
}

int pod_train__check_cfg_fields(const pod_train_cfg *c, int *dp, pod_err *err) {
  int rc = pod_train__check_fields(c, err);
  if (rc != POD_OK) return rc;
  return check_layout(c, dp, err);
}

/* 0 in a layout dimension means its default, 1. */
void pod_train__normalize(pod_layout *l) {
  int *dims[] = {&l->tp,  &l->pp, &l->vp,        &l->ep,
                 &l->etp, &l->cp, &l->microbatch};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (*dims[i] == 0) *dims[i] = 1;
}

int pod_train_check(const pod_train_cfg *cfg, pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  pod_train_cfg c = *cfg;
  pod_train__normalize(&c.parallel);
  int dp;
  return pod_train__check_cfg(&c, &dp, err);
}

int pod_train_check_base(const pod_train_cfg *cfg, pod_err *err) {
  return pod_train__check_common(cfg, err);
}
