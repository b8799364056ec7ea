/*
** train_int.h: internals of the training-step model (core/train*.c),
** shared by train.c (the step model), train_check.c (names, defaults,
** checks) and train_search.c (the layout search); callers use pod_train.h
** only.
**
** Convention: a non-static function shared between these files carries the
** module prefix with a double underscore, pod_train__name (as libuv's
** uv__); it is not part of the API and may change freely.
*/
#ifndef POD_TRAIN_INT_H
#define POD_TRAIN_INT_H

#include "pod_train.h"

/* Default cfg->jitter_sync, the fast per-interval rank jitter: FITTED on the
** T3 fp8 weak-scaling slope (the derivation and sources beside the shared
** physical parameters in train.c). */
#define JITTER_SYNC 0.030

/* Returns POD_EINVAL on `field` from the enclosing function (which has a
** pod_err *err) unless cond holds. */
#define NEED(cond, field, ...)                                            \
  do {                                                                    \
    if (!(cond)) return pod_err_set(err, POD_EINVAL, field, __VA_ARGS__); \
  } while (0)

/* 0 in a layout dimension means its default, 1. */
void pod_train__normalize(pod_layout *l);
/* The checks that do not depend on the layout. */
int pod_train__check_common(const pod_train_cfg *c, pod_err *err);
/* Every check, the layout's included; *dp gets the data-parallel size. */
int pod_train__check_cfg(const pod_train_cfg *c, int *dp, pod_err *err);
/* The checks of check_common but the system's and the model's, and of
** check_cfg but those two (for a system and a model checked already). */
int pod_train__check_fields(const pod_train_cfg *c, pod_err *err);
int pod_train__check_cfg_fields(const pod_train_cfg *c, int *dp, pod_err *err);
/* The core evaluation on a checked config with dp resolved.  With
** want_time 0 only the memory fields are filled (the search's cheap
** first pass). */
int pod_train__eval_core(const pod_train_cfg *c, int dp, pod_train_result *r,
                         int want_time, pod_err *err);

/* ---- train_sw.c: software features and per-SKU terms ---- */

/* Achieved rates of one config. */
typedef struct pod_train__rates {
  double gemm, attn, hbm; /* FLOP/s, FLOP/s, B/s achieved */
  double gemm_e;          /* FLOP/s of the routed-expert GEMMs */
} pod_train__rates;

/* The rates at the GPU's sustained clock (*clock gets it) from the dtype
** peak (TFLOP/s) and the dense GEMM, routed-expert GEMM and attention
** efficiencies. */
void pod_train__rates_of(const pod_train_cfg *c, double peak, double eg,
                         double egx, double ea, pod_train__rates *rt,
                         double *clock);
/* The routed experts' grouped-GEMM half size (cfg, else the table). */
double pod_train__k_half_expert(const pod_train_cfg *c);
/* Fixed GPU time per MoE layer per micro-batch, forward and backward. */
double pod_train__moe_layer_s(const pod_train_cfg *c);
/* Exposed host time per MoE layer per micro-batch (all its passes). */
double pod_train__host_layer_s(const pod_train_cfg *c);
/* Share of the EP all-to-all bytes a hierarchical dispatcher puts on the
** network: k routed copies over d domains, max_domains (0: no limit). */
double pod_train__hier_share(double k, int d, int max_domains);
/* Bytes per weight with fp8 primary weights. */
double pod_train__fp8_param_bytes(const pod_train_cfg *c);

#endif
