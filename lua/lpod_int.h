/*
** lpod_int.h: internals of the binding infrastructure (lua/lpod*.c),
** shared by lpod.c (specs: typed userdata, building C structs from tables,
** presets, kernels), lpod_check.c (located errors, key and option checks)
** and lpod_copy.c (copying values between states).  Callers use lpod.h.
**
** Convention: a non-static function shared between these files carries the
** prefix lpod__ (double underscore, as libuv's uv__).
*/
#ifndef LPOD_INT_H
#define LPOD_INT_H

#include <stddef.h>

#include "lpod.h"

#define LPOD_PATH_MAX 160

/* out = "path.key", or "key" when path is NULL or empty. */
void lpod__join_path(char *out, size_t n, const char *path, const char *key);
/* Index of the string at idx in the NULL-terminated names; raises a
** located error naming `full` (the names listed, the nearest suggested)
** otherwise.
** [-0, +0, v] */
int lpod__enum_index(lua_State *L, int idx, const char *const *names,
                     const char *ctx, const char *full);

#endif
