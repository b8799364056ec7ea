/*
** l_search_pool.h: podsim.search's layout search, in parts on libuv's
** pool while the scenario waits (l_search_pool.c).
*/
#ifndef LPOD_L_SEARCH_POOL_H
#define LPOD_L_SEARCH_POOL_H

#include <lua.h>

#include "pod_err.h"
#include "pod_train.h"

/* A search's outcome, as pod_train_search gives it (items: top_n items,
** owned by a userdata on the caller's stack). */
typedef struct lpod_search_out {
  pod_train_cfg c; /* the search's base and options */
  pod_train_search_opts o;
  pod_train_search_item *items;
  int n;
  pod_train_search_stats stats;
  int rc;
  pod_err err;
} lpod_search_out;

/* Pushes the binding's result for out (or raises its error); returns the
** number of results, as a lua_CFunction does. */
typedef int (*lpod_search_done)(lua_State *L, const lpod_search_out *out);

/* Search c's layouts with o and return done(L, &outcome).  From the
** scenario's main flow with --threads > 1 the search runs as --threads
** parts on the pool and the coroutine yields until they are back (done then
** runs in the resumed coroutine); anywhere else it runs in place.  The
** result is the same either way (pod_train_search_merge).  SIGINT or
** --timeout while waiting stops the parts and raises the signal's error.
** c and o are copied.  Stack: [-0, +(1 + done's), e]: the items' userdata
** stays below done's results.  Must be the binding's tail call. */
int lpod_search_run(lua_State *L, const pod_train_cfg *c,
                    const pod_train_search_opts *o, lpod_search_done done);

#endif
