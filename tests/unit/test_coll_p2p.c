/*
** test_coll_p2p.c: point-to-point collectives (all-to-all, send/recv) as
** NCCL schedules them (core/coll_plan.h, coll_tune.c): NCCL's p2p
** channel counts against its own INFO lines, latency steps per group of
** concurrent peers (not per round of 8), epochs that share channels past
** NCCL's limit, and the proxy's posts of every network peer's message.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "coll_int.h"
#include "near.h"
#include "pod_coll.h"
#include "coll_fixture.h"

static double a2a_time(const pod_system *s, pod_coll_op op, int n, int r,
                       double S) {
  pod_coll_args a = {n, r, S, POD_ALGO_AUTO};
  pod_coll_result res;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_coll_eval(s, op, &a, &res, &e);
  if (rc != POD_OK) fail_msg("eval failed: %s: %s", e.field, e.msg);
  return res.time_s;
}

/* NCCL's "p2p channels, p2p channels per peer" INFO line (init.cc) on
** published runs, and what the rules give beyond them. */
static void test_channels_as_nccl_logs(void **state) {
  (void)state;
  pod_coll_p2p p;
  /* 8x H800, one node: "16 coll channels, 0 nvls channels, 16 p2p
  ** channels, 16 p2p channels per peer" (NVIDIA/nccl issue 892) */
  pod_system h800 = coll_fixture_preset("hgx_h800");
  pod_coll__p2p_channels(&h800, 8, 8, NULL, &p);
  assert_near(p.nch, 16.0, 0.0);
  assert_near(p.per_peer, 16.0, 0.0);
  /* 8x H100, one node: "24 coll channels, 16 nvls channels, 32 p2p
  ** channels, 32 p2p channels per peer"; two nodes: "16 coll channels,
  ** 16 nvls channels, 16 p2p channels, 2 p2p channels per peer"
  ** (aws-samples/aws-do-eks 701c554a,
  ** Container-Root/eks/deployment/nccl-test/README.md, p5.48xlarge) */
  pod_system h100 = coll_fixture_preset("hgx_h100");
  pod_coll__p2p_channels(&h100, 8, 8, NULL, &p);
  assert_near(p.nch, 32.0, 0.0);
  assert_near(p.per_peer, 32.0, 0.0);
  assert_near(p.cmin, 4.0, 0.0); /* 32 halved while x 8 > 32 */
  pod_coll__p2p_channels(&h100, 16, 8, NULL, &p);
  assert_near(p.nch, 16.0, 0.0);
  assert_near(p.per_peer, 2.0, 0.0);
  assert_near(p.min_part, 64.0 * 1024, 0.0);
  assert_near(p.max_part, 128.0 * 1024, 0.0);
  /* past 2 n > 4 x 16 a network peer gets one channel (paths.cc:846) */
  pod_coll__p2p_channels(&h100, 32, 8, NULL, &p);
  assert_near(p.per_peer, 2.0, 0.0);
  pod_coll__p2p_channels(&h100, 64, 8, NULL, &p);
  assert_near(p.per_peer, 1.0, 0.0);
  /* two NICs per GPU keep two channels per network peer (netCountByBw) */
  pod_system two = h100;
  two.nics_per_gpu = 2;
  pod_coll__p2p_channels(&two, 256, 8, NULL, &p);
  assert_near(p.per_peer, 2.0, 0.0);
}

/* All peers in flight at once: the latency of a small all-to-all does not
** grow with the ranks (it grew by one step per round of 8 peers). */
static void test_latency_not_per_round(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100");
  s.msg_overhead_us = 0.0; /* the posts are test_posts_every_peer's */
  double t16 = a2a_time(&s, POD_COLL_ALL_TO_ALL, 16, 8, 0.0);
  const int ns[] = {32, 64, 128};
  for (size_t i = 0; i < 3; i++)
    near_rel(a2a_time(&s, POD_COLL_ALL_TO_ALL, ns[i], 8, 0.0), t16, 1e-12);
  /* and the fill: 64 ranks at 8 KiB per peer pay one chunk of fill per
  ** fabric, not one per round */
  pod_system g = coll_fixture_preset("gb200_nvl72");
  double t9 = a2a_time(&g, POD_COLL_ALL_TO_ALL, 9, 9, 0.0);
  near_rel(a2a_time(&g, POD_COLL_ALL_TO_ALL, 72, 72, 0.0), t9, 1e-12);
}

/* Past NCCL's limit of p2pnChannels / channels per peer concurrent epochs
** the epochs share channels and run in turn: one latency step per group. */
static void test_epochs_share_channels(void **state) {
  (void)state;
  /* GB200 NVL72, 64 ranks in the rack: 32 p2p channels, a 64 MiB peer
  ** message on 4 (16 MiB parts), 32 / 4 x 8 = 64 peers in flight: one
  ** group; 256 MiB per peer on 16, 16 in flight: 63 peers in 4 groups */
  pod_system g = coll_fixture_preset("gb200_nvl72"), slow = g;
  slow.up_latency_us += 10.0;
  double S1 = 64.0 * 64.0 * MIB, S4 = 64.0 * 256.0 * MIB;
  double d1 = a2a_time(&slow, POD_COLL_ALL_TO_ALL, 64, 64, S1) -
              a2a_time(&g, POD_COLL_ALL_TO_ALL, 64, 64, S1);
  double d4 = a2a_time(&slow, POD_COLL_ALL_TO_ALL, 64, 64, S4) -
              a2a_time(&g, POD_COLL_ALL_TO_ALL, 64, 64, S4);
  assert_near(d1, 10e-6, 1e-9);
  assert_near(d4, 40e-6, 1e-9);
  /* 256 H100 on 32 nodes: 16 p2p channels, one per network peer, 128
  ** peers in flight: 248 network peers in 2 groups at any size */
  pod_system h = coll_fixture_preset("hgx_h100");
  h.msg_overhead_us = 0.0;
  pod_system hs = h;
  hs.out_latency_us += 100.0;
  const double sizes[] = {0.0, 256.0 * MIB, 64.0 * GIB};
  for (size_t i = 0; i < 3; i++) {
    double d = a2a_time(&hs, POD_COLL_ALL_TO_ALL, 256, 8, sizes[i]) -
               a2a_time(&h, POD_COLL_ALL_TO_ALL, 256, 8, sizes[i]);
    /* Simple: 2 x 100 us; LL (small sizes): 2 x 0.18 x 100 us */
    if (!(fabs(d - 200e-6) < 1e-9 || fabs(d - 2 * 0.18 * 100e-6) < 1e-9))
      fail_msg("size %g: latency grew by %g s", sizes[i], d);
  }
  /* a subnormal per-peer message still takes one channel (its size over
  ** the part size underflows to 0; fuzz_coll found the loop) */
  near_rel(a2a_time(&g, POD_COLL_ALL_TO_ALL, 64, 64, 0x1p-1068),
           a2a_time(&g, POD_COLL_ALL_TO_ALL, 64, 64, 0.0), 1e-12);
  /* 128 ranks: all 120 network peers in flight, one group */
  double d = a2a_time(&hs, POD_COLL_ALL_TO_ALL, 128, 8, 256.0 * MIB) -
             a2a_time(&h, POD_COLL_ALL_TO_ALL, 128, 8, 256.0 * MIB);
  assert_near(d, 100e-6, 1e-9);
}

/* One proxy thread posts every network peer's message: n - r posts for
** an all-to-all, one for a send/recv pair. */
static void test_posts_every_peer(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100");
  s.msg_overhead_us = 10.0;
  /* LL wins at 0 bytes: 6.6 us + 0.18 x 3.4 us + max(0.18 x 14, posts) */
  double ll = 6.6e-6 + 0.18 * 3.4e-6;
  near_rel(a2a_time(&s, POD_COLL_ALL_TO_ALL, 16, 8, 0.0), ll + 80e-6, 1e-9);
  near_rel(a2a_time(&s, POD_COLL_ALL_TO_ALL, 64, 8, 0.0), ll + 560e-6, 1e-9);
  /* a send/recv pair across domains posts one message: 6.6 + 10 us */
  near_rel(a2a_time(&s, POD_COLL_SEND_RECV, 2, 1, 0.0), 16.6e-6, 1e-9);
  /* inside a domain nothing is posted */
  pod_system q = s;
  q.msg_overhead_us = 0.0;
  near_rel(a2a_time(&s, POD_COLL_ALL_TO_ALL, 8, 8, MIB),
           a2a_time(&q, POD_COLL_ALL_TO_ALL, 8, 8, MIB), 1e-12);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_channels_as_nccl_logs),
      cmocka_unit_test(test_latency_not_per_round),
      cmocka_unit_test(test_epochs_share_channels),
      cmocka_unit_test(test_posts_every_peer),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
