/*
** pod_coll.h: collective-communication kernels (DESIGN.md 4.2).
**
** Conventions follow nccl-tests: `bytes` is the buffer size S as
** nccl-tests prints it, algbw = S / t, busbw = algbw x factor, with factor
** 2(n-1)/n for all-reduce, (n-1)/n for all-gather, reduce-scatter and
** all-to-all, 1 for broadcast and send/recv.  GB/s are 1e9 bytes/s.
** A communicator has `ranks` ranks placed `ranks_per_domain` per scale-up
** domain (0 means packed: min(ranks, domain_gpus)).
** pod_coll_eval is pure, reentrant, allocation-free and thread-safe.
**
** The model (details and sources in coll.c): collectives as NCCL runs
** them.  Alpha-beta per algorithm with pipeline fills set by NCCL's
** chunking, timed with NCCL's LL and Simple protocols, the faster
** winning; a ring or tree crosses the network on NCCL's channels
** (sys->net_channels per domain), not on every NIC of the domain.
** Algorithms by op (others give POD_ENOTSUP):
**   all_reduce       ring, tree; nvls (sys->nvls, one domain, 2+ ranks);
**                    nvls_tree (sys->nvls, 2+ domains, 2+ ranks per
**                    domain); collnet (sys->sharp, 2+ domains: NCCL's
**                    CollNetDirect, or NVLS+CollNet with sys->nvls);
**                    collnet_chain (sys->sharp, 2+ domains);
**                    hierarchical (2+ domains; podsim's own, never auto)
**   all_gather,
**   reduce_scatter   ring, hierarchical (2+ domains); across nodes NCCL
**                    runs these as rings unless its CollNet plugin
**                    gathers, and inside one node NVLS moves the same
**                    bytes per link as the ring
**   all_to_all       direct (a latency step and one p2p chunk of fill per
**                    group of peers NCCL holds in flight, usually all of
**                    them; the network posts of every peer; across 3+
**                    domains under static
**                    ECMP routing the NIC rate falls with the number of
**                    peer domains)
**   broadcast        ring
**   send_recv        direct (ranks must be 2; scale-up link when both
**                    share a domain, else one GPU's NICs)
** auto tries NCCL's set for the op (all_reduce: ring, tree, nvls,
** nvls_tree, collnet, collnet_chain) and returns the one NCCL's tuner rates
*fastest
** (its tuner charges a tree over 3 domains 2S per domain where the trees
** move 1.5S: the time returned is the real one).
** One rank moves nothing: time 0, algbw and busbw 0.  Zero bytes cost the
** latency alone (algbw 0).
*/
#ifndef POD_COLL_H
#define POD_COLL_H

#include "pod_err.h"
#include "pod_field.h"
#include "pod_hw.h"
#include "pod_kernel.h"

typedef enum pod_coll_op {
  POD_COLL_ALL_REDUCE,
  POD_COLL_ALL_GATHER,
  POD_COLL_REDUCE_SCATTER,
  POD_COLL_ALL_TO_ALL,
  POD_COLL_BROADCAST,
  POD_COLL_SEND_RECV,
  POD_COLL_NOPS
} pod_coll_op;

typedef enum pod_coll_algo {
  POD_ALGO_AUTO, /* fastest valid algorithm; result says which */
  POD_ALGO_RING,
  POD_ALGO_TREE,
  POD_ALGO_NVLS,          /* in-switch reduction; needs sys->nvls */
  POD_ALGO_DIRECT,        /* point-to-point to every peer (all-to-all) */
  POD_ALGO_HIERARCHICAL,  /* podsim's own: intra-domain reduce-scatter, a
                          ** ring across domains, intra-domain all-gather;
                          ** never chosen by auto (NCCL has no such) */
  POD_ALGO_NVLS_TREE,     /* NCCL NVLSTree: NVLS in each domain, a tree
                          ** across domains; needs sys->nvls, 2+ domains */
  POD_ALGO_COLLNET,       /* NCCL CollNet: in-network reduction (SHARP);
                          ** needs sys->sharp, 2+ domains */
  POD_ALGO_COLLNET_CHAIN, /* NCCL CollNetChain: a chain inside each
                          ** domain to SHARP; sys->sharp, 2+ domains */
  POD_ALGO_N
} pod_coll_algo;

typedef struct pod_coll_args {
  int ranks;            /* n >= 1 (send_recv: 2) */
  int ranks_per_domain; /* r; 0 = packed */
  double bytes;         /* S >= 0 */
  pod_coll_algo algo;
} pod_coll_args;

typedef struct pod_coll_result {
  double time_s;
  double algbw_GBps;
  double busbw_GBps;
  pod_coll_algo algo; /* the algorithm the time belongs to */
} pod_coll_result;

/* Time one collective on `sys`.  POD_EINVAL (with err->field set to
** "ranks", "bytes", "ranks_per_domain", "algo" or a system field) on bad
** input, POD_ENOTSUP when `algo` cannot run `op` on this system. */
int pod_coll_eval(const pod_system *sys, pod_coll_op op,
                  const pod_coll_args *args, pod_coll_result *out,
                  pod_err *err);

/* The same for a system that already passed pod_hw_system_check (a
** validated spec, or one checked once by a caller that times many
** collectives on it): skips re-validating it, checks the rest. */
int pod_coll_eval_checked(const pod_system *sys, pod_coll_op op,
                          const pod_coll_args *args, pod_coll_result *out,
                          pod_err *err);

/* ---- many collectives on one system ------------------------------------ */
/* NCCL's multi-node ring graph on nodes of r GPUs as the model derives it
** (coll_tune.c), a function of the system's generation, up_GBps,
** nic_gbps and nics_per_gpu and of r only: gen 0 Ampere, 1 Hopper, 2
** Blackwell; L the NVLink credit and nic the NIC rate, GB/s; ch channels
** at bw GB/s each.  Filled by the model; callers do not read it. */
typedef struct pod_coll_graph {
  int r, gen;
  double L, nic, ch, bw;
} pod_coll_graph;

/* NCCL's point-to-point channels on a communicator of n ranks, r per
** domain, as the model derives them (coll_tune.c, NVIDIA/nccl 2.28.7
** ae7aed19): p2pnChannels, p2pnChannelsPerPeer, the scheduler's
** nChannelsMin and the part sizes (bytes) between which a peer's message
** is split over its channels; nch 0 when not derived (at most 8 peers,
** always in flight at once).  Filled by the model; callers do not read
** it. */
typedef struct pod_coll_p2p {
  double nch, per_peer, cmin, min_part, max_part;
} pod_coll_p2p;

/* What the peers-in-flight rule reads of a pod_coll_p2p besides it, made
** once per set of channels (core/coll_plan.h, p2p_inverses): X = 8 nch
** and the exact inverses of X, min_part and cmin (0 where the value is
** not a power of two with a normal inverse); cmin_int: cmin an integer in
** [1, 2^52]. */
typedef struct pod_coll_p2p_k {
  double X, inv_X, inv_min, inv_cmin;
  int cmin_int;
} pod_coll_p2p_k;

/* The graphs one caller keeps across its collectives on one unchanged
** system (a training step's ~12, a layout search's): up to
** POD_COLL_GRAPHS ranks-per-domain values, filled on first use.  Set n
** to 0 for each system. */
#define POD_COLL_GRAPHS 8
typedef struct pod_coll_graphs {
  int n;
  pod_coll_graph g[POD_COLL_GRAPHS];
} pod_coll_graphs;

/* The time, seconds, of an `auto` collective of `bytes` over n ranks, r
** per domain (0: packed), on a system that passed pod_hw_system_check and
** has not changed since `graphs` was zeroed (graphs may be NULL): the
** time_s of pod_coll_eval_checked with algo auto, bit for bit, without
** the result's other fields, and with its checks of op, bounds and r and
** its errors.  Pure apart from filling *graphs; sys, time_s not NULL. */
int pod_coll_time_checked(const pod_system *sys, pod_coll_op op, int n, int r,
                          double bytes, pod_coll_graphs *graphs, double *time_s,
                          pod_err *err);

/* ---- one collective prepared for many samples ---------------------------
** A study that samples a system's link efficiencies (up_eff, out_eff)
** times the same collectives on every sample: the same op, ranks, ranks
** per domain and bytes.  What does not depend on the two efficiencies
** (the checks, the ring graph and NCCL's tuner ratings across domains,
** the algorithms that can run, and the choice itself when NCCL's ratings
** make it) is prepared once; each sample evaluates the rest, the same
** operations in the same order as pod_coll_time_checked.  Callers do not
** read the fields. */
#define POD_COLL_AUTO_MAX 6 /* algorithms auto tries at most (all-reduce) */
typedef struct pod_coll_prep {
  double S;                      /* bytes */
  double ring_line;              /* the ring's NICs x line rate, GB/s */
  double ecmp_div;               /* an all-to-all's static-ECMP collision
                                 ** divisor, or 0 */
  pod_coll_p2p p2p;              /* an all-to-all's p2p channels */
  pod_coll_p2p_k p2pk;           /* and their inverses, made here */
  double sel[POD_COLL_AUTO_MAX]; /* a rated candidate's time, s */
  int n, r, d;                   /* ranks; ranks per domain, resolved;
                                 ** domains, n / r */
  signed char ok, op;            /* op: pod_coll_op */
  signed char net_ar;    /* auto all-reduce across domains: rated choice */
  signed char ring;      /* the plans read the ring's network rate */
  signed char fixed;     /* the candidate chosen here, or -1: per sample */
  signed char ncand;     /* the algorithms auto tries that can run */
  signed char any_bytes; /* no rated candidate: times any bytes */
  signed char single;    /* one candidate, timed at its real rate */
  unsigned char cand[POD_COLL_AUTO_MAX];  /* pod_coll_algo, auto's order */
  unsigned char rated[POD_COLL_AUTO_MAX]; /* chosen by sel[], eff-free */
} pod_coll_prep;

/* Prepare an `auto` collective of `bytes` over n ranks, r per domain (0:
** packed) on a system that passed pod_hw_system_check.  Errors are those
** of pod_coll_time_checked on the same arguments (prep->ok 0 then). */
int pod_coll_prepare(const pod_system *sys, pod_coll_op op, int n, int r,
                     double bytes, pod_coll_prep *prep, pod_err *err);

/* The time_s of pod_coll_time_checked on `sys` for `bytes`, bit for bit,
** errors included, where sys equals the prepared system in every field
** but those pod_coll_prep_varies names (up_eff and out_eff always; any
** valid values), and bytes are the prepared bytes
** or, when pod_coll_prep_any_bytes(prep), any bytes (they are checked as
** pod_coll_time_checked checks them).  POD_EINVAL ("prep") when prep is
** not prepared, ("bytes") for other bytes of a prep whose choice NCCL's
** ratings made by its bytes.  Pure, allocation-free and thread-safe (prep
** is read only). */
int pod_coll_time_prepared(const pod_coll_prep *prep, const pod_system *sys,
                           double bytes, double *time_s, pod_err *err);

/* pod_coll_time_prepared's time with the rest of pod_coll_eval_checked's
** result (algo auto) on the same terms, bit for bit, errors included:
** algbw and busbw as coll_eval makes them, the algorithm that ran.  For
** the built-in evaluator's prepared samples (coll_kernel.c).  Pure and
** thread-safe. */
int pod_coll_eval_prepared(const pod_coll_prep *prep, const pod_system *sys,
                           double bytes, pod_coll_result *out, pod_err *err);

/* 1 when a system field at byte `offset` of a pod_system may take any
** (valid) value per sample for prep's time to stay pod_coll_time_checked's:
** up_eff and out_eff always; when pod_coll_prep_any_bytes(prep) (no
** candidate chosen by NCCL's ratings, which read latencies and fills
** when prepared) also up_latency_us, out_latency_us, msg_overhead_us,
** nvls_latency_us, up_fill_KiB, out_half_MB and oversub, which only the
** per-sample placement, plans and times read.  0 otherwise or for an
** unprepared prep.  Checked field by field against pod_coll_eval in
** tests/unit/test_coll_prep.c. */
int pod_coll_prep_varies(const pod_coll_prep *prep, size_t offset);

/* The figures of a system that every collective timed on it reads
** (rates, fill sizes, latencies; core/coll_plan.h setup_sys): made once by
** pod_coll_sys_rates_of for many pod_coll_time_prepared_sr calls on the
** same system values. */
typedef struct pod_coll_sys_rates {
  double U, G;     /* achievable scale-up, one GPU's NICs, bytes/s */
  double ch, cap;  /* network channels per domain; their cap, bytes/s */
  double row_up;   /* scale-up fill row, bytes */
  double half_out; /* network half-rate size, bytes */
  double buf_dom;  /* a domain's network channels' NCCL buffers, bytes */
  double a_up, a_out, msg_s; /* latencies, s */
} pod_coll_sys_rates;
void pod_coll_sys_rates_of(const pod_system *sys, pod_coll_sys_rates *sr);
/* pod_coll_time_prepared with sys's figures sr (pod_coll_sys_rates_of on
** these sys values): the same time and errors, bit for bit. */
int pod_coll_time_prepared_sr(const pod_coll_prep *prep, const pod_system *sys,
                              const pod_coll_sys_rates *sr, double bytes,
                              double *time_s, pod_err *err);

/* 1 when nothing prepared depends on the bytes (no algorithm is chosen by
** NCCL's ratings, which read them: every collective but an all-reduce
** across domains), so the prep times any bytes; 0 otherwise or for NULL. */
int pod_coll_prep_any_bytes(const pod_coll_prep *prep);

/* 1 when preps a and b, made on the same system, time the same bytes
** alike on any system that differs from it in up_eff and out_eff only
** (the same collective up to all-gather and reduce-scatter, which share
** their plans): the same successful time, bit for bit.  0 otherwise. */
int pod_coll_prep_same(const pod_coll_prep *a, const pod_coll_prep *b);

/* nccl-tests bus-bandwidth factor for `op` on n ranks. */
double pod_coll_busbw_factor(pod_coll_op op, int n);

/* Built-in Monte Carlo evaluator (pod_kernel.h): one collective on a
** self-contained config.  Metrics, in order: time_s, algbw_GBps,
** busbw_GBps.  Sample fields by offset, e.g.
** offsetof(pod_coll_cfg, system.nic_gbps) or offsetof(pod_coll_cfg,
** args.bytes).  Pure and thread-safe like pod_coll_eval. */
typedef struct pod_coll_cfg {
  pod_system system;
  pod_coll_op op;
  pod_coll_args args;
} pod_coll_cfg;

extern const pod_kernel pod_coll_kernel;
/* Its prepared block form (pod_kernel.h): an auto collective prepared per
** grid point (pod_coll_prepare) when the samples bind only fields that
** pod_coll_prep_varies lets vary and, with pod_coll_prep_any_bytes, the
** bytes; each sample screens only its sampled fields and goes through
** pod_coll_eval_prepared.  The kernel's metrics bit for bit. */
extern const pod_kernel_block pod_coll_kernel_block;

/* Bounds of the numeric arguments (pod_field.h), the one home of each
** range: ranks, ranks_per_domain and bytes of a pod_coll_args (checked by
** pod_coll_eval), and the same at their offsets in a pod_coll_cfg (for
** the bindings). */
extern const pod_field pod_coll_args_fields[];
extern const pod_field pod_coll_cfg_fields[];

/* Names ("all_reduce", "ring", ...) and their parsers (POD_ENOENT). */
/* Name tables: indexed by pod_coll_op / pod_coll_algo, NULL-terminated. */
extern const char *const pod_coll_op_names[];
extern const char *const pod_coll_algo_names[];
const char *pod_coll_op_name(pod_coll_op op);
const char *pod_coll_algo_name(pod_coll_algo algo);
int pod_coll_op_parse(const char *name, pod_coll_op *out);
int pod_coll_algo_parse(const char *name, pod_coll_algo *out);

#endif
