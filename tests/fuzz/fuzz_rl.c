/*
** fuzz_rl.c: pod_rl_eval and the RL kernel on arbitrary configs: preset
** systems and a preset model for the rollout and the trainer, a placement,
** instance and pool sizes, then fields overwritten with values in range,
** at the edges, non-finite or arbitrary bits: the rollout's serving config
** and the trainer's config (through their Lua type tables), the
** reliability config, and the RL config's own fields (through its core
** bound table, pod_rl_cfg_fields, and the response length's).
** Properties: no crash or UB; a non-finite input is never accepted; POD_OK
** means every number of the result (the nested training and serving
** results included) is finite and not negative, the step, its rollout and
** training parts and the generated tokens positive, goodput in (0, 1];
** the kernel agrees with pod_rl_eval; an error has a message.  The rest of
** the input, if any, drives a paired comparison (pod_rl_pair_eval).
*/
#include <gsl/gsl_errno.h>
#include <stddef.h>
#include <string.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_field.h"
#include "pod_rl.h"

extern const lpod_type lpod_serve_cfg_type, lpod_train_cfg_type,
    lpod_rel_cfg_type;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The fields of a core bound table at `base`, as fz_collect gives them. */
static void collect_table(fz_fields *out, const pod_field *t, size_t base,
                          const char *prefix) {
  for (; t->name && out->n < 256; t++) {
    if (t->type != POD_F_DOUBLE && t->type != POD_F_INT &&
        t->type != POD_F_BOOL)
      continue;
    fz_field *z = &out->f[out->n++];
    snprintf(z->name, sizeof z->name, "%s%s", prefix, t->name);
    z->offset = base + t->offset;
    z->type = t->type == POD_F_DOUBLE ? LPOD_DOUBLE
              : t->type == POD_F_INT  ? LPOD_INT
                                      : LPOD_BOOL;
    z->min = t->min;
    z->max = t->max;
    z->nnames = 0;
  }
}

static void add_enum(fz_fields *out, const char *name, size_t offset,
                     int nnames) {
  fz_field *z = &out->f[out->n++];
  snprintf(z->name, sizeof z->name, "%s", name);
  z->offset = offset;
  z->type = LPOD_ENUM;
  z->min = z->max = 0.0;
  z->nnames = nnames;
}

/* The first non-finite double of the config that pod_rl_eval reads (the
** rollout's lengths and the reliability's work are set per step). */
static const char *nonfinite(const fz_fields *fs, int n, const void *cfg) {
  static const char *const unread[] = {
      "rollout.input_tokens", "rollout.output_tokens", "reliability.work_h",
      "reliability.tokens", "reliability.tokens_per_s"};
  for (int g = 0; g < n; g++)
    for (int i = 0; i < fs[g].n; i++) {
      const fz_field *z = &fs[g].f[i];
      if (z->type != LPOD_DOUBLE) continue;
      int skip = 0;
      for (size_t k = 0; k < sizeof unread / sizeof unread[0]; k++)
        skip |= strcmp(z->name, unread[k]) == 0;
      double d;
      memcpy(&d, (const char *)cfg + z->offset, sizeof d);
      if (!skip && !isfinite(d)) return z->name;
    }
  return NULL;
}

static void check_result(const pod_rl_result *r) {
  const double v[] = {r->step_s,
                      r->rollout_s,
                      r->tail_s,
                      r->split_s,
                      r->score_s,
                      r->train_s,
                      r->sync_s,
                      r->idle_s,
                      r->sequences,
                      r->mean_response,
                      r->max_response,
                      r->generated_tokens,
                      r->sync_bytes,
                      r->gpu_hours_per_step,
                      r->usd_per_step,
                      r->usd_per_m_tokens,
                      r->usd_per_m_tokens_charged,
                      r->rollout_util,
                      r->train_util,
                      r->goodput,
                      r->rollout_tokens_per_s_per_gpu,
                      r->train.step_s,
                      r->train.tokens_per_s_per_gpu,
                      r->train.memory.total_gb,
                      r->serve.tpot_s,
                      r->serve.decode_tokens_per_s,
                      r->serve.step.total};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (!isfinite(v[i]) || v[i] < 0)
      FZ_FAIL("pod_rl_eval: POD_OK with result value %zu = %g", i, v[i]);
  const double pos[] = {r->step_s, r->rollout_s, r->train_s,
                        r->generated_tokens, r->mean_response};
  for (size_t i = 0; i < sizeof pos / sizeof pos[0]; i++)
    if (!(pos[i] > 0))
      FZ_FAIL("pod_rl_eval: POD_OK with positive value %zu = %g", i, pos[i]);
  if (!(r->goodput > 0 && r->goodput <= 1))
    FZ_FAIL("pod_rl_eval: POD_OK with goodput %g", r->goodput);
  if (r->instances < 1 || r->total_gpus < 1 || r->rollout_batch < 1)
    FZ_FAIL("pod_rl_eval: POD_OK with %d instances, %d GPUs, batch %d",
            r->instances, r->total_gpus, r->rollout_batch);
}

/* The paired comparison (rl_pair.c): side a the config, side b the same
** workload on another preset system, the shared overrides mutated; RL or
** pre-training.  POD_OK: both costs, steps and rates finite and positive,
** goodputs in (0, 1], the ratio cost_a / cost_b; the kernel agrees. */
static void pair(fz *f, const pod_rl_cfg *c, int nsys) {
  static fz_fields fp;
  if (fp.n == 0) collect_table(&fp, pod_rl_pair_fields, 0, "");
  pod_rl_pair_cfg p;
  pod_rl_pair_cfg_init(&p);
  p.a = *c;
  p.b = *c;
  p.b.train.system = *pod_hw_system_at(fz_u8(f) % nsys, NULL);
  p.b.rollout.system = p.b.train.system;
  p.pretrain = fz_u8(f) & 1;
  int nmut = fz_u8(f) % 4;
  for (int i = 0; i < nmut && f->n > 0; i++) fz_mutate(f, &fp, &p);
  pod_rl_pair_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_rl_pair_eval(&p, &r, &e);
  if (rc != POD_OK) {
    if (e.msg[0] == '\0')
      FZ_FAIL("pod_rl_pair_eval: status %d without a message", rc);
  } else {
    const char *bad = fz_nonfinite(&fp, &p);
    if (bad) FZ_FAIL("pod_rl_pair_eval accepted a non-finite %s", bad);
    const double v[] = {r.cost_a,
                        r.cost_b,
                        r.ratio,
                        r.step_a,
                        r.step_b,
                        r.tokens_per_s_per_gpu_a,
                        r.tokens_per_s_per_gpu_b};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
      if (!isfinite(v[i]) || !(v[i] > 0))
        FZ_FAIL("pod_rl_pair_eval: POD_OK with value %zu = %g", i, v[i]);
    if (!(r.goodput_a > 0 && r.goodput_a <= 1 && r.goodput_b > 0 &&
          r.goodput_b <= 1))
      FZ_FAIL("pod_rl_pair_eval: goodputs %g, %g", r.goodput_a, r.goodput_b);
    if (r.ratio != r.cost_a / r.cost_b)
      FZ_FAIL("pod_rl_pair_eval: ratio %g, costs %g / %g", r.ratio, r.cost_a,
              r.cost_b);
  }
  double m[64];
  pod_err_clear(&e);
  int rk = pod_rl_pair_kernel.fn(&p, m, &e);
  if (rk != rc) FZ_FAIL("pair kernel status %d, eval status %d", rk, rc);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* groups: rollout, train, reliability, the RL config's own */
  static fz_fields fs[4];
  static int nsys, nmod;
  if (fs[0].n == 0) {
    pod_init();
    fz_collect(&fs[0], &lpod_serve_cfg_type, offsetof(pod_rl_cfg, rollout),
               "rollout");
    fz_collect(&fs[1], &lpod_train_cfg_type, offsetof(pod_rl_cfg, train),
               "train");
    fz_collect(&fs[2], &lpod_rel_cfg_type, offsetof(pod_rl_cfg, rel),
               "reliability");
    collect_table(&fs[3], pod_rl_cfg_fields, 0, "");
    collect_table(&fs[3], pod_rl_length_fields, offsetof(pod_rl_cfg, response),
                  "response.");
    add_enum(&fs[3], "placement", offsetof(pod_rl_cfg, placement), 2);
    add_enum(&fs[3], "sync_method", offsetof(pod_rl_cfg, sync_method), 2);
    add_enum(&fs[3], "response.kind", offsetof(pod_rl_cfg, response.kind), 12);
    while (pod_hw_system_at(nsys, NULL)) nsys++;
    while (pod_model_at(nmod, NULL)) nmod++;
  }
  static const int inst[] = {1, 2, 4, 8, 16, 32, 64, 72};
  static const int train_gpus[] = {8, 16, 32, 64, 72, 128, 256, 1024};
  fz f = {data, size};
  pod_rl_cfg c;
  pod_rl_cfg_init(&c);
  c.train.system = *pod_hw_system_at(fz_u8(&f) % nsys, NULL);
  c.train.model = *pod_model_at(fz_u8(&f) % nmod, NULL);
  c.rollout.system = c.train.system;
  c.rollout.model = c.train.model;
  c.train.gpus = train_gpus[fz_u8(&f) % 8];
  c.rollout.gpus = inst[fz_u8(&f) % 8];
  uint8_t lay = fz_u8(&f);
  c.train.parallel.tp = 1 << (lay & 3);
  c.train.parallel.pp = 1 << ((lay >> 2) & 3);
  c.rollout.parallel.tp = 1 << ((lay >> 4) & 3);
  if (lay & 0x40) {
    c.placement = POD_RL_DISAGGREGATED;
    c.rollout_gpus = c.rollout.gpus * (1 + fz_u8(&f) % 4);
    c.rollout.system = *pod_hw_system_at(fz_u8(&f) % nsys, NULL);
    c.async = fz_u8(&f) & 1;
  }
  c.prompts = 1 + fz_u8(&f);
  c.samples = 1 + fz_u8(&f) % 16;
  int nmut = fz_u8(&f) % 8;
  for (int i = 0; i < nmut && f.n > 0; i++)
    fz_mutate(&f, &fs[fz_u8(&f) % 4], &c);

  pod_rl_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_rl_eval(&c, &r, &e);
  const char *bad = nonfinite(fs, 4, &c);
  if (rc == POD_OK) {
    if (bad) FZ_FAIL("pod_rl_eval accepted a non-finite %s", bad);
    check_result(&r);
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("pod_rl_eval: status %d without a message", rc);
  }
  double m[64];
  pod_err e2;
  pod_err_clear(&e2);
  int rk = pod_rl_kernel.fn(&c, m, &e2);
  if (rk != rc) FZ_FAIL("kernel status %d, eval status %d", rk, rc);
  if (rk == POD_OK)
    for (int i = 0; i < pod_rl_kernel.nmetrics; i++)
      if (!isfinite(m[i]))
        FZ_FAIL("kernel metric %s = %g", pod_rl_kernel.metric_names[i], m[i]);
  if (f.n > 0) pair(&f, &c, nsys);
  return 0;
}
