/*
** hw.c: GPU and system presets and their field checks (see pod_hw.h).
**
** The presets are one table each.  Every figure carries its public source
** in a comment, and each preset a `source` string that the iterators
** return.  Efficiency and latency parameters are not per system: they
** belong to a fabric generation (NVLink3/4/5, HDR/NDR/XDR InfiniBand) and
** every system of that generation shares them (the fabric macros below).
**
** Calibration (at most a third of the collective rows of
** validation/public.md, C1-C6, are fits):
**   fit on C1  NVLS all-reduce efficiency of NVLink4 (nvls_eff, from the
**              8 GiB point) and the NVLink pipeline half size (up_half_MB,
**              shared by NVLink3/4/5, from the 16 MiB point);
**   fit on C3  NIC efficiency of NDR (CX-7) and HDR (CX-6).
**   C2, C4, C5, C6 are predictions.  Everything else comes from NCCL's own
**   published tuning constants (src/graph/topo.h, src/graph/tuning.cc) or
**   from vendor data sheets, cited beside each figure.
*/
#include "pod_hw.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- fabric generations ------------------------------------------------ */

/* NVLink pipeline half size: the eta(S) = eff*S/(S+half) curve is
** equivalent to a fixed pipeline-fill cost of half/(eff*B).  In NCCL's
** Simple protocol the bytes in flight before the pipeline is full are set
** by its staging buffers (NCCL_BUFFSIZE, 4 MiB per channel and peer, over
** many channels), not by the link speed, so one half size in bytes serves
** every NVLink generation.  Fit: C1 at 16 MiB (8x H100 NVLS, 237.2 GB/s
** busbw). */
#define HALF_MB 10.0

/* Scale-out half size: the network pipeline streams once one NCCL step
** per channel is in flight: NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB
** per channel, 2 channels per network peer (NCCL_NCHANNELS_PER_NET_PEER,
** src/graph/paths.cc) = 1 MiB.  Derived, not fitted.  (A check outside
** public.md, not used for fitting: 64x H800 all-to-all at 8 MiB, NVIDIA/
** nccl issue 1531, 338 us measured; podsim ~380 us.) */
#define NET_HALF_MB 1.0

/* NCCL per-step latencies (src/graph/tuning.cc, hwLat, Simple protocol):
** NVLink ring 3.4 us per step, network ring 14 us per step, NVLS 25 us.
** NCCL uses the same tables for every NVLink and network generation. */
#define NVLINK_STEP_US 3.4
#define NET_STEP_US 14.0
#define NVLS_US 25.0

/* NVLink efficiency: NCCL's topology model credits each NVLink with an
** achievable bandwidth (src/graph/topo.h: SM80_NVLINK_BW 20.0,
** SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1 GB/s) against a line rate of
** 25 GB/s (NVLink3/4) and 50 GB/s (NVLink5) per link and direction. */
#define NVLINK3_EFF (20.0 / 25.0) /* A100: 12 x 20.0 = 240 of 300 GB/s */
#define NVLINK4_EFF (20.6 / 25.0) /* H100: 18 x 20.6 = 370.8 of 450 GB/s */
#define NVLINK5_EFF (40.1 / 50.0) /* B200: 18 x 40.1 = 721.8 of 900 GB/s */

/* NVLS (in-switch reduction), fit on C1: 8x H100 NVLS all-reduce reaches
** 480.2 GB/s busbw at 8 GiB (NVIDIA/dgxc-benchmarking nccl/README.md):
** 480.2 / 450 / eta(8 GiB) = 1.068.  It exceeds 1 because the switch
** reduces: each GPU moves (1+1/n) S per direction instead of 2(n-1)/n S.
** Blackwell: NCCL's own NVLS model (src/tuning/nvls.cc, nvlsEfficiency)
** rates Blackwell 0.74 against Hopper 0.85; the NVLink4 fit is scaled by
** that ratio (a prediction, no Blackwell NVLS figure was used). */
#define NVLINK4_NVLS_EFF 1.068
#define NVLINK5_NVLS_EFF (NVLINK4_NVLS_EFF * 0.74 / 0.85)

#define NVLINK3                                           \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK3_EFF, \
  .up_half_MB = HALF_MB, .nvls = 0, .nvls_eff = 0.0, .nvls_latency_us = 0.0
#define NVLINK4                                                   \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK4_EFF,         \
  .up_half_MB = HALF_MB, .nvls = 1, .nvls_eff = NVLINK4_NVLS_EFF, \
  .nvls_latency_us = NVLS_US
#define NVLINK5                                                   \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK5_EFF,         \
  .up_half_MB = HALF_MB, .nvls = 1, .nvls_eff = NVLINK5_NVLS_EFF, \
  .nvls_latency_us = NVLS_US

/* NIC efficiency, fit on C3: NVIDIA engineers in NVIDIA/nccl-tests issues
** 290 and 160: one 400 Gb/s CX-7 reaches 46-48 GB/s (47 of 50: 0.94), one
** 200 Gb/s HDR NIC about 24 (of 25: 0.96).  XDR (ConnectX-8, 800 Gb/s)
** runs the same InfiniBand transport and has no public nccl-tests figure
** here: it takes NDR's efficiency.  Collision exposure 1: InfiniBand's
** default routing is static (subnet-manager tables), so every flow of an
** all-to-all keeps one hashed path; adaptive routing lowers it. */
#define HDR_CX6                                                          \
  .nics_per_gpu = 1.0, .nic_gbps = 200.0, .out_latency_us = NET_STEP_US, \
  .out_eff = 24.0 / 25.0, .out_half_MB = NET_HALF_MB, .out_collision = 1.0
#define NDR_CX7                                                          \
  .nics_per_gpu = 1.0, .nic_gbps = 400.0, .out_latency_us = NET_STEP_US, \
  .out_eff = 47.0 / 50.0, .out_half_MB = NET_HALF_MB, .out_collision = 1.0
#define XDR_CX8                                                          \
  .nics_per_gpu = 1.0, .nic_gbps = 800.0, .out_latency_us = NET_STEP_US, \
  .out_eff = 47.0 / 50.0, .out_half_MB = NET_HALF_MB, .out_collision = 1.0

/* ---- GPUs -------------------------------------------------------------- */

/* Dense (no sparsity) peaks.  Rack data sheets give sparse figures for
** the whole rack; per GPU dense = rack sparse / 2 / 72. */
#define GPU_A100 \
  { "a100", 312.0, 0.0, 0.0, 80.0, 2.039, 400.0 }
#define GPU_H100 \
  { "h100", 989.0, 1979.0, 0.0, 80.0, 3.35, 700.0 }
#define GPU_H800 \
  { "h800", 989.0, 1979.0, 0.0, 80.0, 3.35, 700.0 }
#define GPU_H200 \
  { "h200", 989.0, 1979.0, 0.0, 141.0, 4.8, 700.0 }
#define GPU_B200 \
  { "b200", 2250.0, 4500.0, 9000.0, 180.0, 8.0, 1000.0 }
#define GPU_GB200 \
  { "gb200", 2500.0, 5000.0, 10000.0, 186.0, 8.0, 1200.0 }
#define GPU_GB300 \
  { "gb300", 2500.0, 5000.0, 15000.0, 288.0, 8.0, 1400.0 }
#define GPU_B300 \
  { "b300", 2250.0, 4500.0, 13500.0, 288.0, 8.0, 1100.0 }

static const struct {
  pod_gpu gpu;
  const char *source;
} GPUS[] = {
    {GPU_A100,
     "NVIDIA A100 datasheet (SXM4 80GB): 312 TF bf16 dense, 80 GB HBM2e, "
     "2,039 GB/s, 400 W"},
    {GPU_H100,
     "NVIDIA H100 datasheet (SXM5): 989 TF bf16, 1,979 TF fp8 dense, 80 GB "
     "HBM3, 3.35 TB/s, 700 W"},
    {GPU_H800,
     "NVIDIA H800 SXM5: H100 silicon and memory, NVLink cut to 400 GB/s "
     "bidirectional (DeepSeek-V3 technical report, sec. 3.1)"},
    {GPU_H200,
     "NVIDIA H200 datasheet (SXM): H100 compute, 141 GB HBM3e, 4.8 TB/s, "
     "700 W"},
    {GPU_B200,
     "NVIDIA HGX B200 datasheet: per 8 GPUs 36/72/144 PF bf16/fp8/fp4 "
     "sparse (2.25/4.5/9 PF dense per GPU), 1,440 GB HBM3e, 64 TB/s; "
     "1000 W"},
    {GPU_GB200,
     "NVIDIA GB200 NVL72 datasheet: 360/720/1,440 PF bf16/fp8/fp4 sparse "
     "per 72 GPUs, 13.4 TB HBM3e, 576 TB/s; ~1200 W per GPU.  NVIDIA's "
     "training recipes compute MFU against 2,450/4,900 TF"},
    {GPU_GB300,
     "NVIDIA GB300 NVL72 datasheet: 360/720 PF bf16/fp8 sparse, 1,080 PF "
     "fp4 dense per 72 GPUs, 20.7 TB HBM3e (288 GB per B300), 576 TB/s; "
     "~1400 W per GPU"},
    {GPU_B300,
     "NVIDIA DGX/HGX B300 datasheet: per 8 GPUs 72 PF fp8 training and "
     "144 PF fp4 inference sparse (4.5 PF fp8, 13.5 PF fp4 dense per GPU; "
     "bf16 half of fp8), 2.3 TB HBM3e (288 GB per GPU), 8 TB/s per GPU; "
     "1100 W"},
};
#define NGPUS ((int)(sizeof GPUS / sizeof GPUS[0]))

/* ---- systems ----------------------------------------------------------- */

/* Prices: K1 of validation/public.md derives 1.42 USD per H100 GPU-hour
** and 2.36 per GB200 GPU-hour from published cost per token (contract
** class prices).  Systems without a traceable contract price are scaled
** from those by the on-demand price ratios of one public index (Mercatus
** cloud GPU pricing guide, May 2026, specialty-tier midpoints: A100 1.30,
** H100 3.00, H200 4.00 USD) or assumed equal to the same-silicon system,
** as each source string says.  All are plain fields: override or sample. */
static const struct {
  pod_system sys;
  const char *source;
} SYSTEMS[] = {
    {{.name = "dgx_a100",
      .gpu = GPU_A100,
      .domain_gpus = 8,
      .up_GBps = 300.0,
      NVLINK3,
      HDR_CX6,
      .oversub = 1.0,
      .usd_per_gpu_hour = 1.42 * 1.30 / 3.00},
     "NVIDIA DGX A100 user guide: 8 GPUs on NVSwitch gen2, NVLink3 600 GB/s "
     "bidirectional per GPU, 8x ConnectX-6 HDR 200 Gb/s; price: K1 H100 "
     "price x Mercatus A100/H100 ratio"},
    {{.name = "hgx_h100",
      .gpu = GPU_H100,
      .domain_gpus = 8,
      .up_GBps = 450.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .usd_per_gpu_hour = 1.42},
     "NVIDIA DGX H100 user guide: 8 GPUs on NVSwitch gen3 (NVLS), NVLink4 "
     "900 GB/s bidirectional per GPU, 8x ConnectX-7 NDR 400 Gb/s, "
     "rail-optimized; price: public.md K1 (derived 1.42 USD/GPU-h)"},
    {{.name = "hgx_h800",
      .gpu = GPU_H800,
      .domain_gpus = 8,
      .up_GBps = 200.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .usd_per_gpu_hour = 1.42},
     "DeepSeek-V3 technical report sec. 3.1: H800 nodes of 8 GPUs, NVLink "
     "400 GB/s bidirectional (200 per direction, ~160 achievable per "
     "DeepEP), one 400 Gb/s CX-7 InfiniBand NIC per GPU; price: assumed "
     "H100's (K1)"},
    {{.name = "hgx_h200",
      .gpu = GPU_H200,
      .domain_gpus = 8,
      .up_GBps = 450.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .usd_per_gpu_hour = 1.42 * 4.00 / 3.00},
     "NVIDIA HGX/DGX H200: 8 GPUs, NVLink4 900 GB/s bidirectional, NVSwitch "
     "gen3, 8x ConnectX-7 400 Gb/s; price: K1 H100 price x Mercatus "
     "H200/H100 ratio"},
    {{.name = "hgx_b200",
      .gpu = GPU_B200,
      .domain_gpus = 8,
      .up_GBps = 900.0,
      NVLINK5,
      NDR_CX7,
      .oversub = 1.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA DGX B200 user guide: 8 GPUs, NVLink5 1.8 TB/s bidirectional "
     "per GPU (NVSwitch gen4, NVLS), 8x ConnectX-7 400 Gb/s; price: "
     "assumed GB200's (K1, same B200 silicon)"},
    {{.name = "gb200_nvl72",
      .gpu = GPU_GB200,
      .domain_gpus = 72,
      .up_GBps = 900.0,
      NVLINK5,
      NDR_CX7,
      .oversub = 1.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA GB200 NVL72 datasheet: 72 GPUs in one NVLink domain, 1.8 TB/s "
     "bidirectional per GPU (130 TB/s per rack), ConnectX-7 400 Gb/s per "
     "GPU; price: public.md K1 (derived 2.36 USD/GPU-h)"},
    {{.name = "hgx_b300",
      .gpu = GPU_B300,
      .domain_gpus = 8,
      .up_GBps = 900.0,
      NVLINK5,
      XDR_CX8,
      .oversub = 1.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA DGX B300 datasheet: 8 Blackwell Ultra GPUs, NVLink5 14.4 TB/s "
     "per node (1.8 TB/s bidirectional per GPU), 8x ConnectX-8 800 Gb/s; "
     "price: assumed GB300's (K1)"},
    {{.name = "gb300_nvl72",
      .gpu = GPU_GB300,
      .domain_gpus = 72,
      .up_GBps = 900.0,
      NVLINK5,
      XDR_CX8,
      .oversub = 1.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA GB300 NVL72 datasheet: 72 GPUs, NVLink5 1.8 TB/s "
     "bidirectional per GPU, ConnectX-8 SuperNIC 800 Gb/s per GPU; price: "
     "assumed GB200's (K1)"},
};
#define NSYSTEMS ((int)(sizeof SYSTEMS / sizeof SYSTEMS[0]))

/* ---- lookups ----------------------------------------------------------- */

int pod_hw_gpu_preset(const char *name, pod_gpu *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < NGPUS; i++)
    if (strcmp(GPUS[i].gpu.name, name) == 0) {
      if (out != NULL) *out = GPUS[i].gpu;
      return POD_OK;
    }
  return POD_ENOENT;
}

int pod_hw_system_preset(const char *name, pod_system *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < NSYSTEMS; i++)
    if (strcmp(SYSTEMS[i].sys.name, name) == 0) {
      if (out != NULL) *out = SYSTEMS[i].sys;
      return POD_OK;
    }
  return POD_ENOENT;
}

const pod_gpu *pod_hw_gpu_at(int i, const char **source) {
  if (i < 0 || i >= NGPUS) return NULL;
  if (source != NULL) *source = GPUS[i].source;
  return &GPUS[i].gpu;
}

const pod_system *pod_hw_system_at(int i, const char **source) {
  if (i < 0 || i >= NSYSTEMS) return NULL;
  if (source != NULL) *source = SYSTEMS[i].source;
  return &SYSTEMS[i].sys;
}

/* ---- checks ------------------------------------------------------------ */

static int name_ok(const char *name) {
  /* Names are zero-padded in practice: test the last byte first. */
  return name[POD_NAME_MAX - 1] == '\0' ||
         memchr(name, '\0', POD_NAME_MAX) != NULL;
}

/* Inline test of one double: finite and within [lo, hi] (hi may be
** INFINITY), strictly above lo when `open_lo`.  The error path is out of
** line: checks run on every kernel call and must cost nothing when the
** value is good. */
static inline int in_range(double x, double lo, double hi, int open_lo) {
  /* NaN fails every comparison and +-inf fails the DBL_MAX bound, so no
  ** separate isfinite is needed. */
  double top = hi < DBL_MAX ? hi : DBL_MAX;
  return (open_lo ? x > lo : x >= lo) & (x <= top);
}

static int range_error(double x, double lo, double hi, int open_lo,
                       const char *prefix, const char *field, pod_err *err) {
  char path[POD_ERR_FIELD_MAX];
  if (err == NULL) return POD_EINVAL;
  /* "gpu.bf16_tflops" when checking a GPU inside a system. */
  snprintf(path, sizeof path, "%s%s", prefix, field);
  if (!isfinite(x)) return pod_err_set(err, POD_EINVAL, path, "must be finite");
  if (hi == INFINITY)
    return pod_err_set(err, POD_EINVAL, path, "must be %s %g, got %g",
                       open_lo ? ">" : ">=", lo, x);
  return pod_err_set(err, POD_EINVAL, path, "must be in %s%g, %g], got %g",
                     open_lo ? "(" : "[", lo, hi, x);
}

#define CHECK(x, lo, hi, open, prefix, name)                              \
  do {                                                                    \
    if (!in_range((x), (lo), (hi), (open)))                               \
      return range_error((x), (lo), (hi), (open), (prefix), (name), err); \
  } while (0)

static int gpu_check(const pod_gpu *g, const char *prefix, pod_err *err) {
  if (!name_ok(g->name)) {
    char path[POD_ERR_FIELD_MAX];
    snprintf(path, sizeof path, "%sname", prefix);
    return pod_err_set(err, POD_EINVAL, path, "not NUL-terminated");
  }
  CHECK(g->bf16_tflops, 0.0, INFINITY, 1, prefix, "bf16_tflops");
  CHECK(g->fp8_tflops, 0.0, INFINITY, 0, prefix, "fp8_tflops");
  CHECK(g->fp4_tflops, 0.0, INFINITY, 0, prefix, "fp4_tflops");
  CHECK(g->hbm_gb, 0.0, INFINITY, 1, prefix, "hbm_gb");
  CHECK(g->hbm_TBps, 0.0, INFINITY, 1, prefix, "hbm_TBps");
  CHECK(g->power_w, 0.0, INFINITY, 1, prefix, "power_w");
  return POD_OK;
}

int pod_hw_gpu_check(const pod_gpu *g, pod_err *err) {
  if (g == NULL) return pod_err_set(err, POD_EINVAL, "gpu", "is NULL");
  return gpu_check(g, "", err);
}

/* Branch-free screen of every field (the kernels call the check on each
** evaluation); the detailed walk below runs only when something fails. */
static int gpu_ok(const pod_gpu *g) {
  return in_range(g->bf16_tflops, 0.0, INFINITY, 1) &
         in_range(g->fp8_tflops, 0.0, INFINITY, 0) &
         in_range(g->fp4_tflops, 0.0, INFINITY, 0) &
         in_range(g->hbm_gb, 0.0, INFINITY, 1) &
         in_range(g->hbm_TBps, 0.0, INFINITY, 1) &
         in_range(g->power_w, 0.0, INFINITY, 1);
}

static int system_ok(const pod_system *s) {
  return gpu_ok(&s->gpu) & (s->domain_gpus >= 1) &
         in_range(s->up_GBps, 0.0, INFINITY, 1) &
         in_range(s->up_latency_us, 0.0, INFINITY, 0) &
         ((s->nvls == 0) | (s->nvls == 1)) &
         in_range(s->nics_per_gpu, 0.0, INFINITY, 1) &
         in_range(s->nic_gbps, 0.0, INFINITY, 1) &
         in_range(s->out_latency_us, 0.0, INFINITY, 0) &
         in_range(s->oversub, 1.0, INFINITY, 0) &
         in_range(s->usd_per_gpu_hour, 0.0, INFINITY, 0) &
         in_range(s->up_eff, 0.0, 1.0, 1) &
         in_range(s->up_half_MB, 0.0, INFINITY, 0) &
         in_range(s->out_eff, 0.0, 1.0, 1) &
         in_range(s->out_half_MB, 0.0, INFINITY, 0) &
         in_range(s->nvls_eff, 0.0, 2.0, s->nvls) &
         in_range(s->nvls_latency_us, 0.0, INFINITY, 0) &
         in_range(s->out_collision, 0.0, 1.0, 0) & name_ok(s->name) &
         name_ok(s->gpu.name);
}

int pod_hw_system_check(const pod_system *s, pod_err *err) {
  if (s == NULL) return pod_err_set(err, POD_EINVAL, "system", "is NULL");
  if (system_ok(s)) return POD_OK;
  if (!name_ok(s->name))
    return pod_err_set(err, POD_EINVAL, "name", "not NUL-terminated");
  int rc = gpu_check(&s->gpu, "gpu.", err);
  if (rc != POD_OK) return rc;
  if (s->domain_gpus < 1)
    return pod_err_set(err, POD_EINVAL, "domain_gpus", "must be >= 1, got %d",
                       s->domain_gpus);
  CHECK(s->up_GBps, 0.0, INFINITY, 1, "", "up_GBps");
  CHECK(s->up_latency_us, 0.0, INFINITY, 0, "", "up_latency_us");
  if (s->nvls != 0 && s->nvls != 1)
    return pod_err_set(err, POD_EINVAL, "nvls", "must be 0 or 1, got %d",
                       s->nvls);
  CHECK(s->nics_per_gpu, 0.0, INFINITY, 1, "", "nics_per_gpu");
  CHECK(s->nic_gbps, 0.0, INFINITY, 1, "", "nic_gbps");
  CHECK(s->out_latency_us, 0.0, INFINITY, 0, "", "out_latency_us");
  CHECK(s->oversub, 1.0, INFINITY, 0, "", "oversub");
  CHECK(s->usd_per_gpu_hour, 0.0, INFINITY, 0, "", "usd_per_gpu_hour");
  CHECK(s->up_eff, 0.0, 1.0, 1, "", "up_eff");
  CHECK(s->up_half_MB, 0.0, INFINITY, 0, "", "up_half_MB");
  CHECK(s->out_eff, 0.0, 1.0, 1, "", "out_eff");
  CHECK(s->out_half_MB, 0.0, INFINITY, 0, "", "out_half_MB");
  /* NVLS busbw may exceed the link rate (in-switch reduction halves the
  ** traffic), but never reach 2x: busbw <= 2(n-1)/(n+1) x link rate. */
  if (s->nvls)
    CHECK(s->nvls_eff, 0.0, 2.0, 1, "", "nvls_eff");
  else
    CHECK(s->nvls_eff, 0.0, 2.0, 0, "", "nvls_eff");
  CHECK(s->nvls_latency_us, 0.0, INFINITY, 0, "", "nvls_latency_us");
  CHECK(s->out_collision, 0.0, 1.0, 0, "", "out_collision");
  return POD_OK;
}
