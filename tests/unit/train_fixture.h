/*
** train_fixture.h: models and training configs shared by the model,
** train and search unit tests (include after <cmocka.h> and
** "pod_train.h").
**   tiny_model()  a 2-layer dense GQA model whose parameter, FLOP and
**                 memory counts the tests work out by hand;
**   train_cfg()   a training config from a system and a model preset,
**                 with the default layout;
**   preset_cfg()  the same with a given layout;
**   train_eval_ok() pod_train_eval that fails the test, naming the
**                 field, when the config is refused.
*/
#ifndef POD_TEST_TRAIN_FIXTURE_H
#define POD_TEST_TRAIN_FIXTURE_H

#include <string.h>

static inline pod_model tiny_model(void) {
  pod_model m;
  memset(&m, 0, sizeof m);
  strcpy(m.name, "tiny");
  m.layers = 2;
  m.hidden = 64;
  m.ffn = 128;
  m.heads = 4;
  m.kv_heads = 2;
  m.head_dim = 16;
  m.vocab = 100;
  m.attn = POD_ATTN_GQA;
  m.gated_mlp = 1;
  m.moe_interval = 1;
  m.imbalance = 1.0;
  return m;
}

#ifdef POD_TRAIN_H
static inline pod_train_cfg train_cfg(const char *sys, const char *model,
                                      int gpus, int seq, int gbs,
                                      pod_dtype dt) {
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset(sys, &c.system), POD_OK);
  assert_int_equal(pod_model_preset(model, &c.model), POD_OK);
  c.gpus = gpus;
  c.seq = seq;
  c.global_batch = gbs;
  c.dtype = dt;
  return c;
}

/* The tiny dense model on 2 H100: dp 2, tp = pp = 1, 2 micro-batches of
** 32 tokens, 2 layers, bf16 (the hand-worked cases of test_train_sw.c and
** test_train_offload.c). */
static inline pod_train_cfg tiny_h100_cfg(void) {
  pod_train_cfg c;
  pod_train_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset("hgx_h100", &c.system), POD_OK);
  c.model = tiny_model();
  c.gpus = 2;
  c.seq = 32;
  c.global_batch = 4;
  return c;
}

static inline pod_train_cfg preset_cfg(const char *sys, const char *model,
                                       int gpus, int seq, int gbs, pod_dtype dt,
                                       pod_layout l) {
  pod_train_cfg c = train_cfg(sys, model, gpus, seq, gbs, dt);
  c.parallel = l;
  return c;
}

static inline pod_train_result train_eval_ok(const pod_train_cfg *c) {
  pod_train_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_train_eval(c, &r, &e);
  if (rc != POD_OK) {
    print_error("%s: %s\n", e.field, e.msg);
    fail();
  }
  return r;
}

#endif

#endif
