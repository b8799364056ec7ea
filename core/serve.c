/*
** serve.c: the serving model (pod_serve.h).
**
** Sources of the shared physical defaults:
**  - attention efficiency (eff_attn 0: these, as fractions of the
**    nominal peak; measured kernels include their clocks), all from the
**    deepseek-ai/FlashMLA README (commit of 2025-09-29 and later):
**     - Hopper and older, decode and prefill, ATTN_HOPPER 0.67: the dense
**       MLA decoding kernel reaches 660 TFLOP/s compute-bound on H800
**       SXM5 (989 bf16 dense peak);
**     - Blackwell decode, ATTN_DEC_BW 0.25: no dense MLA decoding number
**       is published for Blackwell; FlashMLA's token-level sparse MLA
**       decoding kernel (fp8 KV cache) reaches 410 TFLOP/s on H800 and
**       "up to 350 TFlops on B200 (which is not really optimized yet)",
**       0.156 of the B200's 2,250 against 0.415 on H800.  podsim takes the
**       dense Blackwell decode kernels of that year (CUTLASS MLA, TRT-LLM
**       MLA in SGLang) to share that ratio: 0.67 x 0.156 / 0.415.  An
**       anchor by analogy, not a fit; S4's decode rows test it.  Sample
**       it in studies of later software;
**     - Blackwell prefill, ATTN_PRE_BW 0.649: the SM100 dense MHA prefill
**       kernel reaches up to 1,460 TFLOP/s forward on B200 ("as reported
**       by NVIDIA"), 1460 / 2250;
**  - eff_hbm 0.85: the same README reports up to 3000 GB/s memory-bound
**    of the H800's 3350 GB/s (0.90) for its attention kernel; weight reads
**    of small decode GEMMs reach less, so 0.85 for all memory-bound parts;
**  - ep_ll_us, ep_ll_up_us, expert_cv: serve_ep.c; host_us: serve_host.c;
**  - overlap 0.95: the share of the smaller of compute and communication
**    that two-batch overlap hides in decode (and single-batch overlap of
**    the combine).  FITTED on S2 (SGLang's 96-H100 deployment, decode at
**    256 sequences per GPU, TBO on) with the expert imbalance in place
**    (without it, at its bound 0); refitted from 0.93 when the GEMMs'
**    weight streaming (gemm_w_overlap) came in.  A study should sample it
**    (0.5 to 1);
**  - layer_us -1, kernel_us 0.8: the fixed GPU time of a pass's kernel
**    boundaries, the kernels counted from the layer's structure (SGLang's
**    DeepSeek-V3 decode path) x kernel_us (serve_launch.c); a layer_us
**    >= 0 sets a per-layer figure instead; not fitted;
**  - mem_reserve_gb 8 (CUDA context, activations and buffers of the
**    serving engines; vLLM/SGLang leave ~10% of HBM unused by default:
**    gpu_memory_utilization 0.9 / mem_fraction_static 0.8-0.9) and
**    kv_frac 0.9 of what is left;
**  - dense_dtype ("same": dtype): the dtype of the dense GEMMs
**    (attention projections, dense MLPs, shared experts, head) when it
**    differs from the routed experts' (SGLang's "NVFP4 MoE" keeps the
**    attention GEMMs in fp8, LMSYS 2025-09-25); dispatch moves tokens in
**    the experts' dtype;
**  - sustained clock: Blackwell GPUs (those with fp4 tensor cores) run
**    dense GEMMs below their boost clock under the board power limit; the
**    rule and its reference are the training model's (core/train_sw.c,
**    BLACKWELL_REF_W, BLACKWELL_STATIC_W, pod_train_sustained_clock:
**    GB300's 5 PF fp8 at 1,400 W holds its boost, a SKU sustains
**    min(1, (P_limit - 300 W) / (1,100 W x fp8 peak / 5 PF)): GB200 at
**    1,200 W 0.818, B200 at 1,000 W 0.707).  Hopper keeps 1: its
**    efficiencies were fitted on throttled parts (FlashMLA's deep-dive,
**    deepseek-ai/FlashMLA docs/20250422-new-kernel-deep-dive.md, puts the
**    H800's practical peak at ~865 of 990 TFLOP/s for that reason);
**  - attention on the KV cache's tensor cores: with an fp8 KV cache the
**    attention kernels read fp8 and multiply on fp8 tensor cores (LMSYS
**    blog 2025-09-25, GB200 part II: "allows faster Tensor Core
**    instructions"; their attention kernel ran 1.8x faster than bf16),
**    so the decode attention peak is the GPU's fp8 peak at the same
**    efficiency.  Prefill attention stays on bf16 tensor cores
**    (fp8_prefill_attn 0): DeepSeek's MLA prefill runs as MHA on the
**    freshly projected bf16 K and V, and SGLang ran it "always [in]
**    16-bit despite set kv-cache-dtype to fp8" until sgl-project/sglang
**    PR #14395 (merged 2025-12-04, "Support FP8 MLA prefill"); vLLM's fp8
**    MLA prefill (vllm-project/vllm PR #31195, 2025-12-23) stays opt-in,
**    "slightly lower perf than BF16 Prefill due to extra casts" end to
**    end.  fp8_prefill_attn 1 models the later kernels;
**  - memory-bound kernels between the GEMMs (step.act, pass.act): the
**    activation bytes of the unfused data flow, read at eff_hbm: per
**    token and block (attention, MLP) a norm with quantisation (read
**    bf16, write the GEMM input) and a residual add (read two, write one
**    bf16 row); per routed copy the permute into the grouped GEMM's
**    layout (read and write the dispatched row), the gated activation
**    (read gate and up in bf16, write the down GEMM's input) and the
**    weighted unpermute (read the bf16 output row); the same activation
**    for dense MLPs and shared experts.  Counted from the model's shapes,
**    not fitted; SGLang fuses some of these (LMSYS 2025-09-25, "smaller
**    kernels"), so it is an upper bound of the unfused traffic;
**  - prefill with two_batch_overlap: DeepSeek's prefill profile
**    (deepseek-ai/profile-data README: two micro-batches, all-to-all under
**    the other micro-batch's compute) hides communication up to the
**    compute time, while DeepEP's normal kernels hold ep_sms = 20 SMs
**    (DeepSeek-V3 technical report, sec. 3.2.2: "only 20 SMs are
**    sufficient to fully utilize the bandwidths of IB and NVLink") of the
**    GPU's 132 (H100/H800) or 148 (B200/GB200): compute stretches by
**    SMs / (SMs - ep_sms).  Checked on DeepSeek's profile (S3) and
**    SGLang's perfect-EPLB prefill (S2); decode keeps `overlap` (S2 fit)
**    since DeepEP's low-latency kernels hold no SMs;
**  - gemm_w_overlap 0: a GEMM's weight streaming is not hidden under its
**    MMA work; the GEMM takes max(t_mma, t_w) + (1 - gemm_w_overlap) x
**    min(t_mma, t_w), t_w the weights' bytes at eff_hbm (once per
**    micro-batch), t_mma the FLOPs at the table's rate (the roofline is
**    gemm_w_overlap 1).  At M rows this is a roll-off M / (M + h) of the
**    rate with h = rate x bytes per weight / (2 x HBM B/s): 200 on H800
**    fp8 at DeepGEMM's 1,342 TFLOP/s.  Checked, not fitted, on DeepGEMM's
**    FP8 tables on H800 at DeepSeek-V3's expert shapes
**    (deepseek-ai/DeepGEMM README.md at 327ec92, 2025-04-09), per token of
**    fc1 (N 4,096, K 7,168) and fc2 (N 7,168, K 2,048), 2:1 in FLOPs:
**    masked layout (the decode one, fed by DeepEP's low-latency kernels)
**    995 TFLOP/s at M = 512 per group, 1,110 at 1,024; normal GEMMs 1,319
**    at 4,096; contiguous layout 1,299 at 8,192.  Least squares of 1 / rate
**    on 1 / M gives 1,342 x M / (M + 184), within 3% of the four: h 184
**    against the 200 (nominal HBM) to 250 (the table's memory-bound rows,
**    ~2.7 TB/s) the weight read predicts.  Its M = 64 row (N 7,168,
**    K 16,384: 336 TFLOP/s) is 326 here.  In decode it is a fixed time per
**    step (the dense weights and the touched experts read once per
**    micro-batch) beside the FLOPs that grow with the batch;
**  - wave quantisation of the NVFP4 expert GEMMs in decode: SGLang runs
**    them on GB200 as FlashInfer's CuTe DSL masked grouped GEMM
**    (sgl-project/sglang python/sglang/srt/layers/moe/
**    flashinfer_cutedsl_moe.py calls flashinfer grouped_gemm_nt_masked
**    without a tile, so its default mma_tiler_mn (128, 128), cluster
**    (1, 1): one 128 x 128 output tile per SM at a time, persistent over
**    the SMs).  Each local expert's rows fill ceil(M / 128) row tiles, a
**    GEMM of N columns has rows x ceil(N / 128) tiles and takes
**    ceil(tiles / SMs) waves of a full tile's time on every SM: the
**    experts' FLOPs grow by the waves' work over the useful work
**    (pod_serve__masked_waves; 148 SMs, M the busiest GPU's mean rows per local
**    expert).  Counted, not fitted.  Other GEMMs (DeepGEMM's, cuBLAS's)
**    choose their block sizes per shape to fill the last wave, and
**    prefill's M leaves the last wave a small share: not quantised;
**  - host_GBps (0: off): prefill weights beyond what HBM holds after the
**    reserve stay in host memory and are prefetched layer by layer each
**    pass (SGLang on GB200, same blog: 4-GPU fp8 and 2-GPU fp4 prefill
**    instances offload over NVLink-C2C, 900 GB/s bidirectional per Grace,
**    which two GPUs share: 225 GB/s per GPU per direction); a pass takes
**    at least the time to stream them.
*/
#include "pod_serve.h"

#include <stddef.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pod_coll.h"
#include "serve_int.h"

/* See the header comment. */
#define OVERLAP 0.95
#define EP_LL_US 34.0
#define EP_LL_UP_US 19.0
#define EP_CAST_US 10.4
/* Output tile of the NVFP4 masked grouped GEMM (see the header). */
#define MASKED_TILE_M 128.0
#define MASKED_TILE_N 128.0
/* SMs DeepEP's normal kernels hold in prefill (see the header). */
#define EP_SMS 20.0
/* Per-batch expert-load drift about the EPLB placement (see the header). */
#define EXPERT_CV 0.55
/* Attention kernels, fraction of the nominal peak (see the header). */
#define ATTN_HOPPER 0.67
#define ATTN_DEC_BW (ATTN_HOPPER * (350.0 / 2250.0) / (410.0 / 989.0))
#define ATTN_PRE_BW (1460.0 / 2250.0)

const char *const pod_serve_dtype_names[] = {"bf16", "fp8", "fp4", "same",
                                             NULL};

void pod_serve_cfg_defaults(pod_serve_cfg *c) {
  c->eff_gemm = 0.0;
  c->eff_attn = 0.0;
  c->eff_hbm = 0.85;
  c->overlap = OVERLAP;
  c->ep_ll_us = EP_LL_US;
  c->ep_ll_up_us = EP_LL_UP_US;
  c->ep_cast_us = EP_CAST_US;
  c->layer_us = -1.0;
  c->kernel_us = pod_serve__kernel_us_default();
  c->mem_reserve_gb = 8.0;
  c->kv_frac = 0.9;
  c->host_GBps = 0.0;
  c->ep_sms = EP_SMS;
  c->expert_cv = EXPERT_CV;
  c->host_us = pod_serve__host_us_default();
  c->gemm_w_overlap = 0.0;
}

void pod_serve_cfg_init(pod_serve_cfg *c) {
  memset(c, 0, sizeof *c);
  c->dtype = POD_DTYPE_FP8;
  c->kv_dtype = POD_DTYPE_BF16;
  c->dense_dtype = POD_SERVE_DTYPE_SAME;
  c->input_tokens = 1000.0;
  c->output_tokens = 1000.0;
  c->prefill_tokens = 16384.0;
  c->spec_accept = 0.8;
  c->ep_kernel = POD_SERVE_EP_DEEPEP_LL;
  c->host_overlap = 1;
  pod_serve_cfg_defaults(c);
}

double pod_serve_experts_touched(int experts, int top_k, int local,
                                 double tokens) {
  if (experts <= 0 || local <= 0 || tokens <= 0.0) return 0.0;
  double miss = 1.0 - (double)top_k / experts;
  if (miss <= 0.0) return local;
  return local * (1.0 - pow(miss, tokens));
}

/* Bytes per element: fp8 carries 1 byte, fp4 (NVFP4) 4 bits plus one
** 8-bit scale per 16 elements. */
static double dtype_bytes(pod_dtype d) {
  switch (d) {
    case POD_DTYPE_FP8:
      return 1.0;
    case POD_DTYPE_FP4:
      return 0.5 + 1.0 / 16.0;
    default:
      return 2.0;
  }
}

#define FAIL(field, ...) pod_err_set(err, POD_EINVAL, field, __VA_ARGS__)

/* ---- shared per-model quantities --------------------------------------- */

typedef struct shape {
  pod_model_params p;
  double wb, wb_d, kvb;      /* bytes per expert weight, dense weight, KV
                                element */
  double dense;              /* non-expert weights incl. embedding and head */
  double dense_gemm;         /* weights a token multiplies: layers + head */
  double kv_tok_layer;       /* KV bytes per token per layer (one copy) */
  double dqk_dec, dv_dec;    /* decode attention dims (MLA absorbed) */
  double dqk_pre, dv_pre;    /* prefill attention dims */
  double rate_e, rate_d;     /* achieved GEMM FLOP/s: experts, dense */
  double attn_dec, attn_pre; /* achieved attention FLOP/s */
  double disp_b;             /* bytes per hidden element dispatched */
  double hbm;                /* B/s achieved */
  double clock;              /* sustained fraction of the boost clock */
  int dd;                    /* dense GEMMs' dtype (pod_dtype) */
} shape;

/* Blackwell: the GPUs with fp4 tensor cores. */
static int blackwell(const pod_gpu *g) {
  return g->fp4_tflops > 0.0;
}

/* Sustained fraction of the boost clock under the board power limit
** (Blackwell; see the header comment). */
static double sustained_clock(const pod_gpu *g) {
  return blackwell(g) ? pod_train_sustained_clock(g) : 1.0;
}

/* Achieved GEMM FLOP/s in dtype d: eff_gemm, or the training table with
** its shape roll-off eff h / (h + k_half) (as pod_train_eval's GEMMs),
** at the sustained clock. */
static int gemm_rate(const pod_serve_cfg *c, pod_dtype d, double clock,
                     double *rate, pod_err *err) {
  double eff = c->eff_gemm, kh = 0.0;
  if (eff <= 0.0) {
    int rc = pod_train_default_eff(&c->system.gpu, d, &eff, NULL, &kh, err);
    if (rc != POD_OK) return rc;
    if (kh > 0.0) eff *= c->model.hidden / (c->model.hidden + kh);
  }
  *rate = pod_train_peak_tflops(&c->system.gpu, d) * 1e12 * eff * clock;
  return POD_OK;
}

static int mk_shape(const pod_serve_cfg *c, shape *s, pod_err *err) {
  const pod_model *m = &c->model;
  pod_dtype dd = c->dense_dtype == POD_SERVE_DTYPE_SAME
                     ? c->dtype
                     : (pod_dtype)c->dense_dtype;
  pod_model_params_count(m, &s->p);
  s->dd = (int)dd;
  s->wb = dtype_bytes(c->dtype);
  s->wb_d = dtype_bytes(dd);
  s->kvb = dtype_bytes(c->kv_dtype);
  s->disp_b = c->dtype == POD_DTYPE_FP8 ? 1.0 + 4.0 / 128.0 : s->wb;
  s->dense = s->p.layers_dense + s->p.embedding + s->p.head;
  s->dense_gemm = s->p.layers_dense + (double)m->vocab * m->hidden;
  int hd = m->head_dim > 0 ? m->head_dim : m->hidden / m->heads;
  if (m->attn == POD_ATTN_MLA) {
    /* Absorbed MLA decode (DeepSeek-V3 report sec. 2.1.1; FlashMLA): the
    ** cache holds the kv_lora latent plus the shared rotary key; scores
    ** use kv_lora + qk_rope dims per head, values kv_lora. */
    s->kv_tok_layer = (double)(m->kv_lora + m->qk_rope) * s->kvb;
    s->dqk_dec = m->kv_lora + m->qk_rope;
    s->dv_dec = m->kv_lora;
  } else {
    s->kv_tok_layer = 2.0 * m->kv_heads * hd * s->kvb;
    s->dqk_dec = hd;
    s->dv_dec = hd;
  }
  s->dqk_pre = pod_model_qk_dim(m);
  s->dv_pre = pod_model_v_dim(m);
  const pod_gpu *g = &c->system.gpu;
  s->clock = sustained_clock(g);
  int rc = gemm_rate(c, c->dtype, s->clock, &s->rate_e, err);
  if (rc != POD_OK) return rc;
  s->rate_d = s->rate_e;
  if (dd != c->dtype && (rc = gemm_rate(c, dd, s->clock, &s->rate_d, err)))
    return rc;
  /* attention: fractions of the nominal peak measured on each generation
  ** (see ATTN_* above), on the KV cache's tensor cores */
  int fp8_kv = c->kv_dtype == POD_DTYPE_FP8 && g->fp8_tflops > 0.0;
  double attn_tf = fp8_kv ? g->fp8_tflops : g->bf16_tflops;
  double pre_tf =
      fp8_kv && c->fp8_prefill_attn ? g->fp8_tflops : g->bf16_tflops;
  int bw = blackwell(g);
  double ed = c->eff_attn > 0.0 ? c->eff_attn : bw ? ATTN_DEC_BW : ATTN_HOPPER;
  double ep = c->eff_attn > 0.0 ? c->eff_attn : bw ? ATTN_PRE_BW : ATTN_HOPPER;
  s->attn_dec = attn_tf * 1e12 * ed;
  s->attn_pre = pre_tf * 1e12 * ep;
  s->hbm = c->system.gpu.hbm_TBps * 1e12 * c->eff_hbm;
  return POD_OK;
}

/* A GEMM of t_mma seconds of MMA work and t_w of weight streaming, of
** which gemm_w_overlap is hidden under the other (see the header). */
static double gemm_time(const pod_serve_cfg *c, double t_mma, double t_w) {
  double hi = t_mma > t_w ? t_mma : t_w, lo = t_mma > t_w ? t_w : t_mma;
  return hi + (1.0 - c->gemm_w_overlap) * lo;
}

static double roof(double flops, double peak, double bytes, double bw) {
  double a = flops / peak, b = bytes / bw;
  return a > b ? a : b;
}

/* Activation bytes the memory-bound kernels between the GEMMs move (see
** the header comment), per token of one block: norm + quantisation of
** the block input and the residual add. */
static double act_block(const pod_model *m, const shape *s) {
  return (double)m->hidden * (2.0 + s->wb_d + 6.0);
}

/* ... per routed copy of a token (permute in, activation, unpermute out)
** and per token of an MLP of width f (activation). */
static double act_copy(const pod_model *m, const shape *s) {
  return m->hidden * (2.0 * s->disp_b + 2.0) +
         (double)m->expert_ffn * (4.0 + s->wb);
}
static double act_mlp(double f, double xb) {
  return f * (4.0 + xb);
}

/* Weight bytes per GPU of an instance laid out as l. */
static double weights_per_gpu(const pod_serve_cfg *c, const shape *s,
                              const lay *l) {
  double w = s->dense * s->wb_d / l->tp;
  if (c->model.experts > 0)
    w += s->p.layers_expert * s->wb *
         (double)(c->model.experts + c->redundant_experts) / c->model.experts /
         ((double)l->ep * l->etp);
  return w / l->pp;
}

/* KV bytes per GPU per token of one of its sequences (all its layers). */
static double kv_per_gpu_token(const pod_serve_cfg *c, const shape *s,
                               const lay *l) {
  double per_layer = s->kv_tok_layer;
  if (c->model.attn != POD_ATTN_MLA) per_layer /= l->tp; /* heads split */
  return per_layer * ceil((double)c->model.layers / l->pp);
}

/* ---- decode ------------------------------------------------------------ */

double pod_serve__masked_waves(const pod_gpu *g, int dtype, double h, double f,
                               int local, double me) {
  if (dtype != POD_DTYPE_FP4 || !blackwell(g) || me <= 0.0 || local <= 0)
    return 1.0;
  double sms = pod_serve__sm_count(g);
  double rows = ceil(me / MASKED_TILE_M) * local; /* row tiles */
  /* fc1 (gate and up: N 2f, K h), fc2 (N h, K f) */
  double w1 = ceil(rows * ceil(2.0 * f / MASKED_TILE_N) / sms);
  double w2 = ceil(rows * ceil(h / MASKED_TILE_N) / sms);
  double done = sms * MASKED_TILE_M * MASKED_TILE_N * (w1 * h + w2 * f);
  return done / (me * local * 3.0 * f * h);
}

/* Routed experts of one decode step over T tokens of the stage (which
** share the EP group): the touched experts' weights or the routed
** tokens' FLOPs, dispatch (in the experts' dtype: fp8 with one fp32
** scale per 128, NVFP4 with its scales, which DeepEP quantises before
** sending, LMSYS 2025-09-25) and combine (bf16), and the routed copies'
** memory-bound kernels (into st->act). */
static int decode_moe(const pod_serve_cfg *c, const shape *s, const lay *l,
                      double T, double moe_layers, pod_serve_step *st,
                      double *touched, double *comb_s, pod_err *err) {
  const pod_model *m = &c->model;
  *touched = 0.0;
  *comb_s = 0.0;
  if (m->experts == 0) return POD_OK;
  int phys = m->experts + c->redundant_experts;
  double imb = m->imbalance > 1.0 ? m->imbalance : 1.0;
  double mean_copies = T * m->top_k * (double)l->local / phys;
  /* the busiest GPU sets the step: its experts' tokens and receives */
  double g =
      pod_serve__ep_imbalance(l->ep, l->local, mean_copies, c->expert_cv);
  imb *= g;
  double to_gpu = mean_copies * imb;
  *touched = pod_serve_experts_touched(phys, m->top_k, l->local, T);
  double eflops = 2.0 * to_gpu * s->p.expert / l->etp;
  double ebytes = *touched * s->p.expert * s->wb / l->etp;
  double mb = c->two_batch_overlap ? 2.0 : 1.0; /* micro-batches */
  double qf = pod_serve__masked_waves(&c->system.gpu, c->dtype, m->hidden,
                                      (double)m->expert_ffn / l->etp, l->local,
                                      to_gpu / l->local / mb);
  st->expert = moe_layers * mb *
               gemm_time(c, qf * eflops / s->rate_e / mb, ebytes / s->hbm);
  double per_gpu = T / ((double)l->ep * l->etp);
  double disp = per_gpu * m->top_k * m->hidden * s->disp_b * g;
  double comb = per_gpu * m->top_k * m->hidden * 2.0 * g, t, tc;
  int rc = pod_serve__decode_ep(c, l->ep, per_gpu, disp, comb, &t, &tc, err);
  if (rc != POD_OK) return rc;
  st->ep = moe_layers * t;
  *comb_s = moe_layers * tc;
  double copies = to_gpu / l->etp;
  st->act = moe_layers * copies * act_copy(m, s) / s->hbm;
  return POD_OK;
}

/* One decode step of one pipeline stage over `seqs` sequences of mean
** context `ctx`, with q tokens per sequence (1 + drafts). */
static int decode_step(const pod_serve_cfg *c, const shape *s, const lay *l,
                       double seqs, double ctx, pod_serve_step *st,
                       double *touched, pod_err *err) {
  const pod_model *m = &c->model;
  double q = 1.0 + c->spec_tokens;
  double Ls = ceil((double)m->layers / l->pp);
  double frac = Ls / m->layers; /* share of the model in one stage */
  double sg = seqs / l->dp;     /* sequences per attention group */
  double tg = sg * q;           /* tokens per attention group */
  int rc;
  memset(st, 0, sizeof *st);
  /* attention: every GPU of a TP group holds heads/tp heads */
  double aflops =
      2.0 * ((double)m->heads / l->tp) * ctx * (s->dqk_dec + s->dv_dec) * tg;
  double abytes = sg * ctx * kv_per_gpu_token(c, s, l) / Ls;
  st->attn = Ls * roof(aflops, s->attn_dec, abytes, s->hbm);
  /* dense GEMMs */
  double dflops = 2.0 * tg * s->dense_gemm * frac / l->tp;
  double dbytes = s->dense * s->wb_d * frac / l->tp;
  double mb = c->two_batch_overlap ? 2.0 : 1.0; /* micro-batches */
  st->dense = mb * gemm_time(c, dflops / s->rate_d / mb, dbytes / s->hbm);
  /* routed experts: all tokens of the stage share the EP group */
  double moe_layers = s->p.moe_layers * frac;
  double comb_s;
  if ((rc = decode_moe(c, s, l, seqs * q, moe_layers, st, touched, &comb_s,
                       err)))
    return rc;
  /* TP all-reduces: after attention, and after each dense MLP */
  if (l->tp > 1) {
    double t;
    if ((rc = pod_serve__coll(&c->system, POD_COLL_ALL_REDUCE, l->tp, 0,
                              tg * m->hidden * 2.0, &t, err)))
      return rc;
    st->tp = t * (Ls + (Ls - moe_layers));
  }
  if (l->pp > 1) {
    int rpd = l->n / l->pp >= c->system.domain_gpus ? 1 : 2;
    double t;
    if ((rc = pod_serve__coll(&c->system, POD_COLL_SEND_RECV, 2, rpd,
                              tg * m->hidden * 2.0, &t, err)))
      return rc;
    st->pp = t;
  }
  st->overhead = pod_serve__fixed_launch(c, s->dd, Ls, moe_layers);
  /* memory-bound kernels between the GEMMs */
  double dl = Ls - moe_layers; /* dense-MLP layers of the stage */
  double abytes_t =
      tg * (Ls * 2.0 * act_block(m, s) + dl * act_mlp(m->ffn, s->wb_d));
  if (m->experts > 0)
    abytes_t += moe_layers * tg * m->shared_experts *
                act_mlp(m->expert_ffn, s->wb_d) / l->tp;
  st->act += abytes_t / s->hbm;
  double compute = st->attn + st->dense + st->expert + st->overhead + st->act;
  if (c->spec_tokens > 0) {
    /* MTP drafts: one extra block per draft token, sequentially */
    int blocks = m->mtp_layers > 0 ? m->mtp_layers : 1;
    st->draft = c->spec_tokens * blocks * (compute / q) / Ls;
  }
  if (c->single_batch_overlap && !c->two_batch_overlap && comb_s > 0.0) {
    /* the combine under the down GEMM (a third of the experts' FLOPs)
    ** and the shared experts (their share of the dense GEMMs) */
    double shared =
        moe_layers * m->shared_experts * s->p.expert / (s->dense_gemm * frac);
    double under = st->expert / 3.0 + st->dense * shared;
    st->ep -= c->overlap * (comb_s < under ? comb_s : under);
  }
  double comm = st->tp + st->ep + st->pp;
  if (c->two_batch_overlap) {
    /* each micro-batch's communication runs under the other's compute */
    double busy = compute + st->draft;
    double hidden = c->overlap * (comm < busy ? comm : busy);
    double exposed = comm - hidden;
    st->ep = st->ep > 0 ? exposed * st->ep / comm : 0.0;
    st->tp = comm > 0 ? exposed * st->tp / comm : 0.0;
    st->pp = comm > 0 ? exposed * st->pp / comm : 0.0;
    st->total = busy + exposed;
  } else {
    st->total = compute + st->draft + comm;
  }
  return POD_OK;
}

/* ---- prefill ----------------------------------------------------------- */

static int prefill_pass(const pod_serve_cfg *c, const shape *s, const lay *l,
                        pod_serve_pass *ps, pod_err *err) {
  const pod_model *m = &c->model;
  double tok = c->prefill_tokens; /* computed tokens per GPU */
  double hit = c->prefix_hit;
  double pos = c->input_tokens * (1.0 + hit) / 2.0; /* mean causal span */
  double mb = c->two_batch_overlap ? 2.0 : 1.0;     /* micro-batches */
  double t_gemm = 2.0 * tok * s->dense_gemm / s->rate_d;
  double g = 1.0; /* busiest over mean GPU of the EP group */
  if (m->experts > 0) {
    double imb = m->imbalance > 1.0 ? m->imbalance : 1.0;
    g = pod_serve__ep_imbalance(l->ep, l->local, tok * l->etp * m->top_k,
                                c->expert_cv);
    imb *= g;
    t_gemm +=
        2.0 * tok * m->top_k * s->p.expert * s->p.moe_layers * imb / s->rate_e;
  }
  double wbytes = weights_per_gpu(c, s, l);
  memset(ps, 0, sizeof *ps);
  ps->gemm = mb * gemm_time(c, t_gemm / mb, wbytes / s->hbm);
  double aflops =
      2.0 * m->heads * m->layers * pos * (s->dqk_pre + s->dv_pre) * tok;
  ps->attn = aflops / s->attn_pre;
  ps->overhead = pod_serve__fixed_launch(c, s->dd, m->layers, s->p.moe_layers);
  /* memory-bound kernels between the GEMMs, per computed token */
  double per_tok = m->layers * 2.0 * act_block(m, s) +
                   (m->layers - s->p.moe_layers) * act_mlp(m->ffn, s->wb_d);
  if (m->experts > 0)
    per_tok +=
        s->p.moe_layers * (m->top_k * g * act_copy(m, s) +
                           m->shared_experts * act_mlp(m->expert_ffn, s->wb_d));
  ps->act = tok * per_tok / l->tp / s->hbm;
  double t = ps->gemm + ps->attn + ps->overhead + ps->act;
  double comm = 0.0, x;
  int rc;
  if (m->experts > 0 && l->ep > 1) {
    double row = m->hidden;
    double disp = pod_serve__ep_normal(&c->system, l->ep, m->top_k,
                                       tok / l->etp, row * s->disp_b);
    double comb = pod_serve__ep_normal(&c->system, l->ep, m->top_k,
                                       tok / l->etp, row * 2.0);
    comm += (disp + comb) * s->p.moe_layers * g; /* busiest receiver */
  }
  if (l->tp > 1) {
    if ((rc = pod_serve__coll(&c->system, POD_COLL_ALL_REDUCE, l->tp, 0,
                              tok * l->tp * m->hidden * 2.0, &x, err)))
      return rc;
    comm += x * (m->layers + (m->layers - s->p.moe_layers)) / (double)l->tp;
  }
  if (c->two_batch_overlap && m->experts > 0 && l->ep > 1) {
    /* DeepSeek's prefill (profile-data): one micro-batch's all-to-all
    ** runs under the other's compute, and DeepEP's normal kernels hold
    ** ep_sms of the GPU's SMs meanwhile: compute stretches by SMs /
    ** (SMs - ep_sms), communication shows only beyond it. */
    double sms = pod_serve__sm_count(&c->system.gpu);
    double f = c->ep_sms < sms ? sms / (sms - c->ep_sms) : sms;
    ps->ep_sm = t * (f - 1.0);
    t += ps->ep_sm;
    ps->comm = comm > t ? comm - t : 0.0;
  } else if (c->two_batch_overlap) {
    ps->comm = comm - c->overlap * (comm < t ? comm : t);
  } else {
    ps->comm = comm;
  }
  ps->total = t + ps->comm;
  return POD_OK;
}

/* ---- evaluation -------------------------------------------------------- */

static int fit_batch(const pod_serve_cfg *c, const shape *s, const lay *l,
                     pod_serve_result *o, pod_err *err) {
  double hbm = c->system.gpu.hbm_gb * 1e9;
  double w = weights_per_gpu(c, s, l);
  double free_b = (hbm - w - c->mem_reserve_gb * 1e9) * c->kv_frac;
  o->memory.weights_gb = w / 1e9;
  o->memory.reserve_gb = c->mem_reserve_gb;
  if (free_b <= 0.0)
    return FAIL("gpus",
                "weights need %.1f GB per GPU on %d GPUs; %.1f GB HBM less "
                "%.1f GB reserve leaves no room for a KV cache",
                w / 1e9, c->gpus, c->system.gpu.hbm_gb, c->mem_reserve_gb);
  double ctx = c->input_tokens + c->output_tokens;
  double per_seq = ctx * kv_per_gpu_token(c, s, l); /* on each of its GPUs */
  double mb = floor(free_b / per_seq) * l->dp * l->pp;
  o->max_batch = mb > 1 << 24 ? 1 << 24 : (int)mb;
  if (o->max_batch < l->pp)
    return FAIL("batch",
                "the KV cache of one sequence (%.2f GB per GPU at %.0f "
                "tokens) does not fit in the %.1f GB left per GPU",
                per_seq / 1e9, ctx, free_b / 1e9);
  int b = c->batch > 0 ? c->batch : o->max_batch;
  if (b > o->max_batch)
    return FAIL("batch",
                "%d sequences need %.1f GB of KV cache per GPU; %.1f GB fit "
                "(largest batch %d)",
                b, per_seq * ceil((double)b / (l->dp * l->pp)) / 1e9,
                free_b / 1e9, o->max_batch);
  if (b < l->pp)
    return FAIL("batch", "%d sequences cannot fill %d pipeline stages", b,
                l->pp);
  o->batch = b;
  o->memory.kv_gb = per_seq * ceil((double)b / (l->dp * l->pp)) / 1e9;
  o->memory.total_gb =
      o->memory.weights_gb + o->memory.kv_gb + o->memory.reserve_gb;
  return POD_OK;
}

int pod_serve_max_batch(const pod_serve_cfg *c, int *max_batch, pod_err *err) {
  int rc = pod_serve_check(c, err);
  if (rc != POD_OK) return rc;
  shape s;
  if ((rc = mk_shape(c, &s, err))) return rc;
  lay l;
  pod_serve__resolve(&c->model, c->gpus, &c->parallel, c->redundant_experts, "",
                     &l, NULL);
  pod_serve_cfg d = *c;
  d.batch = 0;
  pod_serve_result o;
  memset(&o, 0, sizeof o);
  if ((rc = fit_batch(&d, &s, &l, &o, err))) return rc;
  *max_batch = o.max_batch;
  return POD_OK;
}

static int kv_transfer(const pod_serve_cfg *c, const shape *s, double *t,
                       pod_err *err) {
  *t = 0.0;
  if (!c->disaggregated) return POD_OK;
  double bytes = c->input_tokens * s->kv_tok_layer * c->model.layers;
  int same = c->prefill.gpus + c->gpus <= c->system.domain_gpus;
  return pod_serve__coll(&c->system, POD_COLL_SEND_RECV, 2, same ? 2 : 1, bytes,
                         t, err);
}

static int eval_core(const pod_serve_cfg *c, pod_serve_result *o, pod_err *err);

int pod_serve_eval(const pod_serve_cfg *c, pod_serve_result *o, pod_err *err) {
  memset(o, 0, sizeof *o);
  int rc = pod_serve_check(c, err);
  if (rc == POD_OK) rc = eval_core(c, o, err);
  return rc != POD_OK ? rc : pod_serve__check_result(o, err);
}

int pod_serve_eval_checked(const pod_serve_cfg *c, pod_serve_result *o,
                           pod_err *err) {
  memset(o, 0, sizeof *o);
  int rc = pod_serve__check_rest(c, err);
  if (rc == POD_OK) rc = eval_core(c, o, err);
  return rc != POD_OK ? rc : pod_serve__check_result(o, err);
}

/* The evaluation of a checked config. */
static int eval_core(const pod_serve_cfg *c, pod_serve_result *o,
                     pod_err *err) {
  int rc;
  shape s;
  if ((rc = mk_shape(c, &s, err))) return rc;
  lay ld, lp;
  pod_serve__resolve(&c->model, c->gpus, &c->parallel, c->redundant_experts, "",
                     &ld, NULL);
  if (c->disaggregated)
    pod_serve__resolve(&c->model, c->prefill.gpus, &c->prefill.parallel,
                       c->redundant_experts, "", &lp, NULL);
  else
    lp = ld;
  if ((rc = fit_batch(c, &s, &ld, o, err))) return rc;
  double wp = weights_per_gpu(c, &s, &lp);
  o->memory.prefill_weights_gb = wp / 1e9;
  /* over < wp: the decode instance's fit already holds reserve < HBM */
  double over = wp + c->mem_reserve_gb * 1e9 - c->system.gpu.hbm_gb * 1e9;
  if (over > 0.0 && c->host_GBps <= 0.0)
    return FAIL("prefill.gpus",
                "weights need %.1f GB per GPU on %d GPUs; %.1f GB HBM less "
                "%.1f GB reserve (set host_GBps to offload)",
                wp / 1e9, lp.n, c->system.gpu.hbm_gb, c->mem_reserve_gb);
  o->offload_gb = over > 0.0 ? over / 1e9 : 0.0;
  o->clock = s.clock;
  o->kv_bytes_per_token = s.kv_tok_layer * c->model.layers;
  o->kv_gb_per_seq =
      o->kv_bytes_per_token * (c->input_tokens + c->output_tokens) / 1e9;
  /* decode */
  double ctx = c->input_tokens + c->output_tokens / 2.0;
  double stage_seqs = (double)o->batch / ld.pp;
  if ((rc = decode_step(c, &s, &ld, stage_seqs, ctx, &o->step,
                        &o->experts_touched, err)))
    return rc;
  o->step.host = pod_serve__host_step(c, o->step.total);
  o->step.total += o->step.host;
  double a = c->spec_accept, k = c->spec_tokens;
  o->tokens_per_step = k == 0     ? 1.0
                       : a >= 1.0 ? k + 1.0
                                  : (1.0 - pow(a, k + 1.0)) / (1.0 - a);
  double cycle = ld.pp * o->step.total;
  o->tpot_s = cycle / o->tokens_per_step;
  o->decode_tokens_per_s = o->batch * o->tokens_per_step / cycle;
  o->decode_tokens_per_s_per_gpu = o->decode_tokens_per_s / c->gpus;
  /* prefill */
  if ((rc = prefill_pass(c, &s, &lp, &o->pass, err))) return rc;
  o->prefill_pass_s = o->pass.total;
  if ((rc = kv_transfer(c, &s, &o->kv_transfer_s, err))) return rc;
  double pass = o->prefill_pass_s;
  if (c->disaggregated) {
    /* every prompt token's KV leaves the prefill GPU (cache hits too) */
    double per_pass = c->prefill_tokens / (1.0 - c->prefix_hit) *
                      s.kv_tok_layer * c->model.layers /
                      (c->model.attn == POD_ATTN_MLA ? 1.0 : lp.tp);
    double nic = c->system.nics_per_gpu * c->system.nic_gbps / 8.0 * 1e9 *
                 c->system.out_eff;
    if (per_pass / nic > pass) {
      o->pass.kv_out = per_pass / nic - pass;
      pass = per_pass / nic;
    }
  }
  if (o->offload_gb > 0.0) {
    /* offloaded layers are prefetched under the pass; it waits for them
    ** when the host link is slower than the pass */
    double t_off = o->offload_gb * 1e9 / (c->host_GBps * 1e9);
    if (t_off > pass) {
      o->pass.offload = t_off - pass;
      pass = t_off;
    }
  }
  o->prefill_tokens_per_s_per_gpu =
      c->prefill_tokens / (1.0 - c->prefix_hit) / pass;
  o->prefill_tokens_per_s = o->prefill_tokens_per_s_per_gpu * lp.n;
  o->ttft_s = o->prefill_pass_s + o->kv_transfer_s;
  /* both phases: GPU-seconds per request */
  double pre = c->input_tokens / o->prefill_tokens_per_s_per_gpu;
  double dec = c->output_tokens / o->decode_tokens_per_s_per_gpu;
  o->requests_per_s_per_gpu = 1.0 / (pre + dec);
  o->output_tokens_per_s_per_gpu = c->output_tokens * o->requests_per_s_per_gpu;
  o->prefill_gpu_share = pre / (pre + dec);
  o->usd_per_m_output = c->system.usd_per_gpu_hour / 3600.0 /
                        o->output_tokens_per_s_per_gpu * 1e6;
  return POD_OK;
}
