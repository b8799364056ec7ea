/*
** rel_int.h: internals shared by rel.c (the analytic model) and
** rel_check.c (its checks); callers use pod_rel.h only.  Convention as
** train_int.h: pod_rel__name is not part of the API.
*/
#ifndef POD_REL_INT_H
#define POD_REL_INT_H

#include "pod_rel.h"

/* Every check of a config but its failure list's. */
int pod_rel__check_rest(const pod_rel_cfg *c, pod_err *err);

/* pod_rel__check_rest for a config whose integer and enum fields are
** those of a checked config's shape (pod_rel_shape.key), so that every
** rule on them alone holds: the doubles' bounds and the rules they enter,
** as pod_rel__check_rest tests them; on a failure pod_rel__check_rest
** itself, so the error is the same. */
int pod_rel__check_shaped(const pod_rel_cfg *c, pod_err *err);

#endif
