/*
** train_graph.c: the training-step entry point of evaluation graphs
** (pod_train_eval_specs_checked, pod_train.h): pod_train_eval without
** re-checking a system and a model that are checked spec nodes' bytes.
*/
#include <string.h>

#include "train_int.h"

static int eval_normalized(const pod_train_cfg *c, pod_train_result *out,
                           pod_err *err) {
  int dp = 0;
  int rc = pod_train__check_cfg_fields(c, &dp, err);
  if (rc != POD_OK) return rc;
  pod_train_result tmp;
  rc = pod_train__eval_core(c, dp, out ? out : &tmp, 1, NULL, err);
  if (rc == POD_OK) pod_err_clear(err);
  return rc;
}

int pod_train_eval_specs_checked(const pod_train_cfg *cfg,
                                 pod_train_result *out, pod_err *err) {
  if (cfg == NULL) return pod_err_set(err, POD_EINVAL, "cfg", "is NULL");
  /* A graph's config is normalized already when its layout has no 0
  ** (default) dimension: then it is read in place, not copied. */
  pod_layout l = cfg->parallel;
  pod_train__normalize(&l);
  if (memcmp(&l, &cfg->parallel, sizeof l) == 0)
    return eval_normalized(cfg, out, err);
  pod_train_cfg c = *cfg;
  c.parallel = l;
  return eval_normalized(&c, out, err);
}
