/*
** coll_int.h: internals of the collective model (core/coll*.c) shared by
** coll.c (plans and times) and coll_tune.c (NCCL's tuner rules that pick
** an algorithm); callers use pod_coll.h only.  Convention as train_int.h:
** pod_coll__name is not part of the API.
*/
#ifndef POD_COLL_INT_H
#define POD_COLL_INT_H

#include "pod_coll.h"

/* The bounds of the collective's numeric arguments (pod_field.h), the one
** home of each range: coll.c screens every evaluation with them and
** coll_kernel.c makes the args and kernel config tables that the Lua
** bindings read.  The caps are sanity limits. */
#define POD_COLL__ARGS(X)                                         \
  X(ranks, POD_F_INT, 1, 1 << 24, "ranks")                        \
  X(ranks_per_domain, POD_F_INT, 0, 1 << 24, "ranks (0: packed)") \
  X(bytes, POD_F_DOUBLE, 0, 1e18, "bytes (nccl-tests S)")

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

/* Fill *g for nodes of r GPUs of system s.  Pure, O(1). */
void pod_coll__net_graph(const pod_system *s, int r, pod_coll_graph *g);

/* pod_coll__net_tune and pod_coll__ring_net_GBps from a graph that
** pod_coll__net_graph filled for the same system: identical results. */
void pod_coll__graph_tune(const pod_system *s, int n, const pod_coll_graph *g,
                          pod_coll__tune *t);
double pod_coll__graph_net_GBps(const pod_system *s, const pod_coll_graph *g);
/* The same at line rate: pod_coll__graph_net_GBps is this x out_eff, the
** one operation that reads the efficiency (pod_coll_prepare). */
double pod_coll__graph_line_GBps(const pod_system *s, const pod_coll_graph *g);

/* Fill *p, NCCL's point-to-point channels (pod_coll_p2p, pod_coll.h),
** for n ranks, r per domain (r divides n); g the ring graph of nodes of r
** GPUs (pod_coll__net_graph) when the caller keeps it, else NULL.  Reads
** the system's generation, up_GBps, nic_gbps and nics_per_gpu only.
** Pure, O(1). */
void pod_coll__p2p_channels(const pod_system *s, int n, int r,
                            const pod_coll_graph *g, pod_coll_p2p *p);

/* The time of a checked evaluation (coll.c) of algo over n ranks, r per
** domain (r resolved, dividing n, within the domain), the algorithm that
** ran and the nccl-tests bus factor of n; gs kept as pod_coll_time_checked
** keeps it (pod_coll.h; may be NULL). */
int pod_coll__time(const pod_system *sys, pod_coll_op op, pod_coll_algo algo,
                   int n, int r, double S, pod_coll_graphs *gs, double *t_out,
                   pod_coll_algo *best_out, double *factor, pod_err *err);

/* Where a prepared block form's samples go (coll_kernel.c): nb doubles
** per sample, value i written at byte off[i] of the config and held to
** lo[i] <= v <= hi[i] (closed finite bounds: NaN never passes). */
#define POD_COLL__ROWS_MAX 10
typedef struct pod_coll__rows {
  int nb;
  size_t off[POD_COLL__ROWS_MAX];
  double lo[POD_COLL__ROWS_MAX], hi[POD_COLL__ROWS_MAX];
} pod_coll__rows;

/* n samples of prepared P (coll_prep.c): sample j's values x[j nb ..]
** written into the config at cfg as R says, then pod_coll_eval_prepared
** on sys with *bytes (both inside cfg) into y[3j..3j+2] (time_s,
** algbw_GBps, busbw_GBps), bit for bit.  Returns the samples done before
** the first with a value out of bounds or an error (n when none). */
int pod_coll__eval_prepared_rows(const pod_coll_prep *P,
                                 const pod_coll__rows *R, void *cfg,
                                 const pod_system *sys, const double *bytes,
                                 int n, const double *x, double *y);

#endif
