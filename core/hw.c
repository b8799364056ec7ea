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
**              8 GiB point) and the NVLink pipeline fill per rank and
**              channel (up_fill_KiB, shared by NVLink3/4/5, from the
**              16 MiB point);
**   fit on C3  NIC efficiency of NDR (CX-7) and HDR (CX-6);
**   fit on C7  (20 racks) which of NCCL's per-channel network constants
**              holds for Blackwell with 400G NICs (net_channel_GBps);
**   fit on C11 NVLink5's achievable rate (up_eff), on a GB300 NVL72
**              all-to-all over 16 hosts of one rack.
**   C2, C4, C5, C6 and the other C7-C9 rows are predictions.  Everything else
*comes from NCCL's own
**   published tuning constants (src/graph/topo.h, src/graph/tuning.cc) or
**   from vendor data sheets, cited beside each figure.
*/
#include "pod_hw.h"
#include "pod_field.h"

#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

/* ---- fabric generations ------------------------------------------------ */

/* NVLink pipeline fill.  NCCL splits a collective over `up_channels`
** channels, and each channel cuts its share into one chunk per rank of
** the ring or chain (src/device/all_reduce.h: a loop moves nChannels x
** nRanks x chunkSize bytes); a chunk carries a fixed per-step cost (flag
** handshake, NCCL_STEPS = 8 slots of NCCL_BUFFSIZE/8 = 512 KiB,
** src/include/device.h, src/init.cc).  So the message at which the
** pipeline streams grows with the ring length and the channel count:
** half = ranks x up_channels x up_fill_KiB (core/coll.c), and a 72-rank
** ring fills nine times later than an 8-rank one.  Fit: C1 at 16 MiB
** (8x H100 NVLS, 16 channels, 237.2 GB/s busbw) gives a 10 MiB half,
** 10 MiB / (8 x 16) = 80 KiB per rank and channel (between NCCL's NVLS
** chunk of 128 KiB, src/transport/nvls.cc, and a 64 KiB slice). */
#define FILL_KIB 80.0

/* NCCL channel counts on the scale-up fabric: NVLS_NCHANNELS_SM90 16,
** NVLS_NCHANNELS_SM100_NVL 24 (src/transport/nvls.cc).  A100 has no NVLS:
** its ring search reaches 240 GB/s of NVLink3 at 40 GB/s per channel
** (speedArrayIntra, src/graph/search.cc) = 6 channels, doubled by
** ncclTopoDupChannels = 12. */
#define CH_SM80 12
#define CH_SM90 16
#define CH_SM100 24

/* Scale-out half size: the network pipeline streams once one NCCL step
** per channel is in flight: NCCL_BUFFSIZE 4 MiB / NCCL_STEPS 8 = 512 KiB
** per channel, 2 channels per network peer (NCCL_NCHANNELS_PER_NET_PEER,
** src/graph/paths.cc) = 1 MiB.  The same 1 MiB is NCCL's p2p network
** window: P2P_NET_CHUNKSIZE 128 KiB x NCCL_STEPS 8 (src/init.cc).
** Derived, not fitted. */
#define NET_HALF_MB 1.0

/* Network channels of one tree, NVLS-tree or chain collective per domain,
** and what one carries (a ring across domains runs its own graph's
** channels at the NIC's rate instead: core/coll_tune.c).  NCCL's ring search
*(src/graph/search.cc) adds channels until
** nChannels x bwInter covers the GPU's NVLink bandwidth, one NIC per
** channel: Hopper ceil(370.8 / 48) = 8 channels at 48 GB/s
** (sm90SpeedArrayInter), one per NIC of an 8-GPU node; Blackwell
** ceil(721.8 / 48) = 16 channels.  Sixteen channels fit on an 8-NIC node
** only at 24 GB/s each (a 50 GB/s NIC holds one 48 GB/s channel), and
** NCCL's own per-channel ceiling for Blackwell across 4+ nodes is 24.0
** GB/s (perChMaxTreeBws, src/graph/tuning.cc); so a GB200 NVL72 domain
** drives 16 of its 72 NICs at 24 GB/s, not 72 NICs at line rate.  Which of
** these two constants holds for NVL72 was fitted on C7 (20 racks); the
** 8-NIC and 2-rack rows are predictions.  For NVLS-tree it is the rate at
** NCCL's 128 KiB NVLS-tree chunk, halved from four domains on with the 64
** KiB chunk (core/coll.c): C7's 20 racks run at that half, and C11's
** three racks at the full rate are a prediction.  800G NICs (XDR, ConnectX-8):
** NCCL tunes nicBw >= 96 separately (src/transport/nvls.cc); assumed 48
** GB/s per channel (line rate scaling), not validated.  H800 keeps
** Hopper's 8: by the same search its 164.8 GB/s NVLink would stop at 4
** channels (4 of its 8 NICs); no multi-node H800 figure here decides. */
#define NET_CH_SM90 8
#define NET_CH_SM100 16
#define NET_CH_GBPS_SM90 48.0
#define NET_CH_GBPS_SM100_NDR 24.0
#define NET_CH_GBPS_SM100_XDR 48.0

/* Leaf groups: NVIDIA DGX SuperPOD reference architectures build the
** compute fabric from scalable units, rail-optimized, one leaf per rail:
** 32 DGX H100/B200 nodes (256 GPUs) or 8 GB200/GB300 NVL72 racks (576
** GPUs) per SU.  Traffic between GPUs of one SU stays on its leaves. */
#define LEAF_HGX 256
#define LEAF_NVL72 576

/* NCCL per-step latencies (src/graph/tuning.cc, hwLat, Simple protocol):
** NVLink ring 3.4 us per step, network ring 14 us per step, NVLS 25 us.
** NCCL uses the same tables for every NVLink and network generation. */
#define NVLINK_STEP_US 3.4
#define NET_STEP_US 14.0
#define NVLS_US 25.0

/* NVLink efficiency: NCCL's topology model credits each NVLink with an
** achievable bandwidth (src/graph/topo.h: SM80_NVLINK_BW 20.0,
** SM90_NVLINK_BW 20.6, SM100_NVLINK_BW 40.1 GB/s) against a line rate of
** 25 GB/s (NVLink3/4) and 50 GB/s (NVLink5) per link and direction.
** NVLink3/4 keep NCCL's constants (C2: 8x H100 rings within 2.4%).
** NVLink5 is fitted on multi-node NVLink data instead (C11): a GB300
** NVL72 all-to-all over 64 ranks on 16 hosts of one rack reaches 666.9
** GB/s busbw at 16 GiB (oracle-quickstart/oci-gpu-quickstarts,
** nvidia/GB300/README-GB300.md, commit 6a0abdc; NCCL 2.28.7, MNNVL),
** which needs 0.742 of the 900 GB/s line rate (37.1 GB/s per link), not
** NCCL's 40.1: NCCL's constant over-predicted every NVLink5 ring and
** all-to-all row (C4 +6..+9%, the other C11 rows +5..+17%). */
#define NVLINK3_EFF (20.0 / 25.0) /* A100: 12 x 20.0 = 240 of 300 GB/s */
#define NVLINK4_EFF (20.6 / 25.0) /* H100: 18 x 20.6 = 370.8 of 450 GB/s */
#define NVLINK5_EFF 0.742         /* fit on C11: 18 x 37.1 = 668 of 900 GB/s */

/* NVLS (in-switch reduction), fit on C1: 8x H100 NVLS all-reduce reaches
** 480.2 GB/s busbw at 8 GiB (NVIDIA/dgxc-benchmarking nccl/README.md):
** 480.2 / 450 / eta(8 GiB) = 1.068.  It exceeds 1 because the switch
** reduces: each GPU moves (1+1/n) S per direction instead of 2(n-1)/n S.
** Blackwell: NCCL's own NVLS model (src/tuning/nvls.cc, nvlsEfficiency)
** rates Blackwell 0.74 against Hopper 0.85; the NVLink4 fit is scaled by
** that ratio (a prediction, no Blackwell NVLS figure was used). */
#define NVLINK4_NVLS_EFF 1.068
#define NVLINK5_NVLS_EFF (NVLINK4_NVLS_EFF * 0.74 / 0.85)

#define NVLINK3                                                                \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK3_EFF,                      \
  .up_fill_KiB = FILL_KIB, .nvls = 0, .nvls_eff = 0.0, .nvls_latency_us = 0.0, \
  .up_channels = CH_SM80, .net_channels = NET_CH_SM90,                         \
  .net_channel_GBps = NET_CH_GBPS_SM90
#define NVLINK4                                                     \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK4_EFF,           \
  .up_fill_KiB = FILL_KIB, .nvls = 1, .nvls_eff = NVLINK4_NVLS_EFF, \
  .nvls_latency_us = NVLS_US, .up_channels = CH_SM90,               \
  .net_channels = NET_CH_SM90, .net_channel_GBps = NET_CH_GBPS_SM90
#define NVLINK5                                                     \
  .up_latency_us = NVLINK_STEP_US, .up_eff = NVLINK5_EFF,           \
  .up_fill_KiB = FILL_KIB, .nvls = 1, .nvls_eff = NVLINK5_NVLS_EFF, \
  .nvls_latency_us = NVLS_US, .up_channels = CH_SM100,              \
  .net_channels = NET_CH_SM100

/* NIC efficiency, fit on C3: NVIDIA engineers in NVIDIA/nccl-tests issues
** 290 and 160: one 400 Gb/s CX-7 reaches 46-48 GB/s (47 of 50: 0.94), one
** 200 Gb/s HDR NIC about 24 (of 25: 0.96).  XDR (ConnectX-8, 800 Gb/s)
** runs the same InfiniBand transport and has no public nccl-tests figure
** here: it takes NDR's efficiency.  Routing: InfiniBand's subnet manager
** (ftree, updn, minhop) routes each destination LID on one fixed port per
** switch, not by a flow hash; the presets are charged static ECMP's
** collision term all the same, which holds the H100 all-to-all rows (C6,
** T16; see docs/design.md 4 and tests/validation/c11_oci_nvl72_mnnvl.lua).
** Adaptive routing is a fabric option (routing = "adaptive").
** Per-message overhead:
** NCCL's network post overhead, 1 us (getNetOverhead, tuning.cc).
** SHARP off: NCCL runs CollNet only when NCCL_COLLNET_ENABLE is set and
** the SHARP plugin is present (src/graph/tuning.cc disables it
** otherwise). */
#define NET_POST_US 1.0
#define IB_FABRIC                                                    \
  .out_latency_us = NET_STEP_US, .out_half_MB = NET_HALF_MB,         \
  .transport = POD_TRANSPORT_IB, .routing = POD_ROUTING_STATIC_ECMP, \
  .sharp = 0, .msg_overhead_us = NET_POST_US
#define HDR_CX6 \
  .nics_per_gpu = 1.0, .nic_gbps = 200.0, .out_eff = 24.0 / 25.0, IB_FABRIC
#define NDR_CX7 \
  .nics_per_gpu = 1.0, .nic_gbps = 400.0, .out_eff = 47.0 / 50.0, IB_FABRIC
#define XDR_CX8 \
  .nics_per_gpu = 1.0, .nic_gbps = 800.0, .out_eff = 47.0 / 50.0, IB_FABRIC

/* Host links (the GPU's path to CPU memory).  PCIe: 16 lanes at 16 GT/s
** (Gen4) or 32 GT/s (Gen5), 128b/130b coding: 31.5 and 63.0 GB/s per
** direction.  Achieved: 52.8 GB/s device-to-host on each of the 8 GPUs of
** an H100 node, one GPU at a time (NVIDIA/nvbandwidth issue 24,
** device_to_host_memcpy_sm) = 0.84 of Gen5 (GPUs that share a PCIe
** switch uplink and copy together may get less: not modelled); the
** A100's 25.1 GB/s over Gen4 (nvbandwidth issue 42,
** host_to_device_memcpy_sm, 512 MiB) = 0.80 agrees, so one PCIe
** efficiency serves both.  NVLink-C2C: 900 GB/s
** bidirectional per Grace CPU (NVIDIA Grace Hopper and GB200/GB300 NVL72
** datasheets); a GB200/GB300 superchip has one Grace for two GPUs, so 450
** bidirectional = 225 GB/s per GPU per direction (the figure core/serve.c
** uses for host_GBps).  Achieved: 346 of 450 GB/s host-to-device with the
** copy engines on GH200 (nvbandwidth issue 23) = 0.77; no Blackwell
** measurement found, Hopper's fraction assumed. */
#define PCIE4_X16_GBPS 31.5
#define PCIE5_X16_GBPS 63.0
#define PCIE_EFF (52.8 / 63.0)
#define C2C_PER_GPU_GBPS (900.0 / 2.0 / 2.0)
#define C2C_EFF (346.0 / 450.0)

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
      .leaf_gpus = LEAF_HGX,
      .host_link_GBps = PCIE4_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 1024.0 / 8.0,
      .usd_per_gpu_hour = 1.42 * 1.30 / 3.00},
     "NVIDIA DGX A100 user guide: 8 GPUs on NVSwitch gen2, NVLink3 600 GB/s "
     "bidirectional per GPU, 8x ConnectX-6 HDR 200 Gb/s; PCIe Gen4 x16 to "
     "the host, 1 TB system memory; price: K1 H100 "
     "price x Mercatus A100/H100 ratio"},
    {{.name = "hgx_h100",
      .gpu = GPU_H100,
      .domain_gpus = 8,
      .up_GBps = 450.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .leaf_gpus = LEAF_HGX,
      .host_link_GBps = PCIE5_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 2048.0 / 8.0,
      .usd_per_gpu_hour = 1.42},
     "NVIDIA DGX H100 user guide: 8 GPUs on NVSwitch gen3 (NVLS), NVLink4 "
     "900 GB/s bidirectional per GPU, 8x ConnectX-7 NDR 400 Gb/s, "
     "rail-optimized; PCIe Gen5 x16 to the host, 2 TB system memory; price: "
     "public.md K1 (derived 1.42 USD/GPU-h)"},
    {{.name = "hgx_h800",
      .gpu = GPU_H800,
      .domain_gpus = 8,
      .up_GBps = 200.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .leaf_gpus = LEAF_HGX,
      .host_link_GBps = PCIE5_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 2048.0 / 8.0,
      .usd_per_gpu_hour = 1.42},
     "DeepSeek-V3 technical report sec. 3.1: H800 nodes of 8 GPUs, NVLink "
     "400 GB/s bidirectional (200 per direction, ~160 achievable per "
     "DeepEP), one 400 Gb/s CX-7 InfiniBand NIC per GPU; host link and "
     "memory assumed DGX H100's (PCIe Gen5 x16, 2 TB); price: assumed "
     "H100's (K1)"},
    {{.name = "hgx_h200",
      .gpu = GPU_H200,
      .domain_gpus = 8,
      .up_GBps = 450.0,
      NVLINK4,
      NDR_CX7,
      .oversub = 1.0,
      .leaf_gpus = LEAF_HGX,
      .host_link_GBps = PCIE5_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 2048.0 / 8.0,
      .usd_per_gpu_hour = 1.42 * 4.00 / 3.00},
     "NVIDIA HGX/DGX H200: 8 GPUs, NVLink4 900 GB/s bidirectional, NVSwitch "
     "gen3, 8x ConnectX-7 400 Gb/s; PCIe Gen5 x16 to the host, 2 TB "
     "system memory; price: K1 H100 price x Mercatus "
     "H200/H100 ratio"},
    {{.name = "hgx_b200",
      .gpu = GPU_B200,
      .domain_gpus = 8,
      .up_GBps = 900.0,
      NVLINK5,
      NDR_CX7,
      .net_channel_GBps = NET_CH_GBPS_SM100_NDR,
      .leaf_gpus = LEAF_HGX,
      .oversub = 1.0,
      .host_link_GBps = PCIE5_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 2048.0 / 8.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA DGX B200 user guide: 8 GPUs, NVLink5 1.8 TB/s bidirectional "
     "per GPU (NVSwitch gen4, NVLS), 8x ConnectX-7 400 Gb/s; PCIe Gen5 "
     "x16 to the host, 2 TB system memory (4 TB optional); price: "
     "assumed GB200's (K1, same B200 silicon)"},
    {{.name = "gb200_nvl72",
      .gpu = GPU_GB200,
      .domain_gpus = 72,
      .up_GBps = 900.0,
      NVLINK5,
      NDR_CX7,
      .net_channel_GBps = NET_CH_GBPS_SM100_NDR,
      .leaf_gpus = LEAF_NVL72,
      .oversub = 1.0,
      .host_link_GBps = C2C_PER_GPU_GBPS,
      .host_link_eff = C2C_EFF,
      .host_mem_gb = 480.0 / 2.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA GB200 NVL72 datasheet: 72 GPUs in one NVLink domain, 1.8 TB/s "
     "bidirectional per GPU (130 TB/s per rack), ConnectX-7 400 Gb/s per "
     "GPU; NVLink-C2C 900 GB/s bidirectional per Grace for two GPUs, 480 "
     "GB LPDDR5X per Grace (17 TB per rack); price: public.md K1 (derived 2.36 "
     "USD/GPU-h)"},
    {{.name = "hgx_b300",
      .gpu = GPU_B300,
      .domain_gpus = 8,
      .up_GBps = 900.0,
      NVLINK5,
      XDR_CX8,
      .net_channel_GBps = NET_CH_GBPS_SM100_XDR,
      .leaf_gpus = LEAF_HGX,
      .oversub = 1.0,
      .host_link_GBps = PCIE5_X16_GBPS,
      .host_link_eff = PCIE_EFF,
      .host_mem_gb = 2048.0 / 8.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA DGX B300 datasheet: 8 Blackwell Ultra GPUs, NVLink5 14.4 TB/s "
     "per node (1.8 TB/s bidirectional per GPU), 8x ConnectX-8 800 Gb/s; "
     "the GPUs' PCIe Gen6 meets the Xeon 6 host's Gen5 x16, 2 TB system "
     "memory; "
     "price: assumed GB300's (K1)"},
    {{.name = "gb300_nvl72",
      .gpu = GPU_GB300,
      .domain_gpus = 72,
      .up_GBps = 900.0,
      NVLINK5,
      XDR_CX8,
      .net_channel_GBps = NET_CH_GBPS_SM100_XDR,
      .leaf_gpus = LEAF_NVL72,
      .oversub = 1.0,
      .host_link_GBps = C2C_PER_GPU_GBPS,
      .host_link_eff = C2C_EFF,
      .host_mem_gb = 480.0 / 2.0,
      .usd_per_gpu_hour = 2.36},
     "NVIDIA GB300 NVL72 datasheet: 72 GPUs, NVLink5 1.8 TB/s "
     "bidirectional per GPU, ConnectX-8 SuperNIC 800 Gb/s per GPU; "
     "NVLink-C2C 900 GB/s bidirectional per Grace for two GPUs, 480 GB "
     "LPDDR5X per Grace; price: "
     "assumed GB200's (K1)"},
};
#define NSYSTEMS ((int)(sizeof SYSTEMS / sizeof SYSTEMS[0]))

/* ---- fabrics ----------------------------------------------------------- */

/* Scale-out fabric presets: podsim.system{base=..., fabric=...} sets
** these fields over the base system's.  Per-GPU NIC counts and rates are
** the ones of the systems these fabrics ship with. */
static const struct {
  pod_fabric fab;
  const char *source;
} FABRICS[] = {
    {{"ib_ndr", 1.0, 400.0, 47.0 / 50.0, NET_STEP_US, NET_HALF_MB, NET_POST_US,
      POD_TRANSPORT_IB, POD_ROUTING_STATIC_ECMP, 0},
     "NVIDIA Quantum-2 NDR InfiniBand, one 400 Gb/s ConnectX-7 per GPU; "
     "0.94 of line rate (nccl-tests issues 290/160); static subnet-manager "
     "routing; SHARP off (NCCL_COLLNET_ENABLE unset)"},
    {{"ib_ndr_sharp", 1.0, 400.0, 47.0 / 50.0, NET_STEP_US, NET_HALF_MB,
      NET_POST_US, POD_TRANSPORT_IB, POD_ROUTING_STATIC_ECMP, 1},
     "ib_ndr with SHARPv3 in-network reduction enabled (NCCL CollNet with "
     "the SHARP plugin, as in CoreWeave's h100/b200 *-sharp nccl-tests "
     "jobs)"},
    {{"ib_xdr", 1.0, 800.0, 47.0 / 50.0, NET_STEP_US, NET_HALF_MB, NET_POST_US,
      POD_TRANSPORT_IB, POD_ROUTING_STATIC_ECMP, 0},
     "NVIDIA Quantum-X800 XDR InfiniBand, one 800 Gb/s ConnectX-8 per GPU; "
     "NDR's efficiency assumed; static routing; SHARP off"},
    {{"ib_xdr_sharp", 1.0, 800.0, 47.0 / 50.0, NET_STEP_US, NET_HALF_MB,
      NET_POST_US, POD_TRANSPORT_IB, POD_ROUTING_STATIC_ECMP, 1},
     "ib_xdr with SHARPv4 in-network reduction (NCCL CollNet)"},
    {{"spectrum_x", 1.0, 400.0, 47.0 / 50.0, NET_STEP_US, NET_HALF_MB,
      NET_POST_US, POD_TRANSPORT_ROCE, POD_ROUTING_SPRAY, 0},
     "NVIDIA Spectrum-X Ethernet: RoCE over 400 Gb/s BlueField-3/CX-7 "
     "SuperNICs with per-packet adaptive routing (spraying, DDP) and no "
     "in-network reduction; NIC efficiency assumed equal to NDR's"},
    {{"efa", 4.0, 100.0, 0.971, NET_STEP_US, NET_HALF_MB, NET_POST_US,
      POD_TRANSPORT_EFA, POD_ROUTING_SRD, 0},
     "AWS EFA on p5.48xlarge: 32 x 100 Gb/s EFA interfaces per 8 H100 (4 per "
     "GPU); 97.1% of 3,200 Gb/s reached with RDMA writes (Perplexity, 'High-"
     "Performance GPU Memory Transfer on AWS', 2025); SRD multipath, no "
     "in-network reduction; per-message overhead: no public figure found, "
     "NCCL's default post overhead used"},
};
#define NFABRICS ((int)(sizeof FABRICS / sizeof FABRICS[0]))

int pod_hw_fabric_apply(const char *name, pod_system *s) {
  if (name == NULL || s == NULL) return POD_ENOENT;
  for (int i = 0; i < NFABRICS; i++) {
    const pod_fabric *f = &FABRICS[i].fab;
    if (strcmp(f->name, name) != 0) continue;
    s->nics_per_gpu = f->nics_per_gpu;
    s->nic_gbps = f->nic_gbps;
    s->out_eff = f->out_eff;
    s->out_latency_us = f->out_latency_us;
    s->out_half_MB = f->out_half_MB;
    s->msg_overhead_us = f->msg_overhead_us;
    s->transport = f->transport;
    s->routing = f->routing;
    s->sharp = f->sharp;
    return POD_OK;
  }
  return POD_ENOENT;
}

const pod_fabric *pod_hw_fabric_at(int i, const char **source) {
  if (i < 0 || i >= NFABRICS) return NULL;
  if (source != NULL) *source = FABRICS[i].source;
  return &FABRICS[i].fab;
}

const char *const pod_hw_transport_names[POD_TRANSPORT_N + 1] = {"ib", "roce",
                                                                 "efa", NULL};
const char *const pod_hw_routing_names[POD_ROUTING_N + 1] = {
    "static_ecmp", "adaptive", "spray", "srd", NULL};

const char *pod_hw_transport_name(int t) {
  return t >= 0 && t < POD_TRANSPORT_N ? pod_hw_transport_names[t] : NULL;
}

const char *pod_hw_routing_name(int r) {
  return r >= 0 && r < POD_ROUTING_N ? pod_hw_routing_names[r] : NULL;
}

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

/* The bounds of every numeric field (pod_field.h), the one home of each
** range: X(kind, member, min, max, open, unit).  From each list come the
** exported table (the checks' walk, the Lua bindings) and an inline
** screen with the bounds as constants (the kernels check on every
** evaluation).  The caps are sanity limits (no value near them is
** physical); the lower bounds are the models' domains. */
#define GPU_FIELDS(X)                                             \
  X(DOUBLE, bf16_tflops, 0, 1e6, POD_F_MIN_OPEN, "dense TFLOP/s") \
  X(DOUBLE, fp8_tflops, 0, 1e6, 0, "dense TFLOP/s (0: none)")     \
  X(DOUBLE, fp4_tflops, 0, 1e6, 0, "dense TFLOP/s (0: none)")     \
  X(DOUBLE, hbm_gb, 0, 1e5, POD_F_MIN_OPEN, "GB")                 \
  X(DOUBLE, hbm_TBps, 0, 1e3, POD_F_MIN_OPEN, "TB/s")             \
  X(DOUBLE, power_w, 0, 1e5, POD_F_MIN_OPEN, "W")

/* nvls_eff: NVLS busbw may exceed the link rate (in-switch reduction
** halves the traffic), but never reach 2x: busbw <= 2(n-1)/(n+1) x link
** rate; > 0 when nvls is on (pod_hw_system_check). */
#define SYSTEM_FIELDS(X)                                                   \
  X(INT, domain_gpus, 1, 1 << 20, 0, "GPUs per scale-up domain")           \
  X(DOUBLE, up_GBps, 0, 1e5, POD_F_MIN_OPEN, "GB/s per GPU per direction") \
  X(DOUBLE, up_latency_us, 0, 1e6, 0, "us")                                \
  X(BOOL, nvls, 0, 1, 0, "in-switch reduction")                            \
  X(DOUBLE, nics_per_gpu, 0, 64, POD_F_MIN_OPEN, "NICs per GPU")           \
  X(DOUBLE, nic_gbps, 0, 1e5, POD_F_MIN_OPEN, "Gb/s per NIC")              \
  X(DOUBLE, out_latency_us, 0, 1e6, 0, "us")                               \
  X(DOUBLE, oversub, 1, 1e3, 0, "ratio above the leaf group")              \
  X(DOUBLE, usd_per_gpu_hour, 0, 1e6, 0, "USD per GPU-hour")               \
  X(DOUBLE, up_eff, 0, 1, POD_F_MIN_OPEN, "fraction of line rate")         \
  X(DOUBLE, up_fill_KiB, 0, 1e9, 0, "KiB per rank and channel")            \
  X(DOUBLE, out_eff, 0, 1, POD_F_MIN_OPEN, "fraction of line rate")        \
  X(DOUBLE, out_half_MB, 0, 1e9, 0, "MiB")                                 \
  X(DOUBLE, nvls_eff, 0, 2, 0, "NVLS busbw over up_GBps (0: no NVLS)")     \
  X(DOUBLE, nvls_latency_us, 0, 1e6, 0, "us")                              \
  X(INT, up_channels, 1, 1024, 0, "NCCL channels on the scale-up fabric")  \
  X(INT, net_channels, 1, 1024, 0, "NCCL network channels per domain")     \
  X(DOUBLE, net_channel_GBps, 0, 1e5, POD_F_MIN_OPEN,                      \
    "GB/s per channel per direction")                                      \
  X(BOOL, sharp, 0, 1, 0, "in-network reduction (CollNet)")                \
  X(DOUBLE, msg_overhead_us, 0, 1e6, 0, "us per message posted")           \
  X(INT, leaf_gpus, 1, 1 << 24, 0, "GPUs per leaf group")                  \
  X(DOUBLE, host_link_GBps, 0, 1e5, 0,                                     \
    "GB/s GPU-host per GPU per direction (0: none)")                       \
  X(DOUBLE, host_link_eff, 0, 1, 0, "fraction of host_link_GBps achieved") \
  X(DOUBLE, host_mem_gb, 0, 1e7, 0, "GB host memory per GPU")

#define GPU_ENTRY(k, m, lo, hi, open, unit) \
  {#m, offsetof(pod_gpu, m), POD_F_##k, lo, hi, open, unit},
#define SYSTEM_ENTRY(k, m, lo, hi, open, unit) \
  {#m, offsetof(pod_system, m), POD_F_##k, lo, hi, open, unit},
const pod_field pod_hw_gpu_fields[] = {GPU_FIELDS(GPU_ENTRY) POD_FIELD_END};
const pod_field pod_hw_system_fields[] = {SYSTEM_FIELDS(SYSTEM_ENTRY)
                                              POD_FIELD_END};

#define SCREEN(k, m, lo, hi, open, unit) &SCREEN_##k(x->m, lo, hi, open)
#define SCREEN_DOUBLE(v, lo, hi, open) pod_field_in(v, lo, hi, open)
#define SCREEN_INT(v, lo, hi, open) (((v) >= (lo)) & ((v) <= (hi)))
#define SCREEN_BOOL(v, lo, hi, open) ((unsigned)(v) <= 1u)
static int gpu_ok(const pod_gpu *x) {
  return 1 GPU_FIELDS(SCREEN);
}
static int system_ok(const pod_system *x) {
  return gpu_ok(&x->gpu) SYSTEM_FIELDS(SCREEN) &
         (!x->nvls | (x->nvls_eff > 0)) &
         ((unsigned)x->transport < POD_TRANSPORT_N) &
         ((unsigned)x->routing < POD_ROUTING_N) & name_ok(x->name) &
         name_ok(x->gpu.name);
}
#undef SCREEN
#undef SCREEN_DOUBLE
#undef SCREEN_INT
#undef SCREEN_BOOL

static int gpu_check(const pod_gpu *g, const char *prefix, pod_err *err) {
  if (!name_ok(g->name)) {
    char path[POD_ERR_FIELD_MAX];
    snprintf(path, sizeof path, "%sname", prefix);
    return pod_err_set(err, POD_EINVAL, path, "not NUL-terminated");
  }
  return pod_field_check_all(pod_hw_gpu_fields, g, prefix, err);
}

int pod_hw_gpu_check(const pod_gpu *g, pod_err *err) {
  if (g == NULL) return pod_err_set(err, POD_EINVAL, "gpu", "is NULL");
  if (gpu_ok(g) & name_ok(g->name)) return POD_OK;
  return gpu_check(g, "", err);
}

int pod_hw_system_check(const pod_system *s, pod_err *err) {
  if (s == NULL) return pod_err_set(err, POD_EINVAL, "system", "is NULL");
  if (system_ok(s)) return POD_OK; /* the walk below names the failure */
  if (!name_ok(s->name))
    return pod_err_set(err, POD_EINVAL, "name", "not NUL-terminated");
  int rc = gpu_check(&s->gpu, "gpu.", err);
  if (rc != POD_OK) return rc;
  if ((rc = pod_field_check_all(pod_hw_system_fields, s, "", err)) != POD_OK)
    return rc;
  if (s->nvls && !(s->nvls_eff > 0))
    return pod_err_set(err, POD_EINVAL, "nvls_eff",
                       "must be in (0, 2] when nvls is on (got %.10g)",
                       s->nvls_eff);
  if ((unsigned)s->transport >= POD_TRANSPORT_N)
    return pod_err_set(err, POD_EINVAL, "transport", "unknown transport %d",
                       s->transport);
  if ((unsigned)s->routing >= POD_ROUTING_N)
    return pod_err_set(err, POD_EINVAL, "routing", "unknown routing %d",
                       s->routing);
  return POD_OK;
}
