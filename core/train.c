/*
** train.c: the training-step model (pod_train.h, DESIGN.md 4.3).
**
** One step of synchronous training with interleaved 1F1B pipelining:
**
**   step = m * stage_mb                            steady state
**        + bubble = (p-1)/(v*m) * m * stage_mb    (Narayanan et al. 2021;
**          = (p-1)/(v*m+p-1) of the pipelined time)
**        + exposed PP p2p + exposed DP + optimizer + straggler
**
** stage_mb is the time one pipeline rank spends on one micro-batch
** (forward and backward of its layers): compute plus the exposed part of
** the collectives inside each layer (TP, CP, EP), each timed by
** pod_coll_eval with the group's real placement over scale-up domains.
**
** Compute is split by what bounds it: GEMMs run at peak(dtype) *
** eff_gemm; flash attention at peak(bf16) * eff_attn (fp8 recipes keep
** attention in bf16); memory-bound element-wise work (norms, residuals,
** rotary, activation functions, fp8 casts, MoE permutes, the
** cross-entropy over the vocabulary) at HBM bandwidth * eff_hbm.  This is
** why fp8 gains less than 2x, and less on smaller models (the non-GEMM
** share grows as hidden shrinks).  Hardware FLOPs are causal; the model
** FLOPs behind MFU follow the convention in cfg->mfu_full_attn.
*/
#include "pod_train.h"

#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- Shared physical parameters --------------------------------------- */

typedef enum gpu_gen { GEN_AMPERE, GEN_HOPPER, GEN_BLACKWELL, GEN_UNKNOWN } gpu_gen;

/* GEMM efficiency per GPU generation and dtype (fraction of dense peak
** reached by training GEMMs) and flash-attention efficiency against bf16
** peak.  One set per generation, shared by every case; see the report in
** tests/validation for fit versus prediction.
**   hopper bf16, fp8: FITTED on T4 at 512 GPUs (Llama 3.1 405B on H100,
**     bf16 MFU 55.5%, fp8 MFU 44.4%; NVIDIA/dgxc-benchmarking v25.04).
**   hopper fp8 is the asymptote of the shape roll-off below (0.593 at
**     h = 16384, 0.494 at h = 8192, 0.412 at h = 5120); refitted (0.723
**     -> 0.741) when the fp8 amax synchronisation (JITTER_SYNC) took its
**     share of the fp8 step at T4's 512 GPUs (DP 4, amax group 64).
**   blackwell fp8: FITTED on T6 (DeepSeek-V3 on 256 GB300, 6,338
**     tokens/s/GPU, Megatron-Bridge 26.06); 0.537 at h = 7168.  Older
**     Blackwell software (T1/T2, dgxc-benchmarking v25.05) is modelled
**     with cfg->eff_scale = 1/1.5, NVIDIA's published "software alone
**     1.5x on the same hardware" (public.md T8), not a fit.
**   blackwell bf16, ampere bf16: priors = the Hopper bf16 fit; fp4: prior
**     = the fp8 fit of the generation (no public anchor in public.md).
**   attention: FlashAttention-3 (Shah et al. 2024, figs. 5-6): H100 bf16
**     causal hd128 forward ~ 600-660 TF, backward ~ 450-500 TF, about 0.5
**     of 989 over forward+backward; the same fraction is taken for
**     Blackwell (cuDNN attention for sm100); FA2 on A100 reaches ~ 0.6 of
**     312 (Dao 2023, fig. 4). */
#define EFF_HOPPER_BF16 0.636
#define EFF_HOPPER_FP8 0.741
#define EFF_BLACKWELL_FP8 0.844
/* Shape roll-off: eff(h) = eff_gemm * h / (h + k_half), h the hidden
** size (the reduction dimension of the QKV and FC1 GEMMs).  Low-precision
** GEMMs lose more at small shapes (fixed prologue/epilogue, scaling and
** wave quantization weigh more when the math is 2x faster; Transformer
** Engine's fp8 speed-up over bf16 grows with the GEMM size).
**   bf16: 0 (no roll-off at the sizes of these models: T3 70B and T4 405B
**     reach the same bf16 MFU, 54.5% and 55.5%).
**   fp8/fp4: FITTED jointly with EFF_HOPPER_FP8 on T3 fp8 at 64 GPUs
**     (Llama 3.1 70B, MFU 38.1%) and T4 fp8 at 512 GPUs. */
#define K_HALF_FP8 4096.0
static const struct {
  double gemm[3]; /* bf16, fp8, fp4 */
  double attn;
} eff_table[3] = {
  [GEN_AMPERE] = {{EFF_HOPPER_BF16, 0.0, 0.0}, 0.60},
  [GEN_HOPPER] = {{EFF_HOPPER_BF16, EFF_HOPPER_FP8, 0.0}, 0.50},
  [GEN_BLACKWELL] = {{EFF_HOPPER_BF16, EFF_BLACKWELL_FP8, EFF_BLACKWELL_FP8},
                     0.50},
};
static const double k_half_table[3] = {0.0, K_HALF_FP8, K_HALF_FP8};

/* Element-wise HBM traffic, bytes per token per layer per element of the
** width named, forward + backward (bf16 activations), counted from the
** kernels of a Llama block: two RMSNorms (read x, write y; backward reads
** x, dy, writes dx), two residual adds, rotary on q and k, sequence-
** parallel gather/scatter buffers: ~75 B per hidden element; SwiGLU (read
** gate and up, write out; backward twice that): ~18 B per FFN element.
** fp8 adds casts of each GEMM input and of the gradients for dgrad/wgrad
** (read bf16, write fp8 and its transpose): ~27 B per hidden and 9 B per
** FFN element.  MoE permute/unpermute copies the routed tokens four times
** (forward, backward, dispatch, combine): 16 B per routed hidden element.
** The cross-entropy reads and writes fp32 logits: 16 B per vocab entry. */
#define EW_HIDDEN 75.0
#define EW_FFN 18.0
#define EW_FP8_HIDDEN 27.0
#define EW_FP8_FFN 9.0
#define EW_PERMUTE 16.0
#define EW_LOGITS 16.0

/* Memory: bf16 weights (2 B; fp8 adds a 1 B fp8 copy, Transformer Engine),
** the gradient buffer in the reduce dtype (cfg->grad_reduce_bytes: NeMo
** performance recipes reduce in bf16; Megatron's default is fp32), fp32
** master weights and Adam moments (12 B). */
#define B_WEIGHT 2.0
#define B_WEIGHT_FP8 1.0
#define B_OPT 12.0
/* Adam step traffic per local parameter: read grad, master, m, v (16 B),
** write master, m, v (12 B) and the bf16 weight (2 B), plus the gradient
** norm pass (4 B). */
#define B_ADAM 34.0

/* fp8 amax synchronisation (delayed scaling).  Transformer Engine's
** DelayedScaling with reduce_amax (its default) all-reduces the amax of
** every fp8 tensor of an fp8_autocast region over the region's group when
** the region's forward ends and when its backward ends
** (FP8GlobalStateManager.reduce_and_update_fp8_tensors; "the amax value
** for fp8 tensors is reduced across the given fp8_group", TE recipe docs,
** NVIDIA/TransformerEngine PR 11).  Megatron-Core wraps each transformer
** block (one per virtual pipeline stage) in one region for delayed
** scaling, with the amax reduction group = the tp*cp*dp ranks of the
** pipeline stage unless tp_only_amax_red (TE PR 431 added the TP-only
** option, "NVTE_DP_AMAX_REDUCE_INTERVAL = 0", for performance; NeMo's GPT
** 175B performance script sets it, its Llama 3 scripts do not).  So a
** step holds 2 x microbatches x vp blocking all-reduces over the whole
** data-parallel domain of a stage, where bf16 synchronises the DP
** replicas once (the gradient reduction).  Each costs the all-reduce's
** latency (a few hundred bytes: 4 B of amax x 3 tensors x 4 GEMMs per
** layer) and the wait for the group's slowest rank: with per-interval
** times ~ N(tau, (jitter_sync tau)^2) independent across ranks and
** intervals, the expected maximum over G ranks exceeds the mean by
** jitter_sync tau sqrt(2 ln G) (as for the straggler term below).  The
** TP/CP collectives and the EP all-to-alls already hold their g ranks in
** step every layer (that wait is in the fitted efficiencies), so a
** sync over G ranks adds (sqrt(2 ln G) - sqrt(2 ln g)); summed over the
** intervals, jitter_sync x (work of the step) x that difference.
**   JITTER_SYNC: FITTED on the T3 fp8 weak-scaling slope (Llama 3.1 70B
**   on H100, fp8 MFU 38.1% -> 36.2% from 64 to 2,048 GPUs, where bf16
**   only loses 0.8 points).  The T4 fp8 slope (405B, 512 -> 2,048) and
**   the T2 Maverick GB200 slope (EP64 = the whole DP domain at 128 GPUs)
**   are predictions.  The slow part of the jitter (cfg->jitter, one
**   sync per step) is a separate, per-step figure; the fast part averages
**   out over the ~1,000 intervals of a step (jitter_sync / sqrt(1000) ~
**   0.001) unless something synchronises the ranks at each interval. */
#define JITTER_SYNC 0.030
#define AMAX_BYTES_PER_LAYER (4.0 * 3.0 * 4.0)

static gpu_gen gen_of(const pod_gpu *g) {
  const char *n = g->name;
  char c0 = (char)tolower((unsigned char)n[0]);
  char c1 = c0 ? (char)tolower((unsigned char)n[1]) : 0;
  if (c0 == 'g' && c1 == 'b') c0 = 'b'; /* GB200, GB300: Blackwell */
  switch (c0) {
    case 'a': return GEN_AMPERE;
    case 'h': return GEN_HOPPER;
    case 'b': return GEN_BLACKWELL;
    default: return GEN_UNKNOWN;
  }
}

double pod_train_peak_tflops(const pod_gpu *gpu, pod_dtype dtype) {
  switch (dtype) {
    case POD_DTYPE_BF16: return gpu->bf16_tflops;
    case POD_DTYPE_FP8: return gpu->fp8_tflops;
    case POD_DTYPE_FP4: return gpu->fp4_tflops;
  }
  return 0.0;
}

int pod_train_default_eff(const pod_gpu *gpu, pod_dtype dtype,
                          double *eff_gemm, double *eff_attn, double *k_half,
                          pod_err *err) {
  gpu_gen g = gen_of(gpu);
  if (g == GEN_UNKNOWN || (int)dtype < 0 || dtype > POD_DTYPE_FP4 ||
      eff_table[g].gemm[dtype] <= 0.0)
    return pod_err_set(err, POD_ENOTSUP, "eff_gemm",
                       "no default efficiency for GPU '%s' in %s; set "
                       "eff_gemm and eff_attn", gpu->name,
                       pod_train_dtype_name(dtype));
  if (eff_gemm) *eff_gemm = eff_table[g].gemm[dtype];
  if (eff_attn) *eff_attn = eff_table[g].attn;
  if (k_half) *k_half = k_half_table[dtype];
  return POD_OK;
}

/* ---- Names ------------------------------------------------------------ */

static const char *dtype_names[] = {"bf16", "fp8", "fp4"};
static const char *recompute_names[] = {"none", "selective", "full"};
static const char *fp8_recipe_names[] = {"delayed", "delayed_tp", "current",
                                         "block"};

const char *pod_train_dtype_name(pod_dtype d) {
  return ((int)d >= 0 && d <= POD_DTYPE_FP4) ? dtype_names[d] : "?";
}

int pod_train_dtype_parse(const char *name, pod_dtype *out) {
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, dtype_names[i]) == 0) {
      if (out) *out = (pod_dtype)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

const char *pod_train_recompute_name(int r) {
  return (r >= 0 && r <= 2) ? recompute_names[r] : "?";
}

int pod_train_recompute_parse(const char *name, int *out) {
  for (int i = 0; i < 3; i++)
    if (name && strcmp(name, recompute_names[i]) == 0) {
      if (out) *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

const char *pod_train_fp8_recipe_name(int r) {
  return (r >= 0 && r <= POD_FP8_BLOCK) ? fp8_recipe_names[r] : "?";
}

int pod_train_fp8_recipe_parse(const char *name, int *out) {
  for (int i = 0; i <= POD_FP8_BLOCK; i++)
    if (name && strcmp(name, fp8_recipe_names[i]) == 0) {
      if (out) *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

/* ---- Defaults --------------------------------------------------------- */

void pod_train_cfg_defaults(pod_train_cfg *c) {
  c->eff_gemm = 0.0; /* table */
  c->eff_attn = 0.0; /* table */
  /* Sustained fraction of HBM bandwidth for streaming kernels (STREAM-
  ** like copies reach 80-90% on H100/B200; NVIDIA H100 tuning guide). */
  c->eff_hbm = 0.8;
  c->gemm_k_half = -1.0; /* table */
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
}

/* ---- Checks ----------------------------------------------------------- */

#define NEED(cond, field, ...) \
  do { \
    if (!(cond)) return pod_err_set(err, POD_EINVAL, field, __VA_ARGS__); \
  } while (0)

static int check_frac(double x, const char *field, pod_err *err) {
  NEED(isfinite(x) && x >= 0.0 && x <= 1.0, field,
       "must be a finite fraction in [0, 1] (got %g)", x);
  return POD_OK;
}

/* Resolve dp; check the layout rules.  Rules (Megatron-LM):
**  - tp divides heads (and KV heads for GQA: num_query_groups % tp);
**  - tp * pp * cp * dp = gpus (dense part);
**  - pp <= layers; vp > 1 needs pp > 1; pp*vp divides layers unless
**    uneven (then pp*vp <= layers);
**  - cp > 1 needs seq divisible by 2*cp (load-balanced causal split);
**  - MoE parallel folding (Liu et al. 2025, "MoE Parallel Folding",
**    Megatron-Core): the expert part of each pipeline stage re-folds the
**    same tp*cp*dp ranks as etp x ep x edp, so ep*etp must divide tp*cp*dp;
**    ep divides experts; etp divides expert_ffn; dense models need
**    ep = etp = 1;
**  - global_batch divisible by dp * microbatch. */
static int check_layout(const pod_train_cfg *c, int *dp_out, pod_err *err) {
  const pod_layout *l = &c->parallel;
  const pod_model *m = &c->model;
  NEED(l->tp >= 1, "parallel.tp", "must be >= 1, or 0 for 1 (got %d)", l->tp);
  NEED(l->tp <= m->heads && m->heads % l->tp == 0, "parallel.tp",
       "must divide the attention heads (%d heads, tp %d)", m->heads, l->tp);
  NEED(m->attn == POD_ATTN_MLA || m->kv_heads % l->tp == 0, "parallel.tp",
       "must divide the KV heads (%d kv_heads, tp %d)", m->kv_heads, l->tp);
  NEED(l->pp >= 1 && l->pp <= m->layers, "parallel.pp",
       "must be in [1, layers=%d] (got %d)", m->layers, l->pp);
  NEED(l->vp >= 1, "parallel.vp", "must be >= 1, or 0 for 1 (got %d)", l->vp);
  NEED(l->vp == 1 || l->pp > 1, "parallel.vp",
       "virtual stages (vp %d) need pp > 1", l->vp);
  NEED(l->uneven == 0 || l->uneven == 1, "parallel.uneven", "must be 0 or 1");
  /* every virtual stage holds at least one layer: pp*vp <= layers, which
  ** also keeps the int products of pp and vp below in range */
  NEED((long)l->pp * l->vp <= m->layers, "parallel.vp",
       "pp*vp = %ld exceeds layers (%d)", (long)l->pp * l->vp, m->layers);
  NEED(l->tp <= c->gpus && l->cp <= c->gpus && l->ep <= c->gpus && l->etp <= c->gpus,
       "parallel", "no parallel dimension may exceed gpus (%d)", c->gpus);
  if (l->uneven) {
    NEED((long)l->pp * l->vp <= m->layers, "parallel.vp",
         "pp*vp = %ld exceeds layers (%d)", (long)l->pp * l->vp, m->layers);
  } else if (l->vp == 1) {
    NEED(m->layers % l->pp == 0, "parallel.pp",
         "must divide layers (%d layers, pp %d); set uneven for an uneven "
         "pipeline layout", m->layers, l->pp);
  } else {
    NEED(m->layers % (l->pp * l->vp) == 0, "parallel.vp",
         "pp*vp must divide layers (%d layers, pp %d, vp %d); set uneven for "
         "an uneven pipeline layout", m->layers, l->pp, l->vp);
  }
  NEED(l->cp >= 1, "parallel.cp", "must be >= 1, or 0 for 1 (got %d)", l->cp);
  NEED(l->cp == 1 || c->seq % (2 * l->cp) == 0, "parallel.cp",
       "seq (%d) must be divisible by 2*cp (%d) for the load-balanced "
       "causal split", c->seq, 2 * l->cp);
  long tpc = (long)l->tp * l->pp * l->cp;
  NEED(l->dp >= 0, "parallel.dp", "must be >= 0 (0 = derived)");
  int dp = l->dp;
  if (dp == 0) {
    NEED(c->gpus % tpc == 0, "gpus",
         "must be a multiple of tp*pp*cp = %ld (got %d)", tpc, c->gpus);
    dp = (int)(c->gpus / tpc);
  } else {
    NEED(tpc * dp == c->gpus, "parallel.dp",
         "tp*pp*cp*dp = %ld must equal gpus (%d)", tpc * dp, c->gpus);
  }
  NEED(l->ep >= 1, "parallel.ep", "must be >= 1, or 0 for 1 (got %d)", l->ep);
  NEED(l->etp >= 1, "parallel.etp", "must be >= 1, or 0 for 1 (got %d)", l->etp);
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
  NEED(l->microbatch >= 1, "parallel.microbatch",
       "must be >= 1, or 0 for 1 (got %d)",
       l->microbatch);
  NEED(c->global_batch % ((long)dp * l->microbatch) == 0, "global_batch",
       "must be divisible by dp*microbatch = %ld (got %d)",
       (long)dp * l->microbatch, c->global_batch);
  NEED(l->zero >= 0 && l->zero <= 3, "parallel.zero",
       "must be 0..3 (1 = distributed optimizer; got %d)", l->zero);
  NEED(l->recompute >= 0 && l->recompute <= 2, "parallel.recompute",
       "must be none, selective or full (got %d)", l->recompute);
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

static int check_common(const pod_train_cfg *c, pod_err *err) {
  if (c == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  int rc = pod_hw_system_check(&c->system, err);
  if (rc != POD_OK) return prefix_err(err, rc, "system");
  rc = pod_model_check(&c->model, err);
  if (rc != POD_OK) return prefix_err(err, rc, "model");
  NEED(c->gpus >= 1, "gpus", "must be >= 1 (got %d)", c->gpus);
  NEED(c->seq >= 1, "seq", "must be >= 1 (got %d)", c->seq);
  NEED(c->global_batch >= 1, "global_batch", "must be >= 1 (got %d)",
       c->global_batch);
  NEED((int)c->dtype >= 0 && c->dtype <= POD_DTYPE_FP4, "dtype",
       "must be bf16, fp8 or fp4");
  if (pod_train_peak_tflops(&c->system.gpu, c->dtype) <= 0.0)
    return pod_err_set(err, POD_ENOTSUP, "dtype",
                       "GPU '%s' has no %s peak", c->system.gpu.name,
                       pod_train_dtype_name(c->dtype));
  NEED(isfinite(c->eff_gemm) && c->eff_gemm <= 1.0, "eff_gemm",
       "must be finite and <= 1 (<= 0 = table default; got %g)", c->eff_gemm);
  NEED(isfinite(c->eff_attn) && c->eff_attn <= 1.0, "eff_attn",
       "must be finite and <= 1 (<= 0 = table default; got %g)", c->eff_attn);
  NEED(isfinite(c->gemm_k_half), "gemm_k_half",
       "must be finite (< 0 = table default; got %g)", c->gemm_k_half);
  NEED(isfinite(c->eff_scale) && c->eff_scale > 0.0 && c->eff_scale <= 2.0,
       "eff_scale", "must be in (0, 2] (got %g)", c->eff_scale);
  NEED(isfinite(c->eff_hbm) && c->eff_hbm > 0.0 && c->eff_hbm <= 1.0,
       "eff_hbm", "must be in (0, 1] (got %g; start from the defaults of "
       "pod_train_cfg_init, base \"default\" in Lua)", c->eff_hbm);
  if ((rc = check_frac(c->overlap_tp, "overlap_tp", err))) return rc;
  if ((rc = check_frac(c->overlap_cp, "overlap_cp", err))) return rc;
  if ((rc = check_frac(c->overlap_ep, "overlap_ep", err))) return rc;
  if ((rc = check_frac(c->overlap_pp, "overlap_pp", err))) return rc;
  if ((rc = check_frac(c->overlap_dp, "overlap_dp", err))) return rc;
  NEED(isfinite(c->jitter) && c->jitter >= 0.0 && c->jitter < 1.0, "jitter",
       "must be in [0, 1) (got %g)", c->jitter);
  NEED(isfinite(c->grad_reduce_bytes) && c->grad_reduce_bytes > 0.0 &&
           c->grad_reduce_bytes <= 8.0,
       "grad_reduce_bytes", "must be in (0, 8] (got %g)", c->grad_reduce_bytes);
  NEED(isfinite(c->mem_reserve_gb) && c->mem_reserve_gb >= 0.0,
       "mem_reserve_gb", "must be finite and >= 0 (got %g)", c->mem_reserve_gb);
  NEED(c->mfu_full_attn == 0 || c->mfu_full_attn == 1, "mfu_full_attn",
       "must be 0 or 1");
  NEED(c->fp8_recipe >= 0 && c->fp8_recipe <= POD_FP8_BLOCK, "fp8_recipe",
       "must be delayed, delayed_tp, current or block (got %d)",
       c->fp8_recipe);
  NEED(isfinite(c->jitter_sync) && c->jitter_sync >= 0.0 &&
           c->jitter_sync < 1.0,
       "jitter_sync", "must be in [0, 1) (got %g)", c->jitter_sync);
  return POD_OK;
}

static int check_cfg(const pod_train_cfg *c, int *dp, pod_err *err) {
  int rc = check_common(c, err);
  if (rc != POD_OK) return rc;
  return check_layout(c, dp, err);
}

/* 0 in a layout dimension means its default, 1. */
static void normalize(pod_layout *l) {
  int *dims[] = {&l->tp, &l->pp, &l->vp, &l->ep, &l->etp, &l->cp,
                 &l->microbatch};
  for (size_t i = 0; i < sizeof dims / sizeof dims[0]; i++)
    if (*dims[i] == 0) *dims[i] = 1;
}

int pod_train_check(const pod_train_cfg *cfg, pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  pod_train_cfg c = *cfg;
  normalize(&c.parallel);
  int dp;
  return check_cfg(&c, &dp, err);
}

int pod_train_check_base(const pod_train_cfg *cfg, pod_err *err) {
  return check_common(cfg, err);
}

/* ---- Placement -------------------------------------------------------- */

/* Ranks per scale-up domain of a group of n ranks whose members are
** `stride` apart in the rank order, in a job packed over domains of D GPUs:
** the members that share one domain, rounded down to a divisor of n so
** the group splits evenly (an EP group of 64 at stride 1 on NVL72 stays in
** one domain; on 8-GPU nodes it spans 8 nodes, 8 per node). */
static int group_rpd(int n, long stride, int D) {
  if (n <= 1) return 1;
  long fit = stride >= D ? 1 : D / stride;
  if (fit >= n) return n;
  for (long r = fit; r > 1; r--)
    if (n % r == 0) return (int)r;
  return 1;
}

/* ---- The model -------------------------------------------------------- */

typedef struct ctx {
  const pod_train_cfg *c;
  pod_err *err;
  int rc;
  int no_comm; /* memory-only pass: skip collective timing */
} ctx;

static double mlp_matrix_count(const pod_model *m) {
  return m->gated_mlp ? 3.0 : 2.0;
}

static double coll(ctx *x, pod_coll_op op, int n, int rpd, double bytes) {
  if (n <= 1 || bytes <= 0.0 || x->rc != POD_OK || x->no_comm) return 0.0;
  pod_coll_args a = {n, rpd, bytes, POD_ALGO_AUTO};
  pod_coll_result r;
  int rc = pod_coll_eval(&x->c->system, op, &a, &r, x->err);
  if (rc != POD_OK) {
    x->rc = rc;
    return 0.0;
  }
  return r.time_s;
}

/* Exposed time of a transfer of time t, of which a fraction ov can hide
** under `window` seconds of independent work. */
static double exposed(double t, double ov, double window) {
  double hid = ov * t;
  if (hid > window) hid = window;
  return t - hid;
}

typedef struct layer_cost {
  double gemm_flops, attn_flops, ew_bytes; /* per micro-batch per GPU */
  double gemm_expert_flops;                /* routed-expert part of gemm */
  double w_bytes, w_expert_bytes;          /* weight traffic of the GEMMs */
  double tp_s, cp_s, ep_s;                 /* raw communication times */
  double act_bytes;                        /* stored activations */
  double full_act_bytes;                   /* without recompute */
} layer_cost;

typedef struct memq {
  double weights, grads, opt, act, logits;
} memq;

/* Everything eval needs, computed once per config. */
typedef struct plan {
  int dp, edp, m;
  double T, Tt;           /* tokens per CP rank, per GPU on SP regions */
  double imb;             /* expert load factor on the busiest rank */
  double lr;              /* layer slots on the busiest pipeline rank */
  pod_model_params mp;
  double tp_pair_s;       /* one TP all-gather + reduce-scatter; < 0 unset */
} plan;

static void plan_layout(const pod_train_cfg *c, int dp, plan *p) {
  const pod_layout *l = &c->parallel;
  const pod_model *m = &c->model;
  p->dp = dp;
  p->edp = m->experts > 0
               ? (int)((long)l->tp * l->cp * dp / ((long)l->ep * l->etp)) : 1;
  p->m = (int)(c->global_batch / ((long)dp * l->microbatch));
  p->T = (double)l->microbatch * c->seq / l->cp;
  p->Tt = p->T / l->tp;
  double imb = m->imbalance;
  if (m->capacity_factor > 0.0 && imb > m->capacity_factor)
    imb = m->capacity_factor; /* tokens beyond capacity are dropped */
  p->imb = imb;
  p->tp_pair_s = -1.0;
  pod_model_params_count(m, &p->mp);
  int slots = l->pp * l->vp;
  if (l->uneven)
    p->lr = (double)l->vp * ((m->layers + slots - 1) / slots);
  else
    p->lr = (double)m->layers / l->pp;
}

static void layer_costs(const pod_train_cfg *c, plan *p, int moe,
                        ctx *x, layer_cost *o) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  const pod_system *s = &c->system;
  double h = m->hidden, T = p->T, Tt = p->Tt, tp = l->tp;
  int D = s->domain_gpus;
  int fp8 = c->dtype != POD_DTYPE_BF16;
  double attn_w = p->mp.attn_per_layer - h -
                  (m->attn == POD_ATTN_MLA ? m->q_lora + m->kv_lora : 0);
  double qk = pod_model_qk_dim(m), v = pod_model_v_dim(m);
  double H = m->heads;
  memset(o, 0, sizeof *o);
  /* Attention part (every layer). */
  o->gemm_flops = 6.0 * T * attn_w / tp;
  /* Weight traffic per micro-batch: forward, dgrad and wgrad read the
  ** weights (fp8 copies when training in fp8), wgrad reads and writes the
  ** gradient buffer.  A GEMM runs at the slower of its math and this
  ** traffic (roofline): routed experts with few tokens each become
  ** weight-bandwidth bound. */
  double wpass = 3.0 * (fp8 ? 1.0 : 2.0) + 2.0 * c->grad_reduce_bytes;
  o->w_bytes = attn_w / tp * wpass;
  o->attn_flops = 0.5 * 6.0 * T * c->seq * H * (qk + v) / tp;
  o->ew_bytes = Tt * (EW_HIDDEN * 0.5 + (fp8 ? EW_FP8_HIDDEN * 0.5 : 0.0)) * h;
  /* Stored activations, elements per token (Korthikanti et al. 2022,
  ** with flash attention: no s^2 term).  `keep` tensors are kept under
  ** selective recompute; `drop` ones (norm outputs, activation-function
  ** outputs, MLA up-projections) are recomputed.  GEMM inputs are saved
  ** in fp8 by Transformer Engine when training in fp8 (gin factor). */
  double gin = fp8 ? 0.5 : 1.0;
  double qkv_out = m->attn == POD_ATTN_MLA ? H * (qk + qk + v)
                                           : H * qk + pod_model_kv_elems(m);
  double latents = m->attn == POD_ATTN_MLA
                       ? m->q_lora + m->kv_lora + m->qk_rope : 0.0;
  double a_attn_keep = h /* residual */ + gin * (latents + H * v /* fa out */);
  double a_attn_drop = gin * h /* norm out */;
  if (m->attn == POD_ATTN_MLA)
    a_attn_drop += qkv_out; /* recompute the up-projections */
  else
    a_attn_keep += qkv_out; /* core attention needs q, k, v */
  int tp_ops = 4;           /* AG+RS forward, AG+RS backward */
  double mlp_keep, mlp_recomp;
  if (!moe) {
    double f = m->ffn, w = mlp_matrix_count(m) * h * f;
    o->gemm_flops += 6.0 * T * w / tp;
    o->w_bytes += w / tp * wpass;
    o->ew_bytes += Tt * (EW_HIDDEN * 0.5 * h + EW_FFN * f +
                         (fp8 ? EW_FP8_HIDDEN * 0.5 * h + EW_FP8_FFN * f : 0));
    mlp_keep = h + (m->gated_mlp ? 2.0 : 1.0) * f;
    mlp_recomp = gin * (h + f);
    tp_ops += 4;
  } else {
    double ef = m->expert_ffn, ew = mlp_matrix_count(m) * h * ef;
    double k = m->top_k, sh = m->shared_experts;
    o->gemm_flops += 6.0 * T * (h * m->experts + sh * ew) / tp +
                     6.0 * T * k * ew * p->imb / tp;
    o->gemm_expert_flops = 6.0 * T * k * ew * p->imb / tp;
    /* Local routed experts: experts/ep of them, each sliced by etp. */
    o->w_expert_bytes = (double)m->experts / l->ep * ew / l->etp * wpass;
    o->w_bytes += (h * m->experts + sh * ew) / tp * wpass;
    double routed = k * p->imb, width = (routed + sh) * ef;
    o->ew_bytes += Tt * (EW_HIDDEN * 0.5 * h + EW_FFN * width +
                         EW_PERMUTE * routed * h +
                         (fp8 ? EW_FP8_HIDDEN * 0.5 * h + EW_FP8_FFN * width
                              : 0));
    double up = m->gated_mlp ? 2.0 : 1.0;
    /* residual; dispatched tokens (fc1 input) and the expert outputs the
    ** weighted combine needs; fc1 outputs (for the activation backward) */
    mlp_keep = h + routed * (gin * h + h + up * ef) + sh * up * ef;
    mlp_recomp = gin * (h + (routed + sh) * ef);
    if (sh > 0) tp_ops += 4;
    /* EP: dispatch + combine, forward + backward, of this rank's routed
    ** tokens; the busiest rank receives imb x the mean. */
    if (l->ep > 1) {
      /* fp8 recipes dispatch in fp8 (DeepEP / Megatron fp8 dispatch; 1 B
      ** plus scales); combine and both backward passes stay bf16. */
      double bytes = Tt * k * h;
      int rpd = group_rpd(l->ep, l->etp, D);
      double t16 = coll(x, POD_COLL_ALL_TO_ALL, l->ep, rpd, 2.0 * bytes);
      double td = fp8 ? coll(x, POD_COLL_ALL_TO_ALL, l->ep, rpd, bytes) : t16;
      o->ep_s = p->imb * (td + 3.0 * t16);
    }
    if (l->etp > 1) {
      double bytes = Tt * k * h * 2.0 * l->etp * p->imb;
      int rpd = group_rpd(l->etp, 1, D);
      o->ep_s += 2.0 * coll(x, POD_COLL_ALL_GATHER, l->etp, rpd, bytes) +
                 2.0 * coll(x, POD_COLL_REDUCE_SCATTER, l->etp, rpd, bytes);
    }
  }
  if (l->tp > 1) {
    if (p->tp_pair_s < 0.0) { /* same for dense and MoE layers: once */
      double bytes = T * h * 2.0;
      int rpd = group_rpd(l->tp, 1, D);
      p->tp_pair_s = coll(x, POD_COLL_ALL_GATHER, l->tp, rpd, bytes) +
                     coll(x, POD_COLL_REDUCE_SCATTER, l->tp, rpd, bytes);
    }
    o->tp_s = (tp_ops / 2) * p->tp_pair_s;
  }
  if (l->cp > 1) {
    /* Ring attention: cp-1 KV hops forward; KV and dKV hops backward. */
    double bytes = T * pod_model_kv_elems(m) * 2.0 / tp;
    int rpd = group_rpd(l->cp, l->tp, D) >= 2 ? 2 : 1;
    o->cp_s = 3.0 * (l->cp - 1) * coll(x, POD_COLL_SEND_RECV, 2, rpd, bytes);
  }
  double keep = a_attn_keep + mlp_keep, recomp = a_attn_drop + mlp_recomp;
  o->full_act_bytes = 2.0 * Tt * (keep + recomp);
  switch (l->recompute) {
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
      break;
  }
}

/* Seconds of compute for a layer cost. */
typedef struct rates {
  double gemm, attn, hbm; /* FLOP/s, FLOP/s, B/s achieved */
} rates;

static double t_compute(const layer_cost *o, const rates *r) {
  double fd = o->gemm_flops - o->gemm_expert_flops;
  double td = fd / r->gemm, wd = o->w_bytes / r->hbm;
  double te = o->gemm_expert_flops / r->gemm, we = o->w_expert_bytes / r->hbm;
  return (td > wd ? td : wd) + (te > we ? te : we) + o->attn_flops / r->attn +
         o->ew_bytes / r->hbm;
}

/* The core evaluation on a checked config with dp resolved.  With
** want_time 0 only the memory fields are filled (the search's cheap
** first pass). */
static int eval_core(const pod_train_cfg *c, int dp, pod_train_result *r,
                     int want_time, pod_err *err) {
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  const pod_system *s = &c->system;
  memset(r, 0, sizeof *r);
  double eg = c->eff_gemm, ea = c->eff_attn, kh = c->gemm_k_half;
  if (eg <= 0.0 || ea <= 0.0 || kh < 0.0) {
    double dg, da, dk;
    int rc = pod_train_default_eff(&s->gpu, c->dtype, &dg, &da, &dk, err);
    if (rc != POD_OK) return rc;
    if (eg <= 0.0) eg = dg;
    if (ea <= 0.0) ea = da;
    if (kh < 0.0) kh = dk;
  }
  eg *= c->eff_scale * m->hidden / (m->hidden + kh);
  ea *= c->eff_scale;
  if (eg > 1.0) eg = 1.0;
  if (ea > 1.0) ea = 1.0;
  plan p;
  plan_layout(c, dp, &p);
  ctx x = {c, err, POD_OK, !want_time};
  const pod_model_params *mp = &p.mp;
  int L = m->layers, n_moe = mp->moe_layers, n_dense = L - n_moe;
  layer_cost dl, ml;
  memset(&dl, 0, sizeof dl);
  memset(&ml, 0, sizeof ml);
  if (n_dense > 0) layer_costs(c, &p, 0, &x, &dl);
  if (n_moe > 0) layer_costs(c, &p, 1, &x, &ml);
  if (x.rc != POD_OK) return x.rc;
  double fd = (double)n_dense / L, fm = (double)n_moe / L;
  double h = m->hidden, V = m->vocab, tp = l->tp;
  int D = s->domain_gpus;

  /* ---- Memory of the busiest pipeline ranks (first and last) ---- */
  double lr_layers = p.lr < L ? p.lr : L;
  double frac = lr_layers / L;
  double pd = mp->layers_dense * frac / tp;
  double pe = mp->layers_expert * frac / ((double)l->ep * l->etp);
  double emb = mp->embedding / tp, head = mp->head / tp;
  double mtp_d = 0.0, mtp_e = 0.0;
  if (m->mtp_layers > 0) {
    mtp_e = m->experts > 0 ? m->mtp_layers * mp->expert * m->experts /
                                 ((double)l->ep * l->etp) : 0.0;
    mtp_d = (mp->mtp - mtp_e * l->ep * l->etp) / tp;
  }
  double first_d = pd + emb, last_d = pd + head + mtp_d, last_e = pe + mtp_e;
  if (l->pp == 1) first_d = last_d = pd + emb + head + mtp_d;
  double shard_d = (double)dp * l->cp, shard_e = p.edp;
  double bw = B_WEIGHT + (c->dtype != POD_DTYPE_BF16 ? B_WEIGHT_FP8 : 0.0);
  double act_layer = fd * dl.act_bytes + fm * ml.act_bytes;
  double act_work = 0.0; /* one layer's full activations during recompute */
  if (l->recompute == POD_RECOMPUTE_FULL)
    act_work = dl.full_act_bytes > ml.full_act_bytes ? dl.full_act_bytes
                                                     : ml.full_act_bytes;
  double inflight = 1.0;
  if (l->pp > 1) {
    double mm = p.m < l->pp ? p.m : l->pp;
    inflight = mm * (l->vp > 1 ? 1.0 + (l->pp - 1.0) / ((double)l->pp * l->vp)
                               : 1.0);
  }
  double logits = p.T * V / tp * 4.0 * 2.0; /* fp32 logits and gradient */
  memq st[2] = {{0, 0, 0, 0, 0}, {0, 0, 0, 0, 0}};
  for (int i = 0; i < 2; i++) {
    double d = i == 0 ? first_d : last_d, e = i == 0 ? pe : last_e;
    double wd = d, we = e;
    if (l->zero >= 3) wd /= shard_d, we /= shard_e;
    st[i].weights = (wd + we) * bw;
    double gd = d, ge = e;
    if (l->zero >= 2) gd /= shard_d, ge /= shard_e;
    st[i].grads = (gd + ge) * c->grad_reduce_bytes;
    double od = d, oe = e;
    if (l->zero >= 1) od /= shard_d, oe /= shard_e;
    st[i].opt = (od + oe) * B_OPT;
    double infl = i == 0 ? inflight : 1.0;
    st[i].act = act_layer * lr_layers * infl + act_work;
    st[i].logits = (i == 1 || l->pp == 1) ? logits : 0.0;
  }
  int worst = 0;
  double tot[2];
  for (int i = 0; i < 2; i++)
    tot[i] = st[i].weights + st[i].grads + st[i].opt + st[i].act + st[i].logits;
  if (l->pp > 1 && tot[1] > tot[0]) worst = 1;
  r->memory.weights_gb = st[worst].weights / 1e9;
  r->memory.grads_gb = st[worst].grads / 1e9;
  r->memory.optimizer_gb = st[worst].opt / 1e9;
  r->memory.activations_gb = (st[worst].act + st[worst].logits) / 1e9;
  r->memory.reserve_gb = c->mem_reserve_gb;
  r->memory.total_gb = tot[worst] / 1e9 + c->mem_reserve_gb;
  r->fits = r->memory.total_gb <= s->gpu.hbm_gb;
  r->dp = dp;
  r->edp = p.edp;
  r->microbatches = p.m;
  r->eff_gemm = eg;
  r->eff_attn = ea;
  r->peak_tflops = pod_train_peak_tflops(&s->gpu, c->dtype);
  if (!want_time) return POD_OK;

  /* ---- Time ---- */
  rates rt = {r->peak_tflops * 1e12 * eg, s->gpu.bf16_tflops * 1e12 * ea,
              s->gpu.hbm_TBps * 1e12 * c->eff_hbm};
  double tcd = t_compute(&dl, &rt), tcm = t_compute(&ml, &rt);
  double gd_s = dl.gemm_flops / rt.gemm, gm_s = ml.gemm_flops / rt.gemm;
  double ad_s = dl.attn_flops / rt.attn, am_s = ml.attn_flops / rt.attn;
  double tc = fd * tcd + fm * tcm;
  double ttp = fd * exposed(dl.tp_s, c->overlap_tp, gd_s) +
               fm * exposed(ml.tp_s, c->overlap_tp, gm_s);
  double tcp = fd * exposed(dl.cp_s, c->overlap_cp, ad_s) +
               fm * exposed(ml.cp_s, c->overlap_cp, am_s);
  double tep = fm * exposed(ml.ep_s, c->overlap_ep, tcm);
  /* LM head, cross-entropy and MTP blocks (last stage). */
  double rec = l->recompute == POD_RECOMPUTE_FULL ? 4.0 / 3.0 : 1.0;
  double head_s = rec * 6.0 * p.T * V * h / tp / rt.gemm +
                  p.Tt * V * EW_LOGITS / rt.hbm;
  if (m->mtp_layers > 0) {
    const layer_cost *blk = m->experts > 0 ? &ml : &dl;
    head_s += m->mtp_layers *
              (t_compute(blk, &rt) + rec * 6.0 * p.T * 2.0 * h * h / tp / rt.gemm +
               head_s);
  }
  double lr_eff = p.lr, extra = head_s;
  double layer_all = tc + ttp + tcp + tep;
  if (l->uneven) {
    double need = (L + head_s / layer_all) / l->pp;
    lr_eff = need > p.lr ? need : p.lr;
    extra = 0.0;
  }
  double sc = lr_eff * tc + extra, stp = lr_eff * ttp, scp = lr_eff * tcp,
         sep = lr_eff * tep;
  double stage_mb = sc + stp + scp + sep;
  pod_train_breakdown *b = &r->breakdown;
  b->compute = p.m * sc;
  b->tp = p.m * stp;
  b->cp = p.m * scp;
  b->ep = p.m * sep;
  b->bubble = (l->pp - 1.0) / l->vp * stage_mb;
  if (l->pp > 1) {
    double bytes = p.Tt * h * 2.0;
    long stride = (long)l->tp * l->cp * dp;
    int rpd = group_rpd(l->pp, stride, D) >= 2 ? 2 : 1;
    double t = p.m * 2.0 * l->vp * coll(&x, POD_COLL_SEND_RECV, 2, rpd, bytes);
    b->pp = exposed(t, c->overlap_pp, p.m * stage_mb);
  }
  /* DP: the local shard of this stage over dp*cp (dense) and edp
  ** (experts) ranks. */
  {
    double gb = c->grad_reduce_bytes;
    int nd = (int)shard_d, ne = p.edp;
    int rd = group_rpd(nd, l->tp, D);
    int re = group_rpd(ne, (long)l->ep * l->etp, D);
    double Pd = last_d > first_d ? last_d : first_d, Pe = last_e;
    /* Overlap window: the gradient reduce-scatter runs under the last
    ** micro-batch's backward and the pipeline cool-down, the parameter
    ** all-gather under the next step's warm-up and first forward: one
    ** micro-batch of work plus the bubble (idle for compute, not for the
    ** network).  One collective per step: Megatron's per-bucket
    ** collectives (buckets of max(40M, 1M x DP) parameters) pay a ring
    ** latency each; modelled that way, the 405B DP slope comes out twice
    ** the published one (T4), so the buckets are not modelled. */
    double t = 0.0, window = stage_mb + b->bubble;
    if (l->zero == 0) {
      t = coll(&x, POD_COLL_ALL_REDUCE, nd, rd, Pd * gb) +
          coll(&x, POD_COLL_ALL_REDUCE, ne, re, Pe * gb);
    } else {
      double nrs = l->zero >= 2 ? p.m : 1.0;
      double nag = l->zero >= 3 ? 2.0 * p.m : 1.0;
      if (l->zero >= 2) window = p.m * stage_mb + b->bubble;
      t = nrs * (coll(&x, POD_COLL_REDUCE_SCATTER, nd, rd, Pd * gb) +
                 coll(&x, POD_COLL_REDUCE_SCATTER, ne, re, Pe * gb)) +
          nag * (coll(&x, POD_COLL_ALL_GATHER, nd, rd, Pd * B_WEIGHT) +
                 coll(&x, POD_COLL_ALL_GATHER, ne, re, Pe * B_WEIGHT));
    }
    b->dp = exposed(t, c->overlap_dp, window);
    double local = l->zero >= 1 ? Pd / shard_d + Pe / shard_e : Pd + Pe;
    b->optimizer = local * B_ADAM / rt.hbm;
  }
  /* fp8 delayed scaling: amax all-reduces (see JITTER_SYNC above). */
  double sync_wait = 0.0;
  if (c->dtype != POD_DTYPE_BF16 && (c->fp8_recipe == POD_FP8_DELAYED ||
                                     c->fp8_recipe == POD_FP8_DELAYED_TP)) {
    long G = (long)l->tp * l->cp, g = G;
    if (c->fp8_recipe == POD_FP8_DELAYED) G *= dp;
    if (m->experts > 0 && (long)l->ep * l->etp > g) g = (long)l->ep * l->etp;
    double K = 2.0 * p.m * l->vp;
    double bytes = AMAX_BYTES_PER_LAYER * lr_eff / l->vp;
    b->dp += K * coll(&x, POD_COLL_ALL_REDUCE, (int)G,
                      group_rpd((int)G, 1, D), bytes);
    if (G > g)
      sync_wait = c->jitter_sync * p.m * stage_mb *
                  (sqrt(2.0 * log((double)G)) - sqrt(2.0 * log((double)g)));
  }
  if (x.rc != POD_OK) return x.rc;
  double pre = b->compute + b->tp + b->cp + b->ep + b->bubble + b->pp + b->dp +
               b->optimizer;
  /* Straggler: every GPU waits for the slowest at each synchronous step.
  ** With per-GPU step times ~ N(mu, (jitter mu)^2), the expected maximum
  ** of N is mu + jitter mu sqrt(2 ln N) to leading order (extreme-value /
  ** Gumbel limit of the Gaussian maximum; slightly above the exact value
  ** for moderate N). */
  double N = c->gpus;
  b->straggler = N > 1 ? c->jitter * pre * sqrt(2.0 * log(N)) : 0.0;
  b->straggler += sync_wait;
  r->step_s = pre + b->straggler;
  double tokens = (double)c->global_batch * c->seq;
  pod_model_flops f;
  pod_model_flops_per_token(m, c->seq, !c->mfu_full_attn, &f);
  r->flops_per_token = f.total;
  r->tokens_per_s = tokens / r->step_s;
  r->tokens_per_s_per_gpu = r->tokens_per_s / c->gpus;
  r->tflops_per_gpu = f.total * r->tokens_per_s_per_gpu / 1e12;
  r->mfu = r->tflops_per_gpu / r->peak_tflops;
  if (!isfinite(r->step_s) || r->step_s <= 0.0)
    return pod_err_set(err, POD_ERANGE, "step_s", "is not finite");
  return POD_OK;
}

int pod_train_eval(const pod_train_cfg *cfg, pod_train_result *out,
                   pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  pod_train_cfg c = *cfg;
  normalize(&c.parallel);
  int dp = 0;
  int rc = check_cfg(&c, &dp, err);
  if (rc != POD_OK) return rc;
  pod_train_result tmp;
  rc = eval_core(&c, dp, out ? out : &tmp, 1, err);
  if (rc == POD_OK) pod_err_clear(err);
  return rc;
}

/* ---- Built-in evaluator ----------------------------------------------- */

static const char *const train_metrics[] = {
  "step_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu",
  "memory_gb", "fits", "compute_s", "tp_s", "cp_s", "ep_s", "pp_s", "dp_s",
  "bubble_s", "optimizer_s", "straggler_s"};

static int train_kernel_fn(const void *cfg, double *v, pod_err *err) {
  pod_train_result r;
  int rc = pod_train_eval((const pod_train_cfg *)cfg, &r, err);
  if (rc != POD_OK) return rc;
  const pod_train_breakdown *b = &r.breakdown;
  double vals[] = {r.step_s, r.tokens_per_s, r.tokens_per_s_per_gpu,
                   r.tflops_per_gpu, r.mfu, r.memory.total_gb, r.fits,
                   b->compute, b->tp, b->cp, b->ep, b->pp, b->dp, b->bubble,
                   b->optimizer, b->straggler};
  memcpy(v, vals, sizeof vals);
  return POD_OK;
}

const pod_kernel pod_train_kernel = {
  "train", sizeof(pod_train_cfg),
  (int)(sizeof train_metrics / sizeof train_metrics[0]), train_metrics,
  train_kernel_fn};

/* ---- Layout search ---------------------------------------------------- */

void pod_train_search_opts_init(pod_train_search_opts *o) {
  memset(o, 0, sizeof *o);
  pod_layout *f = &o->fix;
  f->tp = f->pp = f->vp = f->dp = f->ep = f->etp = f->cp = f->microbatch = -1;
  f->zero = f->recompute = f->uneven = -1;
  o->top_n = 10;
  o->max_tp = 64;
  o->max_pp = 64;
  o->max_vp = 16;
  o->max_cp = 16;
  o->max_mb = 16;
}

typedef struct topn {
  pod_train_search_item *items;
  int n, cap;
} topn;

static int better(const pod_train_search_item *a, const pod_train_search_item *b) {
  if (a->tokens_per_s_per_gpu != b->tokens_per_s_per_gpu)
    return a->tokens_per_s_per_gpu > b->tokens_per_s_per_gpu;
  return a->memory_gb < b->memory_gb;
}

static void topn_add(topn *t, const pod_train_search_item *it) {
  if (t->cap <= 0) return;
  if (t->n == t->cap && !better(it, &t->items[t->n - 1])) return;
  int i = t->n < t->cap ? t->n++ : t->n - 1;
  while (i > 0 && better(it, &t->items[i - 1])) {
    t->items[i] = t->items[i - 1];
    i--;
  }
  t->items[i] = *it;
}

/* A free dimension (fix < 0) ranges over candidates; a fixed one over its
** value only. */
static int dim_ok(int fix, int v) { return fix < 0 || fix == v; }

static int search_check_opts(const pod_train_search_opts *o, pod_err *err) {
  const pod_layout *f = &o->fix;
  const struct { int v; const char *n; } pos[] = {
    {f->tp, "fix.tp"}, {f->pp, "fix.pp"}, {f->vp, "fix.vp"},
    {f->dp, "fix.dp"}, {f->ep, "fix.ep"}, {f->etp, "fix.etp"},
    {f->cp, "fix.cp"}, {f->microbatch, "fix.microbatch"}};
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
    NEED(pos[i].v == -1 || pos[i].v >= 1, pos[i].n,
         "must be -1 (free) or >= 1 (got %d)", pos[i].v);
  NEED(f->zero >= -1 && f->zero <= 3, "fix.zero", "must be -1 (free) or 0..3");
  NEED(f->recompute >= -1 && f->recompute <= 2, "fix.recompute",
       "must be -1 (free) or 0..2");
  NEED(f->uneven >= -1 && f->uneven <= 1, "fix.uneven",
       "must be -1 (free), 0 or 1");
  NEED(o->top_n >= 1, "top_n", "must be >= 1 (got %d)", o->top_n);
  NEED(o->max_tp >= 1, "max_tp", "must be >= 1");
  NEED(o->max_pp >= 1, "max_pp", "must be >= 1");
  NEED(o->max_vp >= 1, "max_vp", "must be >= 1");
  NEED(o->max_cp >= 1, "max_cp", "must be >= 1");
  NEED(o->max_mb >= 1, "max_mb", "must be >= 1");
  return POD_OK;
}

int pod_train_search(const pod_train_cfg *base,
                     const pod_train_search_opts *opts,
                     pod_train_search_item *out, int cap, int *n,
                     pod_train_search_stats *stats, pod_err *err) {
  pod_train_search_opts dflt;
  if (opts == NULL) {
    pod_train_search_opts_init(&dflt);
    opts = &dflt;
  }
  if (n == NULL) return pod_err_set(err, POD_EINVAL, "n", "is NULL");
  *n = 0;
  NEED(cap >= 0 && (cap == 0 || out != NULL), "out",
       "needs a buffer of cap >= 0 items");
  int rc = search_check_opts(opts, err);
  if (rc != POD_OK) return rc;
  rc = check_common(base, err);
  if (rc != POD_OK) return rc;
  {
    double dg;
    rc = pod_train_default_eff(&base->system.gpu, base->dtype, &dg, NULL, NULL,
                               NULL);
    if (rc != POD_OK && (base->eff_gemm <= 0.0 || base->eff_attn <= 0.0 ||
                         base->gemm_k_half < 0.0))
      return pod_train_default_eff(&base->system.gpu, base->dtype, NULL, NULL,
                                   NULL, err);
  }
  const pod_layout *f = &opts->fix;
  const pod_model *m = &base->model;
  int G = base->gpus, L = m->layers, B = base->global_batch;
  pod_train_search_stats st = {0, 0, 0, 0};
  topn t = {out, 0, cap < opts->top_n ? cap : opts->top_n};
  pod_train_cfg c = *base;
  pod_layout *l = &c.parallel;
  pod_train_result r;
  int zlo = f->zero >= 0 ? f->zero : 1, zhi = f->zero >= 0 ? f->zero : 3;
  int rlo = f->recompute >= 0 ? f->recompute : 0;
  int rhi = f->recompute >= 0 ? f->recompute : 2;
  for (int tp = 1; tp <= opts->max_tp && tp <= m->heads; tp++) {
    if (!dim_ok(f->tp, tp) || G % tp || m->heads % tp) continue;
    if (m->attn != POD_ATTN_MLA && m->kv_heads % tp) continue;
    for (int cp = 1; cp <= opts->max_cp; cp *= 2) {
      if (!dim_ok(f->cp, cp) || G % (tp * cp)) continue;
      if (cp > 1 && base->seq % (2 * cp)) continue;
      int rest = G / (tp * cp);
      for (int pp = 1; pp <= opts->max_pp && pp <= L && pp <= rest; pp++) {
        if (!dim_ok(f->pp, pp) || rest % pp) continue;
        int dp = rest / pp;
        if (!dim_ok(f->dp, dp) || B % dp) continue;
        int per_replica = B / dp;
        int vmax = pp == 1 ? 1 : opts->max_vp;
        for (int vp = 1; vp <= vmax; vp++) {
          if (!dim_ok(f->vp, vp) || (long)pp * vp > L) continue;
          int uneven = L % (pp * vp) != 0;
          if (f->uneven >= 0 && uneven && !f->uneven) continue;
          if (f->uneven == 1) uneven = 1;
          for (int mb = 1; mb <= opts->max_mb && mb <= per_replica; mb++) {
            if (!dim_ok(f->microbatch, mb) || per_replica % mb) continue;
            int emax = m->experts > 0 ? m->experts : 1;
            long world = (long)tp * cp * dp;
            for (int ep = 1; ep <= emax; ep++) {
              if (!dim_ok(f->ep, ep) || emax % ep || world % ep) continue;
              int tmax = m->experts > 0 ? opts->max_tp : 1;
              for (int etp = 1; etp <= tmax; etp++) {
                if (!dim_ok(f->etp, etp) || world % ((long)ep * etp)) continue;
                if (m->experts > 0 && m->expert_ffn % etp) continue;
                *l = (pod_layout){tp, pp, vp, dp, ep, etp, cp, mb, 0, 0, uneven};
                st.candidates++;
                /* A higher ZeRO stage only adds traffic; it can win only
                ** by needing less recompute than the stage below. */
                int rtop = rhi;
                for (int z = zlo; z <= zhi && rtop >= rlo; z++) {
                  l->zero = z;
                  for (int rcp = rlo; rcp <= rtop; rcp++) {
                    l->recompute = rcp;
                    rc = eval_core(&c, dp, &r, 0, err);
                    if (rc != POD_OK) return rc;
                    st.checked++;
                    if (!r.fits) continue;
                    st.fitting++;
                    rc = eval_core(&c, dp, &r, 1, err);
                    if (rc != POD_OK) return rc;
                    st.evaluated++;
                    pod_train_search_item it = {*l, r.tokens_per_s_per_gpu,
                                                r.step_s, r.mfu,
                                                r.memory.total_gb};
                    topn_add(&t, &it);
                    rtop = rcp - 1;
                    break; /* more recompute only slows this layout */
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  *n = t.n;
  if (stats) *stats = st;
  pod_err_clear(err);
  return POD_OK;
}
