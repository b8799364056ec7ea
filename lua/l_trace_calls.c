/*
** l_trace_calls.c: the traced podsim calls (l_trace_int.h).  A call whose
** arguments hold tracing values is read by the binding's own reader
** (l_read.h) at the probe point; each traced value is then varied and the
** config read again, and the changed bytes tell which config field it
** feeds (identity, log10, an int): those become the blob's patches.
** Anything else the comparison shows ends the trace.  Kernel results are
** checked field by field against the binding's own result table; the
** kernels' side of each call is in l_trace_kernels.c.
*/
#include <lauxlib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "l_hw.h"
#include "l_read.h"
#include "l_trace_int.h"
#include "lpod.h"
#include "pod_graph.h"
#include "pod_hw.h"
#include "pod_model.h"

#define MAX_LEAVES 256
#define MAX_PATCHES 512
#define MAX_FIELDS 192
/* ---------------------------------------------------------------------- */
/* traced API lpod_trace__calls */
/* ---------------------------------------------------------------------- */

int lpod_trace__has(lua_State *L, int idx, int depth) {
  if (lpod_trace__test(L, idx)) return 1;
  if (depth <= 0 || lua_type(L, idx) != LUA_TTABLE) return 0;
  idx = lua_absindex(L, idx);
  if (lua_getmetatable(L, idx)) {
    lua_pop(L, 1);
    return 0;
  }
  lua_pushnil(L);
  while (lua_next(L, idx)) {
    if (lpod_trace__has(L, -1, depth - 1) || lpod_trace__test(L, -2)) {
      lua_pop(L, 2);
      return 1;
    }
    lua_pop(L, 1);
  }
  return 0;
}

/* A scalar the traced call depends on, and where it sits in the concrete
** arguments: lt[3j+1] container, lt[3j+2] key, lt[3j+3] original value. */
typedef struct leaf {
  int node;
  pod_gval v0;
  const lpod_type *st; /* spec field of the value at container[key] */
  size_t soff;
  char path[96];
} leaf;

typedef struct cctx {
  trace *tr;
  leaf *leaves;
  int nleaves;
  int lt; /* stack index of the leaf table */
} cctx;

static void add_leaf(lua_State *L, cctx *c, int cont, int key, int orig,
                     int node, const lpod_type *st, size_t soff,
                     const char *path) {
  if (c->nleaves >= MAX_LEAVES)
    lpod_trace__stop(L, "more than %d traced values in one call", MAX_LEAVES);
  leaf *lf = &c->leaves[c->nleaves];
  lf->node = node;
  lf->v0 = pod_graph_probe(c->tr->g, node);
  lf->st = st;
  lf->soff = soff;
  snprintf(lf->path, sizeof lf->path, "%s", path);
  int j = c->nleaves++;
  lua_pushvalue(L, cont);
  lua_rawseti(L, c->lt, 3 * j + 1);
  lua_pushvalue(L, key);
  lua_rawseti(L, c->lt, 3 * j + 2);
  lua_pushvalue(L, orig);
  lua_rawseti(L, c->lt, 3 * j + 3);
}

static void concretize(lua_State *L, cctx *c, int v, int cont, int key,
                       const char *path, int depth);

/* Concrete copy of the result table R (at r) whose fields `res` are leaves
** (fields of the config part that no patch writes are constants). */
static void copy_result(lua_State *L, cctx *c, const tval *tv, const tres *res,
                        int r, const char *path) {
  r = lua_absindex(L, r);
  lua_newtable(L);
  int copy = lua_gettop(L);
  lua_pushnil(L);
  while (lua_next(L, r)) {
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, copy);
  }
  for (const tres *d = res; d->name; d++) {
    char p[96];
    snprintf(p, sizeof p, "%s.%s", path, d->name);
    if (d->kind == TR_DOUBLE || d->kind == TR_INT) {
      size_t off = lpod_trace__res_offset(tv, d),
             w = d->kind == TR_INT ? sizeof(int) : sizeof(double);
      if (d->part == 0 && !pod_graph_blob_writes(c->tr->g, tv->node, off, w))
        continue;
      pod_err e;
      pod_err_clear(&e);
      int n =
          pod_graph_field(c->tr->g, tv->node, off,
                          d->kind == TR_INT ? POD_GF_INT : POD_GF_DOUBLE, &e);
      lpod_trace__node(L, n, &e);
      lua_getfield(L, copy, d->name); /* the probe value */
      lua_pushstring(L, d->name);
      add_leaf(L, c, copy, lua_gettop(L), lua_gettop(L) - 1, n, NULL, 0, p);
      lua_pop(L, 2);
    } else if (d->kind == TR_SUB) {
      if (lua_getfield(L, r, d->name) == LUA_TTABLE) {
        copy_result(L, c, tv, d->sub, -1, p);
        lua_setfield(L, copy, d->name);
      }
      lua_pop(L, 1);
    }
  }
  lua_settop(L, copy);
}

static void concretize(lua_State *L, cctx *c, int v, int cont, int key,
                       const char *path, int depth) {
  v = lua_absindex(L, v);
  tval *tv = lpod_trace__test(L, v);
  if (tv && tv->kind == TV_NUM) {
    lpod_trace__push_gval(L, pod_graph_probe(c->tr->g, tv->node));
    add_leaf(L, c, cont, key, lua_gettop(L), tv->node, NULL, 0, path);
  } else if (tv && tv->kind == TV_SPEC) {
    lua_getiuservalue(L, v, 1);
    int sv = lua_gettop(L);
    for (int i = 0; i < tv->nvary; i++) {
      pod_err e;
      pod_err_clear(&e);
      int n =
          pod_graph_field(c->tr->g, tv->node, tv->vary[i].off,
                          tv->vary[i].isint ? POD_GF_INT : POD_GF_DOUBLE, &e);
      lpod_trace__node(L, n, &e);
      add_leaf(L, c, cont, key, sv, n, tv->st, tv->vary[i].off - tv->base,
               path);
    }
  } else if (tv) {
    lua_getiuservalue(L, v, 1);
    copy_result(L, c, tv, tv->res, -1, path);
    lua_remove(L, -2);
  } else if (lua_type(L, v) == LUA_TTABLE && depth > 0 &&
             lpod_trace__has(L, v, depth)) {
    if (lua_getmetatable(L, v))
      return (void)lpod_trace__stop(
          L, "%s: a table with a metatable holds a traced value", path);
    lua_newtable(L);
    int copy = lua_gettop(L);
    lua_pushnil(L);
    while (lua_next(L, v)) { /* key, value */
      if (lpod_trace__test(L, -2))
        lpod_trace__stop(L, "%s: a traced value used as a table key", path);
      char p[96];
      if (lua_type(L, -2) == LUA_TSTRING)
        snprintf(p, sizeof p, "%s%s%s", path, path[0] ? "." : "",
                 lua_tostring(L, -2));
      else
        snprintf(p, sizeof p, "%s[%lld]", path,
                 (long long)lua_tointeger(L, -2));
      concretize(L, c, -1, copy, lua_gettop(L) - 1, p, depth - 1);
      lua_pop(L, 1);
    }
  } else {
    lua_pushvalue(L, v);
  }
  /* stack: concrete value on the top */
  lua_pushvalue(L, key);
  lua_insert(L, -2);
  lua_rawset(L, cont);
}

/* Read the concrete arguments (argt[1..nargs]) into out; 0 or the error
** message pushed. */
static int rd_tramp(lua_State *L) {
  const tcall *tc = lua_touserdata(L, lua_upvalueindex(1));
  void *out = lua_touserdata(L, lua_upvalueindex(2));
  tc->read(L, out);
  return 0;
}

static int call_read(lua_State *L, const tcall *tc, int argt, int nargs,
                     void *out) {
  memset(out, 0, tc->cfg_size);
  lua_pushlightuserdata(L, (void *)tc);
  lua_pushlightuserdata(L, out);
  lua_pushcclosure(L, rd_tramp, 2);
  for (int i = 1; i <= nargs; i++) lua_rawgeti(L, argt, i);
  if (lua_pcall(L, nargs, 0, 0) != LUA_OK) return 1;
  return 0;
}

/* Numeric fields of a config type, flattened. */
typedef struct nfield {
  size_t off;
  const lpod_field *f;
  const pod_field *b; /* its core bound (lpod_field_bound) */
  char path[80];
} nfield;

static void flatten(const lpod_type *t, size_t base, const char *prefix,
                    nfield *out, int *n) {
  for (const lpod_field *f = t->fields; f->name; f++) {
    char p[80];
    snprintf(p, sizeof p, "%s%s%s", prefix, prefix[0] ? "." : "", f->name);
    if (f->type == LPOD_STRUCT) {
      flatten(f->sub, base + f->offset, p, out, n);
    } else if ((f->type == LPOD_DOUBLE || f->type == LPOD_INT) &&
               *n < MAX_FIELDS) {
      out[*n].off = base + f->offset;
      out[*n].f = f;
      out[*n].b = lpod_field_bound(t, f);
      snprintf(out[*n].path, sizeof out[*n].path, "%s", p);
      (*n)++;
    }
  }
}

/* Set leaf j's value to x (or back to its original when restore). */
static void set_leaf(lua_State *L, cctx *c, int j, pod_gval x, int restore) {
  leaf *lf = &c->leaves[j];
  lua_rawgeti(L, c->lt, 3 * j + 1);
  lua_rawgeti(L, c->lt, 3 * j + 2);
  if (restore) {
    lua_rawgeti(L, c->lt, 3 * j + 3);
  } else if (lf->st) {
    lua_rawgeti(L, c->lt, 3 * j + 3);
    const void *orig = lua_touserdata(L, -1);
    char buf[sizeof(pod_model) > sizeof(pod_system) ? sizeof(pod_model)
                                                    : sizeof(pod_system)];
    memcpy(buf, orig, lf->st->size);
    if (x.isint) {
      int iv = (int)x.u.i;
      memcpy(buf + lf->soff, &iv, sizeof iv);
    } else {
      memcpy(buf + lf->soff, &x.u.d, sizeof x.u.d);
    }
    lua_pop(L, 1);
    lpod_push(L, lf->st, buf);
  } else {
    lpod_trace__push_gval(L, x);
  }
  lua_rawset(L, -3);
  lua_pop(L, 1);
}

/* Candidate variations of a leaf value. */
static int variations(pod_gval v, pod_gval *out) {
  int n = 0;
  if (v.isint) {
    int64_t d[] = {1, -1, 2, -2};
    for (int i = 0; i < 4; i++) {
      out[n].isint = 1;
      out[n++].u.i = v.u.i + d[i];
    }
    return n;
  }
  double x = v.u.d;
  double f[] = {1.25, 0.8, 1 + 0x1p-20, 1 - 0x1p-20};
  for (int i = 0; i < 4; i++) {
    out[n].isint = 0;
    out[n++].u.d = x != 0 ? x * f[i]
                          : (i == 0   ? 0.5
                             : i == 1 ? 1e-3
                             : i == 2 ? 1.0
                                      : 0x1p-20);
  }
  return n;
}

static double gnum(pod_gval v) {
  return v.isint ? (double)v.u.i : v.u.d;
}

/* Compare configs t0 and t1 (leaf j varied to x1) and append the patches
** that explain every changed byte; stops when something cannot be
** explained. */
static void map_leaf(lua_State *L, const tcall *tc, const nfield *fl, int nf,
                     const leaf *lf, const unsigned char *t0,
                     const unsigned char *t1, pod_gval x1, pod_gpatch *patches,
                     int *np) {
  unsigned char *seen = lua_newuserdatauv(L, tc->cfg_size, 0);
  memset(seen, 0, tc->cfg_size);
  double a0 = gnum(lf->v0), a1 = gnum(x1);
  for (int i = 0; i < nf; i++) {
    size_t off = fl[i].off,
           w = fl[i].f->type == LPOD_INT ? sizeof(int) : sizeof(double);
    if (memcmp(t0 + off, t1 + off, w) == 0) continue;
    memset(seen + off, 1, w);
    if (*np >= MAX_PATCHES)
      lpod_trace__stop(L, "%s: too many traced fields", tc->name);
    pod_gpatch *p = &patches[(*np)++];
    memset(p, 0, sizeof *p);
    p->offset = off;
    p->src = lf->node;
    p->min = fl[i].b->min; /* the core bound (lpod_type_register checked) */
    p->max = fl[i].b->max;
    p->min_open = (fl[i].b->open & POD_F_MIN_OPEN) != 0;
    p->field = fl[i].path;
    if (fl[i].f->type == LPOD_INT) {
      int i0, i1;
      memcpy(&i0, t0 + off, sizeof i0);
      memcpy(&i1, t1 + off, sizeof i1);
      if (!(a0 == floor(a0) && a1 == floor(a1) && i0 == (int)a0 &&
            i1 == (int)a1))
        lpod_trace__stop(L,
                         "%s: the traced value at '%s' reaches '%s' through a "
                         "computation the trace does not know",
                         tc->name, lf->path, fl[i].path);
      p->kind = POD_GP_INT;
      continue;
    }
    double d0, d1;
    memcpy(&d0, t0 + off, sizeof d0);
    memcpy(&d1, t1 + off, sizeof d1);
    if (d0 == a0 && d1 == a1) {
      p->kind = POD_GP_DOUBLE;
    } else if (d0 == log10(a0) && d1 == log10(a1)) {
      p->kind = POD_GP_LOG10;
      p->min = pow(10, fl[i].b->min);
      p->max = pow(10, fl[i].b->max);
      p->min_open = 1;
    } else {
      lpod_trace__stop(L,
                       "%s: the traced value at '%s' reaches '%s' through a "
                       "computation the trace does not know",
                       tc->name, lf->path, fl[i].path);
    }
  }
  for (size_t b = 0; b < tc->cfg_size; b++)
    if (t0[b] != t1[b] && !seen[b])
      lpod_trace__stop(
          L,
          "%s: the traced value at '%s' changes a non-numeric part of "
          "the config",
          tc->name, lf->path);
  lua_pop(L, 1);
}

/* Every field of R (at r) matches the probe blob, and has a descriptor. */
static void verify_result(lua_State *L, const tcall *tc, const tres *res,
                          const unsigned char *blob, int r) {
  r = lua_absindex(L, r);
  lua_pushnil(L);
  while (lua_next(L, r)) {
    const tres *d = lua_type(L, -2) == LUA_TSTRING
                        ? lpod_trace__find_res(res, lua_tostring(L, -2))
                        : NULL;
    if (d == NULL)
      lpod_trace__stop(
          L, "%s: result field '%s' is unknown to the trace", tc->name,
          lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "?");
    size_t off = (d->part ? tc->res_off : 0) + d->off;
    int ok = 1;
    if (d->kind == TR_DOUBLE) {
      double x;
      memcpy(&x, blob + off, sizeof x);
      ok = lua_type(L, -1) == LUA_TNUMBER && !lua_isinteger(L, -1) &&
           lua_tonumber(L, -1) == x;
    } else if (d->kind == TR_INT) {
      int x;
      memcpy(&x, blob + off, sizeof x);
      ok = lua_isinteger(L, -1) && lua_tointeger(L, -1) == x;
    } else if (d->kind == TR_SUB) {
      verify_result(L, tc, d->sub, blob, -1);
    }
    if (!ok)
      lpod_trace__stop(L, "%s: result field '%s' differs from the binding's",
                       tc->name, d->name);
    lua_pop(L, 1);
  }
}

/* Varies each traced leaf of c in turn, reads the config again into t1 and
   maps the fields that moved to patches; returns the number of patches. */
static int map_leaves(lua_State *L, const tcall *tc, cctx *c, int argt,
                      int nargs, const nfield *fl, int nf,
                      const unsigned char *t0, unsigned char *t1,
                      pod_gpatch *patches) {
  int np = 0;
  for (int j = 0; j < c->nleaves; j++) {
    pod_gval cand[4];
    int nc = variations(c->leaves[j].v0, cand), mapped = 0;
    for (int k = 0; k < nc && !mapped; k++) {
      set_leaf(L, c, j, cand[k], 0);
      int bad = call_read(L, tc, argt, nargs, t1);
      set_leaf(L, c, j, cand[k], 1);
      if (bad) {
        lua_pop(L, 1);
        continue;
      }
      map_leaf(L, tc, fl, nf, &c->leaves[j], t0, t1, cand[k], patches, &np);
      mapped = 1;
    }
    if (!mapped)
      lpod_trace__stop(
          L,
          "%s: cannot vary the traced value at '%s' (every variation is "
          "rejected)",
          tc->name, c->leaves[j].path);
  }
  return np;
}

/* The wrapper of a traced podsim function: upvalue 1 original, 2 tcall. */
int lpod_trace__call(lua_State *L) {
  const tcall *tc = lua_touserdata(L, lua_upvalueindex(2));
  int nargs = lua_gettop(L);
  int traced = 0;
  for (int i = 1; i <= nargs && !traced; i++) traced = lpod_trace__has(L, i, 6);
  if (!traced) return lpod_trace__original(L);
  cctx c;
  c.tr = lpod_trace__get(L);
  c.nleaves = 0;
  c.leaves = lua_newuserdatauv(L, sizeof(leaf) * MAX_LEAVES, 0);
  lua_newtable(L);
  c.lt = lua_gettop(L);
  lua_createtable(L, nargs, 0);
  int argt = lua_gettop(L);
  for (int i = 1; i <= nargs; i++) {
    char p[32];
    snprintf(p, sizeof p, "arg%d", i);
    lua_pushinteger(L, i);
    concretize(L, &c, i, argt, lua_gettop(L), i == 1 && nargs == 1 ? "" : p, 6);
    lua_pop(L, 1);
  }
  unsigned char *t0 = lua_newuserdatauv(L, tc->blob_size, 0);
  unsigned char *t1 = lua_newuserdatauv(L, tc->cfg_size, 0);
  memset(t0, 0, tc->blob_size);
  if (call_read(L, tc, argt, nargs, t0))
    return lua_error(L); /* the binding's own error */
  nfield *fl = lua_newuserdatauv(L, sizeof(nfield) * MAX_FIELDS, 0);
  int nf = 0;
  flatten(tc->cfg_type, 0, "", fl, &nf);
  pod_gpatch *patches =
      lua_newuserdatauv(L, sizeof(pod_gpatch) * MAX_PATCHES, 0);
  int np = map_leaves(L, tc, &c, argt, nargs, fl, nf, t0, t1, patches);
  pod_gblob_spec bs;
  memset(&bs, 0, sizeof bs);
  bs.name = tc->name;
  lpod_where(L);
  bs.where = lua_tostring(L, -1);
  bs.size = tc->blob_size;
  bs.tmpl = t0;
  lpod_trace__kernel_fn(tc, c.tr->g, t0, patches, np, &bs);
  bs.patches = patches;
  bs.npatches = np;
  pod_err e;
  pod_err_clear(&e);
  int node = pod_graph_blob(c.tr->g, &bs, &e);
  lua_pop(L, 1); /* where */
  if (node < 0) {
    /* the binding fails at the probe too: raise its error */
    return lpod_error(L, NULL, NULL, "%s", e.msg);
  }
  const unsigned char *pb = pod_graph_probe_blob(c.tr->g, node);
  if (memcmp(pb, t0, tc->cfg_size) != 0)
    return lpod_trace__stop(
        L, "%s: the traced config differs from the binding's", tc->name);
  if (tc->res) {
    lua_pushvalue(L, lua_upvalueindex(1));
    for (int i = 1; i <= nargs; i++) lua_rawgeti(L, argt, i);
    lua_call(L, nargs, 1); /* the binding's result at the probe */
    if (!lua_istable(L, -1))
      return lpod_trace__stop(L, "%s: unexpected result", tc->name);
    verify_result(L, tc, tc->res, pb, -1);
    int r = lua_gettop(L);
    tval *v = lpod_trace__push(L, TV_RESULT, node, 0);
    v->call = tc;
    v->res = tc->res;
    lua_pushvalue(L, r);
    lua_setiuservalue(L, -2, 1);
    return 1;
  }
  /* a spec: its varying fields are the patched ones */
  int nv = 0;
  tvary vary[MAX_PATCHES];
  for (int i = 0; i < np; i++) {
    int dup = 0;
    for (int k = 0; k < nv; k++) dup |= vary[k].off == patches[i].offset;
    if (dup) continue;
    vary[nv].off = patches[i].offset;
    vary[nv++].isint = patches[i].kind == POD_GP_INT;
  }
  tval *v = lpod_trace__push(L, TV_SPEC, node, nv);
  v->call = tc;
  v->st = tc->spec;
  memcpy(v->vary, vary, sizeof(tvary) * (size_t)nv);
  lpod_push(L, tc->spec, pb);
  lua_setiuservalue(L, -2, 1);
  return 1;
}
