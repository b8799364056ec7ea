/*
** serve_launch.c: the fixed GPU time of a forward pass's kernel boundaries
** (serve_int.h), for pod_serve_eval.
**
** A decode step replays one CUDA graph of every kernel of every layer;
** each kernel boundary costs the GPU kernel_us of drain, launch and fill
** whatever the batch (the graph removes the host launch, not the device
** one).  The step's fixed part is the kernels counted from the layer's
** structure as SGLang runs DeepSeek-V3 decode (sgl-project/sglang
** python/sglang/srt/models/deepseek_v2.py at 3e4a39e, forward_absorb_
** prepare / forward_absorb_core, and the DeepEP low-latency MoE path):
**  - per block: the input and post-attention norms, each fused with its
**    residual add: 2;
**  - MLA (absorbed decode): five GEMMs (fused q_a / kv_a projection, q_b,
**    the w_kc absorb bmm, the w_vc bmm, o_proj) and three other kernels
**    (q_a norm, the rotary and KV-cache write, the attention; the kv_a
**    norm runs on a side stream under the q_a norm while capturing);
**  - MHA / GQA: two GEMMs (qkv, o_proj) and two other kernels (rotary
**    and KV-cache write, attention);
**  - a dense MLP (and the shared experts): two GEMMs and the gated
**    activation;
**  - routed experts: router GEMM, top-k, dispatch, fc1, activation with
**    its quantisation, fc2, combine: 7;
**  - each dense GEMM with an fp8 or fp4 input adds one activation
**    quantisation kernel before it (per-token-group or per-tensor quant;
**    the routed experts get theirs from the dispatch);
**  - per step: embedding, final norm, LM head, softmax and sampling: 5.
** With two-batch overlap each micro-batch runs every layer's kernels (the
** per-step five once), as DeepEP's fixed cost is paid per micro-batch.
** DeepSeek-V3 with fp8 dense GEMMs: 27 kernels per MoE layer, 20 per dense
** one, 1,631 per step; a bf16 Llama block has 9 (the "about ten" the
** earlier per-layer constant assumed).
**
** kernel_us 0.8: the cost of one kernel boundary inside a graph on Hopper
** and Blackwell.  The constant podsim used before as "about ten kernels
** per layer at ~0.8 us launch-to-launch" (NVIDIA CUDA graphs best-practice
** notes); a public measurement of empty kernels in a replayed graph on a
** Blackwell GPU (sm_120, CUDA 13) gives 0.58 us per node plus ~15 us per
** replay (ahrefs/ocannl issue #488, 2026-07-30), the floor under real
** kernels that also ramp up and drain.  Programmatic dependent launch
** (FlashInfer's norms and activations, enable_pdl on Hopper and later)
** hides part of it for the kernels that use it: a study should sample
** kernel_us (0.5 to 2).  Not fitted.
*/
#include "serve_int.h"

/* See the header comment. */
#define KERNEL_US 0.8
#define BLOCK_NORMS 2.0
#define MLA_GEMMS 5.0
#define MLA_OTHER 3.0
#define GQA_GEMMS 2.0
#define GQA_OTHER 2.0
#define MLP_GEMMS 2.0
#define MLP_OTHER 1.0
#define MOE_ROUTED 7.0
#define STEP_KERNELS 5.0

double pod_serve__kernel_us_default(void) {
  return KERNEL_US;
}

/* Kernels of one GEMM: itself, and its input's quantisation in fp8/fp4. */
static double gemm_k(int dense_dtype) {
  return dense_dtype == POD_DTYPE_BF16 ? 1.0 : 2.0;
}

double pod_serve__layer_kernels(const pod_model *m, int dense_dtype, int moe) {
  double g = gemm_k(dense_dtype);
  double n = BLOCK_NORMS;
  if (m->attn == POD_ATTN_MLA)
    n += MLA_OTHER + MLA_GEMMS * g;
  else
    n += GQA_OTHER + GQA_GEMMS * g;
  double mlp = MLP_OTHER + MLP_GEMMS * g;
  if (moe)
    n += MOE_ROUTED + (m->shared_experts > 0 ? mlp : 0.0);
  else
    n += mlp;
  return n;
}

double pod_serve__pass_kernels(const pod_model *m, int dense_dtype,
                               double layers, double moe_layers, double mb) {
  double per =
      (layers - moe_layers) * pod_serve__layer_kernels(m, dense_dtype, 0) +
      moe_layers * pod_serve__layer_kernels(m, dense_dtype, 1);
  return mb * per + STEP_KERNELS;
}

double pod_serve__fixed_launch(const pod_serve_cfg *c, int dense_dtype,
                               double layers, double moe_layers) {
  if (c->layer_us >= 0.0) return layers * c->layer_us * 1e-6;
  double mb = c->two_batch_overlap ? 2.0 : 1.0; /* micro-batches */
  return pod_serve__pass_kernels(&c->model, dense_dtype, layers, moe_layers,
                                 mb) *
         c->kernel_us * 1e-6;
}
