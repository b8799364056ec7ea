/*
** l_dist.h: distribution values for studies (podsim.dist.*).
*/
#ifndef L_DIST_H
#define L_DIST_H

#include <lua.h>

#include "pod_dist.h"

/* The pod_dist inside the distribution at idx, or NULL.  Choice
** distributions over non-numbers keep their labels: *labels_idx (when not
** NULL) receives 1 when the dist has labels, which lpod_dist_push_labels
** pushes (a list: the sampled value i maps to labels[i + 1]). */
const pod_dist *lpod_dist_test(lua_State *L, int idx, int *has_labels);
void lpod_dist_push_labels(lua_State *L, int idx);

/* Push a table describing the dist (kind and parameters) for meta.json. */
void lpod_dist_push_description(lua_State *L, int idx);

#endif
