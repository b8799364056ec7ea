/*
** test_model.c: model presets, checks, parameter and FLOP counts
** (core/model.c).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_model.h"
#include "near.h"
#include "train_fixture.h"

static void test_presets_valid(void **state) {
  (void)state;
  int n = 0;
  const char *src = NULL;
  for (const pod_model *m; (m = pod_model_at(n, &src)) != NULL; n++) {
    pod_err e;
    pod_err_clear(&e);
    assert_int_equal(pod_model_check(m, &e), POD_OK);
    assert_non_null(src);
    assert_true(strlen(src) > 20);
    pod_model copy;
    assert_int_equal(pod_model_preset(m->name, &copy), POD_OK);
    assert_memory_equal(&copy, m, sizeof copy);
  }
  assert_int_equal(n, 9); /* seven of DESIGN.md 5, two Qwen3 MoE */
  assert_null(pod_model_at(-1, NULL));
  pod_model x;
  assert_int_equal(pod_model_preset("llama5", &x), POD_ENOENT);
}

/* Published totals: Meta model cards (8.03B, 70.6B, 405B), Llama 4 blog
** (400B / 17B), DeepSeek-V3 report (671B main / 37B active; the HF repo's
** 685B adds the 14B MTP module incl. its copies of embedding and head),
** Mixtral paper (46.7B / 12.9B), GPT-3 paper (175B). */
static void test_preset_params_published(void **state) {
  (void)state;
  struct {
    const char *name;
    double total, active;
  } want[] = {
      {"llama3_8b", 8.03e9, 8.03e9}, {"llama3_70b", 70.6e9, 70.6e9},
      {"llama3_405b", 405e9, 405e9}, {"llama4_maverick", 400e9, 17e9},
      {"deepseek_v3", 671e9, 37e9},  {"mixtral_8x7b", 46.7e9, 12.9e9},
      {"gpt3_175b", 175e9, 175e9},
  };
  for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
    pod_model m;
    assert_int_equal(pod_model_preset(want[i].name, &m), POD_OK);
    pod_model_params p;
    pod_model_params_count(&m, &p);
    near_rel(p.total, want[i].total, 0.02);
    near_rel(p.active, want[i].active, 0.02);
  }
  pod_model ds;
  pod_model_preset("deepseek_v3", &ds);
  pod_model_params p;
  pod_model_params_count(&ds, &p);
  /* MTP block without the shared embedding and head: 14B less 2 x 0.93B. */
  near_rel(p.mtp + p.embedding + p.head, 14e9, 0.05);
  assert_int_equal(p.moe_layers, 58);
  pod_model mav;
  pod_model_preset("llama4_maverick", &mav);
  pod_model_params_count(&mav, &p);
  assert_int_equal(p.moe_layers, 24);
  assert_false(pod_model_is_moe_layer(&mav, 0));
  assert_true(pod_model_is_moe_layer(&mav, 1));
  assert_true(pod_model_is_moe_layer(&mav, 47));
  assert_false(pod_model_is_moe_layer(&ds, 2));
  assert_true(pod_model_is_moe_layer(&ds, 3));
}

static void test_tiny_params_by_hand(void **state) {
  (void)state;
  pod_model m = tiny_model();
  assert_int_equal(pod_model_check(&m, NULL), POD_OK);
  pod_model_params p;
  pod_model_params_count(&m, &p);
  /* q 64x64, k and v 64x32, o 64x64, norm 64 */
  assert_true(p.attn_per_layer == 4096 + 2048 + 2048 + 4096 + 64);
  /* gate, up, down 64x128, norm 64 */
  assert_true(p.dense_mlp_per_layer == 3 * 64 * 128 + 64);
  assert_true(p.embedding == 6400 && p.head == 6400);
  assert_true(p.total == 2 * (12352 + 24640) + 6400 + 6400 + 64);
  assert_true(p.active == p.total);
  m.tied_embeddings = 1;
  pod_model_params_count(&m, &p);
  assert_true(p.head == 0 && p.total == 2 * (12352 + 24640) + 6400 + 64);
}

/* pod_model_flops_with_params from the counts of pod_model_params_count
** gives pod_model_flops_per_token's figures bit for bit, every preset,
** causal or not, with and without MTP. */
static void test_flops_with_params(void **state) {
  (void)state;
  int n = 0;
  for (const pod_model *pm; (pm = pod_model_at(n, NULL)) != NULL; n++) {
    for (int variant = 0; variant < 4; variant++) {
      pod_model m = *pm;
      if (variant & 2) m.mtp_layers = m.mtp_layers > 0 ? 0 : 1;
      int causal = variant & 1;
      pod_model_params p;
      pod_model_params_count(&m, &p);
      pod_model_flops a, b;
      memset(&a, 0xff, sizeof a);
      pod_model_flops_per_token(&m, 4096, causal, &a);
      pod_model_flops_with_params(&m, &p, 4096, causal, &b);
      assert_memory_equal(&a, &b, sizeof a);
      assert_true(a.total > 0.0);
    }
  }
  assert_true(n > 0);
}

static void test_tiny_flops_by_hand(void **state) {
  (void)state;
  pod_model m = tiny_model();
  pod_model_flops f;
  pod_model_flops_per_token(&m, 32, 1, &f);
  assert_true(f.gemm_dense == 6.0 * 2 * (12288 + 24576));
  assert_true(f.gemm_expert == 0.0);
  /* 6 s heads (qk + v) per layer, halved: 6*32*4*32/2 = 12288 */
  assert_true(f.attn == 2 * 12288.0);
  assert_true(f.head == 6.0 * 100 * 64);
  assert_true(f.total == 442368.0 + 24576.0 + 38400.0);
  pod_model_flops_per_token(&m, 32, 0, &f);
  assert_true(f.attn == 2 * 24576.0);
  /* Llama 3 70B, full attention, seq 8192: 6 N (no embedding) + 12 L s h
  ** = 4.81e11, the figure behind NVIDIA's T3 MFU (0.381 * 1979e12 /
  ** 1567 tokens/s = 4.81e11). */
  pod_model l70;
  pod_model_preset("llama3_70b", &l70);
  pod_model_flops_per_token(&l70, 8192, 0, &f);
  near_rel(f.total, 0.381 * 1979e12 / 1567, 0.01);
  /* DeepSeek-V3 at seq 4096, causal, with MTP: T6's 1648 TFLOP/s per
  ** 6338 tokens/s = 2.600e11. */
  pod_model ds;
  pod_model_preset("deepseek_v3", &ds);
  pod_model_flops_per_token(&ds, 4096, 1, &f);
  near_rel(f.total, 1648e12 / 6338, 0.01);
  assert_true(f.mtp > 0.0);
}

static void test_moe_by_hand(void **state) {
  (void)state;
  pod_model m = tiny_model();
  m.layers = 3;
  m.experts = 4;
  m.top_k = 2;
  m.expert_ffn = 32;
  m.shared_experts = 1;
  m.dense_layers = 1;
  assert_int_equal(pod_model_check(&m, NULL), POD_OK);
  pod_model_params p;
  pod_model_params_count(&m, &p);
  double expert = 3.0 * 64 * 32;
  assert_int_equal(p.moe_layers, 2);
  assert_true(p.expert == expert);
  assert_true(p.moe_per_layer == 64 * 4 + 64 + expert * 5);
  assert_true(p.layers_expert == 2 * 4 * expert);
  assert_true(p.total - p.active == 2 * 2 * expert);
  pod_model_flops f;
  pod_model_flops_per_token(&m, 16, 1, &f);
  assert_true(f.gemm_expert == 6.0 * 2 * 2 * expert);
  assert_true(f.gemm_dense ==
              6.0 * (3 * 12288 + 24576 + 2 * (64 * 4 + expert)));
}

static void test_mla_and_names(void **state) {
  (void)state;
  pod_model ds;
  pod_model_preset("deepseek_v3", &ds);
  assert_int_equal(pod_model_qk_dim(&ds), 192);
  assert_int_equal(pod_model_v_dim(&ds), 128);
  pod_attn_kind k;
  assert_int_equal(pod_model_attn_parse("mla", &k), POD_OK);
  assert_int_equal(k, POD_ATTN_MLA);
  assert_string_equal(pod_model_attn_name(POD_ATTN_GQA), "gqa");
  assert_int_equal(pod_model_attn_parse("xla", &k), POD_ENOENT);
}

typedef void (*mutate)(pod_model *);
#define MUT(name, body)            \
  static void name(pod_model *m) { \
    body;                          \
  }
MUT(m_layers, m->layers = 0)
MUT(m_hidden, m->hidden = 0)
MUT(m_heads, m->heads = 0)
MUT(m_vocab, m->vocab = 0)
MUT(m_tied, m->tied_embeddings = 2)
MUT(m_gated, m->gated_mlp = -1)
MUT(m_ffn_neg, m->ffn = -1)
MUT(m_ffn_zero, m->ffn = 0)
MUT(m_mtp, m->mtp_layers = -1)
MUT(m_hd, m->head_dim = 0; m->hidden = 66)
MUT(m_hd_neg, m->head_dim = -1)
MUT(m_kv, m->kv_heads = 3)
MUT(m_kv0, m->kv_heads = 0)
MUT(m_mha, m->attn = POD_ATTN_MHA)
MUT(m_attn, m->attn = (pod_attn_kind)7)
MUT(m_mla_kv, m->attn = POD_ATTN_MLA; m->kv_lora = 0)
MUT(m_mla_q, m->attn = POD_ATTN_MLA; m->kv_lora = 8; m->q_lora = -1)
MUT(m_mla_nope, m->attn = POD_ATTN_MLA; m->kv_lora = 8; m->qk_nope = -1)
MUT(m_mla_rope, m->attn = POD_ATTN_MLA; m->kv_lora = 8; m->qk_rope = -1)
MUT(m_mla_qk, m->attn = POD_ATTN_MLA; m->kv_lora = 8; m->v_head = 8)
MUT(m_mla_v, m->attn = POD_ATTN_MLA; m->kv_lora = 8; m->qk_nope = 8)
MUT(m_experts, m->experts = -1)
MUT(m_topk, m->experts = 4; m->top_k = 5; m->expert_ffn = 8)
MUT(m_effn, m->experts = 4; m->top_k = 1; m->expert_ffn = 0)
MUT(m_shared, m->experts = 4; m->top_k = 1; m->expert_ffn = 8;
    m->shared_experts = -1)
MUT(m_dense, m->experts = 4; m->top_k = 1; m->expert_ffn = 8;
    m->dense_layers = 2)
MUT(m_interval, m->experts = 4; m->top_k = 1; m->expert_ffn = 8;
    m->moe_interval = 0)
MUT(m_cap, m->experts = 4; m->top_k = 1; m->expert_ffn = 8;
    m->capacity_factor = NAN)
MUT(m_imb, m->experts = 4; m->top_k = 1; m->expert_ffn = 8; m->imbalance = 0.5)
MUT(m_moe_ffn, m->experts = 4; m->top_k = 1; m->expert_ffn = 8; m->ffn = 0;
    m->dense_layers = 1)
MUT(m_name, memset(m->name, 'x', sizeof m->name))

/* Dimensions beyond the Lua ranges are refused, so sums and products of
** dimensions never overflow (found by fuzzing). */
static void m_hd_big(pod_model *m) {
  m->head_dim = 1 << 30;
}
static void m_vocab_big(pod_model *m) {
  m->vocab = (1 << 28) + 1;
}
static void m_nope_big(pod_model *m) {
  m->qk_nope = 1 << 20;
}
static void m_layers_big(pod_model *m) {
  m->layers = (1 << 20) + 1;
}

static void test_check_errors(void **state) {
  (void)state;
  struct {
    mutate f;
    const char *field;
  } cases[] = {
      {m_layers, "layers"},
      {m_hidden, "hidden"},
      {m_heads, "heads"},
      {m_vocab, "vocab"},
      {m_tied, "tied_embeddings"},
      {m_gated, "gated_mlp"},
      {m_ffn_neg, "ffn"},
      {m_ffn_zero, "ffn"},
      {m_mtp, "mtp_layers"},
      {m_hd, "head_dim"},
      {m_hd_neg, "head_dim"},
      {m_kv, "kv_heads"},
      {m_kv0, "kv_heads"},
      {m_mha, "kv_heads"},
      {m_attn, "attn"},
      {m_mla_kv, "kv_lora"},
      {m_mla_q, "q_lora"},
      {m_mla_nope, "qk_nope"},
      {m_mla_rope, "qk_rope"},
      {m_mla_qk, "qk_nope"},
      {m_mla_v, "v_head"},
      {m_experts, "experts"},
      {m_topk, "top_k"},
      {m_effn, "expert_ffn"},
      {m_shared, "shared_experts"},
      {m_dense, "dense_layers"},
      {m_interval, "moe_interval"},
      {m_cap, "capacity_factor"},
      {m_imb, "imbalance"},
      {m_moe_ffn, "ffn"},
      {m_name, "name"},
      {m_hd_big, "head_dim"},
      {m_vocab_big, "vocab"},
      {m_nope_big, "qk_nope"},
      {m_layers_big, "layers"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pod_model m = tiny_model();
    cases[i].f(&m);
    pod_err e;
    pod_err_clear(&e);
    if (pod_model_check(&m, &e) != POD_EINVAL ||
        strcmp(e.field, cases[i].field) != 0) {
      print_error("case %zu: want %s, got '%s' (%s)\n", i, cases[i].field,
                  e.field, e.msg);
      fail();
    }
    assert_true(strlen(e.msg) > 0);
  }
  /* MLA with qk dims fine passes; m_mla_qk sets v only: valid. */
  pod_model m = tiny_model();
  m_mla_qk(&m);
  m.qk_nope = 8;
  assert_int_equal(pod_model_check(&m, NULL), POD_OK);
  assert_int_equal(pod_model_check(NULL, NULL), POD_EINVAL);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_presets_valid),
      cmocka_unit_test(test_preset_params_published),
      cmocka_unit_test(test_tiny_params_by_hand),
      cmocka_unit_test(test_tiny_flops_by_hand),
      cmocka_unit_test(test_flops_with_params),
      cmocka_unit_test(test_moe_by_hand),
      cmocka_unit_test(test_mla_and_names),
      cmocka_unit_test(test_check_errors),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
