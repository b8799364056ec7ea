/*
** rel_fixture.h: the reliability configs the tests share (include after
** cmocka.h and pod_rel.h).
**   rel_fixture_flagship(nvl72)  the flagship's two systems
**                                (scenarios/moe_nvl72_vs_hgx.lua): 16,384
**                                active GPUs on GB200 NVL72 (8 spares per
**                                rack, a 2-rack pool) when nvl72, else HGX
**                                H100 with a 32-node pool.
*/
#ifndef POD_TEST_REL_FIXTURE_H
#define POD_TEST_REL_FIXTURE_H

static inline pod_rel_cfg rel_fixture_flagship(int nvl72) {
  pod_rel_cfg c;
  pod_rel_cfg_init(&c);
  assert_int_equal(pod_rel_failures_preset(
                       nvl72 ? "gb200_nvl72" : "llama3_h100", &c.failures),
                   POD_OK);
  c.active_gpus = 16384;
  c.swap_s = 300.0;
  c.restart_s = 420.0;
  c.ckpt_s = 60.0;
  c.work_h = 0.0;
  c.tokens = 14.8e12;
  c.tokens_per_s = 3e7;
  if (nvl72) {
    c.node_gpus = 4;
    c.domain_gpus = 72;
    c.spare_per_domain = 8;
    c.pool_units = 2;
    c.pool_scope = POD_REL_DOMAIN;
  } else {
    c.pool_units = 32;
  }
  return c;
}

#endif
