/*
** l_rl.h: the RL bindings' entry point (modules.h).
*/
#ifndef L_RL_H
#define L_RL_H

#include <lua.h>

/* Open podsim.rl, rl_split, rl_sync, rl_config, expected_max and the "rl"
** and "rl_pair" kernels on the podsim table at the top of the stack.
** [-0, +0, m] */
void lpod_open_rl(lua_State *L);

#endif
