/*
** test_coll.c: collective kernels (core/coll.c): closed forms, model
** properties and every error path.  Validation against published figures
** lives in tests/validation/c*.lua.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "coll_int.h"
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

static int eval_rc(const pod_system *s, pod_coll_op op, int n, int r, double S,
                   pod_coll_algo algo, pod_err *e) {
  pod_coll_args a = {n, r, S, algo};
  pod_coll_result res;
  pod_err_clear(e);
  return pod_coll_eval(s, op, &a, &res, e);
}

static void assert_close(double got, double want, double rel) {
  if (!(fabs(got - want) <= rel * fabs(want)))
    fail_msg("got %.12g, want %.12g (rel %.3g)", got, want, rel);
}

/* ---- closed forms on one domain ---------------------------------------- */

/* The documented protocol constants of coll.c (NCCL baseLat, hwLat). */
#define BASE_SIMPLE 8.4e-6
#define BASE_LL 6.6e-6
#define LL_RATIO 0.18
#define LL_SHARE 0.38

/* The scale-up pipeline fill of `rows` chunk rows (coll.c), bytes. */
static double up_half(const pod_system *s, double rows) {
  return rows * s->up_channels * s->up_fill_KiB * 1024.0;
}

/* t = min(Simple, LL) with steps latency steps, k x S bytes per GPU and a
** pipeline of `rows` chunk rows. */
static double closed_form(const pod_system *s, double steps, double k,
                          double rows, double S) {
  double B = s->up_GBps * 1e9 * s->up_eff;
  double a = s->up_latency_us * 1e-6;
  double simple =
      BASE_SIMPLE + steps * a + (S > 0 ? k * (S + up_half(s, rows)) / B : 0.0);
  double ll = BASE_LL + LL_RATIO * steps * a + k * S / (LL_SHARE * B);
  return simple < ll ? simple : ll;
}

/* The same for point-to-point: one latency step and one 512 KiB NVLink
** p2p chunk (NCCL P2P_NVL_CHUNKSIZE) of fill per group of concurrent
** peers. */
static double p2p_closed_form(const pod_system *s, double rounds, double k,
                              double S) {
  double B = s->up_GBps * 1e9 * s->up_eff;
  double a = s->up_latency_us * 1e-6;
  double simple = BASE_SIMPLE + rounds * a +
                  (S > 0 && k > 0 ? (k * S + rounds * 512.0 * 1024.0) / B : 0);
  double ll = BASE_LL + LL_RATIO * rounds * a + k * S / (LL_SHARE * B);
  return simple < ll ? simple : ll;
}

/* Groups of concurrent peers of an all-to-all of S over n ranks of one
** NVLink5 or NVLink4 domain, worked by hand from NCCL 2.28.7: at most 8
** peers are always in flight; 72 ranks of a GB200 NVL72 have p2pnChannels
** 32 (the ring graph's 8 channels at 90 GB/s, duplicated to 16 at 45,
** doubled by ncclTopoPostset) and 32 channels per NVLink peer (2 x 18
** NVLinks = 36, pow2Up 64, at most 32), nChannelsMin 1 (32 halved while
** x 72 > 32); a message of b = S/72 takes 1 channel, doubled while a part
** exceeds 32 steps of 512 KiB (16 MiB); 32 / channels x 8 peers in
** flight. */
static double one_domain_groups(int n, double S) {
  if (n <= 9) return 1.0;
  assert_int_equal(n, 72);
  double b = S / 72.0, ch = 1.0;
  while (b / ch > 16.0 * MIB && ch < 32.0) ch *= 2.0;
  return ceil(71.0 / (8.0 * 32.0 / ch));
}

static void test_closed_forms_one_domain(void **state) {
  (void)state;
  const char *systems[] = {"dgx_a100", "hgx_h100", "hgx_b200", "gb200_nvl72"};
  const double sizes[] = {0.0, 8.0, 4096.0, MIB, 64 * MIB, 8 * GIB};
  for (size_t i = 0; i < 4; i++) {
    pod_system s = coll_fixture_preset(systems[i]);
    int ns[] = {2, 4, 8, 72};
    for (size_t j = 0; j < 4; j++) {
      if (ns[j] > s.domain_gpus) continue;
      int n = ns[j];
      double nn = n;
      for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        double S = sizes[k];
        pod_coll_result r;
        r = eval_ok(&s, POD_COLL_ALL_REDUCE, n, 0, S, POD_ALGO_RING);
        assert_close(r.time_s,
                     closed_form(&s, 2 * (n - 1), 2 * (nn - 1) / nn, nn, S),
                     1e-12);
        r = eval_ok(&s, POD_COLL_ALL_GATHER, n, 0, S, POD_ALGO_RING);
        assert_close(r.time_s, closed_form(&s, n - 1, (nn - 1) / nn, nn, S),
                     1e-12);
        r = eval_ok(&s, POD_COLL_REDUCE_SCATTER, n, 0, S, POD_ALGO_RING);
        assert_close(r.time_s, closed_form(&s, n - 1, (nn - 1) / nn, nn, S),
                     1e-12);
        /* all-to-all: one latency step and one chunk of fill per group of
        ** peers NCCL holds in flight (one_domain_groups) */
        r = eval_ok(&s, POD_COLL_ALL_TO_ALL, n, 0, S, POD_ALGO_DIRECT);
        assert_close(
            r.time_s,
            p2p_closed_form(&s, one_domain_groups(n, S), (nn - 1) / nn, S),
            1e-12);
        r = eval_ok(&s, POD_COLL_BROADCAST, n, 0, S, POD_ALGO_RING);
        assert_close(r.time_s, closed_form(&s, n - 1, 1.0, nn, S), 1e-12);
        if (n == 2) {
          r = eval_ok(&s, POD_COLL_SEND_RECV, 2, 0, S, POD_ALGO_AUTO);
          assert_close(r.time_s, p2p_closed_form(&s, 1, 1.0, S), 1e-12);
          assert_int_equal(r.algo, POD_ALGO_DIRECT);
        }
        /* nccl-tests conventions */
        r = eval_ok(&s, POD_COLL_ALL_REDUCE, n, 0, S, POD_ALGO_RING);
        assert_close(r.algbw_GBps, S / r.time_s / 1e9, 1e-12);
        assert_close(r.busbw_GBps, r.algbw_GBps * 2 * (nn - 1) / nn, 1e-12);
      }
    }
  }
}

static void test_nvls_closed_form(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100");
  for (double S = MIB; S <= 8 * GIB; S *= 8) {
    pod_coll_result r =
        eval_ok(&s, POD_COLL_ALL_REDUCE, 8, 0, S, POD_ALGO_NVLS);
    double B = s.up_GBps * 1e9 * s.nvls_eff;
    double want = s.nvls_latency_us * 1e-6 + 1.75 * (S + up_half(&s, 8)) / B;
    assert_close(r.time_s, want, 1e-12);
    assert_int_equal(r.algo, POD_ALGO_NVLS);
  }
}

static void test_busbw_factors_and_names(void **state) {
  (void)state;
  assert_close(pod_coll_busbw_factor(POD_COLL_ALL_REDUCE, 8), 1.75, 1e-15);
  assert_close(pod_coll_busbw_factor(POD_COLL_ALL_GATHER, 8), 0.875, 1e-15);
  assert_close(pod_coll_busbw_factor(POD_COLL_REDUCE_SCATTER, 4), 0.75, 1e-15);
  assert_close(pod_coll_busbw_factor(POD_COLL_ALL_TO_ALL, 64), 63.0 / 64,
               1e-15);
  assert_true(pod_coll_busbw_factor(POD_COLL_BROADCAST, 8) == 1.0);
  assert_true(pod_coll_busbw_factor(POD_COLL_SEND_RECV, 2) == 1.0);
  assert_true(pod_coll_busbw_factor(POD_COLL_ALL_REDUCE, 0) == 0.0);
  assert_true(pod_coll_busbw_factor(POD_COLL_NOPS, 8) == 0.0);
  for (int i = 0; i < POD_COLL_NOPS; i++) {
    pod_coll_op op;
    assert_int_equal(pod_coll_op_parse(pod_coll_op_name((pod_coll_op)i), &op),
                     POD_OK);
    assert_int_equal(op, i);
  }
  for (int i = 0; i < POD_ALGO_N; i++) {
    pod_coll_algo a;
    assert_int_equal(
        pod_coll_algo_parse(pod_coll_algo_name((pod_coll_algo)i), &a), POD_OK);
    assert_int_equal(a, i);
  }
  pod_coll_op op;
  pod_coll_algo al;
  assert_int_equal(pod_coll_op_parse("allreduce", &op), POD_ENOENT);
  assert_int_equal(pod_coll_op_parse(NULL, &op), POD_ENOENT);
  assert_int_equal(pod_coll_algo_parse("butterfly", &al), POD_ENOENT);
  assert_int_equal(pod_coll_algo_parse(NULL, &al), POD_ENOENT);
  assert_null(pod_coll_op_name(POD_COLL_NOPS));
  assert_null(pod_coll_algo_name(POD_ALGO_N));
  assert_string_equal(pod_coll_op_name(POD_COLL_ALL_TO_ALL), "all_to_all");
  assert_string_equal(pod_coll_algo_name(POD_ALGO_HIERARCHICAL),
                      "hierarchical");
}

/* ---- model properties -------------------------------------------------- */

static const pod_coll_algo ALGOS[] = {
    POD_ALGO_AUTO,      POD_ALGO_RING,    POD_ALGO_TREE,
    POD_ALGO_NVLS,      POD_ALGO_DIRECT,  POD_ALGO_HIERARCHICAL,
    POD_ALGO_NVLS_TREE, POD_ALGO_COLLNET, POD_ALGO_COLLNET_CHAIN};

/* Time never decreases with bytes, for every system, op, algorithm and
** placement the model accepts. */
static void test_time_monotone_in_bytes(void **state) {
  (void)state;
  const int ns[] = {2, 8, 16, 64, 72, 144};
  const pod_system *s;
  for (int i = 0; (s = pod_hw_system_at(i, NULL)) != NULL; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (size_t a = 0; a < sizeof ALGOS / sizeof ALGOS[0]; a++)
        for (size_t j = 0; j < sizeof ns / sizeof ns[0]; j++)
          for (int r = 0; r <= 8; r += 1) {
            int n = ns[j];
            pod_err e;
            if (eval_rc(s, (pod_coll_op)op, n, r, 1.0, ALGOS[a], &e) != POD_OK)
              continue;
            double prev = 0.0;
            for (double S = 0.0; S <= 16 * GIB; S = S == 0 ? 1 : S * 1.7) {
              pod_coll_result res =
                  eval_ok(s, (pod_coll_op)op, n, r, S, ALGOS[a]);
              /* auto across domains picks by NCCL's tuner, which may
              ** switch to an algorithm that runs faster than the last */
              if (!(ALGOS[a] == POD_ALGO_AUTO && op == POD_COLL_ALL_REDUCE))
                assert_true(res.time_s >= prev);
              assert_true(pod_finite(res.time_s) && res.time_s > 0);
              prev = res.time_s;
            }
          }
}

/* busbw never above line rate x its factor on one domain; NVLS may exceed
** the link rate because the switch reduces in-network (each GPU moves
** (1+1/n)S per direction, not 2(n-1)/n S), but never above
** 2(n-1)/(n+1) x the link rate. */
static void test_busbw_bounds_one_domain(void **state) {
  (void)state;
  const pod_system *s;
  for (int i = 0; (s = pod_hw_system_at(i, NULL)) != NULL; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (double S = 1024; S <= 32 * GIB; S *= 4) {
        int n = op == POD_COLL_SEND_RECV ? 2 : s->domain_gpus;
        pod_coll_result r = eval_ok(s, (pod_coll_op)op, n, 0, S, POD_ALGO_AUTO);
        if (r.algo == POD_ALGO_NVLS) {
          double nn = n;
          assert_true(r.busbw_GBps <=
                      2 * (nn - 1) / (nn + 1) * s->up_GBps + 1e-9);
        } else {
          assert_true(r.busbw_GBps <= s->up_GBps * s->up_eff + 1e-9);
        }
      }
  /* NVLS lifts all-reduce busbw above the ring's at large sizes. */
  pod_system h = coll_fixture_preset("hgx_h100");
  pod_coll_result nv =
      eval_ok(&h, POD_COLL_ALL_REDUCE, 8, 0, 8 * GIB, POD_ALGO_NVLS);
  pod_coll_result ring =
      eval_ok(&h, POD_COLL_ALL_REDUCE, 8, 0, 8 * GIB, POD_ALGO_RING);
  assert_true(nv.busbw_GBps > ring.busbw_GBps);
  assert_true(nv.busbw_GBps > h.up_GBps);
}

/* A domain's network rate: min(r, net_channels) GPUs' NICs, at most
** net_channel_GBps per channel (coll.c), GB/s. */
static double dom_GBps(const pod_system *s, int r) {
  double nic = s->nics_per_gpu * s->nic_gbps / 8.0 * s->out_eff;
  double used = r < s->net_channels ? r : s->net_channels;
  double cap = s->net_channels * s->net_channel_GBps;
  return used * nic < cap ? used * nic : cap;
}

/* Across domains the ring's busbw is bound by min(up r/(r-1), the
** domain's channel rate). */
static void test_busbw_bounds_multi_domain(void **state) {
  (void)state;
  const char *names[] = {"hgx_h100", "hgx_b200", "gb200_nvl72", "gb300_nvl72",
                         "dgx_a100"};
  for (size_t i = 0; i < 5; i++) {
    pod_system s = coll_fixture_preset(names[i]);
    int r = s.domain_gpus;
    double nic_GBps = s.nics_per_gpu * s.nic_gbps / 8.0;
    for (int d = 2; d <= 16; d *= 2)
      for (double S = MIB; S <= 16 * GIB; S *= 8) {
        int n = r * d;
        pod_coll_result res =
            eval_ok(&s, POD_COLL_ALL_REDUCE, n, r, S, POD_ALGO_RING);
        double up_bound = s.up_GBps * r / (r - 1.0);
        /* the ring runs its channels at their NICs' rate (all NICs at
        ** most); the all-gather ring at the domain's channel rate */
        double out_bound = r * nic_GBps * s.out_eff;
        assert_true(dom_GBps(&s, r) <= out_bound);
        double bound = up_bound < out_bound ? up_bound : out_bound;
        assert_true(res.busbw_GBps <= bound);
        res = eval_ok(&s, POD_COLL_ALL_GATHER, n, r, S, POD_ALGO_RING);
        assert_true(res.busbw_GBps <= bound);
      }
  }
}

/* Hierarchical is never slower than the flat ring when the scale-up link
** carries the domain's share faster than the ring's network phase, at the
** size in question: hierarchical moves 2(r-1)/r (S + r h) per GPU on
** NVLink, the ring 2(n-1)/n (S + h_out) per domain on the network, so it
** suffices that U(S) >= (r-1)/r n/(n-1) D(S), with U(S), D(S) the
** achievable scale-up and domain network rates at S (each with its fill:
** the hierarchical's chain of r rows, the network's out_half_MB). */
static void test_hierarchical_not_slower(void **state) {
  (void)state;
  const pod_system *s;
  int compared = 0;
  for (int i = 0; (s = pod_hw_system_at(i, NULL)) != NULL; i++) {
    double U = s->up_GBps * s->up_eff;
    for (int r = 2; r <= s->domain_gpus; r *= 2)
      for (int d = 2; d <= 32; d *= 2) {
        int n = r * d;
        double D = dom_GBps(s, r);
        double need = (r - 1.0) / r * n / (n - 1.0);
        if (U < need * D) continue;
        for (int op = 0; op < 3; op++)
          for (double S = 8; S <= 8 * GIB; S *= 4) {
            /* NCCL's ring runs its network stage at its channels' NICs
            ** (coll_tune.c), podsim's hierarchical at the domain's
            ** channel rate: compare only where the ring is no faster */
            if (pod_coll__ring_net_GBps(s, r) > D * (1 + 1e-12)) continue;
            double US = U * S / (S + up_half(s, r));
            double DS = D * S / (S + s->out_half_MB * MIB);
            if (US < need * DS) continue;
            pod_coll_result h =
                eval_ok(s, (pod_coll_op)op, n, r, S, POD_ALGO_HIERARCHICAL);
            pod_coll_result ring =
                eval_ok(s, (pod_coll_op)op, n, r, S, POD_ALGO_RING);
            assert_true(h.time_s <= ring.time_s * (1 + 1e-12));
            compared++;
          }
      }
  }
  assert_true(compared > 100);
}

/* All-to-all across domains: the NIC share (n-r)/n S cannot move faster
** than the GPU's NIC line rate, and busbw falls as domains are added
** (path collisions grow with the number of peer domains). */
static void test_alltoall_nic_bound(void **state) {
  (void)state;
  const char *names[] = {"hgx_h100", "hgx_b200", "gb200_nvl72", "gb300_nvl72"};
  for (size_t i = 0; i < 4; i++) {
    pod_system s = coll_fixture_preset(names[i]);
    int r = s.domain_gpus;
    double nic_Bps = s.nics_per_gpu * s.nic_gbps / 8.0 * 1e9;
    double prev_busbw = INFINITY;
    for (int d = 2; d <= 64; d *= 2) {
      int n = r * d;
      double S = GIB;
      pod_coll_result res =
          eval_ok(&s, POD_COLL_ALL_TO_ALL, n, 0, S, POD_ALGO_AUTO);
      assert_int_equal(res.algo, POD_ALGO_DIRECT);
      assert_true(res.time_s >= (n - r) / (double)n * S / nic_Bps);
      assert_true(res.busbw_GBps < prev_busbw);
      prev_busbw = res.busbw_GBps;
    }
    /* Two domains, no collisions (one peer per NIC): busbw = the NIC's
    ** achievable rate x (n-1)/(n-r) up to latency and fill. */
    pod_system nocoll = s;
    nocoll.routing = POD_ROUTING_ADAPTIVE;
    pod_coll_result a =
        eval_ok(&s, POD_COLL_ALL_TO_ALL, 2 * r, 0, GIB, POD_ALGO_AUTO);
    pod_coll_result b =
        eval_ok(&nocoll, POD_COLL_ALL_TO_ALL, 2 * r, 0, GIB, POD_ALGO_AUTO);
    assert_close(a.time_s, b.time_s, 1e-12);
    /* More domains: collisions cost time unless routing is adaptive
    ** (16 GiB so that per-peer latency is small against transfer). */
    a = eval_ok(&s, POD_COLL_ALL_TO_ALL, 8 * r, 0, 16 * GIB, POD_ALGO_AUTO);
    b = eval_ok(&nocoll, POD_COLL_ALL_TO_ALL, 8 * r, 0, 16 * GIB,
                POD_ALGO_AUTO);
    assert_true(a.time_s > 1.3 * b.time_s);
  }
  /* Inside one NVL72 domain 64 GPUs beat 8 H100 nodes by an order of
  ** magnitude at 1 GiB (public.md C6 checks the value in Lua). */
  pod_system nvl = coll_fixture_preset("gb200_nvl72"),
             h100 = coll_fixture_preset("hgx_h100");
  pod_coll_result x =
      eval_ok(&nvl, POD_COLL_ALL_TO_ALL, 64, 0, GIB, POD_ALGO_AUTO);
  pod_coll_result y =
      eval_ok(&h100, POD_COLL_ALL_TO_ALL, 64, 0, GIB, POD_ALGO_AUTO);
  assert_true(y.time_s > 10 * x.time_s);
}

/* auto reports the fastest valid algorithm of NCCL's set (never podsim's
** hierarchical), with that algorithm's time. */
static void test_auto_is_fastest(void **state) {
  (void)state;
  const pod_system *s;
  for (int i = 0; (s = pod_hw_system_at(i, NULL)) != NULL; i++)
    for (int op = 0; op < POD_COLL_NOPS; op++)
      for (double S = 64; S <= 4 * GIB; S *= 16) {
        int n = op == POD_COLL_SEND_RECV ? 2 : 4 * s->domain_gpus;
        pod_coll_result au =
            eval_ok(s, (pod_coll_op)op, n, 0, S, POD_ALGO_AUTO);
        assert_int_not_equal(au.algo, POD_ALGO_AUTO);
        pod_coll_result same = eval_ok(s, (pod_coll_op)op, n, 0, S, au.algo);
        assert_close(same.time_s, au.time_s, 1e-15);
        for (size_t a = 1; a < sizeof ALGOS / sizeof ALGOS[0]; a++) {
          pod_err e;
          if (ALGOS[a] == POD_ALGO_HIERARCHICAL) continue;
          if (eval_rc(s, (pod_coll_op)op, n, 0, S, ALGOS[a], &e) != POD_OK) {
            assert_int_equal(e.code, POD_ENOTSUP);
            assert_string_equal(e.field, "algo");
            continue;
          }
          pod_coll_result o = eval_ok(s, (pod_coll_op)op, n, 0, S, ALGOS[a]);
          /* an all-reduce across domains follows NCCL's tuner instead
          ** (test_coll_rules.c, test_net_tuner_choice) */
          if (op != POD_COLL_ALL_REDUCE) assert_true(au.time_s <= o.time_s);
        }
      }
}

static void test_degenerate_sizes(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100");
  pod_coll_result r =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 1, 0, GIB, POD_ALGO_AUTO);
  assert_true(r.time_s == 0.0 && r.algbw_GBps == 0.0 && r.busbw_GBps == 0.0);
  r = eval_ok(&s, POD_COLL_ALL_REDUCE, 8, 0, 0.0, POD_ALGO_AUTO);
  assert_true(r.time_s > 0.0 && r.algbw_GBps == 0.0);
  /* Zero bytes cost only latency: below 1 byte's time. */
  pod_coll_result one =
      eval_ok(&s, POD_COLL_ALL_REDUCE, 8, 0, 1.0, POD_ALGO_AUTO);
  assert_true(r.time_s <= one.time_s);
  /* A huge but finite buffer stays finite. */
  r = eval_ok(&s, POD_COLL_ALL_TO_ALL, 64, 0, 1e18, POD_ALGO_AUTO);
  assert_true(pod_finite(r.time_s));
}

/* ---- errors ------------------------------------------------------------ */

static void expect_err(const pod_system *s, pod_coll_op op, int n, int r,
                       double S, pod_coll_algo algo, int code,
                       const char *field) {
  pod_err e;
  assert_int_equal(eval_rc(s, op, n, r, S, algo, &e), code);
  assert_int_equal(e.code, code);
  assert_string_equal(e.field, field);
  assert_true(strlen(e.msg) > 0);
  /* err may be NULL */
  pod_coll_args a = {n, r, S, algo};
  pod_coll_result res;
  assert_int_equal(pod_coll_eval(s, op, &a, &res, NULL), code);
}

static void test_errors_args(void **state) {
  (void)state;
  pod_system s = coll_fixture_preset("hgx_h100");
  const pod_coll_op AR = POD_COLL_ALL_REDUCE;
  expect_err(&s, AR, 0, 0, MIB, POD_ALGO_AUTO, POD_EINVAL, "ranks");
  expect_err(&s, AR, -8, 0, MIB, POD_ALGO_AUTO, POD_EINVAL, "ranks");
  expect_err(&s, POD_COLL_SEND_RECV, 3, 0, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks");
  expect_err(&s, AR, 16, -1, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks_per_domain");
  expect_err(&s, AR, 12, 8, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks_per_domain"); /* 8 does not divide 12 */
  expect_err(&s, AR, 12, 0, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks_per_domain"); /* packed 8 does not divide 12 */
  expect_err(&s, AR, 32, 16, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks_per_domain"); /* more than the domain holds */
  expect_err(&s, AR, 4, 8, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "ranks_per_domain"); /* more than the ranks */
  expect_err(&s, AR, 8, 0, -1.0, POD_ALGO_AUTO, POD_EINVAL, "bytes");
  expect_err(&s, AR, 8, 0, NAN, POD_ALGO_AUTO, POD_EINVAL, "bytes");
  expect_err(&s, AR, 8, 0, INFINITY, POD_ALGO_AUTO, POD_EINVAL, "bytes");
  expect_err(&s, AR, 8, 0, MIB, (pod_coll_algo)POD_ALGO_N, POD_EINVAL, "algo");
  expect_err(&s, AR, 8, 0, MIB, (pod_coll_algo)-1, POD_EINVAL, "algo");
  expect_err(&s, (pod_coll_op)POD_COLL_NOPS, 8, 0, MIB, POD_ALGO_AUTO,
             POD_EINVAL, "op");
  expect_err(&s, (pod_coll_op)-1, 8, 0, MIB, POD_ALGO_AUTO, POD_EINVAL, "op");

  pod_coll_args a = {8, 0, MIB, POD_ALGO_AUTO};
  pod_coll_result res;
  pod_err e;
  assert_int_equal(pod_coll_eval(NULL, AR, &a, &res, &e), POD_EINVAL);
  assert_string_equal(e.field, "system");
  assert_int_equal(pod_coll_eval(&s, AR, NULL, &res, &e), POD_EINVAL);
  assert_string_equal(e.field, "args");
  assert_int_equal(pod_coll_eval(&s, AR, &a, NULL, &e), POD_EINVAL);
  assert_string_equal(e.field, "out");
}

static void test_errors_unsupported(void **state) {
  (void)state;
  pod_system a100 = coll_fixture_preset("dgx_a100"),
             h100 = coll_fixture_preset("hgx_h100");
  /* NVLS on a system without it */
  expect_err(&a100, POD_COLL_ALL_REDUCE, 8, 0, MIB, POD_ALGO_NVLS, POD_ENOTSUP,
             "algo");
  /* NVLS runs inside one NVLink domain only (NCCL: across nodes only
  ** with CollNet); NVLS-tree needs several domains and 2+ ranks in each */
  expect_err(&h100, POD_COLL_ALL_REDUCE, 16, 1, MIB, POD_ALGO_NVLS, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_ALL_REDUCE, 16, 8, MIB, POD_ALGO_NVLS, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_ALL_REDUCE, 8, 8, MIB, POD_ALGO_NVLS_TREE,
             POD_ENOTSUP, "algo");
  expect_err(&h100, POD_COLL_ALL_REDUCE, 16, 1, MIB, POD_ALGO_NVLS_TREE,
             POD_ENOTSUP, "algo");
  expect_err(&a100, POD_COLL_ALL_REDUCE, 16, 8, MIB, POD_ALGO_NVLS_TREE,
             POD_ENOTSUP, "algo");
  /* CollNet needs SHARP and several domains */
  expect_err(&h100, POD_COLL_ALL_REDUCE, 16, 8, MIB, POD_ALGO_COLLNET,
             POD_ENOTSUP, "algo");
  pod_system sharp = h100;
  sharp.sharp = 1;
  expect_err(&sharp, POD_COLL_ALL_REDUCE, 8, 8, MIB, POD_ALGO_COLLNET,
             POD_ENOTSUP, "algo");
  expect_err(&sharp, POD_COLL_ALL_GATHER, 16, 8, MIB, POD_ALGO_COLLNET,
             POD_ENOTSUP, "algo");
  /* NVLS only reduces all-reduce in this model */
  expect_err(&h100, POD_COLL_ALL_GATHER, 8, 0, MIB, POD_ALGO_NVLS, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_ALL_TO_ALL, 8, 0, MIB, POD_ALGO_RING, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_ALL_REDUCE, 8, 0, MIB, POD_ALGO_DIRECT,
             POD_ENOTSUP, "algo");
  /* hierarchical needs several domains */
  expect_err(&h100, POD_COLL_ALL_REDUCE, 8, 0, MIB, POD_ALGO_HIERARCHICAL,
             POD_ENOTSUP, "algo");
  expect_err(&h100, POD_COLL_BROADCAST, 8, 0, MIB, POD_ALGO_TREE, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_SEND_RECV, 2, 0, MIB, POD_ALGO_RING, POD_ENOTSUP,
             "algo");
  expect_err(&h100, POD_COLL_REDUCE_SCATTER, 16, 0, MIB, POD_ALGO_TREE,
             POD_ENOTSUP, "algo");
}

/* A bad system field is reported with its name before anything runs. */
static void test_errors_system_fields(void **state) {
  (void)state;
  pod_system base = coll_fixture_preset("gb200_nvl72");
  struct {
    size_t off;
    const char *field;
  } f[] = {
      {offsetof(pod_system, up_GBps), "up_GBps"},
      {offsetof(pod_system, up_latency_us), "up_latency_us"},
      {offsetof(pod_system, nics_per_gpu), "nics_per_gpu"},
      {offsetof(pod_system, nic_gbps), "nic_gbps"},
      {offsetof(pod_system, out_latency_us), "out_latency_us"},
      {offsetof(pod_system, oversub), "oversub"},
      {offsetof(pod_system, up_eff), "up_eff"},
      {offsetof(pod_system, up_fill_KiB), "up_fill_KiB"},
      {offsetof(pod_system, out_eff), "out_eff"},
      {offsetof(pod_system, out_half_MB), "out_half_MB"},
      {offsetof(pod_system, nvls_eff), "nvls_eff"},
      {offsetof(pod_system, nvls_latency_us), "nvls_latency_us"},
      {offsetof(pod_system, net_channel_GBps), "net_channel_GBps"},
      {offsetof(pod_system, msg_overhead_us), "msg_overhead_us"},
      {offsetof(pod_system, gpu.bf16_tflops), "gpu.bf16_tflops"},
  };
  for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
    pod_system s = base;
    double v = NAN;
    memcpy((char *)&s + f[i].off, &v, sizeof v);
    expect_err(&s, POD_COLL_ALL_TO_ALL, 64, 0, GIB, POD_ALGO_AUTO, POD_EINVAL,
               f[i].field);
  }
  pod_system s = base;
  s.domain_gpus = 0;
  expect_err(&s, POD_COLL_ALL_REDUCE, 8, 0, MIB, POD_ALGO_AUTO, POD_EINVAL,
             "domain_gpus");
}

/* ---- built-in evaluator ------------------------------------------------ */

static void test_kernel(void **state) {
  (void)state;
  assert_string_equal(pod_coll_kernel.name, "collective");
  assert_int_equal(pod_coll_kernel.cfg_size, sizeof(pod_coll_cfg));
  assert_int_equal(pod_coll_kernel.nmetrics, 3);
  assert_string_equal(pod_coll_kernel.metric_names[0], "time_s");
  assert_string_equal(pod_coll_kernel.metric_names[1], "algbw_GBps");
  assert_string_equal(pod_coll_kernel.metric_names[2], "busbw_GBps");
  pod_coll_cfg cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.system = coll_fixture_preset("hgx_h100");
  cfg.op = POD_COLL_ALL_TO_ALL;
  cfg.args = (pod_coll_args){64, 0, GIB, POD_ALGO_AUTO};
  double m[3];
  pod_err e;
  assert_int_equal(pod_coll_kernel.fn(&cfg, m, &e), POD_OK);
  pod_coll_result r = eval_ok(&cfg.system, cfg.op, 64, 0, GIB, POD_ALGO_AUTO);
  assert_true(m[0] == r.time_s && m[1] == r.algbw_GBps && m[2] == r.busbw_GBps);
  /* overwrite a double by offset, as a Monte Carlo plan does */
  double nic = 800.0;
  memcpy((char *)&cfg + offsetof(pod_coll_cfg, system.nic_gbps), &nic,
         sizeof nic);
  double m2[3];
  assert_int_equal(pod_coll_kernel.fn(&cfg, m2, &e), POD_OK);
  assert_true(m2[0] < m[0]);
  /* errors propagate with the field */
  cfg.args.bytes = -1.0;
  assert_int_equal(pod_coll_kernel.fn(&cfg, m2, &e), POD_EINVAL);
  assert_string_equal(e.field, "bytes");
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_closed_forms_one_domain),
      cmocka_unit_test(test_nvls_closed_form),
      cmocka_unit_test(test_busbw_factors_and_names),
      cmocka_unit_test(test_time_monotone_in_bytes),
      cmocka_unit_test(test_busbw_bounds_one_domain),
      cmocka_unit_test(test_busbw_bounds_multi_domain),
      cmocka_unit_test(test_hierarchical_not_slower),
      cmocka_unit_test(test_alltoall_nic_bound),
      cmocka_unit_test(test_auto_is_fastest),
      cmocka_unit_test(test_degenerate_sizes),
      cmocka_unit_test(test_errors_args),
      cmocka_unit_test(test_errors_unsupported),
      cmocka_unit_test(test_errors_system_fields),
      cmocka_unit_test(test_kernel),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
