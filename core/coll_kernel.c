/*
** coll_kernel.c: the collective's names (ops and algorithms, with their
** parse functions) and the collective model as a built-in evaluator
** (pod_coll_kernel, pod_coll.h).
*/
#include <string.h>

#include "pod_coll.h"

const char *const pod_coll_op_names[POD_COLL_NOPS + 1] = {
    "all_reduce", "all_gather", "reduce_scatter", "all_to_all", "broadcast",
    "send_recv",  NULL};
const char *const pod_coll_algo_names[POD_ALGO_N + 1] = {
    "auto",         "ring",      "tree",    "nvls",          "direct",
    "hierarchical", "nvls_tree", "collnet", "collnet_chain", NULL};

const char *pod_coll_op_name(pod_coll_op op) {
  if ((int)op < 0 || op >= POD_COLL_NOPS) return NULL;
  return pod_coll_op_names[op];
}

const char *pod_coll_algo_name(pod_coll_algo algo) {
  if ((int)algo < 0 || algo >= POD_ALGO_N) return NULL;
  return pod_coll_algo_names[algo];
}

int pod_coll_op_parse(const char *name, pod_coll_op *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_COLL_NOPS; i++)
    if (strcmp(name, pod_coll_op_names[i]) == 0) {
      if (out != NULL) *out = (pod_coll_op)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

int pod_coll_algo_parse(const char *name, pod_coll_algo *out) {
  if (name == NULL) return POD_ENOENT;
  for (int i = 0; i < POD_ALGO_N; i++)
    if (strcmp(name, pod_coll_algo_names[i]) == 0) {
      if (out != NULL) *out = (pod_coll_algo)i;
      return POD_OK;
    }
  return POD_ENOENT;
}

/* ---- built-in evaluator ------------------------------------------------ */

static const char *const COLL_METRICS[] = {"time_s", "algbw_GBps",
                                           "busbw_GBps"};

static int coll_kernel_fn(const void *cfg, double *metrics, pod_err *err) {
  const pod_coll_cfg *c = cfg;
  pod_coll_result res;
  int rc = pod_coll_eval(&c->system, c->op, &c->args, &res, err);
  if (rc != POD_OK) return rc;
  metrics[0] = res.time_s;
  metrics[1] = res.algbw_GBps;
  metrics[2] = res.busbw_GBps;
  return POD_OK;
}

const pod_kernel pod_coll_kernel = {"collective", sizeof(pod_coll_cfg), 3,
                                    COLL_METRICS, coll_kernel_fn};
