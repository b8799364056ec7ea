/*
** host_paths.c: path checks of the sandbox (a path must resolve under the
** scenario's folder or the output folder) and the checked io.open /
** io.lines.
*/
#include "host_int.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lpod.h"

/* ---------------------------------------------------------------------- */
/* paths                                                                   */
/* ---------------------------------------------------------------------- */

/* Lexically normalise an absolute path in place ("." and ".." removed). */
static void normalize(char *p) {
  char *out = p, *in = p;
  while (*in) {
    while (*in == '/') in++;
    if (!*in) break;
    char *seg = in;
    while (*in && *in != '/') in++;
    size_t len = (size_t)(in - seg);
    if (len == 1 && seg[0] == '.') continue;
    if (len == 2 && seg[0] == '.' && seg[1] == '.') {
      while (out > p && *--out != '/') {
      }
      continue;
    }
    *out++ = '/';
    memmove(out, seg, len);
    out += len;
  }
  if (out == p) *out++ = '/';
  *out = '\0';
}

int pod_host__absolute(const char *path, char *out, size_t n) {
  if (path[0] == '/') {
    if (snprintf(out, n, "%s", path) >= (int)n) return -1;
  } else {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) return -1;
    if (snprintf(out, n, "%s/%s", cwd, path) >= (int)n) return -1;
  }
  normalize(out);
  return 0;
}

/* Resolve symlinks in the longest existing prefix of an absolute path. */
int pod_host__resolve(const char *abs, char *out, size_t n) {
  char buf[PATH_MAX], real[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", abs);
  char *cut = buf + strlen(buf);
  for (;;) {
    char saved = *cut;
    *cut = '\0';
    if (realpath(buf[0] ? buf : "/", real) != NULL) {
      *cut = saved;
      if (snprintf(out, n, "%s%s", strcmp(real, "/") == 0 ? "" : real, cut) >=
          (int)n)
        return -1;
      if (out[0] == '\0') snprintf(out, n, "/");
      return 0;
    }
    *cut = saved;
    char *slash = cut;
    while (slash > buf && *--slash != '/') {
    }
    if (slash == buf && cut == buf) return -1;
    cut = slash;
  }
}

static int under(const char *path, const char *root) {
  size_t n = strlen(root);
  if (strcmp(root, "/") == 0) return 1;
  return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

int lpod_host_path_allowed(pod_host *h, const char *path, int write) {
  (void)write;
  if (h == NULL || h->o.unsafe) return 1;
  char abs[PATH_MAX], real[PATH_MAX];
  if (pod_host__absolute(path, abs, sizeof abs) != 0) return 0;
  if (pod_host__resolve(abs, real, sizeof real) != 0) return 0;
  return under(real, h->scen_dir) || under(real, h->out_dir);
}

/* mkdir -p */
int pod_host__mkdirs(const char *path) {
  char buf[PATH_MAX];
  if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
  for (char *p = buf + 1; *p; p++) {
    if (*p != '/') continue;
    *p = '\0';
    if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
    *p = '/';
  }
  if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
  return 0;
}
/* io.open and io.lines with the path checked first.  Upvalues: the
** original function and its name ("io.open" / "io.lines").  io.lines()
** without a file reads stdin and needs no check. */
int pod_host__io_file(lua_State *L) {
  const char *what = lua_tostring(L, lua_upvalueindex(2));
  if (!lua_isnoneornil(L, 1) || strcmp(what, "io.open") == 0) {
    const char *path = luaL_checkstring(L, 1);
    const char *mode =
        strcmp(what, "io.open") == 0 ? luaL_optstring(L, 2, "r") : "r";
    if (!lpod_host_path_allowed(lpod_host(L), path,
                                strpbrk(mode, "wa+") != NULL))
      return lpod_error(L, what, NULL,
                        "'%s' is outside the scenario's folder and the output "
                        "folder (run with --unsafe to lift the sandbox)",
                        path);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}
