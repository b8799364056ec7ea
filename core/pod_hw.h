/*
** pod_hw.h: GPUs and systems (DESIGN.md 4.1), with the presets.
**
** Specs are plain value structs: copy them freely, sample any field in a
** study, hand them to the kernels by const pointer.  Units are in the
** field names: _tflops dense TFLOP/s, _gb 1e9 bytes, _TBps 1e12 B/s,
** _GBps 1e9 B/s per direction, _gbps 1e9 bit/s, _us microseconds.
** Presets live in one table in hw.c, with the public source of each
** figure beside it.  Everything here is reentrant and thread-safe.
*/
#ifndef POD_HW_H
#define POD_HW_H

#include "pod_err.h"
#include "pod_field.h"

#define POD_NAME_MAX 32

typedef struct pod_gpu {
  char name[POD_NAME_MAX];
  double bf16_tflops; /* dense peak, no sparsity */
  double fp8_tflops;  /* 0 when the GPU has no fp8 */
  double fp4_tflops;  /* 0 when the GPU has no fp4 */
  double hbm_gb;
  double hbm_TBps;
  double power_w; /* board power */
} pod_gpu;

/* Scale-out transport (pod_system.transport). */
typedef enum pod_transport {
  POD_TRANSPORT_IB,   /* InfiniBand verbs (NDR, XDR) */
  POD_TRANSPORT_ROCE, /* RDMA over Converged Ethernet (Spectrum-X) */
  POD_TRANSPORT_EFA,  /* AWS Elastic Fabric Adapter (SRD over libfabric) */
  POD_TRANSPORT_N
} pod_transport;

/* How the scale-out fabric picks a path for a flow (pod_system.routing).
** Only static ECMP hashing lets the concurrent flows of an all-to-all
** collide on a shared uplink; adaptive routing, per-packet spraying and
** SRD's multipath spread them (coll.c). */
typedef enum pod_routing {
  POD_ROUTING_STATIC_ECMP, /* one hashed path per flow (IB presets too) */
  POD_ROUTING_ADAPTIVE,    /* per-packet adaptive routing (IB AR) */
  POD_ROUTING_SPRAY,       /* packet spraying (Spectrum-X RoCE) */
  POD_ROUTING_SRD,         /* EFA SRD: many paths per flow */
  POD_ROUTING_N
} pod_routing;

typedef struct pod_system {
  char name[POD_NAME_MAX];
  pod_gpu gpu;
  int domain_gpus;         /* GPUs sharing one scale-up (NVLink) fabric */
  double up_GBps;          /* scale-up bandwidth per GPU per direction */
  double up_latency_us;    /* per-hop latency on the scale-up fabric */
  int nvls;                /* 1 when the switch can reduce in-network */
  double nics_per_gpu;     /* scale-out NICs per GPU */
  double nic_gbps;         /* line rate of one NIC */
  double out_latency_us;   /* per-hop latency on the scale-out fabric */
  double oversub;          /* oversubscription of the tier above a leaf
                           ** (>= 1): applies only to traffic that leaves
                           ** the leaf group of leaf_gpus GPUs */
  double usd_per_gpu_hour; /* rental price, 0 when unknown */
  /* Achievable efficiency per fabric generation: the fraction of line
  ** rate reached at message size S is eff * S / (S + half), with the
  ** scale-up half = ring length x up_channels x up_fill_KiB (coll.c) and
  ** the scale-out half out_half_MB * 2^20. */
  double up_eff;
  double up_fill_KiB; /* bytes per rank and channel in flight before a
                      ** scale-up pipeline streams, KiB */
  double out_eff;
  double out_half_MB;
  double nvls_eff;        /* NVLS all-reduce busbw over up_GBps, large S */
  double nvls_latency_us; /* fixed cost of one NVLS all-reduce (multicast
                          ** set-up, in-switch reduction round trip) */
  /* NCCL channels and the scale-out fabric (coll.c, sources in hw.c): */
  int up_channels;         /* channels of one collective on the scale-up
                           ** fabric (NCCL's NVLS channel count) */
  int net_channels;        /* channels of one ring/tree collective that
                           ** cross the network per domain: one NIC each,
                           ** so a domain drives min(GPUs x nics_per_gpu,
                           ** net_channels) NICs */
  double net_channel_GBps; /* most one channel moves over the network, GB/s
                           ** per direction */
  int transport;           /* pod_transport */
  int routing;             /* pod_routing */
  int sharp;               /* 1 when the fabric reduces in-network (SHARP:
                           ** NCCL's CollNet algorithm) */
  double msg_overhead_us;  /* per message posted to the NIC (p2p peers) */
  int leaf_gpus;           /* GPUs whose NICs share one leaf group (a
                           ** rail-optimized scalable unit); traffic among
                           ** them never crosses the oversubscribed tier */
  /* The GPU's link to host (CPU) memory, for activation offload (train.c)
  ** and host-resident weights (sources in hw.c): */
  double host_link_GBps; /* line rate per GPU per direction: PCIe on HGX,
                         ** the GPU's share of NVLink-C2C on Grace
                         ** superchips; 0 when unknown (no offload) */
  double host_link_eff;  /* achieved fraction of host_link_GBps for large
                         ** pinned copies; 0 when unknown */
  double host_mem_gb;    /* host memory per GPU (node or superchip memory
                         ** over its GPUs); 0 when unknown */
} pod_system;

/* A scale-out fabric preset: the fields of pod_system it sets. */
typedef struct pod_fabric {
  char name[POD_NAME_MAX];
  double nics_per_gpu, nic_gbps, out_eff, out_latency_us, out_half_MB;
  double msg_overhead_us;
  int transport, routing, sharp;
} pod_fabric;

/* Copy the preset named `name` into *out.  POD_ENOENT when unknown. */
int pod_hw_gpu_preset(const char *name, pod_gpu *out);
int pod_hw_system_preset(const char *name, pod_system *out);

/* Set the scale-out fields of *s from the fabric preset `name`
** ("ib_ndr", "ib_ndr_sharp", "ib_xdr", "ib_xdr_sharp", "spectrum_x",
** "efa"); POD_ENOENT when unknown (s untouched). */
int pod_hw_fabric_apply(const char *name, pod_system *s);
const pod_fabric *pod_hw_fabric_at(int i, const char **source);

/* Names of the enums ("ib", "static_ecmp", ...); NULL when out of range. */
/* Name tables: indexed by transport / routing kind, NULL-terminated. */
extern const char *const pod_hw_transport_names[];
extern const char *const pod_hw_routing_names[];
const char *pod_hw_transport_name(int t);
const char *pod_hw_routing_name(int r);

/* Iterate presets in table order: i from 0 while the result is not NULL.
** `source` (may be NULL) receives the public source text of the preset. */
const pod_gpu *pod_hw_gpu_at(int i, const char **source);
const pod_system *pod_hw_system_at(int i, const char **source);

/* Bounds of the numeric fields (pod_field.h; "gpu.x" fields of a system
** are in pod_hw_gpu_fields), the one home of each range. */
extern const pod_field pod_hw_gpu_fields[];
extern const pod_field pod_hw_system_fields[];

/* Check every field against the tables above, then the rules across
** fields (nvls_eff > 0 when nvls, known transport and routing).  Fills
** err with the field name ("gpu.hbm_gb"). */
int pod_hw_gpu_check(const pod_gpu *g, pod_err *err);
int pod_hw_system_check(const pod_system *s, pod_err *err);

#endif
