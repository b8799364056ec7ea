/*
** host_open.c: opening a Lua state: the standard libraries, the podsim
** table of C modules (lua/modules.h), the raw helpers and the embedded
** podsim Lua library; worker states for Lua evaluators.
*/
#include "host_int.h"

#include <errno.h>
#include <lauxlib.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lpod.h"

/* ---------------------------------------------------------------------- */
/* the library                                                             */
/* ---------------------------------------------------------------------- */

const pod_embed_file *pod_host__embedded(const char *name) {
  for (const pod_embed_file *f = pod_embed_files; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

const char *lpod_host_embedded(const char *name, size_t *len) {
  const pod_embed_file *f = pod_host__embedded(name);
  if (f == NULL) return NULL;
  if (len) *len = f->len;
  return f->src;
}

/* Raw (unsandboxed) helpers handed only to podsim's own Lua library.
** raw.path_allowed(path, write|mode): write true -> LPOD_PATH_WRITE, or
** "read" / "write" / "out" (reading below the output folder only). */
static int path_mode(lua_State *L, int idx) {
  if (lua_type(L, idx) == LUA_TSTRING) {
    const char *m = lua_tostring(L, idx);
    if (strcmp(m, "write") == 0) return LPOD_PATH_WRITE;
    if (strcmp(m, "out") == 0) return LPOD_PATH_OUT;
    return LPOD_PATH_READ;
  }
  return lua_toboolean(L, idx) ? LPOD_PATH_WRITE : LPOD_PATH_READ;
}

static int raw_path_allowed(lua_State *L) {
  lua_pushboolean(
      L, lpod_path_allowed(L, luaL_checkstring(L, 1), path_mode(L, 2)));
  return 1;
}

static int cmp_names(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int raw_mkdirs(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  if (pod_host__mkdirs(p) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot create folder '%s': %s", p, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* raw.listdir(dir, mode): the names in a folder, sorted (C order, not
** through the scenario's table.sort), each with "file", "dir" or "other"
** (symlinks are "other": never followed); nil and a message when the
** folder is outside the sandbox for `mode` or unreadable. */
static int raw_listdir(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  char real[PATH_MAX];
  if (!lpod_sandbox_check(lpod_sandbox(L), p, path_mode(L, 2), real,
                          sizeof real)) {
    lua_pushnil(L);
    lua_pushfstring(L, "'%s' is outside the sandbox", p);
    return 2;
  }
  DIR *d = opendir(real);
  if (d == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read folder '%s': %s", p, strerror(errno));
    return 2;
  }
  size_t n = 0, cap = 0;
  char **names = NULL;
  struct dirent *e;
  int oom = 0;
  while ((e = readdir(d)) != NULL && !oom) {
    if (e->d_name[0] == '.') continue;
    if (n == cap) {
      cap = cap ? 2 * cap : 64;
      char **nn = realloc(names, cap * sizeof *nn);
      if (nn == NULL) {
        oom = 1;
        break;
      }
      names = nn;
    }
    size_t len = strlen(e->d_name);
    names[n] = malloc(len + 2);
    if (names[n] == NULL) {
      oom = 1;
      break;
    }
    /* the kind rides after the name's NUL */
    memcpy(names[n], e->d_name, len + 1);
    char full[PATH_MAX];
    struct stat st;
    char kind = 'o';
    if (snprintf(full, sizeof full, "%s/%s", real, e->d_name) <
            (int)sizeof full &&
        lstat(full, &st) == 0)
      kind = S_ISREG(st.st_mode) ? 'f' : S_ISDIR(st.st_mode) ? 'd' : 'o';
    names[n][len + 1] = kind;
    n++;
  }
  closedir(d);
  if (!oom && n > 1)
    qsort(names, n, sizeof *names, cmp_names); /* names is NULL when n is 0 */
  if (!oom) lua_createtable(L, (int)n, 0);
  for (size_t i = 0; i < n; i++) {
    if (!oom) {
      lua_createtable(L, 2, 0);
      lua_pushstring(L, names[i]);
      lua_rawseti(L, -2, 1);
      char k = names[i][strlen(names[i]) + 1];
      lua_pushstring(L, k == 'f' ? "file" : k == 'd' ? "dir" : "other");
      lua_rawseti(L, -2, 2);
      lua_rawseti(L, -2, (lua_Integer)i + 1);
    }
    free(names[i]);
  }
  free(names);
  if (oom) return luaL_error(L, "out of memory");
  return 1;
}

/* raw.read_file(path, mode, max): the contents of a regular file checked
** for `mode`, at most max bytes; nil and a message otherwise. */
static int raw_read_file(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  lua_Integer max = luaL_checkinteger(L, 3);
  char real[PATH_MAX];
  if (!lpod_sandbox_check(lpod_sandbox(L), p, path_mode(L, 2), real,
                          sizeof real)) {
    lua_pushnil(L);
    lua_pushfstring(L, "'%s' is outside the sandbox", p);
    return 2;
  }
  FILE *f = fopen(real, "rb");
  if (f == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read '%s': %s", p, strerror(errno));
    return 2;
  }
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  char buf[4096];
  size_t got, total = 0;
  while ((got = fread(buf, 1, sizeof buf, f)) > 0) {
    total += got;
    if ((lua_Integer)total > max) break;
    luaL_addlstring(&b, buf, got);
  }
  int bad = ferror(f);
  fclose(f);
  if (bad || (lua_Integer)total > max) {
    lua_pushnil(L);
    lua_pushfstring(
        L, bad ? "cannot read '%s'" : "'%s' is larger than %I bytes", p, max);
    return 2;
  }
  luaL_pushresult(&b);
  return 1;
}

/* --set keys read by any state of this run (worker evaluators included),
** by index into opts->sets. */
#define SET_READ_MAX 256
static _Atomic unsigned char g_set_read[SET_READ_MAX];

/* raw.mark_arg(key): podsim.args.key was read (upvalue: the options). */
static int raw_mark_arg(lua_State *L) {
  const pod_host_opts *o = lua_touserdata(L, lua_upvalueindex(1));
  size_t n;
  const char *k = lua_tolstring(L, 1, &n);
  if (o == NULL || k == NULL) return 0;
  for (int i = 0; i < o->nsets && i < SET_READ_MAX; i++)
    if (strncmp(o->sets[i], k, n) == 0 && o->sets[i][n] == '=')
      g_set_read[i] = 1;
  return 0;
}

/* raw.unread_args() -> list of the --set keys nobody read. */
static int raw_unread_args(lua_State *L) {
  const pod_host_opts *o = lua_touserdata(L, lua_upvalueindex(1));
  lua_newtable(L);
  int n = 0;
  for (int i = 0; o && i < o->nsets && i < SET_READ_MAX; i++) {
    if (g_set_read[i]) continue;
    const char *eq = strchr(o->sets[i], '=');
    if (eq == NULL) continue;
    lua_pushlstring(L, o->sets[i], (size_t)(eq - o->sets[i]));
    lua_rawseti(L, -2, ++n);
  }
  return 1;
}

/* raw.help_done(): `run FILE --help` printed the arguments; stop the
** scenario here with exit 0. */
static int raw_help_done(lua_State *L) {
  pod_host *h = lpod_host(L);
  if (h) lpod_host_help_done(h);
  lua_pushliteral(L, "podsim: help shown");
  return lua_error(L);
}

static int raw_getpid(lua_State *L) {
  lua_pushinteger(L, (lua_Integer)getpid());
  return 1;
}

static int raw_where(lua_State *L) {
  lpod_where(L);
  return 1;
}

/* error(msg) located at the scenario line, remembered as an input error */
static int raw_input_error(lua_State *L) {
  const char *ctx = luaL_optstring(L, 1, NULL);
  const char *path = luaL_optstring(L, 2, NULL);
  const char *msg = luaL_checkstring(L, 3);
  return lpod_error(L, ctx, path, "%s", msg);
}

static int raw_embedded(lua_State *L) {
  const pod_embed_file *f = pod_host__embedded(luaL_checkstring(L, 1));
  if (f == NULL) return 0;
  lua_pushlstring(L, f->src, f->len);
  return 1;
}

static int raw_embedded_list(lua_State *L) {
  lua_newtable(L);
  int i = 0;
  for (const pod_embed_file *f = pod_embed_files; f->name; f++) {
    lua_pushstring(L, f->name);
    lua_rawseti(L, -2, ++i);
  }
  return 1;
}

static int raw_load(lua_State *L) { /* text chunk with a chunk name and env */
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  const char *name = luaL_checkstring(L, 2);
  if (luaL_loadbufferx(L, s, len, name, "t") != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (!lua_isnoneornil(L, 3)) {
    lua_pushvalue(L, 3);
    lua_setupvalue(L, -2, 1);
  }
  return 1;
}

/* Record function -> "dotted.name" for podsim's API and the standard
** library, so functions can cross into worker states by name. */
static void index_functions(lua_State *L, int fnames, int tbl,
                            const char *prefix, int depth) {
  tbl = lua_absindex(L, tbl);
  lua_pushnil(L);
  while (lua_next(L, tbl)) { /* stack: key, value */
    if (lua_type(L, -2) == LUA_TSTRING) {
      const char *k = lua_tostring(L, -2);
      char name[128];
      snprintf(name, sizeof name, "%s%s%s", prefix, prefix[0] ? "." : "", k);
      if (lua_isfunction(L, -1)) {
        lua_pushvalue(L, -1);
        lua_pushstring(L, name);
        lua_rawset(L, fnames);
      } else if (lua_istable(L, -1) && depth > 0 && strcmp(k, "_G") != 0 &&
                 strcmp(k, "package") != 0 && strcmp(k, "loaded") != 0) {
        index_functions(L, fnames, -1, name, depth - 1);
      }
    }
    lua_pop(L, 1);
  }
}

static void push_opts_table(lua_State *L, const pod_host_opts *o) {
  lua_createtable(L, 0, 12);
  lua_pushboolean(L, o->quiet);
  lua_setfield(L, -2, "quiet");
  lua_pushboolean(L, o->unsafe);
  lua_setfield(L, -2, "unsafe");
  if (o->tool) {
    lua_pushstring(L, o->tool);
    lua_setfield(L, -2, "tool");
  }
  if (o->tool_arg) {
    lua_pushstring(L, o->tool_arg);
    lua_setfield(L, -2, "tool_arg");
  }
  lua_pushinteger(L, o->threads);
  lua_setfield(L, -2, "threads");
  if (o->samples >= 0) {
    lua_pushinteger(L, o->samples);
    lua_setfield(L, -2, "samples");
  }
  if (o->seed >= 0) {
    lua_pushinteger(L, o->seed);
    lua_setfield(L, -2, "seed");
  }
  lua_pushstring(L, o->format ? o->format : "table");
  lua_setfield(L, -2, "format");
  lua_pushnumber(L, o->max_samples_mb);
  lua_setfield(L, -2, "max_samples_mb");
  lua_pushboolean(L, o->progress);
  lua_setfield(L, -2, "progress");
  lua_pushboolean(L, o->help);
  lua_setfield(L, -2, "help");
  if (o->scenario) {
    lua_pushstring(L, o->scenario);
    lua_setfield(L, -2, "scenario");
  }
  if (o->out_dir) {
    lua_pushstring(L, o->out_dir);
    lua_setfield(L, -2, "out_dir");
  }
}

/* --set key=value: numbers and booleans parsed, the rest strings. */
static void push_args(lua_State *L, const pod_host_opts *o) {
  lua_newtable(L);
  for (int i = 0; i < o->nsets; i++) {
    const char *s = o->sets[i];
    const char *eq = strchr(s, '=');
    if (eq == NULL) continue; /* main.c rejects these */
    lua_pushlstring(L, s, (size_t)(eq - s));
    const char *v = eq + 1;
    if (strcmp(v, "true") == 0)
      lua_pushboolean(L, 1);
    else if (strcmp(v, "false") == 0)
      lua_pushboolean(L, 0);
    else if (lua_stringtonumber(L, v) == 0)
      lua_pushstring(L, v);
    lua_rawset(L, -3);
  }
}

/* Open podsim into L: C modules, then the embedded Lua library, which
** receives the C table, the raw helpers and the options.  Leaves nothing
** on the stack; sets global `podsim` and package.loaded.podsim. */
static int open_podsim(lua_State *L, const pod_host_opts *o,
                       const pod_sandbox *sb) {
  /* the sandbox first: path checks work from the first line of podsim.lua */
  pod_sandbox *copy = lua_newuserdatauv(L, sizeof *copy, 0);
  *copy = *sb;
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.sandbox");
  luaL_openlibs(L);
  lua_newtable(L); /* stack: podsim */
#define LPOD_MODULE(name) lpod_open_##name(L);
#include "modules.h"
#undef LPOD_MODULE
  int podsim = lua_gettop(L);
  /* raw helpers, captured before the sandbox */
  lua_newtable(L);
  int raw = lua_gettop(L);
  lua_getglobal(L, "io");
  lua_getfield(L, -1, "open");
  lua_setfield(L, raw, "io_open");
  lua_pop(L, 1);
  lua_getglobal(L, "os");
  lua_getfield(L, -1, "rename");
  lua_setfield(L, raw, "os_rename");
  lua_getfield(L, -1, "remove");
  lua_setfield(L, raw, "os_remove");
  lua_pop(L, 1);
  static const luaL_Reg rawf[] = {{"path_allowed", raw_path_allowed},
                                  {"mkdirs", raw_mkdirs},
                                  {"getpid", raw_getpid},
                                  {"where", raw_where},
                                  {"listdir", raw_listdir},
                                  {"read_file", raw_read_file},
                                  {"input_error", raw_input_error},
                                  {"embedded", raw_embedded},
                                  {"embedded_list", raw_embedded_list},
                                  {"load", raw_load},
                                  {NULL, NULL}};
  luaL_setfuncs(L, rawf, 0);
  static const luaL_Reg rawo[] = {{"mark_arg", raw_mark_arg},
                                  {"unread_args", raw_unread_args},
                                  {NULL, NULL}};
  lua_pushlightuserdata(L, (void *)o);
  luaL_setfuncs(L, rawo, 1);
  lua_pushcfunction(L, raw_help_done);
  lua_setfield(L, raw, "help_done");
  /* the library */
  const pod_embed_file *f = pod_host__embedded("podsim");
  if (f == NULL) return luaL_error(L, "embedded podsim library missing");
  if (luaL_loadbufferx(L, f->src, f->len, "=[podsim] podsim.lua", "t") !=
      LUA_OK)
    return lua_error(L);
  lua_pushvalue(L, podsim);
  lua_pushvalue(L, raw);
  push_opts_table(L, o);
  push_args(L, o);
  lua_call(L, 4, 1);
  /* podsim's internals (the C modules' "_" functions, the tools' helpers):
  ** kept in the registry, never in a scenario's reach; the embedded tools
  ** receive them as their chunk's argument */
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.internal");
  /* the library's end-of-scenario check, called by the host */
  lua_getfield(L, raw, "after_run");
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.after_run");
  lua_pop(L, 1); /* raw */
  lua_pushvalue(L, podsim);
  lua_setglobal(L, "podsim");
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, podsim);
  lua_setfield(L, -2, "podsim");
  lua_pop(L, 1);
  /* budgets hold with or without the sandbox (the library captured the
  ** original pcall for its own cleanup); before the index, so that the
  ** guarded functions cross into worker states by name */
  pod_host__guard_budgets(L);
  /* function names for copying between states */
  lua_newtable(L);
  int fnames = lua_gettop(L);
  lua_pushglobaltable(L);
  index_functions(L, fnames, -1, "", 2);
  lua_pop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.fnames");
  lua_pop(L, 1); /* podsim */
  if (!o->unsafe) pod_host__sandbox(L);
  return 0;
}

int pod_host__open_podsim_protected(lua_State *L) {
  const pod_host_opts *o = lua_touserdata(L, 1);
  const pod_sandbox *sb = lua_touserdata(L, 2);
  if (sb == NULL)
    return luaL_error(L, "no sandbox for a new state (internal error)");
  return open_podsim(L, o, sb);
}

/* The time budget in a worker or template state (the metrics probe runs
** on the loop thread, where the host's timer cannot fire). */
static void deadline_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  const pod_sandbox *sb = lpod_sandbox(L);
  if (sb && sb->deadline_ns && uv_hrtime() > sb->deadline_ns) {
    char msg[96];
    snprintf(msg, sizeof msg, "time budget of %g s exceeded (--timeout)",
             sb->timeout_s);
    luaL_error(L, "%s", msg);
  }
}

lua_State *lpod_worker_state(const pod_host_opts *o, const pod_sandbox *sb) {
  if (sb == NULL) return NULL;
  lua_State *L = pod_host__new_state(o->max_memory_mb);
  if (L == NULL) return NULL;
  lua_pushcfunction(L, pod_host__open_podsim_protected);
  lua_pushlightuserdata(L, (void *)o);
  lua_pushlightuserdata(L, (void *)sb);
  if (lua_pcall(L, 2, 0, 0) != LUA_OK) {
    pod_host__close_state(L);
    return NULL;
  }
  if (sb->deadline_ns) lua_sethook(L, deadline_hook, LUA_MASKCOUNT, 1 << 20);
  return L;
}
