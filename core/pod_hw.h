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

#define POD_NAME_MAX 32

typedef struct pod_gpu {
  char name[POD_NAME_MAX];
  double bf16_tflops;  /* dense peak, no sparsity */
  double fp8_tflops;   /* 0 when the GPU has no fp8 */
  double fp4_tflops;   /* 0 when the GPU has no fp4 */
  double hbm_gb;
  double hbm_TBps;
  double power_w;      /* board power */
} pod_gpu;

typedef struct pod_system {
  char name[POD_NAME_MAX];
  pod_gpu gpu;
  int domain_gpus;        /* GPUs sharing one scale-up (NVLink) fabric */
  double up_GBps;         /* scale-up bandwidth per GPU per direction */
  double up_latency_us;   /* per-hop latency on the scale-up fabric */
  int nvls;               /* 1 when the switch can reduce in-network */
  double nics_per_gpu;    /* scale-out NICs per GPU */
  double nic_gbps;        /* line rate of one NIC */
  double out_latency_us;  /* per-hop latency on the scale-out fabric */
  double oversub;         /* scale-out oversubscription, >= 1 */
  double usd_per_gpu_hour;/* rental price, 0 when unknown */
  /* Achievable efficiency per fabric generation: the fraction of line
  ** rate reached at message size S is eff * S / (S + half_MB * 2^20). */
  double up_eff;
  double up_half_MB;
  double out_eff;
  double out_half_MB;
  double nvls_eff;        /* NVLS all-reduce busbw over up_GBps, large S */
  /* Added with the collective kernels (coll.c): */
  double nvls_latency_us; /* fixed cost of one NVLS all-reduce (multicast
                          ** set-up, in-switch reduction round trip) */
  double out_collision;   /* share of many-peer scale-out traffic exposed to
                          ** random path collisions (ECMP hashing, static
                          ** routing, incast): 1 static routing, 0 perfect
                          ** adaptive routing; see pod_coll.h */
} pod_system;

/* Copy the preset named `name` into *out.  POD_ENOENT when unknown. */
int pod_hw_gpu_preset(const char *name, pod_gpu *out);
int pod_hw_system_preset(const char *name, pod_system *out);

/* Iterate presets in table order: i from 0 while the result is not NULL.
** `source` (may be NULL) receives the public source text of the preset. */
const pod_gpu *pod_hw_gpu_at(int i, const char **source);
const pod_system *pod_hw_system_at(int i, const char **source);

/* Check every field for its domain (finite, positive where it must be,
** domain_gpus >= 1, eff in (0,1], ...).  Fills err with the field name. */
int pod_hw_gpu_check(const pod_gpu *g, pod_err *err);
int pod_hw_system_check(const pod_system *s, pod_err *err);

#endif
