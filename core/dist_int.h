/*
** dist_int.h: internals shared by core/dist*.c (dist.c, dist_moments.c);
** callers use pod_dist.h only.
*/
#ifndef POD_DIST_INT_H
#define POD_DIST_INT_H

#include "pod_dist.h"

/* Normal CDF mass between standardized bounds a < b, computed in the tail
** that keeps precision (upper tail through Q when a > 0). */
double pod_dist__tn_mass(double a, double b);

#endif
