/*
** serve.c: the serving model (pod_serve.h).
**
** Sources of the shared physical defaults:
**  - eff_attn 0.67: FlashMLA (deepseek-ai/FlashMLA README) reaches 660
**    TFLOP/s compute-bound on H800 SXM5 (989 bf16 dense peak);
**  - eff_hbm 0.85: the same README reports up to 3000 GB/s memory-bound
**    of the H800's 3350 GB/s (0.90) for its attention kernel; weight reads
**    of small decode GEMMs reach less, so 0.85 for all memory-bound parts;
**  - ep_ll_us 34: the fixed part of one DeepEP low-latency dispatch or
**    combine (kernel launch, GPU-initiated RDMA signalling).  FITTED on
**    one row of the DeepEP README table (deepseek-ai/DeepEP, legacy V1
**    "Low-latency kernels with pure RDMA": H800 + CX7 400 Gb/s, 128 tokens
**    per rank, hidden 7168, top-8, fp8 dispatch, bf16 combine; EP32
**    dispatch 155 us: 5.68 MB of remote traffic at 47 GB/s leaves 34 us);
**    the other nine rows of that table (EP16-EP256) are predictions
**    (tests/validation/s1_deepep_ll.lua);
**  - ep_ll_up_us 19: the same fixed part when every peer is on the
**    scale-up fabric (no network signalling).  FITTED on one row of the
**    NVLink low-latency table of deepseek-ai/DeepEP PR #173 (H20, 128
**    tokens, EP8 dispatch 37 us: 6.6 MB over NVLink at 371 GB/s leaves
**    19 us); its EP8 combine and EP16-EP64 rows are predictions
**    (tests/validation/s1_deepep_ll.lua).  This is the decode path of
**    GB200 NVL72's 72-GPU domain;
**  - overlap 0: the share of the smaller of compute and communication
**    that two-batch overlap hides.  FITTED on S2 (SGLang's 96-H100
**    deployment, decode at 256 sequences per GPU, TBO on), where the
**    fit lands on its lower bound: the measured step already sits 2%
**    above podsim's un-overlapped sum of isolated kernel times (so the
**    isolated DeepEP/GEMM/attention times are optimistic in deployment
**    by about what TBO hides).  A study should sample it (0 to 0.5);
****  - layer_us 8: per-layer fixed cost of a decode step under CUDA graphs
**    (about ten kernels per layer at ~0.8 us launch-to-launch on Hopper,
**    NVIDIA CUDA graphs best-practice notes); not fitted;
**  - mem_reserve_gb 8 (CUDA context, activations and buffers of the
**    serving engines; vLLM/SGLang leave ~10% of HBM unused by default:
**    gpu_memory_utilization 0.9 / mem_fraction_static 0.8-0.9) and
**    kv_frac 0.9 of what is left.
*/
#include "pod_serve.h"

#include <stddef.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "pod_coll.h"

/* See the header comment. */
#define OVERLAP 0.0
#define EP_LL_US 34.0
#define EP_LL_UP_US 19.0

const char *const pod_serve_ep_kernel_names[] = {"deepep_ll", "nccl", NULL};

const char *pod_serve_ep_kernel_name(int k) {
  if (k < 0 || k > POD_SERVE_EP_NCCL) return "?";
  return pod_serve_ep_kernel_names[k];
}

int pod_serve_ep_kernel_parse(const char *name, int *out) {
  for (int i = 0; i <= POD_SERVE_EP_NCCL; i++)
    if (name && strcmp(name, pod_serve_ep_kernel_names[i]) == 0) {
      *out = i;
      return POD_OK;
    }
  return POD_ENOENT;
}

void pod_serve_cfg_defaults(pod_serve_cfg *c) {
  c->eff_gemm = 0.0;
  c->eff_attn = 0.67;
  c->eff_hbm = 0.85;
  c->overlap = OVERLAP;
  c->ep_ll_us = EP_LL_US;
  c->ep_ll_up_us = EP_LL_UP_US;
  c->layer_us = 8.0;
  c->mem_reserve_gb = 8.0;
  c->kv_frac = 0.9;
}

void pod_serve_cfg_init(pod_serve_cfg *c) {
  memset(c, 0, sizeof *c);
  c->dtype = POD_DTYPE_FP8;
  c->kv_dtype = POD_DTYPE_BF16;
  c->input_tokens = 1000.0;
  c->output_tokens = 1000.0;
  c->prefill_tokens = 16384.0;
  c->spec_accept = 0.8;
  c->ep_kernel = POD_SERVE_EP_DEEPEP_LL;
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

/* A resolved layout of one instance. */
typedef struct lay {
  int n, tp, dp, pp, ep, etp, local; /* local: physical experts per GPU */
} lay;

#define FAIL(field, ...) pod_err_set(err, POD_EINVAL, field, __VA_ARGS__)

/* Fail with the field `pre` + `name` (formatted on the error path only). */
#define FAILP(name, ...)                                  \
  do {                                                    \
    char f_[POD_ERR_FIELD_MAX];                           \
    snprintf(f_, sizeof f_, "%s%s", pre, name);           \
    return pod_err_set(err, POD_EINVAL, f_, __VA_ARGS__); \
  } while (0)

static int resolve(const pod_model *m, int n, const pod_serve_par *p,
                   int redundant, const char *pre, lay *o, pod_err *err) {
  o->n = n;
  o->tp = p->tp > 0 ? p->tp : 1;
  o->pp = p->pp > 0 ? p->pp : 1;
  if (m->heads % o->tp != 0)
    FAILP("tp", "%d does not divide the model's %d heads", o->tp, m->heads);
  if (m->attn != POD_ATTN_MLA && o->tp > m->kv_heads)
    FAILP("tp", "%d is above the model's %d KV heads", o->tp, m->kv_heads);
  if (m->attn != POD_ATTN_MLA && m->kv_heads % o->tp != 0)
    FAILP("tp", "%d does not divide the model's %d KV heads", o->tp,
          m->kv_heads);
  if (o->pp > m->layers)
    FAILP("pp", "%d stages for %d layers", o->pp, m->layers);
  if (n % (o->tp * o->pp) != 0)
    FAILP("pp", "tp x pp = %d does not divide %d GPUs", o->tp * o->pp, n);
  int stage = n / o->pp;
  o->dp = p->dp_attn > 0 ? p->dp_attn : stage / o->tp;
  if (o->dp * o->tp != stage)
    FAILP("dp_attn", "tp x dp_attn = %d must equal the %d GPUs of a stage",
          o->dp * o->tp, stage);
  if (m->experts == 0) {
    if (p->ep > 1) FAILP("ep", "is %d for a dense model", p->ep);
    o->ep = 1;
    o->etp = stage;
    o->local = 0;
    return POD_OK;
  }
  o->ep = p->ep > 0 ? p->ep : stage;
  if (stage % o->ep != 0)
    FAILP("ep", "%d does not divide the %d GPUs of a stage", o->ep, stage);
  int phys = m->experts + redundant;
  if (phys % o->ep != 0)
    FAILP("ep", "%d does not divide %d experts (%d routed + %d redundant)",
          o->ep, phys, m->experts, redundant);
  o->etp = stage / o->ep;
  o->local = phys / o->ep;
  return POD_OK;
}

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: pod_serve_check walks these tables and the Lua bindings read
** them.  A layout's fields are listed once (SERVE_PAR) and appear in the
** layout table and, under "parallel.", in the prefill pool's. */
#define SERVE_PAR(X)                                                    \
  X(tp, 0, 1 << 16, "attention/dense tensor parallel (0: 1)")           \
  X(dp_attn, 0, 1 << 20, "attention data-parallel groups (0: derived)") \
  X(ep, 0, 1 << 20, "expert parallel (0: GPUs per stage)")              \
  X(pp, 0, 1 << 16, "pipeline stages (0: 1)")
#define PAR_ENTRY(m, lo, hi, unit) POD_FIELD_I(pod_serve_par, m, lo, hi, unit),
#define POOL_ENTRY(m, lo, hi, unit)      \
  {"parallel." #m,                       \
   offsetof(pod_serve_pool, parallel.m), \
   POD_F_INT,                            \
   lo,                                   \
   hi,                                   \
   0,                                    \
   unit},
const pod_field pod_serve_par_fields[] = {SERVE_PAR(PAR_ENTRY) POD_FIELD_END};
const pod_field pod_serve_pool_fields[] = {
    POD_FIELD_I(pod_serve_pool, gpus, 0, 1 << 20,
                "GPUs of the prefill instance (>= 1 when disaggregated)"),
    SERVE_PAR(POOL_ENTRY) POD_FIELD_END};
#undef PAR_ENTRY
#undef POOL_ENTRY

#define SERVE_CFG_FIELDS(X)                                                  \
  X(INT, gpus, 1, 1 << 20, 0, "GPUs of the (decode) instance")               \
  X(INT, batch, 0, 1 << 24, 0, "sequences per instance (0: largest)")        \
  X(DOUBLE, input_tokens, 1, 1 << 24, 0, "prompt tokens")                    \
  X(DOUBLE, output_tokens, 1, 1 << 24, 0, "generated tokens")                \
  X(DOUBLE, prefix_hit, 0, 0.999, 0, "share of prompt cached")               \
  X(BOOL, disaggregated, 0, 1, 0, "separate prefill pool")                   \
  X(DOUBLE, prefill_tokens, 1, 1 << 24, 0, "prompt tokens per GPU per pass") \
  X(INT, spec_tokens, 0, 16, 0, "draft tokens per step")                     \
  X(DOUBLE, spec_accept, 0, 1, 0, "acceptance per draft token")              \
  X(INT, redundant_experts, 0, 1 << 16, 0, "extra expert replicas")          \
  X(BOOL, two_batch_overlap, 0, 1, 0, "two micro-batches")                   \
  X(DOUBLE, eff_gemm, -1, 1, 0, "fraction of peak (<= 0: table)")            \
  X(DOUBLE, eff_attn, 0, 1, POD_F_MIN_OPEN, "fraction of bf16 peak")         \
  X(DOUBLE, eff_hbm, 0, 1, POD_F_MIN_OPEN, "fraction of HBM bandwidth")      \
  X(DOUBLE, overlap, 0, 1, 0, "share hidden by two-batch overlap")           \
  X(DOUBLE, ep_ll_us, 0, 1e6, 0, "us per low-latency dispatch")              \
  X(DOUBLE, ep_ll_up_us, 0, 1e6, 0, "us, all peers on NVLink")               \
  X(DOUBLE, layer_us, 0, 1e6, 0, "us per layer per step")                    \
  X(DOUBLE, mem_reserve_gb, 0, 1e6, 0, "GB")                                 \
  X(DOUBLE, kv_frac, 0, 1, POD_F_MIN_OPEN, "share of free HBM for KV")
#define SERVE_CFG_FIELDS_E(k, m, lo, hi, open, unit) \
  POD_FIELD_X_ENTRY(pod_serve_cfg, k, m, lo, hi, open, unit)
const pod_field pod_serve_cfg_fields[] = {SERVE_CFG_FIELDS(SERVE_CFG_FIELDS_E)
                                              POD_FIELD_END};
#define SERVE_CFG_FIELDS_S(k, m, lo, hi, open, unit) \
  POD_FIELD_X_SCREEN(x, k, m, lo, hi, open)
/* the inline screen of the list, bounds as constants */
static int serve_cfg_ok(const pod_serve_cfg *x) {
  return 1 SERVE_CFG_FIELDS(SERVE_CFG_FIELDS_S);
}
#undef SERVE_CFG_FIELDS_E
#undef SERVE_CFG_FIELDS_S

/* pod_serve_ep_time's arguments, in its order (offsets unused); its fixed
** costs ll_us and ll_up_us take the bounds of ep_ll_us and ep_ll_up_us
** above. */
const pod_field pod_serve_ep_args[] = {
    {"ranks", 0, POD_F_INT, 1, 1 << 20, 0, "ranks (EP degree)"},
    {"top_k", 0, POD_F_INT, 1, 1024, 0, "experts per token"},
    {"tokens", 0, POD_F_DOUBLE, 0, 1e12, 0, "tokens per GPU"},
    {"row_bytes", 0, POD_F_DOUBLE, 0, 1e12, 0, "bytes per token row"},
    POD_FIELD_END};

int pod_serve_check(const pod_serve_cfg *c, pod_err *err) {
  int rc = pod_hw_system_check(&c->system, err);
  if (rc != POD_OK) return rc;
  if ((rc = pod_model_check(&c->model, err)) != POD_OK) return rc;
  if ((!serve_cfg_ok(c) &&
       (rc = pod_field_check_all(pod_serve_cfg_fields, c, "", err))) ||
      (rc = pod_field_check_all(pod_serve_par_fields, &c->parallel, "parallel.",
                                err)) ||
      (rc = pod_field_check_all(pod_serve_pool_fields, &c->prefill, "prefill.",
                                err)))
    return rc;
  if (c->dtype < POD_DTYPE_BF16 || c->dtype > POD_DTYPE_FP4)
    return FAIL("dtype", "unknown dtype %d", c->dtype);
  if (pod_train_peak_tflops(&c->system.gpu, c->dtype) <= 0.0)
    return FAIL("dtype", "%s has no peak on %s", pod_train_dtype_name(c->dtype),
                c->system.gpu.name);
  if (c->kv_dtype != POD_DTYPE_BF16 && c->kv_dtype != POD_DTYPE_FP8)
    return FAIL("kv_dtype", "must be bf16 or fp8");
  if (c->redundant_experts > 0 && c->model.experts == 0)
    return FAIL("redundant_experts", "needs a mixture-of-experts model");
  if (c->ep_kernel < 0 || c->ep_kernel > POD_SERVE_EP_NCCL)
    return FAIL("ep_kernel", "unknown kernel %d", c->ep_kernel);
  lay l;
  if ((rc = resolve(&c->model, c->gpus, &c->parallel, c->redundant_experts,
                    "parallel.", &l, err)))
    return rc;
  if (c->disaggregated) {
    if (c->prefill.gpus < 1)
      return FAIL("prefill.gpus", "must be >= 1 when disaggregated, got %d",
                  c->prefill.gpus);
    if ((rc = resolve(&c->model, c->prefill.gpus, &c->prefill.parallel,
                      c->redundant_experts, "prefill.parallel.", &l, err)))
      return rc;
  }
  return POD_OK;
}

/* ---- shared per-model quantities --------------------------------------- */

typedef struct shape {
  pod_model_params p;
  double wb, kvb;         /* bytes per weight, per KV element */
  double dense;           /* non-expert weights incl. embedding and head */
  double dense_gemm;      /* weights a token multiplies: layers + head */
  double kv_tok_layer;    /* KV bytes per token per layer (one copy) */
  double dqk_dec, dv_dec; /* decode attention dims (MLA absorbed) */
  double dqk_pre, dv_pre; /* prefill attention dims */
  double peak, peak_attn; /* FLOP/s */
  double hbm;             /* B/s achieved */
  double eff_gemm;
} shape;

static int mk_shape(const pod_serve_cfg *c, shape *s, pod_err *err) {
  const pod_model *m = &c->model;
  pod_model_params_count(m, &s->p);
  s->wb = dtype_bytes(c->dtype);
  s->kvb = dtype_bytes(c->kv_dtype);
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
  s->peak = pod_train_peak_tflops(&c->system.gpu, c->dtype) * 1e12;
  s->peak_attn = c->system.gpu.bf16_tflops * 1e12 * c->eff_attn;
  s->hbm = c->system.gpu.hbm_TBps * 1e12 * c->eff_hbm;
  s->eff_gemm = c->eff_gemm;
  if (s->eff_gemm <= 0.0) {
    /* the training table and its shape roll-off eff h / (h + k_half),
    ** the same as pod_train_eval's GEMMs */
    double kh = 0.0;
    int rc = pod_train_default_eff(&c->system.gpu, c->dtype, &s->eff_gemm, NULL,
                                   &kh, err);
    if (rc != POD_OK) return rc;
    if (kh > 0.0) s->eff_gemm *= m->hidden / (m->hidden + kh);
  }
  return POD_OK;
}

static double roof(double flops, double peak, double bytes, double bw) {
  double a = flops / peak, b = bytes / bw;
  return a > b ? a : b;
}

/* Weight bytes per GPU of an instance laid out as l. */
static double weights_per_gpu(const pod_serve_cfg *c, const shape *s,
                              const lay *l) {
  double w = s->dense * s->wb / l->tp;
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

static int coll(const pod_system *sys, pod_coll_op op, int ranks, int rpd,
                double bytes, double *t, pod_err *err) {
  if (ranks <= 1) {
    *t = 0.0;
    return POD_OK;
  }
  pod_coll_args a = {ranks, rpd, bytes, POD_ALGO_AUTO};
  pod_coll_result r;
  int rc = pod_coll_eval(sys, op, &a, &r, err);
  *t = r.time_s;
  return rc;
}

/* Ranks of an `ep`-wide group sharing one scale-up domain (packed). */
static int ep_per_domain(const pod_system *sys, int ep) {
  return ep < sys->domain_gpus ? ep : sys->domain_gpus;
}

/* One DeepEP low-latency dispatch or combine of `bytes` per GPU to `ep`
** ranks: one-sided writes to all peers at once, NVLink to the peers in the
** domain, the NICs to the others (in parallel), plus the fixed cost. */
static double ep_ll(const pod_system *y, int ep, double bytes, double ll_us,
                    double ll_up_us) {
  int r = ep_per_domain(y, ep);
  double remote = bytes * (double)(ep - r) / ep;
  double local = bytes * (double)(r - 1) / ep;
  double nic =
      y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
  double up = y->up_GBps * 1e9 * y->up_eff;
  double t_out = remote / nic, t_up = local / up;
  double fixed = ep > r ? ll_us : ll_up_us; /* network signalling or not */
  return fixed * 1e-6 + (t_out > t_up ? t_out : t_up);
}

/* One DeepEP normal (high-throughput) dispatch or combine of `tokens`
** per GPU of `row` bytes over `ep` ranks: a token crosses the scale-out
** network once per remote domain holding one of its top_k experts (then
** fans out over NVLink), and reaches each local rank holding one once;
** both paths run at once (DeepEP README, normal kernels). */
static double ep_normal(const pod_system *y, int ep, int top_k, double tokens,
                        double row) {
  int r = ep_per_domain(y, ep);
  double nd = (double)ep / r; /* domains in the group */
  double remote_domains = (nd - 1.0) * (1.0 - pow(1.0 - 1.0 / nd, top_k));
  double local_ranks = (r - 1.0) * (1.0 - pow(1.0 - 1.0 / ep, top_k));
  double nic =
      y->nics_per_gpu * y->nic_gbps / 8.0 * 1e9 * y->out_eff / y->oversub;
  double up = y->up_GBps * 1e9 * y->up_eff;
  double t_out = tokens * row * remote_domains / nic;
  double t_up = tokens * row * local_ranks / up;
  return (t_out > t_up ? t_out : t_up) + y->up_latency_us * 1e-6;
}

int pod_serve_ep_time(const pod_system *sys, int ep, int top_k, double tokens,
                      double row_bytes, int kernel, int normal, double ll_us,
                      double ll_up_us, double *time_s, pod_err *err) {
  int rc = pod_hw_system_check(sys, err);
  if (rc != POD_OK) return rc;
  const double arg[] = {ep, top_k, tokens, row_bytes};
  for (int i = 0; pod_serve_ep_args[i].name; i++)
    if (!pod_field_ok(&pod_serve_ep_args[i], arg[i]))
      return pod_field_error(&pod_serve_ep_args[i], arg[i], NULL, err);
  const double fixed[2] = {ll_us, ll_up_us};
  static const char *const fixed_name[2] = {"ll_us", "ll_up_us"};
  for (int i = 0; i < 2; i++) {
    const pod_field *f =
        pod_field_find(pod_serve_cfg_fields, i ? "ep_ll_up_us" : "ep_ll_us");
    if (!pod_field_ok(f, fixed[i])) {
      pod_field_error(f, fixed[i], NULL, err);
      if (err) snprintf(err->field, sizeof err->field, "%s", fixed_name[i]);
      return POD_EINVAL;
    }
  }
  if (kernel < 0 || kernel > POD_SERVE_EP_NCCL)
    return FAIL("kernel", "unknown kernel %d", kernel);
  *time_s = 0.0;
  if (ep == 1) return POD_OK;
  if (normal) {
    *time_s = ep_normal(sys, ep, top_k, tokens, row_bytes);
    return POD_OK;
  }
  double bytes = tokens * top_k * row_bytes;
  if (kernel == POD_SERVE_EP_DEEPEP_LL) {
    *time_s = ep_ll(sys, ep, bytes, ll_us, ll_up_us);
    return POD_OK;
  }
  return coll(sys, POD_COLL_ALL_TO_ALL, ep, 0, bytes, time_s, err);
}

/* ---- decode ------------------------------------------------------------ */

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
  st->attn = Ls * roof(aflops, s->peak_attn, abytes, s->hbm);
  /* dense GEMMs */
  double dflops = 2.0 * tg * s->dense_gemm * frac / l->tp;
  double dbytes = s->dense * s->wb * frac / l->tp;
  st->dense = roof(dflops, s->peak * s->eff_gemm, dbytes, s->hbm);
  /* routed experts: all tokens of the stage share the EP group */
  *touched = 0.0;
  double moe_layers = s->p.moe_layers * frac;
  if (m->experts > 0) {
    int phys = m->experts + c->redundant_experts;
    double T = seqs * q;
    double imb = m->imbalance > 1.0 ? m->imbalance : 1.0;
    double to_gpu = T * m->top_k * (double)l->local / phys * imb;
    *touched = pod_serve_experts_touched(phys, m->top_k, l->local, T);
    double eflops = 2.0 * to_gpu * s->p.expert / l->etp;
    double ebytes = *touched * s->p.expert * s->wb / l->etp;
    st->expert =
        moe_layers * roof(eflops, s->peak * s->eff_gemm, ebytes, s->hbm);
    /* dispatch (fp8 with one fp32 scale per 128) and combine (bf16) */
    double per_gpu = T / ((double)l->ep * l->etp);
    double disp = per_gpu * m->top_k * m->hidden * (1.0 + 4.0 / 128.0);
    double comb = per_gpu * m->top_k * m->hidden * 2.0;
    double td, tc;
    if (c->ep_kernel == POD_SERVE_EP_DEEPEP_LL) {
      int halves = c->two_batch_overlap ? 2 : 1;
      td = halves *
           ep_ll(&c->system, l->ep, disp / halves, c->ep_ll_us, c->ep_ll_up_us);
      tc = halves *
           ep_ll(&c->system, l->ep, comb / halves, c->ep_ll_us, c->ep_ll_up_us);
    } else {
      if ((rc =
               coll(&c->system, POD_COLL_ALL_TO_ALL, l->ep, 0, disp, &td, err)))
        return rc;
      if ((rc =
               coll(&c->system, POD_COLL_ALL_TO_ALL, l->ep, 0, comb, &tc, err)))
        return rc;
    }
    st->ep = moe_layers * (td + tc);
  }
  /* TP all-reduces: after attention, and after each dense MLP */
  if (l->tp > 1) {
    double t;
    if ((rc = coll(&c->system, POD_COLL_ALL_REDUCE, l->tp, 0,
                   tg * m->hidden * 2.0, &t, err)))
      return rc;
    st->tp = t * (Ls + (Ls - moe_layers));
  }
  if (l->pp > 1) {
    int rpd = l->n / l->pp >= c->system.domain_gpus ? 1 : 2;
    double t;
    if ((rc = coll(&c->system, POD_COLL_SEND_RECV, 2, rpd, tg * m->hidden * 2.0,
                   &t, err)))
      return rc;
    st->pp = t;
  }
  st->overhead = Ls * c->layer_us * 1e-6;
  double compute = st->attn + st->dense + st->expert + st->overhead;
  if (c->spec_tokens > 0) {
    /* MTP drafts: one extra block per draft token, sequentially */
    int blocks = m->mtp_layers > 0 ? m->mtp_layers : 1;
    st->draft = c->spec_tokens * blocks * (compute / q) / Ls;
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
  double gemm = 2.0 * tok * s->dense_gemm;
  if (m->experts > 0) {
    double imb = m->imbalance > 1.0 ? m->imbalance : 1.0;
    gemm += 2.0 * tok * m->top_k * s->p.expert * s->p.moe_layers * imb;
  }
  double wbytes = weights_per_gpu(c, s, l);
  memset(ps, 0, sizeof *ps);
  ps->gemm = roof(gemm, s->peak * s->eff_gemm, wbytes, s->hbm);
  double aflops =
      2.0 * m->heads * m->layers * pos * (s->dqk_pre + s->dv_pre) * tok;
  ps->attn = aflops / s->peak_attn;
  ps->overhead = m->layers * c->layer_us * 1e-6;
  double t = ps->gemm + ps->attn + ps->overhead;
  double comm = 0.0, x;
  int rc;
  if (m->experts > 0 && l->ep > 1) {
    double row = m->hidden;
    double disp = ep_normal(&c->system, l->ep, m->top_k, tok / l->etp,
                            row * (1.0 + 4.0 / 128.0));
    double comb =
        ep_normal(&c->system, l->ep, m->top_k, tok / l->etp, row * 2.0);
    comm += (disp + comb) * s->p.moe_layers;
  }
  if (l->tp > 1) {
    if ((rc = coll(&c->system, POD_COLL_ALL_REDUCE, l->tp, 0,
                   tok * l->tp * m->hidden * 2.0, &x, err)))
      return rc;
    comm += x * (m->layers + (m->layers - s->p.moe_layers)) / (double)l->tp;
  }
  if (c->two_batch_overlap)
    ps->comm = comm - c->overlap * (comm < t ? comm : t);
  else
    ps->comm = comm;
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
  resolve(&c->model, c->gpus, &c->parallel, c->redundant_experts, "", &l, NULL);
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
  return coll(&c->system, POD_COLL_SEND_RECV, 2, same ? 2 : 1, bytes, t, err);
}

int pod_serve_eval(const pod_serve_cfg *c, pod_serve_result *o, pod_err *err) {
  memset(o, 0, sizeof *o);
  int rc = pod_serve_check(c, err);
  if (rc != POD_OK) return rc;
  shape s;
  if ((rc = mk_shape(c, &s, err))) return rc;
  lay ld, lp;
  resolve(&c->model, c->gpus, &c->parallel, c->redundant_experts, "", &ld,
          NULL);
  if (c->disaggregated)
    resolve(&c->model, c->prefill.gpus, &c->prefill.parallel,
            c->redundant_experts, "", &lp, NULL);
  else
    lp = ld;
  if ((rc = fit_batch(c, &s, &ld, o, err))) return rc;
  double wp = weights_per_gpu(c, &s, &lp);
  o->memory.prefill_weights_gb = wp / 1e9;
  if (wp + c->mem_reserve_gb * 1e9 > c->system.gpu.hbm_gb * 1e9)
    return FAIL("prefill.gpus", "weights need %.1f GB per GPU on %d GPUs",
                wp / 1e9, lp.n);
  o->kv_bytes_per_token = s.kv_tok_layer * c->model.layers;
  o->kv_gb_per_seq =
      o->kv_bytes_per_token * (c->input_tokens + c->output_tokens) / 1e9;
  /* decode */
  double ctx = c->input_tokens + c->output_tokens / 2.0;
  double stage_seqs = (double)o->batch / ld.pp;
  if ((rc = decode_step(c, &s, &ld, stage_seqs, ctx, &o->step,
                        &o->experts_touched, err)))
    return rc;
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

/* ---- kernel ------------------------------------------------------------ */

static const char *const metric_names[] = {"decode_tokens_per_s_per_gpu",
                                           "prefill_tokens_per_s_per_gpu",
                                           "ttft_s",
                                           "tpot_s",
                                           "output_tokens_per_s_per_gpu",
                                           "usd_per_m_output",
                                           "batch",
                                           "max_batch",
                                           "kv_gb_per_seq",
                                           "memory_gb",
                                           "step_s",
                                           "attn_s",
                                           "dense_s",
                                           "expert_s",
                                           "tp_s",
                                           "ep_s"};

static int kernel_fn(const void *cfg, double *x, pod_err *err) {
  pod_serve_result r;
  int rc = pod_serve_eval(cfg, &r, err);
  if (rc != POD_OK) return rc;
  x[0] = r.decode_tokens_per_s_per_gpu;
  x[1] = r.prefill_tokens_per_s_per_gpu;
  x[2] = r.ttft_s;
  x[3] = r.tpot_s;
  x[4] = r.output_tokens_per_s_per_gpu;
  x[5] = r.usd_per_m_output;
  x[6] = r.batch;
  x[7] = r.max_batch;
  x[8] = r.kv_gb_per_seq;
  x[9] = r.memory.total_gb;
  x[10] = r.step.total;
  x[11] = r.step.attn;
  x[12] = r.step.dense;
  x[13] = r.step.expert;
  x[14] = r.step.tp;
  x[15] = r.step.ep;
  return POD_OK;
}

const pod_kernel pod_serve_kernel = {
    "serve", sizeof(pod_serve_cfg),
    (int)(sizeof metric_names / sizeof metric_names[0]), metric_names,
    kernel_fn};
