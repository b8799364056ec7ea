/*
** l_trace_kernels.c: the traced podsim calls' side of each kernel and spec
** constructor (l_trace_int.h): the binding's reader, the kernel function
** a blob runs per sample, the result fields checked against the
** binding's own result table, and which faster form a call's blob takes
** (a checked system, a prepared collective, training step or reliability
** call, a screened spec) from its template and patches.
*/
#include <lauxlib.h>
#include <stddef.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "l_trace_int.h"
#include "lpod.h"
#include "pod_graph.h"
#include "pod_hw.h"
#include "pod_model.h"

/* ---------------------------------------------------------------------- */
/* traced lpod_trace__calls: readers, kernels, result fields */
/* ---------------------------------------------------------------------- */
/* A kernel's result region in blob b of config type T. */
#define OUT(b, T) ((void *)((char *)(b) + RES_OFF(T)))
/* collective */
static void rd_coll(lua_State *L, void *c) {
  lpod_coll_read(L, -1, c);
}
static int fn_coll(void *b, pod_err *e) {
  return lpod_coll_eval(b, OUT(b, pod_coll_cfg), e);
}
/* The same when the config's system is a checked spec's, byte for byte
** (see system_is_checked): the system is not validated again. */
static int fn_coll_checked(void *b, pod_err *e) {
  pod_coll_cfg *c = b;
  pod_coll_result *r = OUT(b, pod_coll_cfg);
  int rc = pod_coll_eval_checked(&c->system, c->op, &c->args, r, e);
  if (rc != POD_OK && e->field[0] == '\0')
    pod_err_set(e, rc, "", "%s", pod_strerror(rc));
  return rc;
}
/* The same when every patch writes a field the prepared collective lets
** vary per sample (see coll_prepared): prepared once when traced, its
** prep follows the result and is read, never restored. */
typedef struct coll_out {
  pod_coll_result r;
  pod_coll_prep prep;
} coll_out;
#define COLL_OUT(b) ((coll_out *)OUT(b, pod_coll_cfg))
static int fn_coll_prepared(void *b, pod_err *e) {
  pod_coll_cfg *c = b;
  coll_out *o = COLL_OUT(b);
  int rc =
      pod_coll_eval_prepared(&o->prep, &c->system, c->args.bytes, &o->r, e);
  if (rc != POD_OK && e->field[0] == '\0')
    pod_err_set(e, rc, "", "%s", pod_strerror(rc));
  return rc;
}
/* Is the checked-system collective t0 an `auto` one that prepares, with
** every patch a double of a system field pod_coll_prep_varies lets vary,
** or the bytes when the prep times any bytes?  Then its prep goes into
** the blob.  The system's values per sample are a checked spec's
** (fn_coll_checked's condition), which pod_coll_eval_prepared needs. */
static int coll_prepared(unsigned char *t0, const pod_gpatch *patches, int np) {
  pod_coll_cfg c;
  memcpy(&c, t0, sizeof c);
  pod_coll_prep *prep = &COLL_OUT(t0)->prep;
  if (c.args.algo != POD_ALGO_AUTO ||
      pod_coll_prepare(&c.system, c.op, c.args.ranks, c.args.ranks_per_domain,
                       c.args.bytes, prep, NULL) != POD_OK)
    return 0;
  const size_t sys0 = offsetof(pod_coll_cfg, system);
  const size_t bytes = offsetof(pod_coll_cfg, args.bytes);
  int ok = 1;
  for (int i = 0; i < np && ok; i++) {
    const pod_gpatch *p = &patches[i];
    if (p->kind != POD_GP_DOUBLE && p->kind != POD_GP_LOG10)
      ok = 0;
    else if (p->offset == bytes)
      ok = pod_coll_prep_any_bytes(prep);
    else
      ok = p->offset >= sys0 && p->offset - sys0 < sizeof(pod_system) &&
           pod_coll_prep_varies(prep, p->offset - sys0);
  }
  if (!ok) memset(prep, 0, sizeof *prep);
  return ok;
}
#define CR(f) \
  { #f, TR_DOUBLE, 1, offsetof(pod_coll_result, f), NULL }
static const tres res_coll[] = {CR(time_s),
                                CR(algbw_GBps),
                                CR(busbw_GBps),
                                {"algo", TR_STOP, 1, 0, NULL},
                                {NULL, 0, 0, 0, NULL}};

/* train */
static void rd_train(lua_State *L, void *c) {
  lpod_train_read(L, c);
}
/* A train blob: the config, the prepared figures (fn_train_prepared), the
** result.  The prep lies before the result region, so a sample neither
** patches nor restores it: it is made once at trace time and read. */
typedef struct train_in {
  pod_train_cfg c;
  pod_train_prep prep;
} train_in;
static int fn_train(void *b, pod_err *e) {
  return pod_train_eval(b, OUT(b, train_in), e);
}
/* The same when the config's system and model are checked specs' bytes
** (see lpod_trace__spec_is_checked): those two are not validated again. */
static int fn_train_checked(void *b, pod_err *e) {
  return pod_train_eval_specs_checked(b, OUT(b, train_in), e);
}
/* The same when every patch writes a sampled field (see train_prepared):
** the config is prepared once when traced. */
static int fn_train_prepared(void *b, pod_err *e) {
  return pod_train_eval_prepared(b, &((train_in *)b)->prep, OUT(b, train_in),
                                 e);
}
/* Does every patch of the train config t0 write one of the fields a
** prepared config samples (pod_train_prep_sampled), and does t0 prepare?
** Then the prepared figures go into the blob. */
static int train_prepared(unsigned char *t0, const pod_gpatch *patches,
                          int np) {
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    size_t w = p->kind == POD_GP_INT     ? sizeof(int)
               : p->kind == POD_GP_BYTES ? p->size
                                         : sizeof(double);
    if (!pod_train_prep_sampled(p->offset, w)) return 0;
  }
  pod_train_cfg c;
  memcpy(&c, t0, sizeof c);
  return pod_train_prepare(&c, &((train_in *)t0)->prep, NULL) == POD_OK;
}
#define TD(n, f) \
  { n, TR_DOUBLE, 1, offsetof(pod_train_result, f), NULL }
#define TI(n, f) \
  { n, TR_INT, 1, offsetof(pod_train_result, f), NULL }
static const tres res_train_mem[] = {
    TD("weights_gb", memory.weights_gb),
    TD("grads_gb", memory.grads_gb),
    TD("optimizer_gb", memory.optimizer_gb),
    TD("activations_gb", memory.activations_gb),
    TD("reserve_gb", memory.reserve_gb),
    TD("total_gb", memory.total_gb),
    TD("host_gb", memory.host_gb),
    {NULL, 0, 0, 0, NULL}};
static const tres res_train_bd[] = {TD("compute", breakdown.compute),
                                    TD("tp", breakdown.tp),
                                    TD("cp", breakdown.cp),
                                    TD("ep", breakdown.ep),
                                    TD("pp", breakdown.pp),
                                    TD("dp", breakdown.dp),
                                    TD("bubble", breakdown.bubble),
                                    TD("optimizer", breakdown.optimizer),
                                    TD("straggler", breakdown.straggler),
                                    TD("host", breakdown.host),
                                    {NULL, 0, 0, 0, NULL}};
static const tres res_train[] = {
    TD("step_s", step_s),
    TD("tokens_per_s", tokens_per_s),
    TD("tokens_per_s_per_gpu", tokens_per_s_per_gpu),
    TD("tflops_per_gpu", tflops_per_gpu),
    TD("mfu", mfu),
    TD("peak_tflops", peak_tflops),
    TD("flops_per_token", flops_per_token),
    TD("memory_gb", memory.total_gb),
    {"fits", TR_STOP, 1, 0, NULL},
    TD("eff_gemm", eff_gemm),
    TD("eff_attn", eff_attn),
    TD("clock", clock),
    TI("microbatches", microbatches),
    TI("dp", dp),
    TI("edp", edp),
    {"memory", TR_SUB, 1, 0, res_train_mem},
    {"breakdown", TR_SUB, 1, 0, res_train_bd},
    {"config", TR_STOP, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL}};

/* reliability */
static void rd_rel(lua_State *L, void *c) {
  lpod_rel_read(L, c);
}
static int fn_rel(void *b, pod_err *e) {
  return pod_rel_eval(b, OUT(b, pod_rel_cfg), e);
}
/* The same when no patch writes the failure list (see rel_constant): its
** sums and shape (pod_rel_prepare_cfg) follow the result, made once. */
typedef struct rel_out {
  pod_rel_result r;
  pod_rel_prep prep;
} rel_out;
#define REL_OUT(b) ((rel_out *)OUT(b, pod_rel_cfg))
static int fn_rel_prepared(void *b, pod_err *e) {
  return pod_rel_eval_prepared(b, &REL_OUT(b)->prep, &REL_OUT(b)->r, e);
}
/* Two lanes of fn_rel_prepared at once (every lane holds the node's prep) */
static int fn_rel_prepared2(void *a, void *b, int *failed, pod_err *e) {
  return pod_rel_eval_prepared2(a, b, &REL_OUT(a)->prep, &REL_OUT(a)->r,
                                &REL_OUT(b)->r, failed, e);
}
/* Is the failure list of the rel config t0 constant (no patch writes a
** byte of it) and valid at the probe?  Then its sums go into the blob. */
static int rel_constant(unsigned char *t0, const pod_gpatch *patches, int np) {
  if (pod_graph_patches_write(patches, np, offsetof(pod_rel_cfg, failures),
                              sizeof(pod_rel_failures)))
    return 0;
  pod_rel_cfg c;
  memcpy(&c, t0, sizeof c);
  if (pod_rel_check(&c, NULL) != POD_OK) return 0;
  pod_rel_prepare_cfg(&c, &REL_OUT(t0)->prep);
  return 1;
}
#define RD(f) \
  { #f, TR_DOUBLE, 1, offsetof(pod_rel_result, f), NULL }
#define RI(f) \
  { #f, TR_INT, 1, offsetof(pod_rel_result, f), NULL }
static const tres res_rel[] = {
    RD(interruptions_per_day),
    RD(job_mtbf_h),
    RD(rate_per_h),
    RD(per_gpu_hour),
    RD(hw_fraction),
    RD(checkpoint_interval_s),
    RD(p_no_spare),
    RD(down_s),
    RD(goodput),
    RD(waste),
    RD(work_h),
    RD(wall_h),
    RD(interruptions),
    RD(wait_h),
    RI(nodes),
    RI(domains),
    {"gpus", TR_INT, 0, offsetof(pod_rel_cfg, active_gpus), NULL},
    RI(spare_gpus),
    RD(spare_fraction),
    RD(gpu_hours),
    RD(gpu_hours_charged),
    {"waste_model", TR_CONST, 0, 0, NULL},
    {NULL, 0, 0, 0, NULL}};

/* cost */
static void rd_cost(lua_State *L, void *c) {
  lpod_cost_read(L, c);
}
static int fn_cost(void *b, pod_err *e) {
  return pod_cost_eval(b, OUT(b, pod_cost_cfg), e);
}
#define KD(n, f) \
  { n, TR_DOUBLE, 1, offsetof(pod_cost_result, f), NULL }
static const tres res_cost_parts[] = {KD("capital_usd", price.capital_usd),
                                      KD("energy_usd", price.energy_usd),
                                      KD("hosting_usd", price.hosting_usd),
                                      KD("ops_usd", price.ops_usd),
                                      {NULL, 0, 0, 0, NULL}};
static const tres res_cost[] = {
    KD("usd_per_gpu_hour", price.usd_per_gpu_hour),
    {"usd_per_gpu_hour_parts", TR_SUB, 1, 0, res_cost_parts},
    KD("tokens_per_s", tokens_per_s),
    {"tokens_per_s_per_gpu", TR_DOUBLE, 0,
     offsetof(pod_cost_cfg, tokens_per_s_per_gpu), NULL},
    KD("usd_per_m_tokens", usd_per_m_tokens),
    KD("usd_per_m_tokens_excluded", usd_per_m_tokens),
    KD("usd_per_m_tokens_charged", usd_per_m_tokens_charged),
    KD("usd_per_step", usd_per_step),
    KD("usd_per_step_charged", usd_per_step_charged),
    KD("train_h", train_h),
    KD("gpu_hours", gpu_hours),
    KD("gpu_hours_charged", gpu_hours_charged),
    KD("usd_total", usd_total),
    KD("usd_total_excluded", usd_total),
    KD("usd_total_charged", usd_total_charged),
    KD("spare_fraction", spare_fraction),
    {"goodput", TR_DOUBLE, 0, offsetof(pod_cost_cfg, goodput), NULL},
    {"gpus", TR_INT, 0, offsetof(pod_cost_cfg, active_gpus), NULL},
    {"spare_gpus", TR_INT, 0, offsetof(pod_cost_cfg, spare_gpus), NULL},
    {NULL, 0, 0, 0, NULL}};

/* spec constructors: lpod_build as l_new / l_model do */
static void rd_system(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.system", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_system_type, c, NULL);
}
static void rd_gpu(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.gpu", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_gpu_type, c, NULL);
}
static void rd_model(lua_State *L, void *c) {
  if (!lua_istable(L, 1))
    lpod_error(L, "podsim.model", NULL, "expected a table of fields, got %s",
               luaL_typename(L, 1));
  lpod_build(L, 1, &lpod_model_type, c, NULL);
}
#define KCALL(nm, key, T, R, rd, fn, res)                         \
  {                                                               \
    nm, key, &lpod_##T##_type, sizeof(pod_##T), RES_OFF(pod_##T), \
        RES_OFF(pod_##T) + sizeof(R), rd, fn, res, NULL           \
  }
#define SCALL(nm, key, T, st, rd, fn) \
  { nm, key, &st, sizeof(T), sizeof(T), sizeof(T), rd, fn, NULL, &st }
const tcall lpod_trace__calls[] = {
    KCALL("podsim.collective", "collective", coll_cfg, coll_out, rd_coll,
          fn_coll, res_coll),
    {"podsim.train", "train", &lpod_train_cfg_type, sizeof(pod_train_cfg),
     RES_OFF(train_in), RES_OFF(train_in) + sizeof(pod_train_result), rd_train,
     fn_train, res_train, NULL},
    KCALL("podsim.reliability", "reliability", rel_cfg, rel_out, rd_rel, fn_rel,
          res_rel),
    KCALL("podsim.cost", "cost", cost_cfg, pod_cost_result, rd_cost, fn_cost,
          res_cost),
    SCALL("podsim.system", "system", pod_system, lpod_system_type, rd_system,
          lpod_trace__fn_system),
    SCALL("podsim.gpu", "gpu", pod_gpu, lpod_gpu_type, rd_gpu,
          lpod_trace__fn_gpu),
    SCALL("podsim.model", "model", pod_model, lpod_model_type, rd_model,
          lpod_trace__fn_model),
    {NULL, NULL, NULL, 0, 0, 0, NULL, NULL, NULL, NULL}};

/* podsim functions that cannot take a tracing value */
const char *const lpod_trace__untraced[] = {
    "simulate_run", "search", "model_params", "model_flops", "failure_set",
    "failure_list", NULL};

/* l_trace_int.h */
void lpod_trace__kernel_fn(const tcall *tc, const pod_graph *g,
                           unsigned char *t0, const pod_gpatch *patches, int np,
                           pod_gblob_spec *bs) {
  bs->fn = tc->fn;
  bs->out_off = tc->res_off; /* kernels write their result after the config */
  /* the train, reliability and cost kernels store their result whole on
  ** success (eval_step's *r = RESULT_ZERO, rel_eval's and pod_cost_eval's
  ** *out = r) */
  bs->out_full = tc->fn == fn_train || tc->fn == fn_rel || tc->fn == fn_cost;
  if (tc->fn == fn_coll && lpod_trace__spec_is_checked(
                               g, patches, np, offsetof(pod_coll_cfg, system),
                               sizeof(pod_system), lpod_trace__fn_system))
    bs->fn = fn_coll_checked;
  /* a collective's prep follows its result (coll_out): a constant read,
  ** not restored per sample, and zero (unread) unless prepared */
  if (tc->fn == fn_coll) bs->out_end = tc->res_off + offsetof(coll_out, prep);
  if (bs->fn == fn_coll_checked && coll_prepared(t0, patches, np))
    bs->fn = fn_coll_prepared;
  if (tc->fn == fn_train && lpod_trace__train_specs_checked(g, t0, patches, np))
    bs->fn = fn_train_checked;
  /* a prepared train kernel's figures lie before its result (train_in),
  ** outside the restored region; a prepared reliability kernel reads its
  ** figures after its result and never writes them: they stay in the
  ** workspace, not restored per sample */
  if (bs->fn == fn_train_checked && train_prepared(t0, patches, np))
    bs->fn = fn_train_prepared;
  if (tc->fn == fn_rel && rel_constant(t0, patches, np)) {
    bs->fn = fn_rel_prepared;
    bs->fn2 = fn_rel_prepared2;
    bs->out_end = tc->res_off + offsetof(rel_out, prep);
  }
  if (tc->fn == lpod_trace__fn_system &&
      lpod_trace__system_screened(t0, patches, np))
    bs->fn = lpod_trace__fn_system_screened;
  if (tc->fn == lpod_trace__fn_model &&
      lpod_trace__model_screened(t0, patches, np))
    bs->fn = lpod_trace__fn_model_screened;
}
