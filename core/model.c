/*
** model.c: model presets, checks, parameter and FLOP counts (pod_model.h).
*/
#include "pod_model.h"
#include "pod_field.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct model_preset {
  pod_model m;
  const char *source;
} model_preset;

/* Field order: name, layers, hidden, ffn, heads, kv_heads, head_dim, vocab,
** attn, q_lora, kv_lora, qk_nope, qk_rope, v_head, tied, gated, experts,
** top_k, expert_ffn, shared_experts, dense_layers, moe_interval,
** capacity_factor, imbalance, mtp_layers. */
static const model_preset presets[] = {
    {{"llama3_8b", 32, 4096, 14336, 32,  8,   128, 128256, POD_ATTN_GQA,
      0,           0,  0,    0,     0,   0,   1,   0,      0,
      0,           0,  0,    1,     0.0, 1.0, 0},
     "meta-llama/Meta-Llama-3-8B config.json (hidden_size 4096, "
     "intermediate_size 14336, 32 layers, 32 heads / 8 KV, vocab 128256, "
     "untied); published 8.03B"},
    {{"llama3_70b",
      80,
      8192,
      28672,
      64,
      8,
      128,
      128256,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      0,
      1,
      0.0,
      1.0,
      0},
     "meta-llama/Meta-Llama-3-70B config.json (8192, 28672, 80 layers, "
     "64/8 heads, vocab 128256, untied); published 70.6B"},
    {{"llama3_405b",
      126,
      16384,
      53248,
      128,
      8,
      128,
      128256,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      0,
      0,
      0,
      0,
      0,
      1,
      0.0,
      1.0,
      0},
     "meta-llama/Llama-3.1-405B config.json (16384, 53248, 126 layers, "
     "128/8 heads, vocab 128256, untied); The Llama 3 Herd of Models, "
     "Table 3; published 405B"},
    {{"llama4_maverick",
      48,
      5120,
      16384,
      40,
      8,
      128,
      202048,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      128,
      1,
      8192,
      1,
      0,
      2,
      0.0,
      1.0,
      0},
     "meta-llama/Llama-4-Maverick-17B-128E config.json text_config "
     "(hidden 5120, intermediate_size_mlp 16384, intermediate_size 8192, "
     "48 layers, 40/8 heads, head_dim 128, vocab 202048, 128 local "
     "experts, top-1, 1 shared expert, interleave_moe_layer_step 2); "
     "published 400B total / 17B active"},
    {{"deepseek_v3", 61,  7168, 18432, 128, 128, 0, 129280, POD_ATTN_MLA,
      1536,          512, 128,  64,    128, 0,   1, 256,    8,
      2048,          1,   3,    1,     0.0, 1.0, 1},
     "deepseek-ai/DeepSeek-V3 config.json (hidden 7168, intermediate 18432, "
     "moe_intermediate 2048, 61 layers, first_k_dense_replace 3, 128 heads, "
     "q_lora 1536, kv_lora 512, qk_nope 128, qk_rope 64, v_head 128, vocab "
     "129280, 256 routed + 1 shared, top-8, num_nextn_predict_layers 1); "
     "published 671B main model (685B with the 14B MTP module), 37B active"},
    {{"mixtral_8x7b",
      32,
      4096,
      14336,
      32,
      8,
      128,
      32000,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      8,
      2,
      14336,
      0,
      0,
      1,
      0.0,
      1.0,
      0},
     "mistralai/Mixtral-8x7B-v0.1 config.json (4096, 14336, 32 layers, "
     "32/8 heads, vocab 32000, 8 experts, top-2); published 46.7B total / "
     "12.9B active"},
    {{"qwen3_30b_a3b",
      48,
      2048,
      6144,
      32,
      4,
      128,
      151936,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      128,
      8,
      768,
      0,
      0,
      1,
      0.0,
      1.0,
      0},
     "Qwen/Qwen3-30B-A3B config.json (hidden 2048, moe_intermediate 768, 48 "
     "layers, all MoE, 32 heads / 4 KV, head_dim 128, vocab 151936, 128 "
     "experts, top-8, untied); published 30.5B total / 3.3B active"},
    {{"qwen3_235b_a22b",
      94,
      4096,
      12288,
      64,
      4,
      128,
      151936,
      POD_ATTN_GQA,
      0,
      0,
      0,
      0,
      0,
      0,
      1,
      128,
      8,
      1536,
      0,
      0,
      1,
      0.0,
      1.0,
      0},
     "Qwen/Qwen3-235B-A22B config.json (hidden 4096, moe_intermediate 1536, "
     "94 layers, all MoE, 64 heads / 4 KV, head_dim 128, vocab 151936, 128 "
     "experts, top-8, untied); published 235B total / 22B active"},
    {{"gpt3_175b", 96, 12288, 49152, 96,  96,  128, 50257, POD_ATTN_MHA,
      0,           0,  0,     0,     0,   1,   0,   0,     0,
      0,           0,  0,     1,     0.0, 1.0, 0},
     "Brown et al. 2020, Language Models are Few-Shot Learners, Table 2.1 "
     "(96 layers, d_model 12288, 96 heads of 128, d_ff = 4 d_model, GPT-2 "
     "BPE vocab 50257, tied embeddings); published 175B"},
};

#define NPRESETS ((int)(sizeof presets / sizeof presets[0]))

int pod_model_preset(const char *name, pod_model *out) {
  if (name == NULL || out == NULL) return POD_EINVAL;
  for (int i = 0; i < NPRESETS; i++)
    if (strcmp(presets[i].m.name, name) == 0) {
      *out = presets[i].m;
      return POD_OK;
    }
  return POD_ENOENT;
}

const pod_model *pod_model_at(int i, const char **source) {
  if (i < 0 || i >= NPRESETS) return NULL;
  if (source) *source = presets[i].source;
  return &presets[i].m;
}

const char *const pod_model_attn_names[] = {"mha", "gqa", "mla", NULL};

const char *pod_model_attn_name(pod_attn_kind k) {
  if ((int)k < 0 || k > POD_ATTN_MLA) return "?";
  return pod_model_attn_names[k];
}

int pod_model_attn_parse(const char *name, pod_attn_kind *out) {
  for (int i = 0; i <= POD_ATTN_MLA; i++)
    if (name && strcmp(name, pod_model_attn_names[i]) == 0) {
      if (out) *out = (pod_attn_kind)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

#define NEED(cond, field, ...)                                            \
  do {                                                                    \
    if (!(cond)) return pod_err_set(err, POD_EINVAL, field, __VA_ARGS__); \
  } while (0)

/* Dense MLP layers exist when the model is dense or has leading dense
** layers or skips layers between MoE layers. */
static int has_dense_mlp(const pod_model *m) {
  return m->experts == 0 || m->dense_layers > 0 || m->moe_interval > 1;
}

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: pod_model_check walks the table first and the Lua bindings read
** it.  The upper bounds keep every sum and product of dimensions below in
** range; the largest real models are far inside. */
#define MODEL_FIELDS(X)                                                \
  X(INT, layers, 1, 1 << 20, 0, "transformer blocks")                  \
  X(INT, hidden, 1, 1 << 24, 0, "model width")                         \
  X(INT, ffn, 0, 1 << 26, 0, "dense MLP width")                        \
  X(INT, heads, 1, 1 << 16, 0, "attention heads")                      \
  X(INT, kv_heads, 0, 1 << 16, 0, "KV heads (GQA groups)")             \
  X(INT, head_dim, 0, 1 << 16, 0, "0: hidden/heads")                   \
  X(INT, vocab, 1, 1 << 28, 0, "tokens")                               \
  X(INT, q_lora, 0, 1 << 20, 0, "MLA query rank (0: full-rank q)")     \
  X(INT, kv_lora, 0, 1 << 20, 0, "MLA KV rank")                        \
  X(INT, qk_nope, 0, 1 << 16, 0, "MLA")                                \
  X(INT, qk_rope, 0, 1 << 16, 0, "MLA")                                \
  X(INT, v_head, 0, 1 << 16, 0, "MLA")                                 \
  X(BOOL, tied_embeddings, 0, 1, 0, "tied input and output embedding") \
  X(BOOL, gated_mlp, 0, 1, 0, "SwiGLU")                                \
  X(INT, experts, 0, 1 << 20, 0, "routed experts")                     \
  X(INT, top_k, 0, 1 << 20, 0, "experts per token")                    \
  X(INT, expert_ffn, 0, 1 << 26, 0, "expert width")                    \
  X(INT, shared_experts, 0, 1 << 10, 0, "always-on experts")           \
  X(INT, dense_layers, 0, 1 << 20, 0, "leading dense layers")          \
  X(INT, moe_interval, 0, 1 << 20, 0, "every k-th layer is MoE")       \
  X(DOUBLE, capacity_factor, 0, 1e6, 0, "0: dropless")                 \
  X(DOUBLE, imbalance, 0, 1e6, 0, "max over mean tokens per expert")   \
  X(INT, mtp_layers, 0, 64, 0, "multi-token-prediction blocks")
#define MODEL_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_model, k, m, lo, hi, open, unit)
const pod_field pod_model_fields[] = {MODEL_FIELDS(MODEL_FIELDS_E)
                                          POD_FIELD_END};
#define MODEL_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int model_fields_ok(const pod_model *x) {
  return 1 MODEL_FIELDS(MODEL_FIELDS_S);
}
#undef MODEL_FIELDS_E
#undef MODEL_FIELDS_S

int pod_model_check(const pod_model *m, pod_err *err) {
  if (m == NULL) return pod_err_set(err, POD_EINVAL, "model", "is NULL");
  NEED(memchr(m->name, '\0', sizeof m->name) != NULL, "name",
       "is not NUL-terminated");
  int rc = model_fields_ok(m)
               ? POD_OK
               : pod_field_check_all(pod_model_fields, m, "", err);
  if (rc != POD_OK) return rc;
  /* the rules across fields and per attention kind */
  switch (m->attn) {
    case POD_ATTN_MHA:
    case POD_ATTN_GQA:
      NEED(m->head_dim > 0 || m->hidden % m->heads == 0, "head_dim",
           "is 0 and heads (%d) does not divide hidden (%d)", m->heads,
           m->hidden);
      NEED(m->kv_heads >= 1 && m->kv_heads <= m->heads, "kv_heads",
           "must be in [1, heads=%d] (got %d)", m->heads, m->kv_heads);
      NEED(m->heads % m->kv_heads == 0, "kv_heads",
           "must divide heads (%d heads, %d kv_heads)", m->heads, m->kv_heads);
      NEED(m->attn != POD_ATTN_MHA || m->kv_heads == m->heads, "kv_heads",
           "must equal heads for attention kind mha");
      break;
    case POD_ATTN_MLA:
      NEED(m->kv_lora >= 1, "kv_lora", "must be >= 1 for mla");
      NEED(m->qk_nope + m->qk_rope >= 1, "qk_nope",
           "qk_nope + qk_rope must be >= 1 for mla");
      NEED(m->v_head >= 1, "v_head", "must be >= 1 for mla");
      break;
    default:
      return pod_err_set(err, POD_EINVAL, "attn", "unknown attention kind %d",
                         (int)m->attn);
  }
  if (m->experts > 0) {
    NEED(m->top_k >= 1 && m->top_k <= m->experts, "top_k",
         "must be in [1, experts=%d] (got %d)", m->experts, m->top_k);
    NEED(m->expert_ffn >= 1, "expert_ffn", "must be >= 1 for an MoE model");
    NEED(m->dense_layers < m->layers, "dense_layers",
         "must be in [0, layers) (got %d)", m->dense_layers);
    NEED(m->moe_interval >= 1 && m->moe_interval <= m->layers - m->dense_layers,
         "moe_interval", "must be in [1, layers - dense_layers] (got %d)",
         m->moe_interval);
    NEED(m->imbalance >= 1.0, "imbalance",
         "must be finite and >= 1 (max over mean tokens per expert)");
  }
  NEED(!has_dense_mlp(m) || m->ffn >= 1, "ffn",
       "must be >= 1: the model has dense MLP layers");
  return POD_OK;
}

int pod_model_is_moe_layer(const pod_model *m, int layer) {
  if (m->experts <= 0 || layer < m->dense_layers) return 0;
  return (layer - m->dense_layers) % m->moe_interval == m->moe_interval - 1;
}

static int head_dim(const pod_model *m) {
  return m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
}

int pod_model_qk_dim(const pod_model *m) {
  return m->attn == POD_ATTN_MLA ? m->qk_nope + m->qk_rope : head_dim(m);
}

int pod_model_v_dim(const pod_model *m) {
  return m->attn == POD_ATTN_MLA ? m->v_head : head_dim(m);
}

double pod_model_kv_elems(const pod_model *m) {
  if (m->attn == POD_ATTN_MLA) /* K and V materialized per head */
    return (double)m->heads * (m->qk_nope + m->qk_rope + m->v_head);
  return 2.0 * m->kv_heads * head_dim(m);
}

/* Attention projection weights per layer (matrices only). */
static double attn_matrices(const pod_model *m) {
  double h = m->hidden;
  if (m->attn == POD_ATTN_MLA) {
    double H = m->heads, qk = m->qk_nope + m->qk_rope;
    double q =
        m->q_lora > 0 ? h * m->q_lora + (double)m->q_lora * H * qk : h * H * qk;
    double kv = h * (m->kv_lora + m->qk_rope) +
                (double)m->kv_lora * H * (m->qk_nope + m->v_head);
    double o = H * m->v_head * h;
    return q + kv + o;
  }
  double hd = head_dim(m);
  return h * m->heads * hd * 2.0 + h * m->kv_heads * hd * 2.0;
}

/* Norm weights inside attention (input norm, MLA latent norms). */
static double attn_norms(const pod_model *m) {
  double n = m->hidden;
  if (m->attn == POD_ATTN_MLA) n += m->q_lora + m->kv_lora;
  return n;
}

static double mlp_matrices(const pod_model *m, int width) {
  return (m->gated_mlp ? 3.0 : 2.0) * m->hidden * (double)width;
}

void pod_model_params_count(const pod_model *m, pod_model_params *out) {
  /* cleared by a copy: a small memset of known size compiles to `rep
  ** stos`, which costs more than the copy on this per-step path */
  static const pod_model_params ZERO;
  *out = ZERO;
  double h = m->hidden;
  /* Layers i >= dense_layers with (i - dense_layers) % k == k - 1. */
  int moe =
      m->experts > 0 ? (m->layers - m->dense_layers) / m->moe_interval : 0;
  out->moe_layers = moe;
  out->dense_mlp_layers = m->layers - moe;
  out->embedding = (double)m->vocab * h;
  out->head = m->tied_embeddings ? 0.0 : (double)m->vocab * h;
  out->attn_per_layer = attn_matrices(m) + attn_norms(m);
  out->dense_mlp_per_layer = m->ffn > 0 ? mlp_matrices(m, m->ffn) + h : 0.0;
  double expert = m->experts > 0 ? mlp_matrices(m, m->expert_ffn) : 0.0;
  double router = h * m->experts;
  out->expert = expert;
  out->moe_per_layer =
      m->experts > 0 ? router + h + expert * (m->experts + m->shared_experts)
                     : 0.0;
  out->layers_dense = m->layers * out->attn_per_layer +
                      out->dense_mlp_layers * out->dense_mlp_per_layer +
                      moe * (router + h + expert * m->shared_experts);
  out->layers_expert = moe * expert * m->experts;
  double final_norm = h;
  out->total = out->embedding + out->head + out->layers_dense +
               out->layers_expert + final_norm;
  double active_expert = m->experts > 0 ? moe * expert * m->top_k : 0.0;
  out->active = out->embedding + out->head + out->layers_dense + active_expert +
                final_norm;
  /* MTP block (DeepSeek-V3 sec. 2.2): two norms, the 2h x h projection,
  ** one transformer block (MoE when the model is), a final norm; the
  ** embedding and output head are shared with the main model. */
  if (m->mtp_layers > 0) {
    double blk =
        out->attn_per_layer +
        (m->experts > 0 ? out->moe_per_layer : out->dense_mlp_per_layer);
    out->mtp = m->mtp_layers * (2.0 * h + 2.0 * h * h + blk + h);
  }
}

void pod_model_flops_per_token(const pod_model *m, int seq, int causal,
                               pod_model_flops *out) {
  pod_model_params p;
  pod_model_params_count(m, &p);
  pod_model_flops_with_params(m, &p, seq, causal, out);
}

void pod_model_flops_with_params(const pod_model *m, const pod_model_params *pp,
                                 int seq, int causal, pod_model_flops *out) {
  memset(out, 0, sizeof *out);
  const pod_model_params p = *pp;
  double h = m->hidden;
  double attn_w = attn_matrices(m);
  double dense_w = m->ffn > 0 ? mlp_matrices(m, m->ffn) : 0.0;
  double expert = p.expert;
  double router = h * m->experts;
  double shared = expert * m->shared_experts;
  /* Score (q.k over qk dims) and value (p.v over v dims) products, per
  ** token per layer, forward+backward: 6 * s * heads * (qk + v) for full
  ** attention = 12 * s * h_attn when qk = v = head_dim. */
  double attn =
      6.0 * seq * (double)m->heads * (pod_model_qk_dim(m) + pod_model_v_dim(m));
  if (causal) attn *= 0.5;
  out->gemm_dense = 6.0 * (m->layers * attn_w + p.dense_mlp_layers * dense_w +
                           p.moe_layers * (router + shared));
  out->gemm_expert = 6.0 * p.moe_layers * expert * m->top_k;
  out->attn = m->layers * attn;
  out->head = 6.0 * (double)m->vocab * h;
  if (m->mtp_layers > 0) {
    double blk = attn_w + (m->experts > 0 ? router + shared + expert * m->top_k
                                          : dense_w);
    out->mtp = m->mtp_layers * (6.0 * (2.0 * h * h + blk) + attn + out->head);
  }
  out->total =
      out->gemm_dense + out->gemm_expert + out->attn + out->head + out->mtp;
}
