/*
** serve_check.c: the checks of a serving config (pod_serve_check): the
** bounds of every numeric field (the core tables pod_serve_*_fields, the
** one home of each range, read by the Lua bindings too), the rules
** across fields, and the layout resolution both the check and the model
** use (pod_serve__resolve, serve_int.h).
*/
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "pod_field.h"
#include "pod_serve.h"
#include "pod_train.h"
#include "serve_int.h"

#define FAIL(field, ...) pod_err_set(err, POD_EINVAL, field, __VA_ARGS__)

/* Fail with the field `pre` + `name` (formatted on the error path only). */
#define FAILP(name, ...)                                  \
  do {                                                    \
    char f_[POD_ERR_FIELD_MAX];                           \
    snprintf(f_, sizeof f_, "%s%s", pre, name);           \
    return pod_err_set(err, POD_EINVAL, f_, __VA_ARGS__); \
  } while (0)

int pod_serve__resolve(const pod_model *m, int n, const pod_serve_par *p,
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
  /* tp <= 2^16 and pp <= 2^16: their product and dp_attn's (<= 2^20) in
  ** long, bounded by the GPUs before any int product (in int, tp = pp =
  ** 2^16 wrapped to 0, a zero divisor) */
  long tpp = (long)o->tp * o->pp;
  if (tpp > n || n % tpp != 0)
    FAILP("pp", "tp x pp = %ld does not divide %d GPUs", tpp, n);
  int stage = n / o->pp;
  o->dp = p->dp_attn > 0 ? p->dp_attn : stage / o->tp;
  if ((long)o->dp * o->tp != stage)
    FAILP("dp_attn", "tp x dp_attn = %ld must equal the %d GPUs of a stage",
          (long)o->dp * o->tp, stage);
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
  X(BOOL, single_batch_overlap, 0, 1, 0, "combine under the down GEMM")      \
  X(DOUBLE, eff_gemm, -1, 1, 0, "fraction of peak (<= 0: table)")            \
  X(DOUBLE, eff_attn, 0, 1, 0, "fraction of peak (0: per-generation table)") \
  X(DOUBLE, eff_hbm, 0, 1, POD_F_MIN_OPEN, "fraction of HBM bandwidth")      \
  X(DOUBLE, overlap, 0, 1, 0, "share hidden by two-batch overlap")           \
  X(DOUBLE, ep_ll_us, 0, 1e6, 0, "us per low-latency dispatch")              \
  X(DOUBLE, ep_ll_up_us, 0, 1e6, 0, "us, all peers on NVLink")               \
  X(DOUBLE, ep_cast_us, 0, 1e6, 0, "us per token per SM, NVFP4 cast")        \
  X(DOUBLE, layer_us, -1, 1e6, 0, "us per layer per pass (< 0: counted)")    \
  X(DOUBLE, kernel_us, 0, 1e3, 0, "us per kernel boundary in a graph")       \
  X(DOUBLE, mem_reserve_gb, 0, 1e6, 0, "GB")                                 \
  X(DOUBLE, kv_frac, 0, 1, POD_F_MIN_OPEN, "share of free HBM for KV")       \
  X(DOUBLE, host_GBps, 0, 1e6, 0, "GB/s host link for offload (0: none)")    \
  X(DOUBLE, ep_sms, 0, 100, 0, "SMs held by DeepEP normal kernels")          \
  X(DOUBLE, expert_cv, 0, 10, 0, "per-batch expert load drift")              \
  X(DOUBLE, host_us, 0, 1e7, 0, "us of host work per decode step")           \
  X(BOOL, host_overlap, 0, 1, 0, "host work overlapped with the GPU")        \
  X(DOUBLE, gemm_w_overlap, 0, 1, 0, "share of weight reads hidden")         \
  X(BOOL, fp8_prefill_attn, 0, 1, 0, "fp8 prefill attention (fp8 KV)")
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
    {"experts", 0, POD_F_INT, 1, 1 << 20, 0, "experts (sets the LL SMs)"},
    POD_FIELD_END};

const pod_field pod_serve_ep_row_args[] = {
    {"hidden", 0, POD_F_DOUBLE, 1, 1e9, 0, "elements per token row"},
    {"bytes_per_elem", 0, POD_F_DOUBLE, 0.01, 16, 0, "bytes per element"},
    POD_FIELD_END};

/* Everything pod_serve_check checks beyond the system and the model. */
int pod_serve__check_rest(const pod_serve_cfg *c, pod_err *err) {
  int rc;
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
  if (c->dense_dtype < POD_DTYPE_BF16 || c->dense_dtype > POD_SERVE_DTYPE_SAME)
    return FAIL("dense_dtype", "unknown dtype %d", c->dense_dtype);
  if (c->dense_dtype != POD_SERVE_DTYPE_SAME &&
      pod_train_peak_tflops(&c->system.gpu, (pod_dtype)c->dense_dtype) <= 0.0)
    return FAIL("dense_dtype", "%s has no peak on %s",
                pod_train_dtype_name((pod_dtype)c->dense_dtype),
                c->system.gpu.name);
  lay l;
  if ((rc = pod_serve__resolve(&c->model, c->gpus, &c->parallel,
                               c->redundant_experts, "parallel.", &l, err)))
    return rc;
  if (c->disaggregated) {
    if (c->prefill.gpus < 1)
      return FAIL("prefill.gpus", "must be >= 1 when disaggregated, got %d",
                  c->prefill.gpus);
    if ((rc = pod_serve__resolve(&c->model, c->prefill.gpus,
                                 &c->prefill.parallel, c->redundant_experts,
                                 "prefill.parallel.", &l, err)))
      return rc;
  }
  return POD_OK;
}

int pod_serve_check(const pod_serve_cfg *c, pod_err *err) {
  int rc = pod_hw_system_check(&c->system, err);
  if (rc != POD_OK) return rc;
  if ((rc = pod_model_check(&c->model, err)) != POD_OK) return rc;
  if (c->system.gpu.power_w > 0.0 && c->system.gpu.fp4_tflops > 0.0 &&
      pod_train_sustained_clock(&c->system.gpu) <= 0.0)
    return pod_err_set(err, POD_EINVAL, "system.gpu.power_w",
                       "%g W does not exceed the static power of a Blackwell "
                       "GPU (core/train_sw.c, BLACKWELL_STATIC_W)",
                       c->system.gpu.power_w);
  return pod_serve__check_rest(c, err);
}

/* The result's figures: name, offset, and whether it must be positive. */
#define RES(m, pos) POD_RESULT_FIELD(pod_serve_result, m, pos)
static const pod_result_field RESULT[] = {RES(prefill_tokens_per_s, 1),
                                          RES(prefill_tokens_per_s_per_gpu, 1),
                                          RES(prefill_pass_s, 1),
                                          RES(ttft_s, 1),
                                          RES(kv_transfer_s, 0),
                                          RES(decode_tokens_per_s, 1),
                                          RES(decode_tokens_per_s_per_gpu, 1),
                                          RES(tpot_s, 1),
                                          RES(tokens_per_step, 1),
                                          RES(kv_bytes_per_token, 0),
                                          RES(kv_gb_per_seq, 0),
                                          RES(experts_touched, 0),
                                          RES(clock, 1),
                                          RES(offload_gb, 0),
                                          RES(output_tokens_per_s_per_gpu, 1),
                                          RES(requests_per_s_per_gpu, 1),
                                          RES(prefill_gpu_share, 0),
                                          RES(usd_per_m_output, 0),
                                          RES(memory.weights_gb, 0),
                                          RES(memory.kv_gb, 0),
                                          RES(memory.reserve_gb, 0),
                                          RES(memory.total_gb, 0),
                                          RES(memory.prefill_weights_gb, 0),
                                          RES(step.attn, 0),
                                          RES(step.dense, 0),
                                          RES(step.expert, 0),
                                          RES(step.tp, 0),
                                          RES(step.ep, 0),
                                          RES(step.pp, 0),
                                          RES(step.overhead, 0),
                                          RES(step.act, 0),
                                          RES(step.draft, 0),
                                          RES(step.host, 0),
                                          RES(step.total, 1),
                                          RES(pass.gemm, 0),
                                          RES(pass.attn, 0),
                                          RES(pass.comm, 0),
                                          RES(pass.overhead, 0),
                                          RES(pass.act, 0),
                                          RES(pass.ep_sm, 0),
                                          RES(pass.kv_out, 0),
                                          RES(pass.offload, 0),
                                          RES(pass.total, 1)};
#undef RES

int pod_serve__check_result(const pod_serve_result *o, pod_err *err) {
  return pod_field_check_result(RESULT, sizeof RESULT / sizeof RESULT[0], o,
                                err);
}
