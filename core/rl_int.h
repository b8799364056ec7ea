/*
** rl_int.h: what the RL step (rl.c) and its paired evaluator (rl_pair.c)
** share.  Internal to core/.
*/
#ifndef POD_RL_INT_H
#define POD_RL_INT_H

#include "pod_err.h"

#define FAIL(field, ...) pod_err_set(err, POD_EINVAL, field, __VA_ARGS__)

/* Prefix a nested error's field with `pre` ("rollout." + "parallel.tp")
** when rc is not POD_OK; returns rc. */
int pod_rl__nested(int rc, const char *pre, pod_err *err);

#endif
