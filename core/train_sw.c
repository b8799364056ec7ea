/*
** train_sw.c: the software features and the per-SKU terms of the
** training-step model (pod_train.h, train_int.h): sustained clocks under
** the power limit, the tensor-core rates of a config (fp8 attention, the
** narrow-expert GEMM roll-off), the exposed host time of eager experts,
** the hierarchical EP dispatcher's network share, fp8 primary weights.
*/
#include <ctype.h>
#include <math.h>

#include "train_int.h"

/* ---- Efficiency tables ------------------------------------------------ */

typedef enum gpu_gen {
  GEN_AMPERE,
  GEN_HOPPER,
  GEN_BLACKWELL,
  GEN_UNKNOWN
} gpu_gen;

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
**   blackwell fp8: FITTED on T6 (Llama 3.1 405B on 256 GB300, 1,048
**     tokens/s/GPU, FP8 current scaling, Megatron-Bridge 26.06), at the
**     GB300's sustained clock (1, the reference; see BLACKWELL_REF_W):
**     0.692 at h = 16384.  Every Blackwell SKU shares it, scaled by its
**     sustained clock; the software features of a case (pod_train_sw)
**     carry what differs between releases and recipes, so no per-case
**     eff_scale is needed (cfg->eff_scale stays 1 in every validation
**     case; it remains a knob for studies).
**   blackwell bf16, ampere bf16: priors = the Hopper bf16 fit; fp4: the
**     fp8 fit of the generation, which the NVFP4 kernels reach only in
**     part (pod_train__recipe_gemm_rel, NVFP4_OVER_FP8).
**   attention: FlashAttention-3 (Shah et al. 2024, figs. 5-6): H100 bf16
**     causal hd128 forward ~ 600-660 TF, backward ~ 450-500 TF, about 0.5
**     of 989 over forward+backward; the same fraction is taken for
**     Blackwell (cuDNN attention for sm100); FA2 on A100 reaches ~ 0.6 of
**     312 (Dao 2023, fig. 4). */
#define EFF_HOPPER_BF16 0.636
#define EFF_HOPPER_FP8 0.741
#define EFF_BLACKWELL_FP8 0.865
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
/* Narrow expert GEMMs: eff_e = eff(h) * w / (w + w_half), w = expert_ffn /
** etp, a roll-off a study may still set (cfg->gemm_w_half); the table
** has none.  Public grouped-GEMM microbenchmarks show no width penalty at
** MoE training shapes: DeepGEMM's FP8 grouped GEMM (contiguous layout,
** the training one) on H800 reaches 1,346 TFLOP/s at M = 4,096-8,192 per
** expert, N = 4,096, K = 7,168 (DeepSeek-V3's fc1) against 1,410 for one
** dense GEMM of that shape, and 1,214 against 1,168 at N = 7,168,
** K = 2,048 (its fc2) (deepseek-ai/DeepGEMM README.md at 327ec92,
** 2025-04-09, "Grouped GEMMs for MoE models (contiguous layout)" and
** "Normal GEMMs for dense models").  The width roll-off this table held
** (w_half 1,590, fitted on T6) made Qwen3-30B-A3B's 768-wide experts run
** at a tenth of peak and podsim under-predict it by 30-44%; what it stood
** for on DeepSeek-V3 is the fixed time per MoE layer (MOE_LAYER_US). */
static const double w_half_table[3] = {0.0, 0.0, 0.0};

/* The routed experts' grouped GEMMs roll off with their reduction size
** far less than the dense fit above: DeepGEMM's FP8 grouped GEMM
** (contiguous layout, fine-grained block scaling, the training one) on
** H800 reaches 1,346 TFLOP/s at K = 7,168 (N = 4,096) and 1,214 at
** K = 2,048 (N = 7,168) of the 1,979 peak (deepseek-ai/DeepGEMM README.md
** at 327ec92), i.e. e x K / (K + k) with k = 330 (and e = 0.71; podsim
** keeps its fitted eff_gemm for the asymptote).  The dense K_HALF_FP8
** (4,096) is a fit on Llama 70B against 405B, per-tensor-scaled cuBLAS
** GEMMs whose gap carries more than shape; applied to the experts it held
** Qwen3-30B-A3B's h = 2,048 experts at e_g 0.29, clock-bound (T15).
**   K_HALF_EXPERT_FP8: 330, from the two DeepGEMM points; bf16 none.
** A separate table from the dense one: setting gemm_k_half leaves the
** experts alone (cfg->gemm_k_half_expert sets theirs). */
#define K_HALF_EXPERT_FP8 330.0
static const double k_half_expert_table[3] = {0.0, K_HALF_EXPERT_FP8,
                                              K_HALF_EXPERT_FP8};

/* The MoE layer's time beyond its GEMMs, per micro-batch, forward and
** backward, has three parts (train.c adds them to the layer's compute):
**
**   t_moe = moe_layer_us                               fixed GPU time
**         + Tt (k x imb x h x stage + E x router) / (HBM x eff_hbm)
**         + eager launches x t_launch                  host-bound part
**
** so it grows with the tokens of a micro-batch, less than in proportion
** (the fixed part is amortised), and scales with the SKU's HBM bandwidth.
**
** Staging copies of the routed tokens (pod_train__moe_stage_bytes), bytes
** per routed hidden element, counted from Megatron-Core's dispatchers
** (NVIDIA/Megatron-LM megatron/core/transformer/moe/token_dispatcher.py
** and fused_a2a.py at d98e8a6, 2026-08-22).  HybridEP runs "permute +
** dispatch a2a + permute" as separate steps unless
** moe_permute_fusion_into_hybridep is set (False in Megatron-Core's
** transformer_config.py at that commit; taken as the recipes' setting),
** the NCCL all-to-all dispatcher permute / all-to-all / sort_chunks_by_idxs
** (the last only with more than one local expert).  With b the dispatch
** payload (pod_train__dispatch_bytes: 2 B, bf16, under these dispatchers
** whatever the recipe, which quantise the tokens after the all-to-all,
** inside the experts; 1 B only for an fp8 step under dualpipe) and every
** other pass bf16:
**   source side (STAGE_SRC): the forward permute into the send buffer
**     (read b, write b), the combine's reduce of the k returned copies
**     (read 2, write ~0 per copy), and their backward twins (the output
**     gradient's permute, read 2 + write 2; the input gradient's reduce,
**     2): 2b + 8;
**   the all-to-all kernels' buffers (STAGE_WIRE, EP > 1): send buffer
**     read and receive buffer written, dispatch b + b, combine 2 + 2 and
**     both again in the backward, 4 + 4: 2b + 12 (their link time is the
**     EP collective; this is their HBM traffic);
**   expert side (STAGE_EXP): the permute into expert order after the
**     dispatch (read b, write b), the unpermute before the combine (2 + 2)
**     and their backward (4 + 4): 2b + 12; none for the NCCL dispatcher
**     with one local expert.
** 44 B (38 B with an fp8 payload; the count this replaces held 24 B: four
** permute copies and the receive buffers).  DeepEP is counted as HybridEP (its
** normal kernels read the tokens in place: an upper bound by 2b).
**
** Router (pod_train__router_bytes), fp32 (moe_router_dtype "fp32" in the
** recipes), bytes per token per expert, forward and backward, counted from
** router.py and moe_utils.py at d98e8a6 with moe_router_fusion (Transformer
** Engine's fused top-k and aux-loss score kernels): logits written by the
** gating GEMM (4), read by the fused top-k (4) and the aux-loss scores (4);
** probabilities (4) and routing map (1) written, aux scores (4) and their
** map (1) written, the maps read for the token counts (1 + 1); backward:
** the probabilities' gradient and the saved logits read (4 + 4), the
** logits' gradient written (4), the aux-score backward (4 + 4): 44 B.
**
** Eager launches: the router and preprocess scopes' kernels, which
** Transformer Engine's partial graphs (cuda_graph_scope moe_router,
** moe_preprocess) and full-iteration graphs capture, counted from the same
** files: forward 13 (gating cast and GEMM, fused top-k, aux-loss scores,
** three token-count reductions, fused aux loss, the expert-bias count and
** add, two in the dispatcher's preprocess), backward 8 (gating dgrad and
** wgrad and cast, top-k, aux-score and aux-loss backward, the aux-loss
** scaler, the probabilities' cast): ROUTER_LAUNCHES_FWD, _BWD.  Each costs
** the host time of one eager launch, t_launch = host_expert_us / 5: the
** exposed host time per local expert per pass (HOST_EXPERT_US) covers
** Transformer Engine GroupedLinear's per-expert launches, fc1 and fc2
** GEMMs and input quantisations in the forward (4), dgrad and wgrad of
** both and two gradient quantisations in the backward (6), 5 per pass.
** They are exposed for the same reason: the dropless token-count sync
** drains the GPU every MoE layer (train_sw.c, HOST_EXPERT_US).
**
** Fixed GPU time (MOE_LAYER_US), whatever the tokens: the chain of small
** dependent kernels (router, dispatcher set-up and HybridEP/DeepEP
** preprocessing, token counts, padding), their launch latency on the GPU,
** the dispatcher's barriers; CUDA graphs remove their host launches, not
** this.  Not scaled with the clock: the published Qwen3-30B-A3B rows (T15)
** put DGX-B200 above GB200 NVL72 at one micro-batch size.
**   MOE_LAYER_US: FITTED once on T6 (DeepSeek-V3 on 256 GB300, 6,338
**   tokens/s/GPU, Megatron-Bridge 26.06, MBS 1, full graphs: no launch
**   term): 1,500 us.  Refitted each time a counted term changed: 2,444
**   us first, 2,908 when the experts' grouped GEMMs took their own
**   roll-off, 2,387 when the staging and router traffic above were
**   counted, 2,110 when MXFP8's GEMM kernels took their measured speed
**   against per-tensor fp8 (MXFP8_GEMM_REL) and each recipe its own cast
**   bytes (pod_train__quant_scale) on top of that, 1,890 when the
**   dispatch payload and its staging copies went to bf16 as Megatron's
**   dispatchers send them (pod_train__dispatch_bytes), 1,500 when MLA's
**   per-head element-wise traffic was counted (pod_train__mla_ew_bytes:
**   about 579 KB per token per layer on DeepSeek-V3, 0.37 ms of its
**   per-MoE-layer share at T6's 4,096 tokens; being in every layer, it
**   takes 61 of the 58 MoE layers' share).  The fixed part had absorbed
**   attention work that scales with DeepSeek-V3's heads (128 x (192 +
**   192 + 128) q/k/v elements per token, 9 x its hidden size), which
**   Qwen3 and Maverick (GQA) do not have; HOST_EXPERT_US refitted after
**   it on its row (with the mla_up_proj rerun below).
**   Predictions of it: Qwen3-30B-A3B (T15) at MBS 8, 4 and 1 on five
**   systems, Qwen3-235B (T16, T17), Maverick (T1, T2), the DeepSeek-V3
**   rows of T9, T10, T14. */
#define MOE_LAYER_US 1500.0
#define STAGE_SRC_B 8.0
#define STAGE_WIRE_B 12.0
#define STAGE_EXP_B 12.0
#define ROUTER_B 44.0
#define ROUTER_LAUNCHES_FWD 13.0
#define ROUTER_LAUNCHES_BWD 8.0
#define EXPERT_LAUNCHES_PER_PASS 5.0

static gpu_gen gen_of(const pod_gpu *g) {
  const char *n = g->name;
  char c0 = (char)tolower((unsigned char)n[0]);
  char c1 = c0 ? (char)tolower((unsigned char)n[1]) : 0;
  if (c0 == 'g' && c1 == 'b') c0 = 'b'; /* GB200, GB300: Blackwell */
  switch (c0) {
    case 'a':
      return GEN_AMPERE;
    case 'h':
      return GEN_HOPPER;
    case 'b':
      return GEN_BLACKWELL;
    default:
      return GEN_UNKNOWN;
  }
}

double pod_train_peak_tflops(const pod_gpu *gpu, pod_dtype dtype) {
  switch (dtype) {
    case POD_DTYPE_BF16:
      return gpu->bf16_tflops;
    case POD_DTYPE_FP8:
      return gpu->fp8_tflops;
    case POD_DTYPE_FP4:
      return gpu->fp4_tflops;
  }
  return 0.0;
}

int pod_train_default_eff(const pod_gpu *gpu, pod_dtype dtype, double *eff_gemm,
                          double *eff_attn, double *k_half, pod_err *err) {
  gpu_gen g = gen_of(gpu);
  if (g == GEN_UNKNOWN || (int)dtype < 0 || dtype > POD_DTYPE_FP4 ||
      eff_table[g].gemm[dtype] <= 0.0)
    return pod_err_set(err, POD_ENOTSUP, "eff_gemm",
                       "no default efficiency for GPU '%s' in %s; set "
                       "eff_gemm and eff_attn",
                       gpu->name, pod_train_dtype_name(dtype));
  if (eff_gemm) *eff_gemm = eff_table[g].gemm[dtype];
  if (eff_attn) *eff_attn = eff_table[g].attn;
  if (k_half) *k_half = k_half_table[dtype];
  return POD_OK;
}

/* Sustained tensor-core clock under the board power limit (Blackwell).
** Datasheet peaks are at the boost clock; dense fp8/fp4 GEMMs draw the
** most power a GPU sees and the power governor lowers the clock until
** the board limit holds.  The board power has two parts:
**
**   P(f) = P_static + P_dyn x f / f_boost
**
** P_static does not follow the tensor-core clock (leakage of the two
** reticle dies at their load voltage and temperature, the HBM stacks'
** background and refresh power, the NVLink and C2C/PCIe SerDes, the
** board's regulators); the dynamic part is linear in the clock at the
** voltage floor.  A SKU sustains f / f_boost = min(1, (P_limit -
** P_static) / P_dyn).  The Blackwell dies share one design per peak:
** P_dyn scales with the SKU's rated fp8 peak from the reference SKU,
** GB300 (5 PF fp8 dense at 1,400 W), taken to hold its boost (the top-
** binned, highest-power SKU; an assumption, no public clock log), so
** P_dyn = (1,400 W - P_static) x fp8 peak / 5 PF; every Blackwell SKU
** has the same dies, so the same P_static.
**   BLACKWELL_STATIC_W: 300 W, FITTED on T11's GB200 Llama row (no
**   public power-against-clock curve of a Blackwell GPU was found, so the
**   rows set it; the T11 GB200 row is marked a fit), within the bracket:
**   the same-release Llama 3.1 405B pair GB300 over GB200 (T6/T11,
**   1,048 / 843 = 1.243, the most GEMM-bound Blackwell pair) asks
**   ~470 W, while Qwen3-30B-A3B's GB200 NVL72 over DGX-B200 ratio (T15,
**   published 0.969) leaves the 15% tolerance above ~330 W (B200, at
**   1,000 W the lowest power, loses most).  With P_static = 0 (the rule
**   this replaces) the sustained clock was the power ratio, GB300 over
**   GB200 1.167, which a step diluted by clock-free time (communication,
**   HBM-bound and fixed MoE time) cannot turn into the published 1.24.
** So B300 (4.5 PF, 1,100 W) sustains 800 / 990 = 0.808, B200 (4.5 PF,
** 1,000 W) 700 / 990 = 0.707, GB200 (5 PF, 1,200 W) 900 / 1,100 = 0.818.
** Checks: DGX-B300 over DGX-B200 at one recipe (T10, published 1.112)
** moves from 1.047 to 1.069.  Hopper and Ampere keep 1 (their
** efficiencies were fitted on the H100 at 700 W). */
#define BLACKWELL_REF_W 1400.0
#define BLACKWELL_REF_FP8_TF 5000.0
#define BLACKWELL_STATIC_W 300.0

/* Host time at the dropless-MoE synchronisation.  A dropless MoE layer
** needs the tokens per expert on the host to size the expert GEMMs
** (Megatron-Core copies the counts to the host before the grouped MLP):
** the GPU drains there, and the launches that follow are exposed.
** Transformer Engine's GroupedLinear launches one GEMM (and one input
** quantisation) per local expert, in the forward (fc1, fc2) and twice
** in the backward (dgrad, wgrad), so the exposed host time of a pass
** grows with the local experts, experts / ep.
**   HOST_EXPERT_US: exposed host time per local expert per MoE layer
**   per micro-batch pass (forward or backward) with eager launches;
**   FITTED once (software feature "no CUDA graphs") on Megatron-Bridge
**   26.04 DeepSeek-V3 on 256 DGX-B300 (3,131 tokens/s/GPU, PP16 EP8:
**   32 local experts, no graphs): 60.6 us, five launches (EXPERT_LAUNCHES_
**   PER_PASS above) of about 12.5 us, about the host time of one eager PyTorch
**   operator (a check, not a source: no public per-launch figure for
**   Megatron's MoE layer was found).  Refitted on the same row after
**   MOE_LAYER_US each time: 66 us before MOE_LAYER_US took its part of
**   that row, 77 before the experts' own roll-off, 82 before the staging
**   copies, the router traffic and the router's eager launches (20 x
**   15 us per MoE layer per micro-batch on this row) were counted, 75
**   before MXFP8's GEMM speed and the recipes' cast bytes, 74.6 before
**   the static power of the sustained-clock rule (BLACKWELL_STATIC_W:
**   B300 0.873 -> 0.808), 64.7 before Megatron's EP dispatch was sent
**   in bf16 as its dispatchers send it (train.c: it was charged in
**   fp8), 62.4 before MLA's per-head traffic and its rerun under
**   mla_up_proj recompute (this row's recipe) were counted
**   (pod_train__mla_ew_bytes, pod_train__mla_rerun_bytes).  The
**   GB300 NVL72 row of the same table (EP32, 8 local experts, MBS 2) is a
**   prediction of it.
** Transformer Engine's partial graphs (scopes moe_router, moe_preprocess,
** some recipes attn as well: no eager attention launches are charged, so
** attn changes nothing) leave the experts eager: the same exposed time,
** but capture the router's launches.  Full-iteration graphs replay the whole
** step: none; a fused grouped MLP is one kernel for all local experts:
** no expert launches. */
#define HOST_EXPERT_US 60.6

/* ---- fp8 recipes: scale granularity and its kernels ----------------- */

/* Quantisation traffic per element of a GEMM operand, by recipe and GPU
** generation, counted from Transformer Engine's quantizers (NVIDIA/
** TransformerEngine at d0067d0, transformer_engine/pytorch/csrc/
** quantizer.cpp).  A Linear Y = X W^T needs X and W rowwise in fprop, dY
** rowwise and W columnwise in dgrad, dY and X columnwise in wgrad, so
** each quantised activation and gradient serves both layouts:
**   per-tensor scaling: one fp8 copy (read bf16 2 B, write 1 B).  Hopper
**     GEMMs take fp8 in the TN layout only, so a transposed copy (1 B)
**     serves dgrad and wgrad; Blackwell runs any layout from the one copy
**     (nvte_is_non_tn_fp8_gemm_supported: no transpose buffer).
**   current scaling adds the amax pass before the cast (read 2 B) where
**     the producer does not compute it (Float8CurrentScalingQuantizer:
**     nvte_compute_amax, then the cast); the norm and activation kernels
**     fuse it (create_unquantized_tensor_with_amax in normalization.cpp
**     and activation.cpp; attention only with fp8 attention).  The caller
**     passes the share of its operand elements without a fusing producer
**     (train.c, EW_FP8_*_UNFUSED).
**   MXFP8 (Blackwell): one pass writes rowwise and columnwise data
**     (1 B each; the scales run along different axes, so one copy cannot
**     be read transposed), an E8M0 scale per 32 elements per copy
**     (2/32 B), and the scales are swizzled into the tensor-core layout
**     before the GEMM (read and write them: 4/32 B).  128-element block
**     scaling on Hopper writes both copies too, with fp32 scales per 128
**     (2 x 4/128 B).
** The element-wise fp8 terms of train.c (EW_FP8_*) were counted at the
** Hopper per-tensor figure, 4 B (read 2, write the copy and its
** transpose); a recipe scales them by quant_bytes / QUANT_BYTES_REF. */
#define QUANT_BYTES_REF 4.0

#define AMAX_PASS_BYTES 2.0
/* NVFP4 (fp4 dtype; Transformer Engine's NVFP4BlockScaling, the only fp4
** training recipe): E2M1 data in rowwise and columnwise copies (0.5 B
** each), an E4M3 scale per 16 elements, a per-tensor fp32 scale from an
** amax pass (fused by the norms and activations as for current scaling:
** normalization.cpp, activation.cpp), and for the wgrad operands a random
** Hadamard transform with its own amax and stochastic rounding of the
** gradients.  Not counted kernel by kernel: TE's GEMM profiling tutorial
** (B300, the shapes of MXFP8_GEMM_REL below) times a layer's casts, the
** autocast time less the pre-quantised one, at 2.689 ms for NVFP4 (6.453
** - 3.764) against 2.335 for current scaling (9.147 - 6.812), each cast
** there from a plain bf16 tensor; so NVFP4 casts cost 1.152 x current
** scaling's at the same operands. */
#define NVFP4_CAST_REL ((6.453 - 3.764) / (9.147 - 6.812))

double pod_train__quant_scale(const pod_train_cfg *c, double unfused) {
  if (c->dtype == POD_DTYPE_BF16) return 0.0;
  int bw = gen_of(&c->system.gpu) == GEN_BLACKWELL;
  double q = 3.0 + (bw ? 0.0 : 1.0); /* read 2, write 1 (+ transpose) */
  if (c->dtype == POD_DTYPE_FP4)     /* NVFP4, whatever the fp8 recipe */
    return NVFP4_CAST_REL * (q + AMAX_PASS_BYTES * unfused) / QUANT_BYTES_REF;
  switch (c->fp8_recipe) {
    case POD_FP8_CURRENT:
      q += AMAX_PASS_BYTES * unfused; /* the amax passes not fused */
      break;
    case POD_FP8_BLOCK:
      q = bw ? 2.0 + 2.0 + 2.0 / 32.0 + 4.0 / 32.0
             : 2.0 + 2.0 + 2.0 * 4.0 / 128.0;
      break;
    default:
      break;
  }
  return q / QUANT_BYTES_REF;
}

/* MXFP8 GEMM kernels against per-tensor fp8 ones at the same shapes on
** Blackwell: Transformer Engine's GEMM profiling tutorial (docs/examples/
** gemm_profiling/gemm_profiling.rst at d0067d0, B300, 5B-model shapes
** h = 4,096, ffn = 16,384, M = 15,872, pre-quantised inputs, so the GEMM
** kernels alone) times the 12 GEMMs of a layer at 6.812 ms with per-tensor
** (current-scaling) fp8 and 7.161 ms with MXFP8: 0.951.  The block-scaled
** MMA loads a scale per 32 elements of K for both operands into tensor
** memory beside the data.  A measured figure, not a fit; the fitted fp8
** efficiency (EFF_BLACKWELL_FP8, on a current-scaling row) stays the
** per-tensor one.
** Hopper's 128-element block scaling has no kernel-only time there (its
** cuBLAS takes no pre-quantised 2D blocks), only the times with the
** casts (autocast, H200 NVL, same shapes): 20.285 ms per layer for
** current scaling, 22.882 for blocks, and current scaling's kernels alone
** 16.785, so its casts take 3.500 ms.  In that benchmark every operand,
** weights included, is cast on every call from a plain bf16 tensor, so
** current scaling pays its amax pass everywhere: 6 B per element on
** Hopper (2 amax read, 2 read, 1 write, 1 transpose) against the blocks'
** 4.06 B (quant_bytes above).  Scaling the cast time by those bytes, the
** blocks' casts take 3.500 x 4.0625 / 6 = 2.370 ms and their kernels
** 20.512, 0.818 of the per-tensor ones.  Derived from the published
** times and the byte counts, not measured alone and not fitted; the same
** derivation on the B300 times predicts MXFP8's casts at 2.335 x 4.1875 /
** 5 = 1.956 ms against the 1.823 measured (7% high).  No validation row
** runs Hopper blocks. */
#define MXFP8_GEMM_REL (6.812 / 7.161)
#define HOPPER_BLOCK_GEMM_REL (16.785 / (22.882 - 3.500 * 4.0625 / 6.0))

/* NVFP4 GEMM kernels against per-tensor fp8 ones, the same tutorial's
** pre-quantised times: 3.764 ms per layer against 6.812, 1.810x faster on
** a B300 whose fp4 peak is 3x its fp8 one (13.5 against 4.5 PF dense).
** Taken as a cap on the speed-up: fp4 GEMMs reach the fp8 fraction of
** peak x min(1, 1.810 x fp8 peak / fp4 peak), 0.603 of it on B300 and
** GB300 (15 PF against 5), 0.905 on GB200 and B200 (2x peaks).  That the
** cap holds on the 2x parts is an assumption (one measured SKU; no
** public NVFP4 GEMM time for them was found). */
#define NVFP4_OVER_FP8 (6.812 / 3.764)

double pod_train__recipe_gemm_rel(const pod_train_cfg *c) {
  const pod_gpu *g = &c->system.gpu;
  if (c->dtype == POD_DTYPE_FP4) {
    if (g->fp4_tflops <= 0.0 || g->fp8_tflops <= 0.0) return 1.0;
    double cap = NVFP4_OVER_FP8 * g->fp8_tflops / g->fp4_tflops;
    return cap < 1.0 ? cap : 1.0;
  }
  if (c->dtype == POD_DTYPE_BF16 || c->fp8_recipe != POD_FP8_BLOCK) return 1.0;
  switch (gen_of(g)) {
    case GEN_BLACKWELL:
      return MXFP8_GEMM_REL;
    case GEN_HOPPER:
      return HOPPER_BLOCK_GEMM_REL;
    default:
      return 1.0;
  }
}

/* Bytes per local weight that the step casts into fp8 once (Transformer
** Engine quantises a weight at the first micro-batch and caches it).
** Per-tensor recipes with fp8 primary weights (fp8_param_gather) need no
** cast: the optimizer writes the fp8 weight (Megatron-Core quantises the
** master shard in place).  Otherwise the bf16 weight is read and its fp8
** copies written, the recipe's bytes per operand element above (per-
** tensor 3 B on Blackwell, 4 B on Hopper, + the amax pass of current
** scaling; MXFP8 2 + 2 B + scales), with fp8_param_gather too for MXFP8:
** Megatron-Core all-gathers MXFP8 parameters in bf16 into the gradient
** buffer (reuse_grad_buf_for_mxfp8_param_ag, set by Megatron-
** Bridge's bf16_with_mxfp8_mixed) and then casts them into the rowwise
** and columnwise copies (param_and_grad_buffer.py, _post_param_sync,
** copy_tensors_to_quantized_params; NVIDIA/Megatron-LM at d98e8a6). */
double pod_train__weight_cast_bytes(const pod_train_cfg *c) {
  if (c->dtype == POD_DTYPE_BF16) return 0.0;
  int block = c->fp8_recipe == POD_FP8_BLOCK;
  if (c->software.fp8_params && !block) return 0.0;
  return pod_train__quant_scale(c, 1.0) * QUANT_BYTES_REF; /* no fusion */
}

/* Bytes per weight with fp8 primary weights (Megatron fp8_param_gather,
** Transformer Engine fp8_model_init: no bf16 copy; the fp32 master is in
** the optimizer): 1 B, and 2 B for block scaling, which keeps a rowwise
** and a columnwise MXFP8 copy (1 B each, scales aside).  The same bytes
** go on the wire of the parameter all-gather: fp8 for per-tensor
** recipes, bf16 (2 B) into the gradient buffer for MXFP8 (see
** pod_train__weight_cast_bytes). */
double pod_train__fp8_param_bytes(const pod_train_cfg *c) {
  return c->fp8_recipe == POD_FP8_BLOCK ? 2.0 : 1.0;
}

int pod_train__clock_check(const pod_gpu *g, pod_err *err) {
  if (g->power_w <= 0.0 || pod_train_sustained_clock(g) > 0.0) return POD_OK;
  return pod_err_set(err, POD_EINVAL, "system.gpu.power_w",
                     "%g W does not exceed the %g W a Blackwell GPU draws "
                     "whatever its clock (BLACKWELL_STATIC_W)",
                     g->power_w, BLACKWELL_STATIC_W);
}

double pod_train_sustained_clock(const pod_gpu *g) {
  if (gen_of(g) != GEN_BLACKWELL || g->power_w <= 0.0 || g->fp8_tflops <= 0.0)
    return 1.0;
  double dyn = (BLACKWELL_REF_W - BLACKWELL_STATIC_W) * g->fp8_tflops /
               BLACKWELL_REF_FP8_TF;
  double clk = (g->power_w - BLACKWELL_STATIC_W) / dyn;
  return clk >= 1.0 ? 1.0 : (clk > 0.0 ? clk : 0.0);
}

/* Node-limited routing: the expected number of distinct scale-up domains
** that k routed copies of a token reach over d domains (uniform expert
** placement), capped at max_domains, over the k copies: the share of the
** all-to-all bytes a hierarchical dispatcher (DeepEP, HybridEP) puts on
** the scale-out network, where NCCL's all-to-all puts every copy. */
double pod_train__hier_share(double k, int d, int max_domains) {
  if (d <= 1 || k <= 1.0) return 1.0;
  double hit = d * (1.0 - pow(1.0 - 1.0 / d, k));
  if (max_domains > 0 && hit > max_domains) hit = max_domains;
  return hit < k ? hit / k : 1.0;
}

double pod_train__k_half_expert(const pod_train_cfg *c) {
  if (c->gemm_k_half_expert >= 0.0) return c->gemm_k_half_expert;
  int d = (int)c->dtype;
  return d >= 0 && d <= POD_DTYPE_FP4 ? k_half_expert_table[d] : 0.0;
}

void pod_train__rates_of(const pod_train_cfg *c, double peak, double clk,
                         double eg, double egx, double ea, pod_train__rates *rt,
                         double *clock) {
  const pod_gpu *g = &c->system.gpu;
  const pod_model *m = &c->model;
  /* Attention on fp8 tensor cores with fp8_attention (cuDNN fp8
  ** attention, the same achieved fraction: FlashAttention-3 fp8 reaches
  ** ~1.2 of 1.98 PF forward on H100, Shah et al. 2024 fig. 7, as bf16
  ** reaches ~0.6 of 0.99). */
  double attn_peak = g->bf16_tflops;
  if (c->software.fp8_attention && c->dtype != POD_DTYPE_BF16 &&
      g->fp8_tflops > 0)
    attn_peak = g->fp8_tflops;
  /* Routed-expert GEMMs are narrow (W_HALF_FP8 above). */
  double w = m->experts > 0 ? (double)m->expert_ffn / c->parallel.etp : 0.0;
  double wh = c->gemm_w_half >= 0.0 ? c->gemm_w_half : w_half_table[c->dtype];
  double eg_e = w > 0.0 ? egx * w / (w + wh) : egx;
  rt->gemm = peak * 1e12 * eg * clk;
  rt->attn = attn_peak * 1e12 * ea * clk;
  rt->hbm = g->hbm_TBps * 1e12 * c->eff_hbm;
  rt->gemm_e = peak * 1e12 * eg_e * clk;
  *clock = clk;
}

/* Host time of one eager launch (see ROUTER_LAUNCHES_FWD). */
static double launch_us(const pod_train_cfg *c) {
  double us = c->host_expert_us >= 0.0 ? c->host_expert_us : HOST_EXPERT_US;
  return us / EXPERT_LAUNCHES_PER_PASS;
}

double pod_train__host_layer_s(const pod_train_cfg *c) {
  const pod_train_sw *sw = &c->software;
  const pod_model *m = &c->model;
  const pod_layout *l = &c->parallel;
  if (m->experts <= 0 || sw->cuda_graphs == POD_GRAPHS_FULL) return 0.0;
  int full = l->recompute == POD_RECOMPUTE_FULL;
  double t = launch_us(c) * 1e-6, s = 0.0;
  /* forward and backward, and the recomputed forward under full
  ** recompute */
  if (!sw->fused_grouped_mlp)
    s += (full ? 3.0 : 2.0) * EXPERT_LAUNCHES_PER_PASS * t *
         (double)m->experts / l->ep;
  if (sw->cuda_graphs == POD_GRAPHS_NONE)
    s += ((full ? 2.0 : 1.0) * ROUTER_LAUNCHES_FWD + ROUTER_LAUNCHES_BWD) * t;
  return s;
}

double pod_train__moe_layer_s(const pod_train_cfg *c) {
  if (c->model.experts <= 0) return 0.0;
  double us = c->moe_layer_us >= 0.0 ? c->moe_layer_us : MOE_LAYER_US;
  return us * 1e-6;
}

double pod_train__dispatch_bytes(const pod_train_cfg *c) {
  return c->dtype != POD_DTYPE_BF16 &&
                 c->software.schedule == POD_SCHED_DUALPIPE
             ? 1.0
             : 2.0;
}

double pod_train__moe_stage_bytes(const pod_train_cfg *c) {
  const pod_layout *l = &c->parallel;
  double b = pod_train__dispatch_bytes(c);
  double s = 2.0 * b + STAGE_SRC_B;
  if (l->ep > 1) s += 2.0 * b + STAGE_WIRE_B;
  if (c->software.dispatcher != POD_DISPATCH_ALLTOALL ||
      c->model.experts / l->ep > 1)
    s += 2.0 * b + STAGE_EXP_B;
  return s;
}

double pod_train__router_bytes(void) {
  return ROUTER_B;
}

/* Multi-head latent attention beyond the per-hidden count (EW_HIDDEN,
** EW_FP8_HIDDEN, counted on a Llama block whose q is h wide and k, v
** h / 8 each), bytes per token per layer, forward and backward.  Counted
** from Megatron-Core's MLA with RoPE fusion (NVIDIA/Megatron-LM
** megatron/core/transformer/multi_latent_attention.py and
** megatron/core/fusions/fused_mla_yarn_rope_apply.py at d98e8a6): per
** head (H heads of nope + rope query/key dims and v value dims, bf16):
**   the query's rotary in place on its trailing rope dims (read 2, write
**     2), and its backward on the query gradient: 8 rope B;
**   the key/value split: read the up-projection output (nope + v), write
**     the key (nope + rope, the shared k_pe broadcast to every head) and
**     the value (v), 2 B each; the backward reads both gradients and
**     writes the up-projection's gradient: 2 x 2 (2 nope + 2 v + rope) B;
** less the Llama count's rotary on q and k (8 B over 1.125 h: MLA_ROPE_
** COUNTED_B per hidden element); the latent RMSNorms (q_lora, kv_lora:
** read, write; backward read x and dy, write dx: 10 B per element); fp8
** casts of the GEMM operands the Llama count does not hold, at the
** recipe's bytes per operand element (pod_train__quant_scale): the output
** projection's input is H v wide (h counted), the up-projections' output
** gradients H (nope + rope) + H (nope + v) and the down-projections'
** q_lora + kv_lora + rope (1.125 h counted), all with unfused amax; the
** up-projections' inputs q_lora + kv_lora come from the norms (fused).
** DeepSeek-V3 (H 128, nope 128, rope 64, v 128, q_lora 1,536, kv_lora
** 512, h 7,168): 360,448 B of rotary and split against 64,512 counted,
** 20,480 B of norms, and 60,608 + 2,048 cast elements (MXFP8: 4.19 B
** each): about 579 KB per token per layer, 9 x the 37.5 B x h the
** attention half held. */
#define MLA_ROPE_COUNTED_B (8.0 * 1.125)
#define NORM_B 10.0
double pod_train__mla_ew_bytes(const pod_train_cfg *c) {
  const pod_model *m = &c->model;
  if (m->attn != POD_ATTN_MLA) return 0.0;
  double H = m->heads, nope = m->qk_nope, rope = m->qk_rope, v = m->v_head;
  double h = m->hidden, lat = (double)m->q_lora + m->kv_lora;
  double split = 8.0 * H * rope + 4.0 * H * (2.0 * nope + 2.0 * v + rope);
  double ew = split - MLA_ROPE_COUNTED_B * h;
  if (ew < 0.0) ew = 0.0;
  ew += NORM_B * lat;
  double unf = (H * v - h) +
               (H * (nope + rope) + H * (nope + v) + lat + rope - 1.125 * h);
  if (unf < 0.0) unf = 0.0;
  ew += QUANT_BYTES_REF * (pod_train__quant_scale(c, 1.0) * unf +
                           pod_train__quant_scale(c, 0.0) * lat);
  const pod_layout *l = &c->parallel;
  if (l->recompute == POD_RECOMPUTE_NONE && l->recompute_modules.mla_up_proj)
    ew += pod_train__mla_rerun_bytes(c);
  return ew;
}

/* `mla_up_proj` recompute (Megatron-Core's CheckpointWithoutOutput around
** qkv_up_proj_and_rope_apply, multi_latent_attention.py at d98e8a6) runs
** the up-projections and the fused rotary and split again before the
** backward: their forward bytes once more, 4 H rope + 2 H (2 nope + 2 v +
** rope), and the casts of the up-projections' inputs (q_lora + kv_lora,
** fused amax); the GEMMs themselves are in the recompute's FLOPs
** (train_act.c). */
double pod_train__mla_rerun_bytes(const pod_train_cfg *c) {
  const pod_model *m = &c->model;
  if (m->attn != POD_ATTN_MLA) return 0.0;
  double H = m->heads, nope = m->qk_nope, rope = m->qk_rope, v = m->v_head;
  double lat = (double)m->q_lora + m->kv_lora;
  return 4.0 * H * rope + 2.0 * H * (2.0 * nope + 2.0 * v + rope) +
         QUANT_BYTES_REF * pod_train__quant_scale(c, 0.0) * lat;
}
