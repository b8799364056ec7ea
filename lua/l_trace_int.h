/*
** l_trace_int.h: internals of the eval tracer (lua/l_trace*.c), shared by
** l_trace.c (tracing values, math wrappers, installing them in the trace
** state), l_trace_state.c (the trace state's hook, the study's graphs, the
** plan evaluator) and l_trace_calls.c (the traced podsim calls: the
** bindings' readers, config mapping, kernel results).  Not an API: see
*l_trace.h.
** Shared functions carry the prefix lpod_trace__.
*/
#ifndef LPOD_L_TRACE_INT_H
#define LPOD_L_TRACE_INT_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>
#include <string.h>

#include "lpod.h"
#include "pod_graph.h"

#define TRACED_T "podsim.traced"
#define TRACE_KEY "lpod.trace"

#define RES_OFF(cfg) ((sizeof(cfg) + 15) & ~(size_t)15)

/* One field of a kernel's Lua result table. */
enum { TR_DOUBLE, TR_INT, TR_SUB, TR_STOP, TR_CONST };
typedef struct tres {
  const char *name;
  int kind;
  int part; /* 0: config, 1: result */
  size_t off;
  const struct tres *sub; /* TR_SUB */
} tres;

typedef struct tcall {
  const char *name;          /* "podsim.train" */
  const char *key;           /* podsim.<key> */
  const lpod_type *cfg_type; /* numeric fields of the config */
  size_t cfg_size, res_off, blob_size;
  void (*read)(lua_State *L, void *cfg);
  pod_graph_blob_fn fn;
  const tres *res;       /* NULL: a spec constructor */
  const lpod_type *spec; /* spec constructors */
} tcall;

/* The traced podsim functions (terminated by a NULL name), and those that
** stop the trace when handed a tracing value (NULL-terminated). */
extern const tcall lpod_trace__calls[];
extern const char *const lpod_trace__untraced[];

/* Set bs's kernel functions and result layout (fn, fn2, out_end,
** out_full; out_off already set) for a blob of call tc with template t0
** and its np patches in graph g: the faster forms where they apply (a
** checked system, a prepared collective, training step or reliability
** call, a screened spec; l_trace_kernels.c).  May write prepared figures
** into t0's result region.  No Lua. */
void lpod_trace__kernel_fn(const tcall *tc, const pod_graph *g,
                           unsigned char *t0, const pod_gpatch *patches, int np,
                           pod_gblob_spec *bs);

enum { TV_NUM, TV_SPEC, TV_RESULT };

typedef struct tvary {
  size_t off;
  int isint;
} tvary;

typedef struct tval {
  int kind;
  int node;
  const tcall *call;   /* TV_SPEC, TV_RESULT */
  const tres *res;     /* TV_RESULT: fields of this (sub)table */
  const lpod_type *st; /* TV_SPEC: its type (a nested spec: the field's) */
  size_t base;         /* TV_SPEC: its offset in the blob (nested specs) */
  int nvary;           /* TV_SPEC: fields that vary per sample */
  tvary vary[];
} tval;
/* uservalue 1: the value at the probe point (spec or result table) */

typedef struct trace {
  pod_graph *g;
  int stopped;
  char stop[512];
  long steps; /* hook calls in the current eval call */
} trace;

/* The trace of this state (registry TRACE_KEY), or NULL. */
trace *lpod_trace__get(lua_State *L);
/* End the trace: remember the first reason (located) and raise it. */
int lpod_trace__stop(lua_State *L, const char *fmt, ...);
/* rc when >= 0 (a node), else stop with e's message. */
int lpod_trace__node(lua_State *L, int rc, const pod_err *e);
/* The tracing value at idx, or NULL.  [-0, +0, -] */
tval *lpod_trace__test(lua_State *L, int idx);
/* Push a new tracing value with room for nvary fields.  [-0, +1, m] */
tval *lpod_trace__push(lua_State *L, int kind, int node, int nvary);
/* Push a Lua number of the value's subtype.  [-0, +1, -] */
void lpod_trace__push_gval(lua_State *L, pod_gval v);
/* Push a new tracing number of graph node node.  [-0, +1, m] */
void lpod_trace__push_num(lua_State *L, int node);
/* "traced number", "traced spec" or "traced result". */
const char *lpod_trace__noun(const tval *v);
/* The node of the number at idx (a tracing number, a number, or a string
** Lua would convert), recording constants; stops on anything else.
** [-0, +0, e] */
int lpod_trace__num_node(lua_State *L, int idx);
/* Replace the state's podsim, math and guarded base functions by their
** tracing wrappers (a lua_CFunction to call protected).  [-0, +0, m] */
int lpod_trace__install(lua_State *L);
/* Call upvalue 1 with the arguments, returning all its results. */
int lpod_trace__original(lua_State *L);
/* Non-zero when the value at idx holds a tracing value (depth levels of
** plain tables).  [-0, +0, -] */
int lpod_trace__has(lua_State *L, int idx, int depth);
/* The wrapper of a traced podsim function: upvalue 1 the original, 2 its
** tcall. */
int lpod_trace__call(lua_State *L);

/* Spec constructors' per-sample checks and the checks traced calls may
** skip (l_trace_specs.c). */
int lpod_trace__fn_system(void *b, pod_err *e);
int lpod_trace__fn_gpu(void *b, pod_err *e);
int lpod_trace__fn_model(void *b, pod_err *e);
/* A system spec that lpod_trace__system_screened accepted: no check. */
int lpod_trace__fn_system_screened(void *b, pod_err *e);
/* Non-zero when a system spec of template t0 (valid) with these patches
** needs no check per sample beyond its patches' own. */
int lpod_trace__system_screened(const unsigned char *t0,
                                const pod_gpatch *patches, int np);
/* A model spec that lpod_trace__model_screened accepted: per sample only
** the rule across fields its patched fields enter (imbalance >= 1). */
int lpod_trace__fn_model_screened(void *b, pod_err *e);
/* Non-zero when a model spec of template t0 (valid) with these patches
** needs per sample no check beyond its patches' own and that rule. */
int lpod_trace__model_screened(const unsigned char *t0,
                               const pod_gpatch *patches, int np);
/* Is the spec at [base, base + size) of a new blob with `patches` always
** the bytes of one spec node checked per sample by fn (or screened)? */
int lpod_trace__spec_is_checked(const pod_graph *g, const pod_gpatch *patches,
                                int np, size_t base, size_t size,
                                pod_graph_blob_fn fn);
/* The same for the system and the model of a train config t0, valid. */
int lpod_trace__train_specs_checked(const pod_graph *g, const unsigned char *t0,
                                    const pod_gpatch *patches, int np);

/* Offset in the blob of result field r of v. */
static inline size_t lpod_trace__res_offset(const tval *v, const tres *r) {
  return (r->part ? v->call->res_off : 0) + r->off;
}

/* The field named k of a result description, or NULL. */
static inline const tres *lpod_trace__find_res(const tres *r, const char *k) {
  for (; r->name; r++)
    if (strcmp(r->name, k) == 0) return r;
  return NULL;
}

#endif
