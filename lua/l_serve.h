/*
** l_serve.h: the serving config type and helpers shared with l_rl.c (an RL
** step nests a serving config for its rollout pool).
*/
#ifndef L_SERVE_H
#define L_SERVE_H

#include "lpod.h"
#include "pod_serve.h"

extern const lpod_type lpod_serve_cfg_type;

/* Open podsim.serve, podsim.ep_time and the "serve" kernel on the podsim
** table at the top of the stack (modules.h).  [-0, +0, m] */
void lpod_open_serve(lua_State *L);

/* Copy the options table at idx onto the stack top with base="default"
** when absent, batch from concurrency, disaggregated set when prefill is
** given.  Returns the copy's index.  [-0, +1, e] */
int lserve_prepare(lua_State *L, int idx, const char *ctx);

/* Build a serving config from the options table at idx (requires system,
** model, gpus; errors name `path` inside `ctx`).  [-0, +0, e] */
void lserve_build(lua_State *L, int idx, pod_serve_cfg *c, const char *ctx,
                  const char *path);

/* Push the result table of podsim.serve.  [-0, +1, m] */
void lserve_push_result(lua_State *L, const pod_serve_cfg *c,
                        const pod_serve_result *r);

#endif
