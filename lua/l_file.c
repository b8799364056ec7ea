/*
** l_file.c: podsim._sha256_file(path): the SHA-256 of a file in hex (for
** meta.json: which scenario produced a result), with nettle.
*/
#include <lauxlib.h>
#include <lua.h>
#include <nettle/sha2.h>
#include <stdio.h>

#include "host.h"
#include "lpod.h"

static int l_sha256_file(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  char real[PATH_MAX];
  if (!lpod_sandbox_check(lpod_sandbox(L), path, LPOD_PATH_READ, real,
                          sizeof real))
    return 0;
  FILE *f = fopen(real, "rb");
  if (f == NULL) return 0;
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(&ctx, n, buf);
  int bad = ferror(f);
  fclose(f);
  if (bad) return 0;
  unsigned char digest[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof digest, digest);
  char hex[2 * SHA256_DIGEST_SIZE + 1];
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
    snprintf(hex + 2 * i, 3, "%02x", digest[i]);
  lua_pushstring(L, hex);
  return 1;
}

void lpod_open_file(lua_State *L) {
  lua_pushcfunction(L, l_sha256_file);
  lua_setfield(L, -2, "_sha256_file");
}
