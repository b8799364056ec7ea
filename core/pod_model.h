/*
** pod_model.h: transformer model specs, presets, parameter and FLOP counts
** (DESIGN.md 4.3, public.md "Model configurations").
**
** A pod_model is a plain value struct (no pointers): copy it, override any
** field, hand it to the kernels by const pointer.  Counts are computed from
** the structure (matrices of each layer), never stored.  Presets live in
** one table in model.c with the public config each figure comes from.
** Everything here is pure, reentrant and thread-safe.
*/
#ifndef POD_MODEL_H
#define POD_MODEL_H

#include "pod_err.h"
#include "pod_field.h"
#include "pod_hw.h"

typedef enum pod_attn_kind {
  POD_ATTN_MHA, /* kv_heads == heads */
  POD_ATTN_GQA, /* kv_heads divides heads */
  POD_ATTN_MLA  /* DeepSeek multi-head latent attention (q_lora .. v_head) */
} pod_attn_kind;

typedef struct pod_model {
  char name[POD_NAME_MAX];
  int layers; /* transformer blocks of the main model */
  int hidden;
  int ffn; /* MLP width of dense layers (0 when none) */
  int heads;
  int kv_heads; /* GQA groups; = heads for MHA; unused for MLA */
  int head_dim; /* 0 means hidden / heads (MHA/GQA) */
  int vocab;
  pod_attn_kind attn;
  int q_lora;          /* MLA: query low-rank dim (0 = full-rank q) */
  int kv_lora;         /* MLA: compressed KV dim */
  int qk_nope;         /* MLA: per-head q/k dims without rotary */
  int qk_rope;         /* MLA: per-head rotary dims (shared k_pe) */
  int v_head;          /* MLA: per-head value dim */
  int tied_embeddings; /* 1: LM head shares the embedding matrix */
  int gated_mlp;       /* 1: SwiGLU (3 matrices), 0: GELU MLP (2 matrices) */
  /* Mixture of experts (experts == 0: dense model). */
  int experts;            /* routed experts per MoE layer */
  int top_k;              /* routed experts per token */
  int expert_ffn;         /* width of one routed (and shared) expert */
  int shared_experts;     /* always-active experts per MoE layer */
  int dense_layers;       /* leading dense layers before the first MoE layer */
  int moe_interval;       /* after dense_layers, every k-th layer is MoE */
  double capacity_factor; /* token-dropping capacity; 0 = dropless */
  double imbalance;       /* max over mean tokens per expert, >= 1 */
  int mtp_layers;         /* multi-token-prediction blocks (DeepSeek-V3: 1);
                             trained and counted in FLOPs, excluded from
                             params_total like the published 671B */
} pod_model;

/* Parameter counts (in parameters, not bytes), computed from the matrices.
** Norm weights are counted; biases (none in Llama/DeepSeek/Mixtral, small
** in GPT-3) are not. */
typedef struct pod_model_params {
  double total;     /* main model: embedding + layers + final norm + head
                       (head counted once more when untied) */
  double active;    /* per token: routed experts scaled by top_k/experts */
  double embedding; /* vocab * hidden input embedding */
  double head;      /* LM head (0 when tied) */
  double attn_per_layer;
  double dense_mlp_per_layer;
  double moe_per_layer; /* router + routed + shared experts */
  double expert;        /* one routed expert */
  double layers_dense;  /* all dense (non-expert) weights in layers:
                           attention, norms, dense MLPs, routers,
                           shared experts */
  double layers_expert; /* all routed-expert weights in layers */
  double mtp;           /* MTP module weights (not in total) */
  int moe_layers;
  int dense_mlp_layers;
} pod_model_params;

/* Model FLOPs per token for one training step (forward + backward = 3x
** forward, 2 FLOPs per multiply-add).  gemm terms are 6 * weights used per
** token; attention is the score and value products: 12 * L * s * h_attn per
** token for full attention, half of it when `causal` is 1.  The LM head is
** counted (as Megatron and NeMo do); embedding lookups are not. */
typedef struct pod_model_flops {
  double gemm_dense;  /* attention projections, dense MLPs, shared experts,
                         routers, over all main layers */
  double gemm_expert; /* routed experts (top_k per token) */
  double attn;        /* score/value products (causal or full) */
  double head;        /* LM head */
  double mtp;         /* MTP blocks incl. their head pass */
  double total;       /* sum: model FLOPs per token (the MFU numerator) */
} pod_model_flops;

/* Copy the preset named `name` into *out.  POD_ENOENT when unknown. */
int pod_model_preset(const char *name, pod_model *out);

/* Iterate presets in table order: i from 0 while the result is not NULL.
** `source` (may be NULL) receives the public source text. */
const pod_model *pod_model_at(int i, const char **source);

/* Bounds of the numeric fields (pod_field.h), the one home of each range
** (the Lua bindings read it). */
extern const pod_field pod_model_fields[];

/* Check every field: the table above, then the rules across fields and
** per attention kind; fills err->field with the field name ("layers",
** "kv_heads", "top_k", ...).  POD_EINVAL on failure. */
int pod_model_check(const pod_model *m, pod_err *err);

/* Parameter counts.  Assumes a checked model. */
void pod_model_params_count(const pod_model *m, pod_model_params *out);

/* Model FLOPs per token at sequence length `seq`; `causal` 1 halves the
** attention term.  Assumes a checked model. */
void pod_model_flops_per_token(const pod_model *m, int seq, int causal,
                               pod_model_flops *out);
/* The same from counts that pod_model_params_count made for m (a caller
** that has them saves counting again): identical results. */
void pod_model_flops_with_params(const pod_model *m, const pod_model_params *p,
                                 int seq, int causal, pod_model_flops *out);

/* Per-layer helpers used by the training model. */
int pod_model_is_moe_layer(const pod_model *m, int layer);
/* Width of q/k (per head) and v (per head) used by attention products. */
int pod_model_qk_dim(const pod_model *m);
int pod_model_v_dim(const pod_model *m);
/* KV elements per token per layer that attention must move (K and V). */
double pod_model_kv_elems(const pod_model *m);

/* Names of attention kinds ("mha", "gqa", "mla") and their parser. */
/* Attention names, indexed by pod_attn_kind, NULL-terminated. */
extern const char *const pod_model_attn_names[];
const char *pod_model_attn_name(pod_attn_kind k);
int pod_model_attn_parse(const char *name, pod_attn_kind *out);

#endif
