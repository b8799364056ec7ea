/*
** l_read.h: the config readers of the kernel bindings.  Each reads the
** Lua arguments of its API call into the kernel's config struct exactly
** as the binding does (same checks, same errors), so the binding and the
** eval tracer (l_trace.c) build identical configs.  All raise located
** errors on bad input.
*/
#ifndef LPOD_L_READ_H
#define LPOD_L_READ_H

#include <lua.h>

#include "pod_coll.h"
#include "pod_cost.h"
#include "pod_err.h"
#include "pod_rel.h"
#include "pod_train.h"

/* podsim.collective(system, op, opts): stack 1..3; `op` is the matched
** operation or -1 to parse slot 2.  Leaves the stack at 3 values. */
void lpod_coll_read(lua_State *L, int op, pod_coll_cfg *c);
/* pod_coll_eval on a config, with the binding's error fill-in. */
int lpod_coll_eval(const pod_coll_cfg *c, pod_coll_result *r, pod_err *e);

/* podsim.train{...}: the options table at stack 1. */
void lpod_train_read(lua_State *L, pod_train_cfg *c);

/* podsim.reliability{...}: the options table at stack 1. */
void lpod_rel_read(lua_State *L, pod_rel_cfg *c);

/* podsim.cost{...}: the options table at stack 1. */
void lpod_cost_read(lua_State *L, pod_cost_cfg *c);

/* Config types (lpod.h) of the kernels, for the tracer's field maps. */
struct lpod_type;
extern const struct lpod_type lpod_coll_cfg_type, lpod_train_cfg_type,
    lpod_rel_cfg_type, lpod_cost_cfg_type, lpod_model_type;

#endif
