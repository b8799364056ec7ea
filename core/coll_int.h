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

#endif
