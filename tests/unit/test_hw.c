/*
** test_hw.c: GPU and system presets and their field checks (core/hw.c).
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "pod_hw.h"

static void test_gpu_presets_valid(void **state) {
  (void)state;
  int n = 0;
  const char *src = NULL;
  for (const pod_gpu *g; (g = pod_hw_gpu_at(n, &src)) != NULL; n++) {
    pod_err e;
    pod_err_clear(&e);
    assert_int_equal(pod_hw_gpu_check(g, &e), POD_OK);
    assert_non_null(src);
    assert_true(strlen(src) > 10);
    pod_gpu copy;
    assert_int_equal(pod_hw_gpu_preset(g->name, &copy), POD_OK);
    assert_memory_equal(&copy, g, sizeof copy);
  }
  assert_int_equal(n, 8);
  assert_null(pod_hw_gpu_at(-1, NULL));
  assert_null(pod_hw_gpu_at(n, NULL));
  const char *names[] = {"a100", "h100",  "h800",  "h200",
                         "b200", "gb200", "gb300", "b300"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    assert_int_equal(pod_hw_gpu_preset(names[i], NULL), POD_OK);
}

static void test_system_presets_valid(void **state) {
  (void)state;
  int n = 0;
  const char *src = NULL;
  for (const pod_system *s; (s = pod_hw_system_at(n, &src)) != NULL; n++) {
    pod_err e;
    pod_err_clear(&e);
    assert_int_equal(pod_hw_system_check(s, &e), POD_OK);
    assert_non_null(src);
    assert_true(strlen(src) > 10);
    assert_true(s->usd_per_gpu_hour > 0.0);
    pod_system copy;
    assert_int_equal(pod_hw_system_preset(s->name, &copy), POD_OK);
    assert_memory_equal(&copy, s, sizeof copy);
  }
  assert_int_equal(n, 8);
  assert_null(pod_hw_system_at(-1, NULL));
  assert_null(pod_hw_system_at(n, NULL));
}

static void test_unknown_names(void **state) {
  (void)state;
  pod_gpu g;
  pod_system s;
  assert_int_equal(pod_hw_gpu_preset("h1000", &g), POD_ENOENT);
  assert_int_equal(pod_hw_gpu_preset(NULL, &g), POD_ENOENT);
  assert_int_equal(pod_hw_system_preset("nvl576", &s), POD_ENOENT);
  assert_int_equal(pod_hw_system_preset(NULL, &s), POD_ENOENT);
  assert_int_equal(pod_hw_system_preset("", &s), POD_ENOENT);
}

static void test_preset_figures(void **state) {
  (void)state;
  pod_system s;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &s), POD_OK);
  assert_int_equal(s.domain_gpus, 8);
  assert_true(s.up_GBps == 450.0 && s.nic_gbps == 400.0 && s.nvls == 1);
  assert_string_equal(s.gpu.name, "h100");
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &s), POD_OK);
  assert_int_equal(s.domain_gpus, 72);
  assert_true(s.up_GBps == 900.0 && s.nic_gbps == 400.0);
  assert_int_equal(pod_hw_system_preset("gb300_nvl72", &s), POD_OK);
  assert_true(s.nic_gbps == 800.0 && s.gpu.hbm_gb == 288.0);
  assert_int_equal(pod_hw_system_preset("hgx_h800", &s), POD_OK);
  assert_true(s.up_GBps == 200.0);
  /* H800 achievable NVLink ~160 GB/s (public.md C5). */
  assert_true(fabs(s.up_GBps * s.up_eff - 160.0) < 8.0);
  assert_int_equal(pod_hw_system_preset("dgx_a100", &s), POD_OK);
  assert_int_equal(s.nvls, 0);
}

/* Efficiency and latency belong to the fabric generation: every system
** of one generation carries the same values. */
static void same_fabric(const char *a, const char *b, int up, int out) {
  pod_system x, y;
  assert_int_equal(pod_hw_system_preset(a, &x), POD_OK);
  assert_int_equal(pod_hw_system_preset(b, &y), POD_OK);
  if (up) {
    assert_true(x.up_eff == y.up_eff && x.up_fill_KiB == y.up_fill_KiB);
    assert_true(x.up_latency_us == y.up_latency_us);
    assert_true(x.nvls_eff == y.nvls_eff);
    assert_true(x.nvls_latency_us == y.nvls_latency_us);
    assert_true(x.up_channels == y.up_channels);
  }
  if (out) {
    assert_true(x.out_eff == y.out_eff && x.out_half_MB == y.out_half_MB);
    assert_true(x.out_latency_us == y.out_latency_us);
    assert_true(x.routing == y.routing && x.transport == y.transport);
    assert_true(x.sharp == y.sharp && x.msg_overhead_us == y.msg_overhead_us);
  }
}

static void test_fabric_generations_shared(void **state) {
  (void)state;
  same_fabric("hgx_h100", "hgx_h800", 1, 1);
  same_fabric("hgx_h100", "hgx_h200", 1, 1);
  same_fabric("hgx_b200", "gb200_nvl72", 1, 1);
  same_fabric("gb200_nvl72", "gb300_nvl72", 1, 0);
  same_fabric("hgx_b300", "gb300_nvl72", 1, 1);
  same_fabric("hgx_h100", "hgx_b200", 0, 1);
}

/* One bad value per field: the check must fail with that field's name. */
typedef struct bad_double {
  size_t off;
  const char *field;
  double value;
} bad_double;

static void expect_bad(const pod_system *base, size_t off, double v,
                       const char *field) {
  pod_system s = *base;
  memcpy((char *)&s + off, &v, sizeof v);
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
  assert_int_equal(e.code, POD_EINVAL);
  assert_string_equal(e.field, field);
  assert_true(strlen(e.msg) > 0);
  /* err may be NULL */
  assert_int_equal(pod_hw_system_check(&s, NULL), POD_EINVAL);
}

#define F(member) offsetof(pod_system, member), #member

static void test_system_field_checks(void **state) {
  (void)state;
  pod_system base;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &base), POD_OK);
  const bad_double cases[] = {
      {F(up_GBps), 0.0},
      {F(up_GBps), -1.0},
      {F(up_latency_us), -0.1},
      {F(nics_per_gpu), 0.0},
      {F(nic_gbps), -400.0},
      {F(out_latency_us), -1.0},
      {F(oversub), 0.5},
      {F(usd_per_gpu_hour), -1.0},
      {F(up_eff), 0.0},
      {F(up_eff), 1.01},
      {F(up_fill_KiB), -1.0},
      {F(out_eff), 1.5},
      {F(out_eff), 0.0},
      {F(out_half_MB), -2.0},
      {F(nvls_eff), 0.0},
      {F(nvls_eff), 2.5},
      {F(nvls_latency_us), -1.0},
      {F(net_channel_GBps), 0.0},
      {F(net_channel_GBps), -24.0},
      {F(msg_overhead_us), -1.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    expect_bad(&base, cases[i].off, cases[i].value, cases[i].field);
  /* every double field rejects NaN and infinity */
  const bad_double all[] = {
      {F(up_GBps), 0},          {F(up_latency_us), 0},
      {F(nics_per_gpu), 0},     {F(nic_gbps), 0},
      {F(out_latency_us), 0},   {F(oversub), 0},
      {F(usd_per_gpu_hour), 0}, {F(up_eff), 0},
      {F(up_fill_KiB), 0},      {F(out_eff), 0},
      {F(out_half_MB), 0},      {F(nvls_eff), 0},
      {F(nvls_latency_us), 0},  {F(net_channel_GBps), 0},
      {F(msg_overhead_us), 0},
  };
  for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
    expect_bad(&base, all[i].off, NAN, all[i].field);
    expect_bad(&base, all[i].off, INFINITY, all[i].field);
    expect_bad(&base, all[i].off, -INFINITY, all[i].field);
  }
  /* GPU fields inside a system carry the "gpu." prefix. */
  expect_bad(&base, offsetof(pod_system, gpu.bf16_tflops), 0.0,
             "gpu.bf16_tflops");
  expect_bad(&base, offsetof(pod_system, gpu.fp8_tflops), -1.0,
             "gpu.fp8_tflops");
  expect_bad(&base, offsetof(pod_system, gpu.fp4_tflops), NAN,
             "gpu.fp4_tflops");
  expect_bad(&base, offsetof(pod_system, gpu.hbm_gb), 0.0, "gpu.hbm_gb");
  expect_bad(&base, offsetof(pod_system, gpu.hbm_TBps), -3.0, "gpu.hbm_TBps");
  expect_bad(&base, offsetof(pod_system, gpu.power_w), INFINITY, "gpu.power_w");

  /* Without NVLS, nvls_eff may be 0. */
  pod_system a100;
  assert_int_equal(pod_hw_system_preset("dgx_a100", &a100), POD_OK);
  assert_true(a100.nvls_eff == 0.0);
  assert_int_equal(pod_hw_system_check(&a100, NULL), POD_OK);
}

static void test_system_int_and_name_checks(void **state) {
  (void)state;
  pod_system base, s;
  pod_err e;
  assert_int_equal(pod_hw_system_preset("gb200_nvl72", &base), POD_OK);
  s = base;
  s.domain_gpus = 0;
  assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
  assert_string_equal(e.field, "domain_gpus");
  s = base;
  s.nvls = 2;
  assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
  assert_string_equal(e.field, "nvls");
  /* the integer and enum fields of the NCCL model and the fabric */
  struct {
    size_t off;
    int v;
    const char *field;
  } ints[] = {
      {offsetof(pod_system, up_channels), 0, "up_channels"},
      {offsetof(pod_system, net_channels), 0, "net_channels"},
      {offsetof(pod_system, net_channels), -16, "net_channels"},
      {offsetof(pod_system, transport), POD_TRANSPORT_N, "transport"},
      {offsetof(pod_system, transport), -1, "transport"},
      {offsetof(pod_system, routing), POD_ROUTING_N, "routing"},
      {offsetof(pod_system, routing), -1, "routing"},
      {offsetof(pod_system, sharp), 2, "sharp"},
      {offsetof(pod_system, leaf_gpus), 0, "leaf_gpus"},
  };
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++) {
    s = base;
    memcpy((char *)&s + ints[i].off, &ints[i].v, sizeof(int));
    pod_err_clear(&e);
    assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
    assert_string_equal(e.field, ints[i].field);
    assert_int_equal(pod_hw_system_check(&s, NULL), POD_EINVAL);
  }
  s = base;
  memset(s.name, 'x', sizeof s.name);
  assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
  assert_string_equal(e.field, "name");
  s = base;
  memset(s.gpu.name, 'x', sizeof s.gpu.name);
  assert_int_equal(pod_hw_system_check(&s, &e), POD_EINVAL);
  assert_string_equal(e.field, "gpu.name");
  assert_int_equal(pod_hw_system_check(NULL, &e), POD_EINVAL);
  assert_string_equal(e.field, "system");
}

static void test_gpu_checks(void **state) {
  (void)state;
  pod_gpu base, g;
  pod_err e;
  assert_int_equal(pod_hw_gpu_preset("h100", &base), POD_OK);
  struct {
    size_t off;
    const char *field;
    double v;
  } cases[] = {
      {offsetof(pod_gpu, bf16_tflops), "bf16_tflops", 0.0},
      {offsetof(pod_gpu, bf16_tflops), "bf16_tflops", NAN},
      {offsetof(pod_gpu, fp8_tflops), "fp8_tflops", -1.0},
      {offsetof(pod_gpu, fp8_tflops), "fp8_tflops", INFINITY},
      {offsetof(pod_gpu, fp4_tflops), "fp4_tflops", -1.0},
      {offsetof(pod_gpu, hbm_gb), "hbm_gb", 0.0},
      {offsetof(pod_gpu, hbm_TBps), "hbm_TBps", NAN},
      {offsetof(pod_gpu, power_w), "power_w", -700.0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    g = base;
    memcpy((char *)&g + cases[i].off, &cases[i].v, sizeof(double));
    pod_err_clear(&e);
    assert_int_equal(pod_hw_gpu_check(&g, &e), POD_EINVAL);
    assert_string_equal(e.field, cases[i].field);
  }
  g = base;
  memset(g.name, 'y', sizeof g.name);
  assert_int_equal(pod_hw_gpu_check(&g, &e), POD_EINVAL);
  assert_string_equal(e.field, "name");
  assert_int_equal(pod_hw_gpu_check(NULL, &e), POD_EINVAL);
  assert_string_equal(e.field, "gpu");
  /* fp8/fp4 may be 0 (no such unit) */
  assert_int_equal(pod_hw_gpu_preset("a100", &g), POD_OK);
  assert_int_equal(pod_hw_gpu_check(&g, NULL), POD_OK);
}

/* Fabric presets: every one applies to every system and leaves a valid
** system; unknown names leave the system untouched. */
static void test_fabric_presets(void **state) {
  (void)state;
  const pod_fabric *f;
  const char *src;
  int nf = 0;
  for (int i = 0; (f = pod_hw_fabric_at(i, &src)) != NULL; i++, nf++) {
    assert_true(strlen(src) > 20);
    const pod_system *b;
    for (int j = 0; (b = pod_hw_system_at(j, NULL)) != NULL; j++) {
      pod_system s = *b;
      assert_int_equal(pod_hw_fabric_apply(f->name, &s), POD_OK);
      assert_int_equal(pod_hw_system_check(&s, NULL), POD_OK);
      assert_true(s.nic_gbps == f->nic_gbps && s.routing == f->routing);
      assert_true(s.sharp == f->sharp && s.transport == f->transport);
      /* the scale-up side is the system's */
      assert_true(s.up_GBps == b->up_GBps && s.domain_gpus == b->domain_gpus);
    }
  }
  assert_int_equal(nf, 6);
  assert_null(pod_hw_fabric_at(-1, NULL));
  pod_system s, t;
  assert_int_equal(pod_hw_system_preset("hgx_h100", &s), POD_OK);
  t = s;
  assert_int_equal(pod_hw_fabric_apply("ib_hdr_sharpx", &t), POD_ENOENT);
  assert_int_equal(pod_hw_fabric_apply(NULL, &t), POD_ENOENT);
  assert_true(memcmp(&s, &t, sizeof s) == 0);
  /* SHARP only where the fabric reduces; static routing on plain IB */
  assert_int_equal(s.sharp, 0);
  assert_int_equal(s.routing, POD_ROUTING_STATIC_ECMP);
  assert_int_equal(pod_hw_fabric_apply("ib_ndr_sharp", &t), POD_OK);
  assert_int_equal(t.sharp, 1);
  assert_int_equal(pod_hw_fabric_apply("spectrum_x", &t), POD_OK);
  assert_int_equal(t.routing, POD_ROUTING_SPRAY);
  assert_int_equal(t.transport, POD_TRANSPORT_ROCE);
  assert_int_equal(t.sharp, 0);
  assert_int_equal(pod_hw_fabric_apply("efa", &t), POD_OK);
  assert_int_equal(t.routing, POD_ROUTING_SRD);
  assert_true(t.nics_per_gpu == 4.0 && t.nic_gbps == 100.0);
  assert_string_equal(pod_hw_transport_name(POD_TRANSPORT_EFA), "efa");
  assert_string_equal(pod_hw_routing_name(POD_ROUTING_STATIC_ECMP),
                      "static_ecmp");
  assert_null(pod_hw_transport_name(POD_TRANSPORT_N));
  assert_null(pod_hw_routing_name(-1));
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_gpu_presets_valid),
      cmocka_unit_test(test_system_presets_valid),
      cmocka_unit_test(test_unknown_names),
      cmocka_unit_test(test_preset_figures),
      cmocka_unit_test(test_fabric_generations_shared),
      cmocka_unit_test(test_system_field_checks),
      cmocka_unit_test(test_system_int_and_name_checks),
      cmocka_unit_test(test_gpu_checks),
      cmocka_unit_test(test_fabric_presets),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
