/*
** train_bytes.h: the counted byte constants of the training step
** (train.c): element-wise HBM traffic per token and layer, fp8 cast
** shares, bytes per weight and optimizer state, and the amax
** synchronisation, each with the kernels or sources it was counted from.
** Internal to core/train.c.
*/
#ifndef POD_TRAIN_BYTES_H
#define POD_TRAIN_BYTES_H

/* ---- Shared physical parameters --------------------------------------- */

/* The GEMM and attention efficiency tables, sustained clocks and the
** software-feature terms are in train_sw.c. */

/* Element-wise HBM traffic, bytes per token per layer per element of the
** width named, forward + backward (bf16 activations), counted from the
** kernels of a Llama block: two RMSNorms (read x, write y; backward reads
** x, dy, writes dx), two residual adds, rotary on q and k, sequence-
** parallel gather/scatter buffers: ~75 B per hidden element; SwiGLU (read
** gate and up, write out; backward twice that): ~18 B per FFN element.
** fp8 adds casts of each GEMM input and of the gradients for dgrad/wgrad
** (read bf16, write fp8 and its transpose, 4 B per operand element, the
** Hopper per-tensor count): ~27 B per hidden and 9 B per FFN element;
** each recipe scales these and EW_FP8_ROUTED by its own bytes per operand
** element (train_sw.c, pod_train__quant_scale).  The MoE dispatcher's
** staging copies of the routed tokens are counted per dispatcher in
** train_sw.c (pod_train__moe_stage_bytes), the router's fp32 traffic per
** token and expert there too.  fp8
** adds the quantisation of the routed expert GEMM operands on the hidden
** side, 8 B: the fc1 input (rowwise and columnwise copies, the columnwise
** one read again by the wgrad) and the fc2 output gradient (read bf16,
** write both copies); Transformer Engine's grouped MXFP8 GEMMs take both
** (NVIDIA/TransformerEngine GroupedLinear).
** The cross-entropy reads and writes fp32 logits: 16 B per vocab entry. */
#define EW_HIDDEN 75.0
#define EW_FFN 18.0
#define EW_FP8_HIDDEN 27.0
#define EW_FP8_FFN 9.0
#define EW_FP8_ROUTED 8.0
#define EW_LOGITS 16.0
/* Shares of those fp8 operand elements whose producer does not compute
** the amax (current scaling reads them once more first, train_sw.c): on
** the hidden side the output projection's input (the attention output),
** and the output gradients of the output projection, of fc2 and of QKV
** (from the residual stream and the attention backward): h + h + h +
** 1.125 h of the 6.125 h counted (QKV and fc1 inputs come from the norms,
** which fuse it; Llama 3 405B's QKV width 1.125 h); on the FFN side none
** (fc2's input from the activation, fc1's output gradient from its
** backward, both fusing); the routed experts' operands all (permuted
** tokens and their gradients). */
#define EW_FP8_HIDDEN_UNFUSED (4.125 / 6.125)
#define EW_FP8_FFN_UNFUSED 0.0
#define EW_FP8_ROUTED_UNFUSED 1.0

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

/* JITTER_SYNC itself is in train_int.h: the defaults (train_check.c) set it. */
#define AMAX_BYTES_PER_LAYER (4.0 * 3.0 * 4.0)

#endif
