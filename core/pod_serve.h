/*
** pod_serve.h: the serving model (prefill and decode) and its built-in
** evaluator (issue 14).
**
** A serving deployment is one model instance (a replica) of `gpus` GPUs
** laid out as attention tp x dp_attn x pp and experts ep x etp x pp,
** decoding `batch` sequences at once; with `disaggregated` a separate
** prefill instance (`prefill`) computes prompts and ships their KV cache
** to the decode instance.  pod_serve_eval turns one config into prefill
** and decode throughput, time to first token, time per output token, KV
** cache per sequence, the largest batch that fits, memory parts and a
** per-step breakdown.
**
** Mechanisms (details and sources in serve.c):
**  - prefill is compute-bound: GEMMs on the active parameters of the
**    computed (non-cached) prompt tokens plus attention's quadratic term,
**    each part a roofline (max of FLOPs and bytes);
**  - a decode step is, per part, the larger of compute and HBM traffic:
**    the weights the step touches (for MoE the expected number of distinct
**    experts the batch activates on each GPU, 1 - (1 - k/E)^T of them) and
**    the KV cache it reads (MLA reads its compressed latent);
**  - communication goes through pod_coll_eval on the real placement: TP
**    all-reduces, expert dispatch/combine (DeepEP low-latency kernels or
**    NCCL all-to-all in decode, all-to-all in prefill), PP send/recv, the
**    KV transfer between pools (NVLink inside a domain, NICs across);
**  - two-batch overlap hides communication behind the other micro-batch;
**  - speculative decoding (MTP) verifies spec_tokens drafts per step with
**    per-token acceptance spec_accept.
**
** pod_serve_cfg is a self-contained value (no pointers): a Monte Carlo
** evaluator copies it and overwrites fields by offset.  Everything here is
** pure, reentrant, allocation-free and thread-safe.
*/
#ifndef POD_SERVE_H
#define POD_SERVE_H

#include "pod_err.h"
#include "pod_field.h"
#include "pod_hw.h"
#include "pod_kernel.h"
#include "pod_model.h"
#include "pod_train.h"

/* How expert dispatch/combine runs in decode. */
typedef enum pod_serve_ep_kernel {
  POD_SERVE_EP_DEEPEP_LL, /* DeepEP low-latency kernels: one-sided writes
                             to every expert's rank, no rounds */
  POD_SERVE_EP_NCCL       /* NCCL all-to-all (pod_coll_eval) */
} pod_serve_ep_kernel;

/* dense_dtype: as dtype.  Names "bf16", "fp8", "fp4", "same" (indexed by
** pod_dtype, then POD_SERVE_DTYPE_SAME), NULL-terminated. */
#define POD_SERVE_DTYPE_SAME 3
extern const char *const pod_serve_dtype_names[];

/* Layout of one instance.  0 means: tp 1, pp 1, dp_attn gpus/(tp pp),
** ep gpus/pp for MoE (1 for dense); etp = gpus / (pp ep). */
typedef struct pod_serve_par {
  int tp;      /* attention / dense tensor parallel */
  int dp_attn; /* attention data-parallel groups per pipeline stage */
  int ep;      /* expert parallel per pipeline stage */
  int pp;      /* pipeline stages */
} pod_serve_par;

typedef struct pod_serve_pool {
  int gpus; /* GPUs of the prefill instance (disaggregated only) */
  pod_serve_par parallel;
} pod_serve_pool;

typedef struct pod_serve_cfg {
  pod_system system;
  pod_model model;
  int gpus;           /* GPUs of the (decode) instance */
  pod_dtype dtype;    /* weights and GEMMs */
  pod_dtype kv_dtype; /* KV cache elements (bf16 or fp8) */
  int dense_dtype;    /* dense GEMMs' dtype (pod_dtype), or
                         POD_SERVE_DTYPE_SAME: dtype */
  pod_serve_par parallel;
  int batch;            /* sequences decoding at once per instance;
                           0 = the largest that fits */
  double input_tokens;  /* prompt tokens per request */
  double output_tokens; /* generated tokens per request */
  double prefix_hit;    /* share of prompt tokens found in the prefix
                           cache: no prefill compute, KV still held */
  int disaggregated;    /* 1: separate prefill instance `prefill` */
  pod_serve_pool prefill;
  double prefill_tokens;    /* prompt tokens per GPU in one prefill pass */
  int spec_tokens;          /* draft tokens verified per decode step (MTP) */
  double spec_accept;       /* acceptance probability of each draft token */
  int redundant_experts;    /* extra expert replicas per MoE layer (EPLB) */
  int ep_kernel;            /* pod_serve_ep_kernel (decode) */
  int two_batch_overlap;    /* 1: two micro-batches hide communication */
  int single_batch_overlap; /* 1 (decode, without two_batch_overlap): the
                               combine runs under the down GEMM and the
                               shared experts (SGLang's SBO) */
  /* Physical parameters (pod_serve_cfg_defaults; a study samples them). */
  double eff_gemm;       /* fraction of dtype peak in GEMMs (<= 0: the
                            training table for the GPU and dtype) */
  double eff_attn;       /* fraction of the attention peak (bf16, or fp8
                            with an fp8 KV cache) in attention kernels;
                            <= 0: the per-generation table (serve.c) */
  double eff_hbm;        /* fraction of HBM bandwidth, memory-bound parts */
  double overlap;        /* with two_batch_overlap: share of the smaller
                            of compute and communication that the other
                            micro-batch hides */
  double ep_ll_up_us;    /* the same when all peers share the scale-up
                            domain (no network signalling) */
  double ep_ll_us;       /* fixed cost of one DeepEP low-latency
                            dispatch or combine (launch, signalling) */
  double ep_cast_us;     /* us per token on its sending SM of the NVFP4
                            cast inside DeepEP's low-latency dispatch
                            (dtype fp4 only) */
  double layer_us;       /* fixed cost per layer per pass, us; < 0 (the
                            default): the layer's kernels counted
                            (serve_launch.c) x kernel_us */
  double kernel_us;      /* GPU cost of one kernel boundary inside a CUDA
                            graph (drain, launch, fill), us */
  double mem_reserve_gb; /* CUDA context, activations, allocator slack */
  double kv_frac;        /* share of free HBM the KV cache may use */
  double ep_sms;         /* SMs DeepEP's normal kernels hold while they
                            overlap prefill compute (two_batch_overlap) */
  double host_GBps;      /* host-to-GPU bandwidth per GPU for prefill
                            weights that do not fit in HBM (offloaded,
                            prefetched layer by layer); 0: no offload,
                            the weights must fit */
  double expert_cv;      /* relative sd of one physical expert's load in
                            a batch about the balanced mean its EPLB
                            placement was built for (routing drift);
                            0: perfect EPLB, multinomial counts only */
  double host_us;        /* host time per decode step: scheduling, batch
                            metadata, sampling and output processing */
  int host_overlap;      /* 1: the engine prepares step n+1 while the GPU
                            runs step n (zero-overhead scheduling): the
                            host shows only beyond the GPU step */
  double gemm_w_overlap; /* share of a GEMM's weight streaming hidden under
                            its MMA work (0: none; 1: the roofline) */
  int fp8_prefill_attn;  /* 1: with an fp8 KV cache, prefill attention runs
                            on fp8 tensor cores too (0: bf16, the MLA
                            prefill of SGLang before December 2025) */
} pod_serve_cfg;

typedef struct pod_serve_memory {
  double weights_gb; /* per GPU of the decode instance */
  double kv_gb;      /* KV cache of the batch, per GPU */
  double reserve_gb;
  double total_gb;
  double prefill_weights_gb; /* per GPU of the prefill instance */
} pod_serve_memory;

/* Decode step breakdown (seconds per step of the whole batch). */
typedef struct pod_serve_step {
  double attn;     /* attention: KV read / FLOPs roofline */
  double dense;    /* dense GEMMs (attention projections, dense MLPs,
                      shared experts, router, head) */
  double expert;   /* routed experts: touched weights / FLOPs */
  double tp;       /* TP all-reduces */
  double ep;       /* expert dispatch + combine (exposed) */
  double pp;       /* pipeline send/recv */
  double overhead; /* per-layer fixed cost */
  double act;      /* memory-bound kernels between the GEMMs (norms,
                      residuals, quantisation, permutes, activations) */
  double draft;    /* speculative drafts (MTP) */
  double host;     /* host time per step beyond the GPU's (all of it
                      without host_overlap) */
  double total;    /* one decode step */
} pod_serve_step;

/* One prefill pass breakdown (seconds, prefill_tokens per GPU). */
typedef struct pod_serve_pass {
  double gemm;     /* dense + expert GEMMs (roofline with weight reads) */
  double attn;     /* attention's quadratic term */
  double comm;     /* EP all-to-all + TP all-reduce (exposed) */
  double overhead; /* per-layer fixed cost */
  double act;      /* memory-bound kernels between the GEMMs */
  double ep_sm;    /* two-batch overlap: compute stretched by the SMs
                      DeepEP's normal kernels hold */
  double kv_out;   /* KV shipping beyond the pass (disaggregated, NIC-
                      bound passes only) */
  double offload;  /* weight streaming from host memory beyond the
                      pass (host_GBps-bound passes only) */
  double total;
} pod_serve_pass;

typedef struct pod_serve_result {
  /* prefill */
  double prefill_tokens_per_s; /* prompt tokens/s of the prefill
                                  instance, cache hits included */
  double prefill_tokens_per_s_per_gpu;
  double prefill_pass_s; /* one pass of prefill_tokens/GPU */
  double ttft_s;         /* prefill pass + KV transfer */
  double kv_transfer_s;  /* one request's KV to decode */
  /* decode */
  double decode_tokens_per_s; /* output tokens/s of the instance */
  double decode_tokens_per_s_per_gpu;
  double tpot_s;             /* time per output token per user */
  double tokens_per_step;    /* per sequence (spec decoding) */
  int batch;                 /* sequences decoded at once */
  int max_batch;             /* largest batch that fits */
  double kv_bytes_per_token; /* all layers, whole instance */
  double kv_gb_per_seq;      /* at input + output tokens */
  double experts_touched;    /* distinct experts read per GPU
                                per MoE layer per step */
  double clock;              /* sustained fraction of the boost clock
                                under the board power limit */
  double offload_gb;         /* prefill weights streamed from host per
                                GPU per pass */
  /* both phases */
  double output_tokens_per_s_per_gpu; /* requests' output over all GPUs
                                         (prefill share included) */
  double requests_per_s_per_gpu;
  double prefill_gpu_share; /* GPU-time share spent in prefill
                               (the prefill:decode pool ratio
                               when disaggregated) */
  double usd_per_m_output;  /* system price / output rate */
  pod_serve_memory memory;
  pod_serve_step step;
  pod_serve_pass pass;
} pod_serve_result;

/* Fill the physical parameters with their shared defaults. */
void pod_serve_cfg_defaults(pod_serve_cfg *c);

/* A ready config ("default" preset): defaults plus fp8 weights (dense
** dtype "same"), bf16 KV,
** layout all 0 (derived), batch 0, 1000 in / 1000 out tokens, no prefix
** cache, colocated, 16384 prefill tokens per GPU, no spec decoding,
** DeepEP low-latency, no two-batch overlap, host work overlapped.
** system/model/gpus to set. */
void pod_serve_cfg_init(pod_serve_cfg *c);

/* Check the config.  POD_EINVAL with err->field naming the constraint
** ("parallel.tp", "batch", "kv_dtype", ...). */
int pod_serve_check(const pod_serve_cfg *c, pod_err *err);

/* Bounds of the numeric fields (pod_field.h), the one home of each range:
** the config's own, a layout's (cfg.parallel) and the prefill pool's
** (gpus and "parallel.tp", ...).  pod_serve_check walks all three. */
extern const pod_field pod_serve_cfg_fields[];
extern const pod_field pod_serve_par_fields[];
extern const pod_field pod_serve_pool_fields[];

/* Evaluate.  POD_EINVAL (bad config, weights or batch do not fit),
** POD_ENOTSUP (dtype without peak on the GPU) or a pod_coll_eval error. */
int pod_serve_eval(const pod_serve_cfg *c, pod_serve_result *out, pod_err *err);

/* The same for a config whose system and model already passed their
** checks (a caller evaluating one deployment at several batches or
** lengths, as pod_rl_eval does): skips re-validating them, checks the
** rest. */
int pod_serve_eval_checked(const pod_serve_cfg *c, pod_serve_result *out,
                           pod_err *err);

/* The largest batch that fits (what pod_serve_eval reports as max_batch),
** without timing anything.  Same errors as pod_serve_eval's memory part. */
int pod_serve_max_batch(const pod_serve_cfg *c, int *max_batch, pod_err *err);

/* Expected distinct experts hit on one GPU holding `local` of `experts`
** experts when `tokens` tokens each pick `top_k` distinct experts
** uniformly: local * (1 - (1 - top_k/experts)^tokens). */
double pod_serve_experts_touched(int experts, int top_k, int local,
                                 double tokens);

/* Time of one expert dispatch or combine moving `tokens` tokens per GPU
** of `row_bytes` each (hidden x bytes per element) to top_k experts over
** `ep` ranks packed on sys's domains.  kernel POD_SERVE_EP_DEEPEP_LL: a
** copy per expert, no rounds, fixed cost ll_us; POD_SERVE_EP_NCCL:
** pod_coll_eval all_to_all (ll_up_us: the fixed cost when all peers are
** in one domain); ep_normal = 1 selects DeepEP's normal
** kernels instead (a token crosses the network once per remote domain,
** then fans out on NVLink).  cast_us > 0 (the NVFP4 low-latency
** dispatch) adds cast_us per token on its sending SM, ceil(tokens / SMs)
** tokens per SM, SMs from `experts` by DeepEP's launch rule.  POD_EINVAL
** on bad input: the arguments' bounds are pod_serve_ep_args (name, type,
** range; offsets unused) and, for ll_us, ll_up_us and cast_us, those of
** pod_serve_cfg_fields' ep_ll_us, ep_ll_up_us and ep_cast_us. */
extern const pod_field pod_serve_ep_args[];
/* The two factors of row_bytes as podsim.ep_time takes them (offsets
** unused): hidden, elements per token row, in [1, 1e9], and
** bytes_per_elem in [0.01, 16] (nvfp4 with its scales to fp64 and more). */
extern const pod_field pod_serve_ep_row_args[];
int pod_serve_ep_time(const pod_system *sys, int ep, int top_k, double tokens,
                      double row_bytes, int kernel, int ep_normal, double ll_us,
                      double ll_up_us, int experts, double cast_us,
                      double *time_s, pod_err *err);

/* Names ("deepep_ll", "nccl") and parser (POD_ENOENT). */
/* EP kernel names, indexed by pod_serve_ep_kernel, NULL-terminated. */
extern const char *const pod_serve_ep_kernel_names[];
/* The kernels podsim.ep_time can time: the decode kernels above, then
** POD_SERVE_EP_TIME_NORMAL, DeepEP's normal (prefill) kernels
** (pod_serve_ep_time with normal = 1). */
#define POD_SERVE_EP_TIME_NORMAL 2
extern const char *const pod_serve_ep_time_kernel_names[];
const char *pod_serve_ep_kernel_name(int k);
int pod_serve_ep_kernel_parse(const char *name, int *out);

/* Built-in evaluator: cfg = pod_serve_cfg; metrics in this order:
** decode_tokens_per_s_per_gpu, prefill_tokens_per_s_per_gpu, ttft_s,
** tpot_s, output_tokens_per_s_per_gpu, usd_per_m_output, batch,
** max_batch, kv_gb_per_seq, memory_gb, step_s, attn_s, dense_s,
** expert_s, tp_s, ep_s. */
extern const pod_kernel pod_serve_kernel;

#endif
