/*
** test_coll_rules.c: NCCL's algorithm rules in the collective kernels
** (core/coll.c): the two-node rule, NVLS inside one domain, NVLS-tree
** across, CollNet only with SHARP, network channels per domain, leaf
** oversubscription, pipeline fill by ring length and by domain count,
** routing-derived collisions, per-message overhead.  Closed forms and
** error paths are in test_coll.c; validation in tests/validation/c*.lua.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "coll_plan.h"
#include "near.h"
#include "pod_coll.h"
#include "coll_fixture.h"

static pod_coll_result eval_ok(const pod_system *s, pod_coll_op op, int n,
                               int r, double S, pod_coll_algo algo) {
  pod_coll_args a = {n, r, S, algo};
  pod_coll_result res;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_coll_eval(s, op, &a, &res, &e);
  if (rc != POD_OK) fail_msg("eval failed: %s: %s", e.field, e.msg);
  return res;
}

#define assert_close near_rel

/* The scale-up pipeline fill of `rows` chunk rows (coll.c), bytes. */
static double up_half(const pod_system *s, double rows) {
  return rows * s->up_channels * s->up_fill_KiB * 1024.0;
}

/* ---- NCCL's algorithm rules ------------------------------------------- */

/* An H100 system whose network binds every multi-domain all-reduce: 100
** Gb/s NICs under NVLink4. */
static pod_system slow_net(void) {
  pod_system s = coll_fixture_preset("hgx_h100");
  s.nic_gbps = 100.0;
  return s;
}

/* Two-node rule: with two domains a double binary tree sends S per
** direction per domain, with more domains 2S; the ring 2(n-1)/n S either
** way.  So at two domains the tree and the NVLS-tree take half the
** network time of four, and beat the network-bound ring. */
static void test_two_node_rule(void **state) {
  (void)state;
  pod_system s = slow_net();
  const double S = 16 * GIB;
  const pod_coll_algo trees[] = {POD_ALGO_TREE, POD_ALGO_NVLS_TREE};
  for (size_t i = 0; i < 2; i++) {
    pod_coll_result t2 = eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, S, trees[i]);
    pod_coll_result t4 = eval_ok(&s, POD_COLL_ALL_REDUCE, 32, 8, S, trees[i]);
    pod_coll_result t8 = eval_ok(&s, POD_COLL_ALL_REDUCE, 64, 8, S, trees[i]);
    assert_close(t4.time_s / t2.time_s, 2.0, 0.02);
    assert_close(t8.time_s / t4.time_s, 1.0, 0.02);
  }
  pod_coll_result r2 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, S, POD_ALGO_RING);
  pod_coll_result r4 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 32, 8, S, POD_ALGO_RING);
  assert_close(r4.time_s / r2.time_s, 2.0 * 31 / 32 / (2.0 * 15 / 16), 0.02);
  /* NCCL 2.28.9 rates the tree highest here (coll_tune.c): its bwIntra
  ** rises to twice the 12 GB/s channel (0.5 x 0.92 x 8 x 24 = 88 GB/s
  ** algbw) while NVLS-tree's heads stay at the NIC's 12 (8 x 17.85 x
  ** 16/30 = 76) and the ring at 8 x 12 x 16/30 = 51 */
  pod_coll__tune tu;
  pod_coll__net_tune(&s, 16, 8, &tu);
  assert_close(tu.tree_GBps, 0.5 * 0.92 * 8 * 24, 1e-12);
  assert_close(tu.nvlstree_GBps, 8 * 12 * 0.85 * 2 * 7 / 8 * 16 / 30.0, 1e-9);
  assert_close(tu.ring_GBps, 8 * 12 * 16 / 30.0, 1e-12);
  pod_coll_result au =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_TREE);
  assert_true(au.time_s < 0.6 * r2.time_s);
  /* without NVLS the tree takes the two-node advantage */
  s.nvls = 0;
  s.nvls_eff = 0.0;
  au = eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_TREE);
  /* at four domains the ring's 2(n-1)/n < 2 wins on bandwidth */
  au = eval_ok(&s, POD_COLL_ALL_REDUCE, 32, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_RING);
}

/* NCCL's double binary tree over d ranks (src/graph/trees.cc, written
** here from its description, not its code): tree A numbers the ranks
** 0..d-1; rank 0 is the root with one child, the largest power of two
** below d; any other rank x with lowest set bit b hangs below x - b +
** 2b (x with bit b cleared and bit 2b set) or, when that is past the
** end, below x - b; its children are x - b/2 and the first of x + b/2,
** x + b/4, ... that exists.  Tree B is A mirrored (rank d-1-x) for even
** d and shifted by one (x+1 mod d) for odd d.  Returns the busiest
** rank's links (children + parent) over both trees, halved: the network
** bytes per domain in units of S. */
static int btree_parent(int d, int x) {
  if (x == 0) return -1;
  int b = x & -x, up = (x - b) | (b << 1);
  return up < d ? up : x - b;
}

static double dtree_busiest(int d) {
  double worst = 0.0;
  for (int x = 0; x < d; x++) {
    int links = 0;
    for (int t = 0; t < 2; t++) {
      /* x's label in tree t, and every other rank's */
      int lx = t == 0 ? x : d % 2 ? (x - 1 + d) % d : d - 1 - x;
      links += btree_parent(d, lx) >= 0;
      for (int y = 0; y < d; y++) {
        int ly = t == 0 ? y : d % 2 ? (y - 1 + d) % d : d - 1 - y;
        links += y != x && btree_parent(d, ly) == lx;
      }
    }
    if (links / 2.0 > worst) worst = links / 2.0;
  }
  return worst;
}

/* The tree's network bytes follow NCCL's trees: S at 2 domains, 1.5 S
** at 3, 2 S from 4; at 3 domains NCCL's tuner still rates the tree at
** bwInter and the 4-node cap (as if 2 S, coll_tune.c), so
** auto keeps the ring although the tree runs faster (NVIDIA/nccl issue
** 1801: GB200 partitions, tree busbw 1.2x the ring's). */
static void test_tree_three_domains(void **state) {
  (void)state;
  pod_system s = slow_net();
  s.nvls = 0;
  s.nvls_eff = 0.0;
  const double S = 64 * GIB; /* the fills vanish beside the bandwidth */
  pod_coll_result t2 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, S, POD_ALGO_TREE);
  assert_close(dtree_busiest(2), 1.0, 1e-12);
  assert_close(dtree_busiest(3), 1.5, 1e-12);
  for (int d = 3; d <= 40; d++) {
    pod_coll_result t =
        eval_ok(&s, POD_COLL_ALL_REDUCE, 8 * d, 8, S, POD_ALGO_TREE);
    assert_close(t.time_s / t2.time_s, dtree_busiest(d), 0.01);
  }
  pod_coll_result ring =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 24, 8, S, POD_ALGO_RING);
  pod_coll_result tree =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 24, 8, S, POD_ALGO_TREE);
  pod_coll_result au =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 24, 8, S, POD_ALGO_AUTO);
  assert_true(tree.time_s < 0.8 * ring.time_s);
  assert_int_equal(au.algo, POD_ALGO_RING);
  assert_close(au.time_s, ring.time_s, 1e-12);
  /* the NVLS-tree the same way: chosen by the tuner's 2 S */
  pod_system n = slow_net();
  pod_coll_result nt =
      eval_ok(&n, POD_COLL_ALL_REDUCE, 24, 8, S, POD_ALGO_NVLS_TREE);
  pod_coll_result n2 =
      eval_ok(&n, POD_COLL_ALL_REDUCE, 16, 8, S, POD_ALGO_NVLS_TREE);
  assert_close(nt.time_s / n2.time_s, 1.5, 0.01);
  /* with NVLS, NCCL 2.28.9 rates NVLS-tree over 3 nodes at its 8 heads x
  ** bwInter 12 (no doubling beyond 2 nodes), the ring's 8 x 12: a tie on
  ** bandwidth that NVLS-tree's fewer latency steps win */
  pod_coll__tune tu;
  pod_coll__net_tune(&n, 24, 8, &tu);
  assert_close(tu.nvlstree_GBps, tu.ring_GBps, 1e-12);
  au = eval_ok(&n, POD_COLL_ALL_REDUCE, 24, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_NVLS_TREE);
  assert_close(au.time_s, nt.time_s, 1e-12);
}

/* auto never picks an algorithm NCCL lacks (hierarchical), NVLS never
** across domains, NVLS-tree and CollNet never inside one. */
static void test_auto_is_ncclish(void **state) {
  (void)state;
  const pod_system *sp;
  for (int i = 0; (sp = pod_hw_system_at(i, NULL)) != NULL; i++)
    for (int sharp = 0; sharp <= 1; sharp++) {
      pod_system s = *sp;
      s.sharp = sharp;
      for (int d = 1; d <= 64; d *= 2)
        for (double S = 64; S <= 16 * GIB; S *= 8) {
          int r = s.domain_gpus;
          for (int op = 0; op < POD_COLL_NOPS; op++) {
            if (op == POD_COLL_SEND_RECV) continue;
            pod_coll_result a =
                eval_ok(&s, (pod_coll_op)op, r * d, r, S, POD_ALGO_AUTO);
            assert_int_not_equal(a.algo, POD_ALGO_HIERARCHICAL);
            if (d > 1) assert_int_not_equal(a.algo, POD_ALGO_NVLS);
            if (d == 1) {
              assert_int_not_equal(a.algo, POD_ALGO_NVLS_TREE);
              assert_int_not_equal(a.algo, POD_ALGO_COLLNET);
              assert_int_not_equal(a.algo, POD_ALGO_COLLNET_CHAIN);
            }
            if (!sharp) {
              assert_int_not_equal(a.algo, POD_ALGO_COLLNET);
              assert_int_not_equal(a.algo, POD_ALGO_COLLNET_CHAIN);
            }
            if (op != POD_COLL_ALL_REDUCE && op != POD_COLL_ALL_TO_ALL)
              assert_int_equal(a.algo, POD_ALGO_RING);
          }
        }
    }
}

/* CollNet: the switches reduce, so a domain's network traffic is S
** whatever the domain count, and on a network-bound system with many
** domains it beats every host-based algorithm. */
/* NCCL's tuner rates NVLS by its NVLS graph: min(n, 32) head channels,
** each at most the top search speed (Blackwell 90, Hopper 60 GB/s), so
** at 2 and 4 GPUs it rates NVLS below the ring and runs the ring, from 8
** GPUs NVLS (coll.c, nvls_tuner_div).  The choice holds at NCCL's own
** NVLink credit (40.1/50 and 20.6/25 of line rate) as at the fitted one,
** and the time of the chosen ring is the ring's. */
static void test_nvls_tuner_ranks(void **state) {
  (void)state;
  const char *names[] = {"gb200_nvl72", "hgx_h100"};
  const double nccl_eff[] = {40.1 / 50.0, 20.6 / 25.0};
  for (int k = 0; k < 2; k++)
    for (int v = 0; v < 2; v++) {
      pod_system s = coll_fixture_preset(names[k]);
      if (v) s.up_eff = nccl_eff[k];
      for (int n = 2; n <= s.domain_gpus; n *= 2) {
        pod_coll_result au =
            eval_ok(&s, POD_COLL_ALL_REDUCE, n, n, 8 * GIB, POD_ALGO_AUTO);
        pod_coll_algo want = n < 8 ? POD_ALGO_RING : POD_ALGO_NVLS;
        if (au.algo != want)
          fail_msg("%s (up_eff %g) at %d ranks picks %s", names[k], s.up_eff, n,
                   pod_coll_algo_name(au.algo));
        pod_coll_result same =
            eval_ok(&s, POD_COLL_ALL_REDUCE, n, n, 8 * GIB, want);
        assert_close(au.time_s, same.time_s, 1e-15);
      }
      /* NVLS, when it runs, is faster than the ring at 4 ranks in
      ** podsim's own time: NCCL's choice is not the faster one */
      pod_coll_result nv =
          eval_ok(&s, POD_COLL_ALL_REDUCE, 4, 4, 8 * GIB, POD_ALGO_NVLS);
      pod_coll_result ring =
          eval_ok(&s, POD_COLL_ALL_REDUCE, 4, 4, 8 * GIB, POD_ALGO_RING);
      assert_true(nv.time_s < ring.time_s);
    }
  /* 72 ranks: the NVLS graph stops at 32 heads and still wins */
  pod_system g = coll_fixture_preset("gb200_nvl72");
  assert_int_equal(
      eval_ok(&g, POD_COLL_ALL_REDUCE, 72, 72, 8 * GIB, POD_ALGO_AUTO).algo,
      POD_ALGO_NVLS);
}

/* The tuner's figures behind those choices, by hand from NCCL's speed
** ladders (coll_tune.c): GB200 at the fitted 668 GB/s, ring 11 x 60 = 660;
** NVLS 4 heads x 90 = 360, 8 x min(70 x 0.74 x 1.75, 90) = 720, 32 x 20 x
** 0.74 x 2 x 31/32 = 917.6; H100 at 370.8: ring 6 x 60 = 360, NVLS 8 x
** min(40 x 0.85 x 1.75, 60) = 476; one rank builds no graph. */
static void test_nvls_tuner_figures(void **state) {
  (void)state;
  pod_system g = coll_fixture_preset("gb200_nvl72"),
             h = coll_fixture_preset("hgx_h100");
  assert_close(g.up_GBps * g.up_eff, 667.8, 1e-9);
  assert_close(pod_coll__nvls_tuner_div(&g, 4), 660.0 / 360.0, 1e-12);
  assert_close(pod_coll__nvls_tuner_div(&g, 8), 660.0 / 720.0, 1e-12);
  assert_close(pod_coll__nvls_tuner_div(&g, 64),
               660.0 / (32 * 20 * 0.74 * 2 * 31.0 / 32.0), 1e-12);
  assert_close(pod_coll__nvls_tuner_div(&h, 8), 360.0 / 476.0, 1e-12);
  assert_true(pod_coll__nvls_tuner_div(&h, 1) >= 1e30);
}

static void test_collnet_with_sharp(void **state) {
  (void)state;
  pod_system s = slow_net();
  s.sharp = 1;
  const double S = 16 * GIB;
  pod_coll_result c4 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 32, 8, S, POD_ALGO_COLLNET);
  pod_coll_result c64 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 512, 8, S, POD_ALGO_COLLNET);
  assert_close(c64.time_s / c4.time_s, 1.0, 0.01);
  pod_coll_result nt =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 512, 8, S, POD_ALGO_NVLS_TREE);
  /* the NVLS-tree moves 2S per domain and fills through its 64 domains'
  ** buffers (64 x 8 channels x 4 MiB = 2 GiB): (2 x 16 + 2) / 16 */
  assert_close(nt.time_s / c64.time_s, 34.0 / 16.0, 0.02);
  pod_coll_result au =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 512, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_COLLNET);
  /* CollNetChain: the same network bytes, a chain inside the domain
  ** (2 S per link each way, as the tree's chain, against CollNetDirect's
  ** 2(r-1)/r S): NVLink-bound on a fast network */
  pod_system fast = coll_fixture_preset("hgx_h100");
  fast.sharp = 1;
  fast.nvls = 0;
  fast.nvls_eff = 0.0;
  pod_coll_result ch =
      eval_ok(&fast, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_COLLNET_CHAIN);
  pod_coll_result di =
      eval_ok(&fast, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_COLLNET);
  pod_coll_result tr =
      eval_ok(&fast, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_TREE);
  assert_close(ch.time_s / di.time_s, 2.0 / 1.75, 0.02);
  assert_true(ch.time_s < tr.time_s); /* the tree also moves 2 S each way
                                      ** on the network */
  au = eval_ok(&fast, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_COLLNET);
  s.sharp = 0;
  au = eval_ok(&s, POD_COLL_ALL_REDUCE, 512, 8, S, POD_ALGO_AUTO);
  assert_int_not_equal(au.algo, POD_ALGO_COLLNET);
  assert_true(pod_coll_eval(&s, POD_COLL_ALL_REDUCE,
                            &(pod_coll_args){512, 8, S, POD_ALGO_COLLNET_CHAIN},
                            &au, NULL) == POD_ENOTSUP);
}

/* NCCL 2.28.9 (dbc86fd0) picks a multi-node all-reduce by its tuner's
** ratings (coll_tune.c), worked by hand in tests/validation/c11: two
** B300 nodes with two 400G NICs per GPU: the ring graph's 16 x 45.1 GB/s
** (or 15 x 48) rated 721.6 x 16/30 = 385 GB/s algbw, NVLS-tree's 8 heads
** at 48 GB/s 8 x 48 x 0.74 x 2 x 7/8 x 16/30 = 265, the tree at most
** 0.5 x 16 x 42.8 = 342: NCCL runs the ring, and the ring's 16 channels
** at their NICs' rate reach 16 NICs x 47 GB/s.  (podsim before chose
** NVLS-tree here, its ring at 16 x 24 GB/s.)  GB200 NVL72 racks: 32
** heads at bwIntra 20 / bwInter 40 rated 32 x 20 x 0.74 x 2 x 31/32 =
** 917.6 busbw, ahead of the ring's 721.6 at 2 and at 20 racks. */
static void test_net_tuner_choice(void **state) {
  (void)state;
  pod_system b = coll_fixture_preset("hgx_b300");
  b.nics_per_gpu = 2;
  b.nic_gbps = 400;
  b.net_channel_GBps = 24;
  pod_coll__tune tu;
  pod_coll__net_tune(&b, 16, 8, &tu);
  double alg = 16 / 30.0;
  assert_close(tu.ring_GBps, 16 * 45.1 * alg, 1e-12);
  assert_close(tu.nvlstree_GBps, 8 * 48 * 0.74 * 2 * 7 / 8.0 * alg, 1e-9);
  assert_true(tu.tree_GBps <= 0.5 * 16 * 42.8 + 1e-9);
  pod_coll_result au =
      eval_ok(&b, POD_COLL_ALL_REDUCE, 16, 8, 16 * GIB, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_RING);
  double nics = 16 * 400 / 8.0 * b.out_eff;
  assert_true(au.busbw_GBps <= nics && au.busbw_GBps > 0.9 * nics);
  pod_system g = coll_fixture_preset("gb200_nvl72");
  const int racks[] = {2, 3, 20};
  for (int i = 0; i < 3; i++) {
    int n = 64 * racks[i];
    pod_coll__net_tune(&g, n, 64, &tu);
    double a = n / (2.0 * (n - 1));
    assert_close(tu.nvlstree_GBps, 32 * 20 * 0.74 * 2 * 31 / 32.0 * a, 1e-9);
    assert_close(tu.ring_GBps, 16 * 45.1 * a, 1e-12);
    au = eval_ok(&g, POD_COLL_ALL_REDUCE, n, 64, 8 * GIB, POD_ALGO_AUTO);
    assert_int_equal(au.algo, POD_ALGO_NVLS_TREE);
  }
  /* every preset: at a size where bandwidth decides, auto across 2-16
  ** nodes runs the algorithm with the best rating */
  const pod_system *sp;
  for (int i = 0; (sp = pod_hw_system_at(i, NULL)) != NULL; i++)
    for (int d = 2; d <= 16; d *= 2) {
      int r = sp->domain_gpus, n = d * r;
      pod_coll__net_tune(sp, n, r, &tu);
      au = eval_ok(sp, POD_COLL_ALL_REDUCE, n, r, 256 * GIB, POD_ALGO_AUTO);
      double best = tu.ring_GBps > tu.tree_GBps ? tu.ring_GBps : tu.tree_GBps;
      if (tu.nvlstree_GBps > best) best = tu.nvlstree_GBps;
      double got = au.algo == POD_ALGO_RING   ? tu.ring_GBps
                   : au.algo == POD_ALGO_TREE ? tu.tree_GBps
                                              : tu.nvlstree_GBps;
      assert_close(got, best, 1e-12);
    }
}

/* Two DGX A100 nodes as NCCL 2.28.9 (dbc86fd0) rates them (worked by
** hand in tests/validation/c9): the ring graph takes one channel per NIC
** at the first speed a NIC holds (24 GB/s on HDR, 12 on 100G) and the
** balanced tree the ring's channel count (init.cc), with no duplicated
** channels below 25 GB/s (ncclTopoDupChannels) and its bwIntra raised to
** below twice bwInter within the 240 GB/s NVLink credit (search.cc pass
** 2).  100G NICs: tree 0.5 x min(0.92 x 8 x 24, 8 x 23.6) = 88.3 algbw
** against the ring's 8 x 12 x 16/30 = 51.2: the tree (NVIDIA/nccl issue
** 812).  HDR: tree bwIntra 30, 0.5 x min(0.92 x 240, 8 x 23.6) = 94.4
** against the ring's 8 x 24 x 16/30 = 102.4: the ring. */
static void test_a100_two_node_choice(void **state) {
  (void)state;
  pod_system a = coll_fixture_preset("dgx_a100");
  pod_coll__tune tu;
  double alg = 16 / 30.0;
  pod_coll__net_tune(&a, 16, 8, &tu);
  assert_close(tu.ring_GBps, 8 * 24 * alg, 1e-12);
  assert_close(tu.tree_GBps, 0.5 * 8 * 23.6, 1e-12);
  assert_true(tu.nvlstree_GBps == 0.0); /* no NVLS on Ampere */
  pod_coll_result au =
      eval_ok(&a, POD_COLL_ALL_REDUCE, 16, 8, GIB, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_RING);
  a.nic_gbps = 100;
  pod_coll__net_tune(&a, 16, 8, &tu);
  assert_close(tu.ring_GBps, 8 * 12 * alg, 1e-12);
  assert_close(tu.tree_GBps, 0.5 * 0.92 * 8 * 24, 1e-12);
  au = eval_ok(&a, POD_COLL_ALL_REDUCE, 16, 8, GIB, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_TREE);
  /* at four nodes the tree reads bwInter (12) and the N4 cap: the ring */
  au = eval_ok(&a, POD_COLL_ALL_REDUCE, 32, 8, GIB, POD_ALGO_AUTO);
  assert_int_equal(au.algo, POD_ALGO_RING);
}

/* Channels, not domain size, set how many NICs a collective drives: a
** multi-rack NVL72 ring runs its graph's 16 channels (coll_tune.c), each
** through one NIC at the NIC's rate, not 72 NICs; its NVLS-tree runs
** net_channels at net_channel_GBps each; an 8-GPU node runs one channel
** per NIC. */
static void test_channels_set_nics(void **state) {
  (void)state;
  pod_system nvl = coll_fixture_preset("gb200_nvl72");
  const double S = 64 * GIB;
  pod_coll_result r =
      eval_ok(&nvl, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_RING);
  double cap = nvl.net_channels * nvl.net_channel_GBps;
  double nic = nvl.nic_gbps / 8.0 * nvl.out_eff;
  assert_close(pod_coll__ring_net_GBps(&nvl, 72), 16 * nic, 1e-12);
  assert_true(r.busbw_GBps <= 16 * nic);
  assert_true(r.busbw_GBps > 1.2 * cap); /* not at net_channel_GBps */
  pod_coll_result t =
      eval_ok(&nvl, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_NVLS_TREE);
  assert_true(t.busbw_GBps <= 2.0 * cap && t.busbw_GBps > 0.9 * 2.0 * cap);
  /* more channels, more NICs: the same NVLS-tree gets faster, the ring
  ** (its own graph's channels) does not move */
  pod_system wide = nvl;
  wide.net_channels = 72;
  pod_coll_result w =
      eval_ok(&wide, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_NVLS_TREE);
  assert_true(w.busbw_GBps > 1.1 * t.busbw_GBps);
  w = eval_ok(&wide, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_RING);
  assert_close(w.busbw_GBps, r.busbw_GBps, 1e-12);
  /* 8 GPUs, 8 NICs, 8 channels: NIC-bound */
  pod_system h = coll_fixture_preset("hgx_h100");
  pod_coll_result hr =
      eval_ok(&h, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_RING);
  double nics = 8 * h.nic_gbps / 8.0 * h.out_eff;
  assert_true(hr.busbw_GBps <= nics && hr.busbw_GBps > 0.95 * nics);
  /* fewer ranks per domain than channels: one channel per GPU's NICs */
  pod_coll_result h4 =
      eval_ok(&h, POD_COLL_ALL_REDUCE, 32, 4, S, POD_ALGO_RING);
  assert_true(h4.busbw_GBps <= nics / 2 && h4.busbw_GBps > 0.45 * nics);
  /* all-to-all is point-to-point: every GPU's own NICs, not channels */
  pod_system few = h;
  few.net_channels = 1;
  pod_coll_result a =
      eval_ok(&h, POD_COLL_ALL_TO_ALL, 16, 8, GIB, POD_ALGO_AUTO);
  pod_coll_result b =
      eval_ok(&few, POD_COLL_ALL_TO_ALL, 16, 8, GIB, POD_ALGO_AUTO);
  assert_close(a.time_s, b.time_s, 1e-12);
}

/* NVLS-tree (coll.c): the domain's channels stream S at net_channels x
** net_channel_GBps with NCCL's 128 KiB chunk, at half that from four
** domains (64 KiB chunk); the tree's k S per domain crosses the NICs of
** min(r, 32) heads.  An NVL72 rack (32 heads, 1.5 TB/s of NICs) is
** channel-bound: three racks run at the two-rack algbw, four at half.
** An 8-GPU node (8 heads, 8 NICs) is NIC-bound: 1 S, 1.5 S, 2 S. */
static void test_nvlstree_chunk_and_heads(void **state) {
  (void)state;
  const double S = 1e14; /* fills and latency vanish against this */
  pod_system g = coll_fixture_preset("gb200_nvl72");
  g.up_GBps = 9000.0; /* NVLink never binds: the network side alone */
  double alg[5];
  for (int d = 2; d <= 4; d++)
    alg[d] = eval_ok(&g, POD_COLL_ALL_REDUCE, 72 * d, 72, S, POD_ALGO_NVLS_TREE)
                 .algbw_GBps;
  double cap = g.net_channels * g.net_channel_GBps;
  assert_close(alg[2], cap, 1e-3);
  assert_close(alg[3], cap, 1e-3);
  assert_close(alg[4], cap / 2.0, 1e-3);
  /* the heads' NICs bind once they are fewer than the channels need:
  ** 32 heads at 5 GB/s = 160 GB/s per rack, 1.5 S at three racks */
  pod_system few = g;
  few.nic_gbps = 5.0 * 8.0 / few.out_eff; /* 5 GB/s per GPU */
  double a3 = eval_ok(&few, POD_COLL_ALL_REDUCE, 216, 72, S, POD_ALGO_NVLS_TREE)
                  .algbw_GBps;
  assert_close(a3, 32.0 * 5.0 / 1.5, 1e-3);
  /* 8 GPUs, 8 heads, 8 NICs: NIC-bound at every domain count */
  pod_system b = coll_fixture_preset("hgx_b200");
  b.up_GBps = 9000.0;
  double nics = 8 * b.nic_gbps / 8.0 * b.out_eff * b.nics_per_gpu;
  assert_true(nics < b.net_channels * b.net_channel_GBps);
  const double k[5] = {0, 0, 1.0, 1.5, 2.0};
  for (int d = 2; d <= 4; d++)
    assert_close(
        eval_ok(&b, POD_COLL_ALL_REDUCE, 8 * d, 8, S, POD_ALGO_NVLS_TREE)
            .algbw_GBps,
        nics / k[d], 1e-3);
}

/* Oversubscription applies only to traffic that leaves the leaf group. */
static void test_leaf_oversub(void **state) {
  (void)state;
  pod_system h = coll_fixture_preset("hgx_h100"), o = h;
  o.oversub = 2.0;
  const double S = 4 * GIB;
  for (int op = 0; op < POD_COLL_NOPS; op++) {
    int n = op == POD_COLL_SEND_RECV ? 2 : 16;
    int r = op == POD_COLL_SEND_RECV ? 1 : 8;
    pod_coll_result a = eval_ok(&h, (pod_coll_op)op, n, r, S, POD_ALGO_AUTO);
    pod_coll_result b = eval_ok(&o, (pod_coll_op)op, n, r, S, POD_ALGO_AUTO);
    assert_close(a.time_s, b.time_s, 1e-12); /* 16 GPUs under one leaf */
  }
  /* one leaf per node: every ring hop leaves the leaf, the network phase
  ** takes twice as long */
  o.leaf_gpus = 8;
  pod_coll_result a = eval_ok(&h, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_RING);
  pod_coll_result b = eval_ok(&o, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_RING);
  assert_close(b.time_s / a.time_s, 2.0, 0.03);
  /* leaves of 4 nodes: 1 in 4 ring hops crosses, 2 x 1/4 < 1: no loss */
  o.leaf_gpus = 32;
  b = eval_ok(&o, POD_COLL_ALL_REDUCE, 64, 8, S, POD_ALGO_RING);
  assert_close(b.time_s, a.time_s, 1e-12);
  /* but an all-to-all sends (64-32)/(64-8) of its traffic beyond */
  a = eval_ok(&h, POD_COLL_ALL_TO_ALL, 64, 8, S, POD_ALGO_AUTO);
  b = eval_ok(&o, POD_COLL_ALL_TO_ALL, 64, 8, S, POD_ALGO_AUTO);
  assert_close(b.time_s / a.time_s, 2.0 * 32 / 56, 0.03);

  /* A GB200 NVL72 rack per leaf, 4:1 above it: the ring/tree collective
  ** drives 16 channels at 24 GB/s = 384 GB/s of the rack's 72 NICs, below
  ** the uplinks' 72 x 47 / 4 = 846 GB/s, so it loses nothing; the
  ** all-to-all drives every NIC and takes 4x the network time. */
  pod_system g = coll_fixture_preset("gb200_nvl72"), go = g;
  go.leaf_gpus = 72;
  go.oversub = 4.0;
  a = eval_ok(&g, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_AUTO);
  b = eval_ok(&go, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_AUTO);
  assert_close(b.time_s, a.time_s, 1e-12);
  a = eval_ok(&g, POD_COLL_ALL_TO_ALL, 144, 72, S, POD_ALGO_AUTO);
  b = eval_ok(&go, POD_COLL_ALL_TO_ALL, 144, 72, S, POD_ALGO_AUTO);
  assert_close(b.time_s / a.time_s, 4.0, 0.03);
  /* at 8:1 the uplinks (423 GB/s) still carry the 384 */
  go.oversub = 8.0;
  b = eval_ok(&go, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_RING);
  a = eval_ok(&g, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_RING);
  assert_close(b.time_s, a.time_s, 1e-12);
  /* at 16:1 (211 GB/s) the ring's network phase takes 384 / 211 longer */
  go.oversub = 16.0;
  b = eval_ok(&go, POD_COLL_ALL_REDUCE, 144, 72, S, POD_ALGO_RING);
  assert_true(b.time_s > 1.5 * a.time_s);
}

/* Pipeline fill grows with the ring length: a 72-rank ring reaches its
** bandwidth at a larger message than an 8-rank one. */
static void test_fill_grows_with_ranks(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("gb200_nvl72");
  pod_coll_result r8 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 8, 0, 64 * MIB, POD_ALGO_RING);
  pod_coll_result r72 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 72, 0, 64 * MIB, POD_ALGO_RING);
  assert_true(r8.busbw_GBps > 1.8 * r72.busbw_GBps);
  /* at large sizes both approach the same link-bound busbw */
  r8 = eval_ok(&s, POD_COLL_ALL_REDUCE, 8, 0, 64 * GIB, POD_ALGO_RING);
  r72 = eval_ok(&s, POD_COLL_ALL_REDUCE, 72, 0, 64 * GIB, POD_ALGO_RING);
  assert_close(r72.busbw_GBps / r8.busbw_GBps, 1.0, 0.03);
  /* the Simple-protocol bandwidth term is k (S + n c f) / B: the half
  ** size is 9x larger at 72 ranks */
  double h8 = up_half(&s, 8), h72 = up_half(&s, 72);
  assert_close(h72 / h8, 9.0, 1e-12);
}

/* A tree fills through every domain it spans: before it streams, each of
** the d domains holds its network channels' NCCL buffers (net_channels x
** 4 MiB), so the fill grows linearly with d (C7), not with the depth. */
static void test_tree_fill_grows_with_domains(void **state) {
  (void)state;
  pod_system s = slow_net();
  double D = s.net_channels * s.nic_gbps / 8.0 * s.out_eff * 1e9;
  double buf = s.net_channels * 4.0 * MIB;
  double a = s.out_latency_us * 1e-6;
  /* 8 and 64 domains: the same 2 S per domain at the heads' NICs, so the
  ** times differ by the tree's steps and the fills only; a message
  ** smaller than the buffers fills them with itself only */
  const double sizes[] = {64 * MIB, MIB}, held[] = {buf, MIB};
  for (int k = 0; k < 2; k++) {
    double fill[2];
    const int ds[] = {8, 64};
    for (int i = 0; i < 2; i++) {
      pod_coll_result r = eval_ok(&s, POD_COLL_ALL_REDUCE, 8 * ds[i], 8,
                                  sizes[k], POD_ALGO_NVLS_TREE);
      fill[i] = r.time_s - 2.0 * log2(ds[i]) * a;
    }
    assert_close(fill[1] - fill[0], 56 * held[k] / D, 1e-6);
  }
  /* a ring starts every link at once: no such fill */
  pod_coll_result r2 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 16, 8, 1.0, POD_ALGO_RING);
  pod_coll_result r64 =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 512, 8, 1.0, POD_ALGO_RING);
  assert_true(r64.time_s - r2.time_s < 62 * buf / D / 4);
}

/* Path collisions come from routing: only static ECMP loses bandwidth,
** and only with 3+ domains. */
static void test_routing_collisions(void **state) {
  (void)state;
  pod_system st = coll_fixture_preset("hgx_h100");
  const int routes[] = {POD_ROUTING_ADAPTIVE, POD_ROUTING_SPRAY,
                        POD_ROUTING_SRD};
  pod_coll_result a =
      eval_ok(&st, POD_COLL_ALL_TO_ALL, 64, 8, 16 * GIB, POD_ALGO_AUTO);
  for (size_t i = 0; i < 3; i++) {
    pod_system x = st;
    x.routing = routes[i];
    pod_coll_result b =
        eval_ok(&x, POD_COLL_ALL_TO_ALL, 64, 8, 16 * GIB, POD_ALGO_AUTO);
    /* (1 - (6/7)^7): 66% of the paths busy under static hashing */
    assert_close(a.time_s / b.time_s, 1.0 / (1.0 - pow(6.0 / 7.0, 7)), 0.03);
    /* two domains: one peer per NIC, nothing to collide */
    pod_coll_result c =
        eval_ok(&st, POD_COLL_ALL_TO_ALL, 16, 8, GIB, POD_ALGO_AUTO);
    pod_coll_result d =
        eval_ok(&x, POD_COLL_ALL_TO_ALL, 16, 8, GIB, POD_ALGO_AUTO);
    assert_close(c.time_s, d.time_s, 1e-12);
    /* rings are not hashed onto many paths: routing does not matter */
    c = eval_ok(&st, POD_COLL_ALL_REDUCE, 64, 8, GIB, POD_ALGO_RING);
    d = eval_ok(&x, POD_COLL_ALL_REDUCE, 64, 8, GIB, POD_ALGO_RING);
    assert_close(c.time_s, d.time_s, 1e-12);
  }
}

/* The per-message overhead: one proxy thread posts every network peer's
** message, so the posts bound the network latency from below. */
static void test_msg_overhead(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100"), slow = s;
  slow.msg_overhead_us = 10.0; /* 8 x 10 us > the 14 us network step */
  pod_coll_result a = eval_ok(&s, POD_COLL_ALL_TO_ALL, 64, 8, 0, POD_ALGO_AUTO);
  pod_coll_result b =
      eval_ok(&slow, POD_COLL_ALL_TO_ALL, 64, 8, 0, POD_ALGO_AUTO);
  /* 56 network peers posted at 10 us each (560 us) instead of one 14 us
  ** step (Simple) or 2.5 us (LL): the posts cost the same under both
  ** protocols */
  assert_true(b.time_s > a.time_s + 7 * 60e-6);
  /* inside one domain nothing is posted to a NIC */
  a = eval_ok(&s, POD_COLL_ALL_TO_ALL, 8, 8, MIB, POD_ALGO_AUTO);
  b = eval_ok(&slow, POD_COLL_ALL_TO_ALL, 8, 8, MIB, POD_ALGO_AUTO);
  assert_close(a.time_s, b.time_s, 1e-12);
}

/* The plans' leaf shares never exceed 1, so at oversub 1 leaf_mult is 1
** whatever they are: what lets LEAF_MULT skip them, and setup_place skip
** the leaf's use and domains per leaf (coll_plan.h).  Every preset, leaf
** groups from one GPU to beyond a domain, groups that span them. */
static void test_leaf_shares_at_most_one(void **state) {
  (void)state;
  static const int leaves[] = {1, 2, 8, 16, 32, 72, 144};
  static const int doms[] = {2, 3, 4, 5, 8, 9, 16, 64, 255};
  int spans = 0;
  for (int i = 0; pod_hw_system_at(i, NULL) != NULL; i++) {
    pod_system s = *pod_hw_system_at(i, NULL), one;
    for (int li = 0; li < 7; li++)
      for (int r = 1; r <= s.domain_gpus; r *= 2)
        for (int di = 0; di < 9; di++) {
          s.leaf_gpus = leaves[li];
          s.oversub = 2.0; /* the shares are made */
          int n = r * doms[di];
          place pl;
          rates q;
          setup(&s, n, r, &pl, &q);
          if (!pl.spans) continue;
          spans++;
          double nn = pl.nn, rr = pl.rr;
          double f[4] = {ring_leaf_frac(&pl), tree_leaf_frac(&pl),
                         (nn - (double)pl.m * rr) / (nn - rr),
                         (double)pl.spans};
          one = s;
          one.oversub = 1.0;
          for (int k = 0; k < 4; k++) {
            assert_true(f[k] >= 0.0 && f[k] <= 1.0);
            assert_true(leaf_mult(&one, f[k]) == 1.0);
            assert_true(LEAF_MULT(&one, f[k]) == 1.0);
            assert_true(LEAF_MULT(&s, f[k]) == leaf_mult(&s, f[k]));
          }
          /* at oversub 1 the placement does not make them */
          place p1;
          setup(&one, n, r, &p1, &q);
          assert_int_equal(p1.m, 1);
          assert_true(p1.leaf_use == 1.0);
        }
  }
  assert_true(spans > 1000);
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_leaf_shares_at_most_one),
      cmocka_unit_test(test_two_node_rule),
      cmocka_unit_test(test_tree_three_domains),
      cmocka_unit_test(test_auto_is_ncclish),
      cmocka_unit_test(test_nvls_tuner_ranks),
      cmocka_unit_test(test_nvls_tuner_figures),
      cmocka_unit_test(test_collnet_with_sharp),
      cmocka_unit_test(test_channels_set_nics),
      cmocka_unit_test(test_net_tuner_choice),
      cmocka_unit_test(test_a100_two_node_choice),
      cmocka_unit_test(test_nvlstree_chunk_and_heads),
      cmocka_unit_test(test_leaf_oversub),
      cmocka_unit_test(test_fill_grows_with_ranks),
      cmocka_unit_test(test_tree_fill_grows_with_domains),
      cmocka_unit_test(test_routing_collisions),
      cmocka_unit_test(test_msg_overhead),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
