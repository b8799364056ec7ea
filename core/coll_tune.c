/*
** coll_tune.c: NCCL's tuner rules that pick a collective algorithm where
** they differ from podsim's own times (see coll_int.h, docs/design.md 4).
** Facts from NVIDIA/nccl at 2.28.7 (ae7aed19): src/graph/search.cc,
** src/graph/tuning.cc, src/include/device.h; podsim's own model, no NCCL
** code.
*/
#include "coll_int.h"

/* NCCL's per-channel search speeds on NVLink, GB/s (src/graph/search.cc,
** sm100SpeedArrayIntra and sm90SpeedArrayIntra, NCCL 2.27.3 and 2.28.7;
** 2.28.9 adds 45 to the first, which changes no choice below).  The
** search tries them from the top and keeps the first that fits. */
static const double SPEED_SM100[] = {90, 80, 70, 60, 50, 40,
                                     30, 24, 20, 19, 18};
static const double SPEED_SM90[] = {60, 50, 40, 30, 24, 20, 15, 12, 11, 6, 3};
/* Their inverses: this runs on every `auto` all-reduce inside a domain,
** and a division costs as much as the rest of the rule. */
static const double INV_SM100[] = {1.0 / 90, 1.0 / 80, 1.0 / 70, 1.0 / 60,
                                   1.0 / 50, 1.0 / 40, 1.0 / 30, 1.0 / 24,
                                   1.0 / 20, 1.0 / 19, 1.0 / 18};
static const double INV_SM90[] = {1.0 / 60, 1.0 / 50, 1.0 / 40, 1.0 / 30,
                                  1.0 / 24, 1.0 / 20, 1.0 / 15, 1.0 / 12,
                                  1.0 / 11, 1.0 / 6,  1.0 / 3};
#define NSPEED_SM100 ((int)(sizeof SPEED_SM100 / sizeof SPEED_SM100[0]))
#define NSPEED_SM90 ((int)(sizeof SPEED_SM90 / sizeof SPEED_SM90[0]))
/* NCCL_MAX_NVLS_ARITY: see coll_int.h */
#define NVLS_MAX_HEADS POD_COLL__NVLS_MAX_HEADS

/* The ring graph's bandwidth as NCCL's search finds it on an NVSwitch
** domain whose GPUs have L GB/s of NVLink: each channel takes one speed
** s out of and into every GPU, so floor(L / s) channels fit; the search
** keeps the best channels x s from the first speed that fits down to
** half of it (the .49 rule of ncclTopoCompute), at most 32 channels
** (MAXCHANNELS / 2). */
static double ring_graph_GBps(const double *sp, const double *inv, int ns,
                              double L) {
  double best = 0.0, first = 0.0;
  for (int i = 0; i < ns; i++) {
    if (sp[i] > L) continue;
    if (first > 0.0 && sp[i] <= 0.49 * first) break;
    /* floor(L / s) by truncation (no libm call), exact after the fix-up */
    double x = L * inv[i];
    if (x > 64.0) x = 64.0; /* capped at 32 below; no overflow */
    double c = (double)(long long)x;
    if ((c + 1.0) * sp[i] <= L) c += 1.0;
    if (c * sp[i] > L) c -= 1.0;
    if (c > 32.0) c = 32.0;
    if (first == 0.0) first = sp[i];
    if (c * sp[i] > best) best = c * sp[i];
  }
  return best;
}

/* NCCL's tuner bandwidth of NVLS all-reduce on one domain, GB/s, from its
** NVLS graph (src/graph/search.cc, ncclTopoSearchTryNvls and the NVLS
** branch of ncclTopoCompute; src/graph/tuning.cc, ncclTopoTuneModel, at
** NCCL 2.28.7 ae7aed19): h = min(n, 32) head channels; each channel
** pulls bwIntra from every GPU and twice from its head, so a head's link
** carries (h + 1) bwIntra <= L; the search starts at the first speed s
** with s h <= L n / (n - 1) and keeps the first that fits; then it raises
** bwInter (unused inside a domain) step by step while it is below twice
** bwIntra.  The tuner rates NVLS at h x min(bwIntra x e x 2 (h-1)/h,
** bwInter), e its nvlsEfficiency (Hopper 0.85, Blackwell 0.74), and the
** ring at its graph's channels x speed; both convert to algbw by the
** same n / 2(n-1).  So 4 Blackwell GPUs rate NVLS at 4 x 90 = 360 GB/s
** against the ring's 720: NCCL runs the ring there, and NVLS from 8
** GPUs (8 x 90 = 720, ahead on latency) to 72 (32 heads: 917). */
static double nvls_tuner_GBps(const double *sp, int ns, double e, int n,
                              double L) {
  int h = n < NVLS_MAX_HEADS ? n : NVLS_MAX_HEADS;
  if (h < 2) return 0.0; /* NVLS needs at least 2 channels */
  double hh = (double)h, start = L * (double)n; /* s h (n-1) <= L n */
  int i = 0;
  while (i < ns - 1 && (sp[i] > L || sp[i] * hh * (double)(n - 1) > start)) i++;
  while (i < ns - 1 && sp[i] * (hh + 1.0) > L) i++;
  if (sp[i] * (hh + 1.0) > L) return 0.0; /* no graph */
  int j = i;
  while (j > 0 && sp[j] < 2.0 * sp[i]) j--;
  /* h x min(bwIntra e 2 (h-1)/h, bwInter) */
  double intra = sp[i] * e * 2.0 * (hh - 1.0), inter = hh * sp[j];
  return intra < inter ? intra : inter;
}

/* The NVLS plan's inverse rate multiplier as NCCL's tuner sees it,
** relative to the ring's rate: the ring's graph bandwidth over NVLS's
** (see nvls_tuner_GBps), with L the GPU's achievable NVLink rate (NCCL's
** topology credit; for NVLink5 the fitted up_eff: at NCCL's own 721.8
** GB/s the choices from 2 to 72 ranks are the same).  The ladder and
** efficiency are Blackwell's for a GPU with fp4, else Hopper's. */
double pod_coll__nvls_tuner_div(const pod_system *s, int n) {
  int bw = s->gpu.fp4_tflops > 0.0;
  const double *sp = bw ? SPEED_SM100 : SPEED_SM90;
  const double *inv = bw ? INV_SM100 : INV_SM90;
  int ns = bw ? NSPEED_SM100 : NSPEED_SM90;
  double L = s->up_GBps * s->up_eff;
  double nv = nvls_tuner_GBps(sp, ns, bw ? 0.74 : 0.85, n, L);
  double ring = ring_graph_GBps(sp, inv, ns, L);
  if (!(nv > 0.0) || !(ring > 0.0)) return 1e30; /* NCCL: no NVLS graph */
  return ring / nv;
}
