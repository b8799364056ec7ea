/*
** coll_int.h: internals of the collective model (core/coll*.c) shared by
** coll.c (plans and times) and coll_tune.c (NCCL's tuner rules that pick
** an algorithm); callers use pod_coll.h only.  Convention as train_int.h:
** pod_coll__name is not part of the API.
*/
#ifndef POD_COLL_INT_H
#define POD_COLL_INT_H

#include "pod_coll.h"

/* NCCL_MAX_NVLS_ARITY (src/include/device.h): an NVLS graph has at most
** 32 heads, one GPU each. */
#define POD_COLL__NVLS_MAX_HEADS 32

/* The NVLS all-reduce plan's inverse rate multiplier as NCCL's tuner rates
** NVLS on one domain of n ranks, relative to the ring's rate (ring graph
** bandwidth over NVLS's); 1e30 when NCCL would build no NVLS graph.  Pure,
** O(1). */
double pod_coll__nvls_tuner_div(const pod_system *s, int n);

/* NCCL 2.28.9's tuner ratings of multi-node all-reduce (coll_tune.c):
** Simple-protocol algbw in GB/s of ring, tree and NVLS-tree (0 when NCCL
** builds no such graph), and the ring's network rate (as
** pod_coll__ring_net_GBps). */
typedef struct pod_coll__tune {
  double ring_net_GBps;
  double ring_GBps, tree_GBps, nvlstree_GBps;
} pod_coll__tune;

/* Ratings for n ranks, r per node (n / r >= 2 nodes).  Pure, O(1). */
void pod_coll__net_tune(const pod_system *s, int n, int r, pod_coll__tune *t);

/* The network rate of NCCL's multi-node ring on nodes of r GPUs, GB/s:
** its graph's c channels each send through one NIC at the NIC's rate
** (nic_gbps / 8 x out_eff), several sharing a NIC when c exceeds the
** NICs, so min(c, r x nics_per_gpu) NICs.  Pure, O(1). */
double pod_coll__ring_net_GBps(const pod_system *s, int r);

#endif
