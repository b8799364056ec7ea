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
  if (n == 0) return 0;
  if (strcmp(root, "/") == 0) return 1;
  return strncmp(path, root, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Physical resolution (see lpod_sandbox_check): walk the components of the
** absolute, unnormalised path; an existing component is replaced by its
** realpath, ".." takes the parent of the real prefix, a missing component
** (and all after it) is appended as is.  -1 for a dangling symlink, a
** loop, a non-directory in the middle or a path too long. */
static int physical(const char *path, char *out, size_t n) {
  char abs[PATH_MAX];
  if (path[0] == '/') {
    if (snprintf(abs, sizeof abs, "%s", path) >= (int)sizeof abs) return -1;
  } else {
    char cwd[PATH_MAX];
    if (getcwd(cwd, sizeof cwd) == NULL) return -1;
    if (snprintf(abs, sizeof abs, "%s/%s", cwd, path) >= (int)sizeof abs)
      return -1;
  }
  char cur[PATH_MAX] = "";
  size_t len = 0;
  int missing = 0; /* a component did not exist: the rest is lexical */
  for (char *p = abs; *p;) {
    while (*p == '/') p++;
    if (!*p) break;
    char *seg = p;
    while (*p && *p != '/') p++;
    size_t sl = (size_t)(p - seg);
    if (sl == 1 && seg[0] == '.') continue;
    if (sl == 2 && seg[0] == '.' && seg[1] == '.') {
      while (len > 0 && cur[--len] != '/') {
      }
      cur[len] = '\0';
      continue;
    }
    if (len + 1 + sl + 1 > sizeof cur) return -1;
    cur[len++] = '/';
    memcpy(cur + len, seg, sl);
    len += sl;
    cur[len] = '\0';
    if (missing) continue;
    struct stat st;
    if (lstat(cur, &st) != 0) {
      if (errno != ENOENT) return -1;
      missing = 1;
      continue;
    }
    if (S_ISLNK(st.st_mode) || *p) {
      char real[PATH_MAX];
      if (realpath(cur, real) == NULL) return -1; /* dangling, loop */
      if (*p && stat(real, &st) == 0 && !S_ISDIR(st.st_mode)) return -1;
      len = strcmp(real, "/") == 0 ? 0 : strlen(real);
      memcpy(cur, real, len);
      cur[len] = '\0';
    }
  }
  if (len == 0) return snprintf(out, n, "/") >= (int)n ? -1 : 0;
  return snprintf(out, n, "%s", cur) >= (int)n ? -1 : 0;
}

const pod_sandbox *lpod_sandbox(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.sandbox");
  const pod_sandbox *sb = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return sb;
}

int lpod_sandbox_check(const pod_sandbox *sb, const char *path, int mode,
                       char *real, size_t n) {
  if (sb == NULL || path == NULL) return 0;
  if (physical(path, real, n) != 0) {
    if (!sb->unsafe) return 0;
    snprintf(real, n, "%s", path);
    return 1;
  }
  if (sb->unsafe) return 1;
  if (under(real, sb->out_dir)) return 1;
  return mode == LPOD_PATH_READ && under(real, sb->scen_dir);
}

int lpod_path_allowed(lua_State *L, const char *path, int mode) {
  char real[PATH_MAX];
  return lpod_sandbox_check(lpod_sandbox(L), path, mode, real, sizeof real);
}

int lpod_host_path_allowed(pod_host *h, const char *path, int write) {
  if (h == NULL) return 0;
  return lpod_path_allowed(h->L, path,
                           write ? LPOD_PATH_WRITE : LPOD_PATH_READ);
}

int pod_host__physical(const char *path, char *out, size_t n) {
  return physical(path, out, n);
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
/* io.open and io.lines with the path checked first, then opened by its
** resolved name (so what is opened is what was checked).  Upvalues: the
** original function and its name ("io.open" / "io.lines").  io.lines()
** without a file reads stdin and needs no check. */
int pod_host__io_file(lua_State *L) {
  const char *what = lua_tostring(L, lua_upvalueindex(2));
  int is_open = strcmp(what, "io.open") == 0;
  if (!lua_isnoneornil(L, 1) || is_open) {
    const char *path = luaL_checkstring(L, 1);
    const char *mode = is_open ? luaL_optstring(L, 2, "r") : "r";
    int write = strpbrk(mode, "wa+") != NULL;
    char real[PATH_MAX];
    if (!lpod_sandbox_check(lpod_sandbox(L), path,
                            write ? LPOD_PATH_WRITE : LPOD_PATH_READ, real,
                            sizeof real))
      return lpod_error(
          L, what, NULL,
          write ? "'%s' is outside the output folder (writing is allowed only "
                  "there; run with --unsafe to lift the sandbox)"
                : "'%s' is outside the scenario's folder and the output "
                  "folder (run with --unsafe to lift the sandbox)",
          path);
    if (is_open) {
      lua_pushvalue(L, lua_upvalueindex(1));
      lua_pushstring(L, real);
      lua_pushstring(L, mode);
      lua_call(L, 2, 3);
      if (lua_isnil(L, -3)) { /* name the path as the scenario gave it */
        int e = (int)lua_tointeger(L, -1);
        lua_pop(L, 2);
        lua_pushfstring(L, "%s: %s", path, strerror(e));
        lua_pushinteger(L, e);
        return 3;
      }
      lua_settop(L, lua_gettop(L) - 2);
      return 1;
    }
    lua_pushstring(L, real);
    lua_replace(L, 1);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}
