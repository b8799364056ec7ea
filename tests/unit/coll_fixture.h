/*
** coll_fixture.h: the systems the collective tests sweep (include after
** cmocka.h and pod_hw.h or pod_coll.h).
**   MIB, GIB                        bytes
**   coll_fixture_preset(name)       the system preset `name` (a failed
**                                   lookup fails the test)
**   coll_fixture_systems(out, cap)  every preset, and each with SHARP on,
**                                   with NVLS off, and under a 4:1 tier
**                                   above leaves of two domains with
**                                   static ECMP; returns the count
**                                   (at most cap, whole presets only).
**   coll_fixture_unit(&x)           xorshift64: the next value in [0, 1)
**                                   of a sweep, the same every run.
*/
#ifndef POD_TEST_COLL_FIXTURE_H
#define POD_TEST_COLL_FIXTURE_H

#include <stdint.h>

#define MIB 1048576.0
#define GIB (1024.0 * MIB)

static inline pod_system coll_fixture_preset(const char *name) {
  pod_system s;
  assert_int_equal(pod_hw_system_preset(name, &s), POD_OK);
  return s;
}

static inline int coll_fixture_systems(pod_system *out, int cap) {
  int k = 0;
  for (int i = 0; pod_hw_system_at(i, NULL) != NULL && k + 4 <= cap; i++) {
    pod_system s = *pod_hw_system_at(i, NULL), v = s;
    out[k++] = s;
    v.sharp = 1;
    out[k++] = v;
    v = s;
    v.nvls = 0;
    out[k++] = v;
    v = s;
    v.oversub = 4.0;
    v.leaf_gpus = 2 * s.domain_gpus;
    v.routing = POD_ROUTING_STATIC_ECMP;
    out[k++] = v;
  }
  return k;
}

static inline double coll_fixture_unit(uint64_t *x) {
  *x ^= *x << 13;
  *x ^= *x >> 7;
  *x ^= *x << 17;
  return (double)(*x >> 11) * (1.0 / 9007199254740992.0);
}

#endif
