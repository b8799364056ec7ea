/*
** fuzz_coll.c: pod_coll_eval and the collective kernel on arbitrary
** systems and arguments (every field of pod_coll_cfg, in range, at the
** edges, non-finite or arbitrary bits).  Properties: no crash or UB; a
** non-finite input is never accepted; POD_OK means a finite, non-negative
** time and finite bandwidths; an error fills pod_err with a message; the
** kernel agrees with pod_coll_eval; a prepared collective
** (pod_coll_prepare) timed with other link efficiencies is
** pod_coll_time_checked bit for bit; the kernel's prepared block form
** (pod_coll_kernel_block) on arbitrary values of the fields it lets vary
** gives the kernel's metrics bit for bit, or leaves the sample to it.
*/
#include <gsl/gsl_errno.h>

#include "fuzz_fields.h"
#include "pod_err.h"
#include "pod_coll.h"

extern const lpod_type lpod_coll_cfg_type;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static fz_fields fs;
  static int nsys;
  if (fs.n == 0) {
    pod_init();
    fz_collect(&fs, &lpod_coll_cfg_type, 0, "");
    while (pod_hw_system_at(nsys, NULL)) nsys++;
  }
  fz f = {data, size};
  pod_coll_cfg c;
  memset(&c, 0, sizeof c);
  c.system = *pod_hw_system_at(fz_u8(&f) % nsys, NULL);
  c.op = (pod_coll_op)(fz_u8(&f) % POD_COLL_NOPS);
  c.args.ranks = 1 + fz_u8(&f);
  c.args.ranks_per_domain = 0;
  c.args.bytes = ldexp(1.0, fz_u8(&f) % 40);
  c.args.algo = (pod_coll_algo)(fz_u8(&f) % POD_ALGO_N);
  int nmut = fz_u8(&f) % 8;
  for (int i = 0; i < nmut && f.n > 0; i++) fz_mutate(&f, &fs, &c);

  pod_coll_result r;
  pod_err e;
  pod_err_clear(&e);
  int rc = pod_coll_eval(&c.system, c.op, &c.args, &r, &e);
  const char *bad = fz_nonfinite(&fs, &c);
  if (rc == POD_OK) {
    if (bad) FZ_FAIL("pod_coll_eval accepted a non-finite %s", bad);
    if (!isfinite(r.time_s) || r.time_s < 0 || !isfinite(r.algbw_GBps) ||
        !isfinite(r.busbw_GBps))
      FZ_FAIL("pod_coll_eval: POD_OK with time_s=%g algbw=%g busbw=%g",
              r.time_s, r.algbw_GBps, r.busbw_GBps);
    if ((int)r.algo < 0 || r.algo >= POD_ALGO_N)
      FZ_FAIL("result algo %d", (int)r.algo);
    /* auto runs NCCL's set only: never hierarchical, NVLS inside one
    ** domain, NVLS-tree across, CollNet only with SHARP */
    int rpd = c.args.ranks_per_domain;
    if (rpd == 0)
      rpd = c.args.ranks < c.system.domain_gpus ? c.args.ranks
                                                : c.system.domain_gpus;
    int one_domain = rpd == c.args.ranks;
    if (c.args.algo == POD_ALGO_AUTO) {
      if (r.algo == POD_ALGO_HIERARCHICAL) FZ_FAIL("auto picked hierarchical");
      if (r.algo == POD_ALGO_NVLS && !one_domain)
        FZ_FAIL("auto picked nvls across domains");
      if (r.algo == POD_ALGO_NVLS_TREE && one_domain)
        FZ_FAIL("auto picked nvls_tree in one domain");
      if ((r.algo == POD_ALGO_COLLNET || r.algo == POD_ALGO_COLLNET_CHAIN) &&
          (!c.system.sharp || one_domain))
        FZ_FAIL("auto picked collnet without SHARP or in one domain");
    }
  } else if (e.msg[0] == '\0') {
    FZ_FAIL("pod_coll_eval: status %d without a message", rc);
  }
  /* the same without an error struct */
  pod_coll_result r2;
  if (pod_coll_eval(&c.system, c.op, &c.args, &r2, NULL) != rc)
    FZ_FAIL("pod_coll_eval: status differs without pod_err");
  /* the kernel */
  double m[16];
  pod_err e2;
  pod_err_clear(&e2);
  int rk = pod_coll_kernel.fn(&c, m, &e2);
  if ((rk == POD_OK) != (rc == POD_OK))
    FZ_FAIL("kernel status %d, eval status %d", rk, rc);
  if (rk == POD_OK)
    for (int i = 0; i < pod_coll_kernel.nmetrics; i++)
      if (!isfinite(m[i]))
        FZ_FAIL("kernel metric %s = %g", pod_coll_kernel.metric_names[i], m[i]);
  /* the prepared collective: on a checked system, auto, prepared on it
  ** and timed with other link efficiencies, it is pod_coll_time_checked
  ** byte for byte (status and time) */
  double ue = (1.0 + fz_u8(&f)) / 256.0, oe = (1.0 + fz_u8(&f)) / 256.0;
  if (c.args.algo == POD_ALGO_AUTO &&
      pod_hw_system_check(&c.system, NULL) == POD_OK) {
    pod_coll_prep p;
    int rp = pod_coll_prepare(&c.system, c.op, c.args.ranks,
                              c.args.ranks_per_domain, c.args.bytes, &p, NULL);
    double t0 = 0.0;
    int r0 = pod_coll_time_checked(&c.system, c.op, c.args.ranks,
                                   c.args.ranks_per_domain, c.args.bytes, NULL,
                                   &t0, NULL);
    if (rp != r0) FZ_FAIL("pod_coll_prepare status %d, checked %d", rp, r0);
    if (rp == POD_OK) {
      pod_coll_cfg s2 = c;
      s2.system.up_eff = ue;
      s2.system.out_eff = oe;
      double t1 = 0.0, t2 = 0.0;
      int r1 = pod_coll_time_checked(&s2.system, c.op, c.args.ranks,
                                     c.args.ranks_per_domain, c.args.bytes,
                                     NULL, &t1, NULL);
      int r2 = pod_coll_time_prepared(&p, &s2.system, c.args.bytes, &t2, NULL);
      if (r1 != r2 || (r1 == POD_OK && memcmp(&t1, &t2, sizeof t1) != 0))
        FZ_FAIL("prepared status %d time %a, checked status %d time %a", r2, t2,
                r1, t1);
    }
  }
  /* the block form: up to four of the fields it may let vary, bound and
  ** given arbitrary values */
  static const size_t vary[] = {offsetof(pod_coll_cfg, system.up_eff),
                                offsetof(pod_coll_cfg, system.out_eff),
                                offsetof(pod_coll_cfg, system.up_latency_us),
                                offsetof(pod_coll_cfg, system.out_latency_us),
                                offsetof(pod_coll_cfg, system.msg_overhead_us),
                                offsetof(pod_coll_cfg, system.oversub),
                                offsetof(pod_coll_cfg, system.up_fill_KiB),
                                offsetof(pod_coll_cfg, args.bytes)};
  const pod_kernel_block *kb = &pod_coll_kernel_block;
  static unsigned char prep[4096];
  if (kb->prep_size > sizeof prep) FZ_FAIL("prep_size %zu", kb->prep_size);
  pod_bind b[4];
  double x[4];
  int nb = fz_u8(&f) % 5;
  for (int i = 0; i < nb; i++) {
    b[i] = (pod_bind){vary[fz_u8(&f) % 8], POD_BIND_DOUBLE};
    x[i] = fz_double(&f, 0.0, 2.0);
  }
  if (kb->prepare(&c, b, nb, prep) == POD_OK) {
    pod_coll_cfg w = c, ref = c;
    double yb[3], yf[3];
    for (int i = 0; i < nb; i++)
      memcpy((char *)&ref + b[i].offset, &x[i], sizeof x[i]);
    int rf = pod_coll_kernel.fn(&ref, yf, NULL);
    if (kb->eval(prep, &w, 1, x, yb) == 1 &&
        (rf != POD_OK || memcmp(yb, yf, sizeof yb) != 0))
      FZ_FAIL("block form %a %a %a, kernel status %d %a %a %a", yb[0], yb[1],
              yb[2], rf, yf[0], yf[1], yf[2]);
  }
  return 0;
}
