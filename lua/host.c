/*
** host.c: the scenario host (see host.h).
**
** Threads: everything here runs on the loop thread, except the SIGINT
** handler, which only sets flags, installs a Lua hook on the running
** coroutine (as lua.c's laction does) and calls uv_async_send, all
** async-signal-safe.
*/
#include "host.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <lauxlib.h>
#include <limits.h>
#include <lualib.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lpod.h"

#define MAX_CANCEL 64
#define TIMEOUT_GRACE_MS 10000

typedef struct pod_embed_file {
  const char *name;
  const char *src;
  size_t len;
} pod_embed_file;
extern const pod_embed_file pod_embed_files[];

struct pod_host {
  pod_host_opts o;
  lua_State *L;         /* main state */
  lua_State *co;        /* scenario coroutine */
  int co_ref;           /* registry ref keeping co alive */
  uv_loop_t loop;
  uv_async_t wake;      /* SIGINT -> loop */
  uv_timer_t timeout;
  int finished;         /* scenario returned or failed */
  int failed;
  int waiting;          /* scenario yielded inside a podsim call */
  volatile sig_atomic_t interrupted;
  int timed_out;
  int cancelled;        /* cancel hooks already called */
  struct { lpod_cancel_fn fn; void *ud; } cancel[MAX_CANCEL];
  char scen_dir[PATH_MAX];
  char out_dir[PATH_MAX];
  size_t mem, mem_cap;
  uint64_t t0_ms;       /* uv_now when the run started (the budget's origin) */
};

static pod_host *g_host; /* for the signal handler only */
static volatile sig_atomic_t g_sigint_count;

/* ---------------------------------------------------------------------- */
/* memory budget                                                           */
/* ---------------------------------------------------------------------- */

typedef struct mem_budget {
  size_t used, cap;
} mem_budget;

static void *budget_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  mem_budget *m = ud;
  if (ptr == NULL) osize = 0;
  if (nsize == 0) {
    m->used -= osize;
    free(ptr);
    return NULL;
  }
  if (nsize > osize && m->cap && m->used + (nsize - osize) > m->cap) return NULL;
  void *p = realloc(ptr, nsize);
  if (p) m->used = m->used - osize + nsize;
  return p;
}

static lua_State *new_state(double max_memory_mb) {
  mem_budget *m = calloc(1, sizeof *m);
  if (m == NULL) return NULL;
  m->cap = max_memory_mb > 0 ? (size_t)(max_memory_mb * 1048576.0) : 0;
  lua_State *L = lua_newstate(budget_alloc, m);
  if (L == NULL) free(m);
  return L;
}

static void close_state(lua_State *L) {
  void *ud;
  lua_getallocf(L, &ud);
  lua_close(L);
  free(ud);
}

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
      while (out > p && *--out != '/') {}
      continue;
    }
    *out++ = '/';
    memmove(out, seg, len);
    out += len;
  }
  if (out == p) *out++ = '/';
  *out = '\0';
}

static int absolute(const char *path, char *out, size_t n) {
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
static int resolve(const char *abs, char *out, size_t n) {
  char buf[PATH_MAX], real[PATH_MAX];
  snprintf(buf, sizeof buf, "%s", abs);
  char *cut = buf + strlen(buf);
  for (;;) {
    char saved = *cut;
    *cut = '\0';
    if (realpath(buf[0] ? buf : "/", real) != NULL) {
      *cut = saved;
      if (snprintf(out, n, "%s%s", strcmp(real, "/") == 0 ? "" : real, cut) >= (int)n)
        return -1;
      if (out[0] == '\0') snprintf(out, n, "/");
      return 0;
    }
    *cut = saved;
    char *slash = cut;
    while (slash > buf && *--slash != '/') {}
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
  if (absolute(path, abs, sizeof abs) != 0) return 0;
  if (resolve(abs, real, sizeof real) != 0) return 0;
  return under(real, h->scen_dir) || under(real, h->out_dir);
}

/* mkdir -p */
static int mkdirs(const char *path) {
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

/* ---------------------------------------------------------------------- */
/* host lookup                                                             */
/* ---------------------------------------------------------------------- */

pod_host *lpod_host(lua_State *L) {
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.host");
  pod_host *h = lua_touserdata(L, -1);
  lua_pop(L, 1);
  return h;
}

uv_loop_t *lpod_host_loop(pod_host *h) { return &h->loop; }
const pod_host_opts *lpod_host_opts(pod_host *h) { return &h->o; }
lua_State *lpod_host_main_state(pod_host *h) { return h->L; }
lua_State *lpod_host_coroutine(pod_host *h) { return h->co; }
int lpod_host_interrupted(pod_host *h) { return h->interrupted || h->timed_out; }

void lpod_host_fail(pod_host *h, const char *msg) {
  fprintf(stderr, "%s\n", msg);
  h->failed = 1;
}

int lpod_host_on_cancel(pod_host *h, lpod_cancel_fn fn, void *ud) {
  for (int i = 0; i < MAX_CANCEL; i++)
    if (h->cancel[i].fn == NULL) {
      h->cancel[i].fn = fn;
      h->cancel[i].ud = ud;
      if (h->cancelled) fn(ud);
      return i;
    }
  return -1;
}

void lpod_host_off_cancel(pod_host *h, int id) {
  if (id >= 0 && id < MAX_CANCEL) h->cancel[id].fn = NULL;
}

static void run_cancel_hooks(pod_host *h) {
  if (h->cancelled) return;
  h->cancelled = 1;
  for (int i = 0; i < MAX_CANCEL; i++)
    if (h->cancel[i].fn) h->cancel[i].fn(h->cancel[i].ud);
}

/* ---------------------------------------------------------------------- */
/* sandbox                                                                 */
/* ---------------------------------------------------------------------- */

/* io.open and io.lines with the path checked first.  Upvalues: the
** original function and its name ("io.open" / "io.lines").  io.lines()
** without a file reads stdin and needs no check. */
static int sb_io_file(lua_State *L) {
  const char *what = lua_tostring(L, lua_upvalueindex(2));
  if (!lua_isnoneornil(L, 1) || strcmp(what, "io.open") == 0) {
    const char *path = luaL_checkstring(L, 1);
    const char *mode = strcmp(what, "io.open") == 0 ? luaL_optstring(L, 2, "r") : "r";
    if (!lpod_host_path_allowed(lpod_host(L), path, strpbrk(mode, "wa+") != NULL))
      return lpod_error(L, what, NULL,
                        "'%s' is outside the scenario's folder and the output "
                        "folder (run with --unsafe to lift the sandbox)", path);
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
  return lua_gettop(L);
}

/* load: text chunks only, default environment the globals. */
static int sb_load(lua_State *L) {
  size_t len;
  const char *chunkname = luaL_optstring(L, 2, NULL);
  const char *mode = luaL_optstring(L, 3, "t");
  if (strchr(mode, 'b'))
    return lpod_error(L, "load", NULL, "binary chunks are not allowed in scenarios");
  int status;
  if (lua_type(L, 1) == LUA_TSTRING) {
    const char *s = lua_tolstring(L, 1, &len);
    if (len > 0 && s[0] == LUA_SIGNATURE[0])
      return lpod_error(L, "load", NULL, "binary chunks are not allowed in scenarios");
    status = luaL_loadbufferx(L, s, len, chunkname ? chunkname : s, "t");
  } else {
    /* function reader: gather the pieces, then load as text */
    luaL_checktype(L, 1, LUA_TFUNCTION);
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    for (;;) {
      lua_pushvalue(L, 1);
      lua_call(L, 0, 1);
      if (lua_isnil(L, -1) || (lua_isstring(L, -1) && lua_rawlen(L, -1) == 0)) {
        lua_pop(L, 1);
        break;
      }
      if (!lua_isstring(L, -1)) return luaL_error(L, "reader function must return a string");
      luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    const char *s = lua_tolstring(L, -1, &len);
    status = luaL_loadbufferx(L, s, len, chunkname ? chunkname : "=(load)", "t");
  }
  if (status != LUA_OK) {
    lua_pushnil(L);
    lua_insert(L, -2);
    return 2;
  }
  if (!lua_isnone(L, 4)) {
    lua_pushvalue(L, 4);
    if (!lua_setupvalue(L, -2, 1)) lua_pop(L, 1);
  }
  return 1;
}

static int sb_require(lua_State *L) {
  const char *name = luaL_checkstring(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_getfield(L, -1, name);
  if (!lua_isnil(L, -1)) return 1;
  return lpod_error(L, "require", NULL,
                    "module '%s' is not available in the sandbox (only "
                    "podsim's own modules; --unsafe lifts this)", name);
}

static int sb_denied(lua_State *L) {
  return lpod_error(L, lua_tostring(L, lua_upvalueindex(1)), NULL,
                    "not allowed in the sandbox (run with --unsafe to lift it)");
}

static void deny(lua_State *L, int tbl, const char *field, const char *qual) {
  lua_pushstring(L, qual);
  lua_pushcclosure(L, sb_denied, 1);
  lua_setfield(L, tbl, field);
}

/* Restrict the globals of L (DESIGN.md 10). */
static void sandbox(lua_State *L) {
  lua_pushglobaltable(L);
  int g = lua_gettop(L);
  /* io: open/lines restricted, the rest of the file API through handles */
  lua_getfield(L, g, "io");
  int io = lua_gettop(L);
  lua_getfield(L, io, "open");
  lua_pushliteral(L, "io.open");
  lua_pushcclosure(L, sb_io_file, 2);
  lua_setfield(L, io, "open");
  lua_getfield(L, io, "lines");
  lua_pushliteral(L, "io.lines");
  lua_pushcclosure(L, sb_io_file, 2);
  lua_setfield(L, io, "lines");
  deny(L, io, "popen", "io.popen");
  deny(L, io, "input", "io.input");
  deny(L, io, "output", "io.output");
  deny(L, io, "tmpfile", "io.tmpfile");
  lua_pop(L, 1);
  /* os: time and environment queries only */
  lua_getfield(L, g, "os");
  int os = lua_gettop(L);
  static const char *const os_denied[] = {"execute", "exit", "remove", "rename",
                                          "tmpname", "setlocale", NULL};
  for (int i = 0; os_denied[i]; i++) {
    char q[32];
    snprintf(q, sizeof q, "os.%s", os_denied[i]);
    deny(L, os, os_denied[i], q);
  }
  lua_pop(L, 1);
  lua_pushcfunction(L, sb_load);
  lua_setfield(L, g, "load");
  lua_pushcfunction(L, sb_require);
  lua_setfield(L, g, "require");
  deny(L, g, "dofile", "dofile");
  deny(L, g, "loadfile", "loadfile");
  /* package: no loaders at all (no C modules, no loadlib) */
  lua_pushnil(L);
  lua_setfield(L, g, "package");
  /* debug: traceback only */
  lua_getfield(L, g, "debug");
  lua_newtable(L);
  lua_getfield(L, -2, "traceback");
  lua_setfield(L, -2, "traceback");
  lua_setfield(L, g, "debug");
  lua_pop(L, 2);
}

/* ---------------------------------------------------------------------- */
/* the library                                                             */
/* ---------------------------------------------------------------------- */

static const pod_embed_file *embedded(const char *name) {
  for (const pod_embed_file *f = pod_embed_files; f->name; f++)
    if (strcmp(f->name, name) == 0) return f;
  return NULL;
}

/* Raw (unsandboxed) helpers handed only to podsim's own Lua library. */
static int raw_path_allowed(lua_State *L) {
  lua_pushboolean(L, lpod_host_path_allowed(lpod_host(L), luaL_checkstring(L, 1),
                                            lua_toboolean(L, 2)));
  return 1;
}

static int raw_mkdirs(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  if (mkdirs(p) != 0) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot create folder '%s': %s", p, strerror(errno));
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* Names in a folder (sorted), or nil and a message. */
static int raw_listdir(lua_State *L) {
  const char *p = luaL_checkstring(L, 1);
  DIR *d = opendir(p);
  if (d == NULL) {
    lua_pushnil(L);
    lua_pushfstring(L, "cannot read folder '%s': %s", p, strerror(errno));
    return 2;
  }
  lua_newtable(L);
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (e->d_name[0] == '.') continue;
    lua_pushstring(L, e->d_name);
    lua_rawseti(L, -2, ++n);
  }
  closedir(d);
  /* sort for stable output */
  lua_getglobal(L, "table");
  lua_getfield(L, -1, "sort");
  lua_pushvalue(L, -3);
  lua_call(L, 1, 0);
  lua_pop(L, 1);
  return 1;
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
  const pod_embed_file *f = embedded(luaL_checkstring(L, 1));
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
static void index_functions(lua_State *L, int fnames, int tbl, const char *prefix,
                            int depth) {
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
  lua_pushboolean(L, o->quiet); lua_setfield(L, -2, "quiet");
  lua_pushboolean(L, o->unsafe); lua_setfield(L, -2, "unsafe");
  if (o->tool) { lua_pushstring(L, o->tool); lua_setfield(L, -2, "tool"); }
  if (o->tool_arg) { lua_pushstring(L, o->tool_arg); lua_setfield(L, -2, "tool_arg"); }
  lua_pushinteger(L, o->threads); lua_setfield(L, -2, "threads");
  if (o->samples >= 0) { lua_pushinteger(L, o->samples); lua_setfield(L, -2, "samples"); }
  if (o->seed >= 0) { lua_pushinteger(L, o->seed); lua_setfield(L, -2, "seed"); }
  lua_pushstring(L, o->format ? o->format : "table"); lua_setfield(L, -2, "format");
  lua_pushnumber(L, o->max_samples_mb); lua_setfield(L, -2, "max_samples_mb");
  lua_pushboolean(L, o->progress); lua_setfield(L, -2, "progress");
  if (o->scenario) { lua_pushstring(L, o->scenario); lua_setfield(L, -2, "scenario"); }
  if (o->out_dir) { lua_pushstring(L, o->out_dir); lua_setfield(L, -2, "out_dir"); }
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
    if (strcmp(v, "true") == 0) lua_pushboolean(L, 1);
    else if (strcmp(v, "false") == 0) lua_pushboolean(L, 0);
    else if (lua_stringtonumber(L, v) == 0) lua_pushstring(L, v);
    lua_rawset(L, -3);
  }
}

/* Open podsim into L: C modules, then the embedded Lua library, which
** receives the C table, the raw helpers and the options.  Leaves nothing
** on the stack; sets global `podsim` and package.loaded.podsim. */
static int open_podsim(lua_State *L, const pod_host_opts *o) {
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
  static const luaL_Reg rawf[] = {
      {"path_allowed", raw_path_allowed}, {"mkdirs", raw_mkdirs},
      {"getpid", raw_getpid},             {"where", raw_where},
      {"listdir", raw_listdir},
      {"input_error", raw_input_error},   {"embedded", raw_embedded},
      {"embedded_list", raw_embedded_list}, {"load", raw_load},
      {NULL, NULL}};
  luaL_setfuncs(L, rawf, 0);
  /* the library */
  const pod_embed_file *f = embedded("podsim");
  if (f == NULL) return luaL_error(L, "embedded podsim library missing");
  if (luaL_loadbufferx(L, f->src, f->len, "=[podsim] podsim.lua", "t") != LUA_OK)
    return lua_error(L);
  lua_pushvalue(L, podsim);
  lua_pushvalue(L, raw);
  push_opts_table(L, o);
  push_args(L, o);
  lua_call(L, 4, 0);
  lua_pop(L, 1); /* raw */
  lua_pushvalue(L, podsim);
  lua_setglobal(L, "podsim");
  lua_getfield(L, LUA_REGISTRYINDEX, LUA_LOADED_TABLE);
  lua_pushvalue(L, podsim);
  lua_setfield(L, -2, "podsim");
  lua_pop(L, 1);
  /* function names for copying between states */
  lua_newtable(L);
  int fnames = lua_gettop(L);
  lua_pushglobaltable(L);
  index_functions(L, fnames, -1, "", 2);
  lua_pop(L, 1);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.fnames");
  lua_pop(L, 1); /* podsim */
  if (!o->unsafe) sandbox(L);
  return 0;
}

static int open_podsim_protected(lua_State *L) {
  const pod_host_opts *o = lua_touserdata(L, 1);
  return open_podsim(L, o);
}

lua_State *lpod_worker_state(const pod_host_opts *o) {
  lua_State *L = new_state(o->max_memory_mb);
  if (L == NULL) return NULL;
  lua_pushcfunction(L, open_podsim_protected);
  lua_pushlightuserdata(L, (void *)o);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    close_state(L);
    return NULL;
  }
  return L;
}

/* ---------------------------------------------------------------------- */
/* errors and tracebacks                                                   */
/* ---------------------------------------------------------------------- */

/* Number of stack levels of co (as lauxlib's lastlevel: a doubling then
** a binary search, since lua_getstack walks the call chain). */
static int stack_levels(lua_State *co) {
  lua_Debug ar;
  int li = 1, le = 1;
  while (lua_getstack(co, le, &ar)) {
    li = le;
    le *= 2;
  }
  while (li < le) {
    int m = (li + le) / 2;
    if (lua_getstack(co, m, &ar)) li = m + 1;
    else le = m;
  }
  return le;
}

/* "file:line:" of the innermost script frame of co, or "" */
static void script_where(lua_State *co, char *buf, size_t n) {
  lua_Debug ar;
  buf[0] = '\0';
  for (int level = 0; level < 64 && lua_getstack(co, level, &ar); level++) {
    lua_getinfo(co, "Sl", &ar);
    if (ar.source[0] == '@' && ar.currentline > 0) {
      snprintf(buf, n, "%s:%d: ", ar.short_src, ar.currentline);
      return;
    }
  }
}

#define TRACE_HEAD 10 /* frames shown before and after a gap */
#define TRACE_TAIL 11

/* Message plus a traceback limited to script frames, unless the error is
** one of podsim's located input errors, which stand alone. */
static void report_error(pod_host *h, lua_State *co, int status) {
  lua_State *L = h->L;
  const char *msg = lua_tostring(co, -1);
  if (status == LUA_ERRMEM) {
    char where[200];
    script_where(co, where, sizeof where);
    fprintf(stderr, "%s%smemory budget of %.0f MB exceeded (--max-memory)\n",
            where[0] ? "" : "podsim: ", where, h->o.max_memory_mb);
    return;
  }
  char nonstr[256];
  if (msg == NULL) {
    if (luaL_callmeta(co, -1, "__tostring") && lua_isstring(co, -1)) {
      msg = lua_tostring(co, -1);
    } else {
      char where[200];
      script_where(co, where, sizeof where);
      snprintf(nonstr, sizeof nonstr, "%serror object is a %s value, not a string",
               where, luaL_typename(co, -1));
      msg = nonstr;
    }
  }
  lua_getfield(L, LUA_REGISTRYINDEX, "lpod.input_error");
  int input = lua_isstring(L, -1) && strcmp(lua_tostring(L, -1), msg) == 0;
  lua_pop(L, 1);
  fprintf(stderr, "%s\n", msg);
  if (input || h->interrupted) return;
  lua_Debug ar;
  int printed = 0;
  /* A deep stack (runaway recursion) shows its first and last frames. */
  int nlevels = stack_levels(co);
  for (int level = 0; lua_getstack(co, level, &ar); level++) {
    if (level == TRACE_HEAD && nlevels > TRACE_HEAD + TRACE_TAIL) {
      fprintf(stderr, "  ...\t(skipping %d levels)\n", nlevels - TRACE_HEAD - TRACE_TAIL);
      level = nlevels - TRACE_TAIL - 1;
      continue;
    }
    lua_getinfo(co, "Sln", &ar);
    if (ar.source[0] != '@' || ar.currentline <= 0) continue;
    if (!printed) fprintf(stderr, "traceback:\n");
    printed = 1;
    if (ar.name)
      fprintf(stderr, "  %s:%d: in %s '%s'\n", ar.short_src, ar.currentline,
              ar.namewhat[0] ? ar.namewhat : "function", ar.name);
    else if (*ar.what == 'm')
      fprintf(stderr, "  %s:%d: in main chunk\n", ar.short_src, ar.currentline);
    else
      fprintf(stderr, "  %s:%d: in function <%s:%d>\n", ar.short_src,
              ar.currentline, ar.short_src, ar.linedefined);
  }
}

/* ---------------------------------------------------------------------- */
/* the coroutine                                                           */
/* ---------------------------------------------------------------------- */

void lpod_host_check_yield(lua_State *co, const char *what) {
  pod_host *h = lpod_host(co);
  if (h == NULL)
    lpod_error(co, what, NULL, "cannot wait inside a worker's evaluator");
  if (co != h->co)
    lpod_error(co, what, NULL,
               "must be called from the scenario's main flow, not from inside a coroutine");
  if (!lua_isyieldable(co))
    lpod_error(co, what, NULL,
               "cannot wait here (inside a metamethod or a C callback such as table.sort)");
  h->waiting = 1;
}

static void finish(pod_host *h) {
  h->finished = 1;
  run_cancel_hooks(h);
  uv_close((uv_handle_t *)&h->wake, NULL);
  if (h->o.timeout_s > 0) uv_close((uv_handle_t *)&h->timeout, NULL);
}

void lpod_host_resume(pod_host *h, int nargs) {
  int nres = 0;
  h->waiting = 0;
  int status = lua_resume(h->co, h->L, nargs, &nres);
  if (status == LUA_YIELD) {
    lua_pop(h->co, nres);
    if (!h->waiting) {
      fprintf(stderr, "podsim: the scenario yielded outside a podsim call "
                      "(coroutine.yield at top level?)\n");
      h->failed = 1;
      finish(h);
    }
    return;
  }
  if (status != LUA_OK) {
    report_error(h, h->co, status);
    h->failed = 1;
  }
  finish(h);
}

static void on_wake(uv_async_t *a) {
  pod_host *h = a->data;
  if (h->interrupted || h->timed_out) run_cancel_hooks(h);
}

static void on_timeout(uv_timer_t *t) {
  pod_host *h = t->data;
  h->timed_out = 1;
  fprintf(stderr, "podsim: time budget of %g s exceeded (--timeout); stopping\n",
          h->o.timeout_s);
  run_cancel_hooks(h);
}

/* Hook installed on the running coroutine by the signal handler or when
** the time budget runs out while Lua code is running. */
static void stop_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  lua_sethook(L, NULL, 0, 0);
  pod_host *h = lpod_host(L);
  if (h && h->timed_out)
    lpod_error(L, NULL, NULL, "time budget of %g s exceeded (--timeout)", h->o.timeout_s);
  lpod_error(L, NULL, NULL, "interrupted");
}

static void on_sigint(int sig) {
  (void)sig;
  if (++g_sigint_count >= 2) _exit(130);
  pod_host *h = g_host;
  if (h == NULL) return;
  h->interrupted = 1;
  /* Only stop Lua code itself when no podsim call is pending: a pending
  ** study returns partial results and the scenario writes them. */
  if (!h->waiting && h->co)
    lua_sethook(h->co, stop_hook, LUA_MASKCALL | LUA_MASKRET | LUA_MASKCOUNT, 1);
  uv_async_send(&h->wake);
}

/* Instruction budget for the timeout while Lua runs: every 1M
** instructions, look at the clock. */
static void budget_hook(lua_State *L, lua_Debug *ar) {
  (void)ar;
  pod_host *h = lpod_host(L);
  if (h == NULL || h->o.timeout_s <= 0) return;
  uv_update_time(&h->loop);
  /* After the timer cancelled a pending study, the scenario gets a grace
  ** period to write the partial results before it too is stopped. */
  uint64_t limit = (uint64_t)(h->o.timeout_s * 1000.0);
  if (h->timed_out) limit += TIMEOUT_GRACE_MS;
  /* uv_now counts from an arbitrary origin (boot): measure from the start */
  if (uv_now(&h->loop) - h->t0_ms >= limit) {
    h->timed_out = 1;
    run_cancel_hooks(h);
    lpod_error(L, NULL, NULL, "time budget of %g s exceeded (--timeout)", h->o.timeout_s);
  }
}

static int start_scenario(pod_host *h) {
  lua_State *L = h->L;
  h->co = lua_newthread(L);
  h->co_ref = luaL_ref(L, LUA_REGISTRYINDEX);
  int st;
  if (h->o.tool) {
    const pod_embed_file *f = embedded("tools");
    if (f == NULL) {
      fprintf(stderr, "podsim: embedded tools missing\n");
      return 1;
    }
    st = luaL_loadbufferx(h->co, f->src, f->len, "=[podsim] tools.lua", "t");
  } else {
    st = luaL_loadfilex(h->co, h->o.scenario, "t");
  }
  if (st != LUA_OK) {
    fprintf(stderr, "%s\n", lua_tostring(h->co, -1));
    return 1;
  }
  if (h->o.timeout_s > 0) lua_sethook(h->co, budget_hook, LUA_MASKCOUNT, 1000000);
  lpod_host_resume(h, 0);
  return 0;
}

int pod_host_main(const pod_host_opts *o) {
  pod_host *h = calloc(1, sizeof *h);
  if (h == NULL) {
    fprintf(stderr, "podsim: out of memory\n");
    return 1;
  }
  h->o = *o;
  gsl_set_error_handler_off();
  /* folders: the scenario's and the output */
  char abs[PATH_MAX];
  if (o->scenario && !o->tool) {
    if (absolute(o->scenario, abs, sizeof abs) != 0 || resolve(abs, h->scen_dir, sizeof h->scen_dir) != 0) {
      fprintf(stderr, "podsim: cannot resolve '%s'\n", o->scenario);
      free(h);
      return 1;
    }
    char *slash = strrchr(h->scen_dir, '/');
    if (slash && slash != h->scen_dir) *slash = '\0';
  } else if (getcwd(h->scen_dir, sizeof h->scen_dir) == NULL) {
    h->scen_dir[0] = '\0';
  }
  char outbuf[PATH_MAX];
  const char *out = o->out_dir;
  if (out == NULL) {
    const char *base = o->tool ? o->tool : o->scenario;
    const char *s = strrchr(base, '/');
    s = s ? s + 1 : base;
    size_t n = strcspn(s, ".");
    snprintf(outbuf, sizeof outbuf, "out/%.*s", (int)n, s);
    out = outbuf;
  }
  if (absolute(out, abs, sizeof abs) != 0 || resolve(abs, h->out_dir, sizeof h->out_dir) != 0) {
    fprintf(stderr, "podsim: bad output folder '%s'\n", out);
    free(h);
    return 1;
  }
  h->o.out_dir = h->out_dir;
  /* state and loop */
  h->L = new_state(o->max_memory_mb);
  if (h->L == NULL || uv_loop_init(&h->loop) != 0) {
    fprintf(stderr, "podsim: cannot create the Lua state or the event loop\n");
    free(h);
    return 1;
  }
  lua_State *L = h->L;
  lua_pushlightuserdata(L, h);
  lua_setfield(L, LUA_REGISTRYINDEX, "lpod.host");
  lua_pushcfunction(L, open_podsim_protected);
  lua_pushlightuserdata(L, &h->o);
  if (lua_pcall(L, 1, 0, 0) != LUA_OK) {
    fprintf(stderr, "podsim: %s\n", lua_tostring(L, -1));
    close_state(L);
    uv_loop_close(&h->loop);
    free(h);
    return 1;
  }
  uv_async_init(&h->loop, &h->wake, on_wake);
  h->wake.data = h;
  uv_unref((uv_handle_t *)&h->wake);
  uv_update_time(&h->loop);
  h->t0_ms = uv_now(&h->loop);
  if (o->timeout_s > 0) {
    uv_timer_init(&h->loop, &h->timeout);
    h->timeout.data = h;
    uv_timer_start(&h->timeout, on_timeout, (uint64_t)(o->timeout_s * 1000.0), 0);
    uv_unref((uv_handle_t *)&h->timeout);
  }
  g_host = h;
  struct sigaction sa, old;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigint;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old);

  int rc = 0;
  if (start_scenario(h) != 0) {
    h->failed = 1;
    if (!h->finished) finish(h);
  }
  uv_run(&h->loop, UV_RUN_DEFAULT);
  if (!h->finished) {
    /* the loop ran dry while the scenario still waits: a binding bug */
    fprintf(stderr, "podsim: the scenario is waiting for nothing (internal error)\n");
    h->failed = 1;
    finish(h);
    uv_run(&h->loop, UV_RUN_DEFAULT);
  }
  sigaction(SIGINT, &old, NULL);
  g_host = NULL;
  if (h->interrupted) rc = 130;
  else if (h->failed || h->timed_out) rc = 1;
  luaL_unref(L, LUA_REGISTRYINDEX, h->co_ref);
  close_state(L);
  if (uv_loop_close(&h->loop) != 0) {
    uv_run(&h->loop, UV_RUN_DEFAULT);
    uv_loop_close(&h->loop);
  }
  free(h);
  fflush(stdout);
  return rc;
}
