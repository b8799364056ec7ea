/*
** graph_int.h: internals shared by graph.c (building and evaluating
** graphs per sample), graph_block.c (evaluating them over a block of
** samples) and graph_arith.c (Lua 5.4 number semantics); callers use
** pod_graph.h only.
*/
#ifndef POD_GRAPH_INT_H
#define POD_GRAPH_INT_H

#include "pod_graph.h"

typedef struct gblob {
  char *name, *where;
  size_t size;
  unsigned char *tmpl;
  pod_graph_blob_fn fn;
  pod_graph_blob_fn2 fn2; /* fn on two lanes at once, or NULL */
  pod_gpatch *patches;
  int npatches;
  size_t out_off;         /* fn writes only [out_off, out_end); 0: anywhere */
  size_t out_end;         /* [out_end, size): constant, never restored */
  int out_full;           /* fn writes all of [out_off, out_end) on success */
  unsigned char *checked; /* per patch, set by pod_graph_finish: its value
                             always passed the same test already (a field
                             of a blob patched there with the same bounds) */
} gblob;

typedef struct gnode {
  pod_graph_op op; /* POD_G_NOPS + 0: blob, + 1: field */
  int a, b;
  pod_gval k; /* CONST */
  int param;  /* PARAM */
  size_t off; /* FIELD: offset in blob a */
  pod_gfield_type ftype;
  gblob *blob;  /* BLOB */
  size_t arena; /* BLOB: offset of its bytes in the workspace arena */
  char *where;  /* may be NULL */
  int isconst;  /* depends on no parameter: its probe value is its value */
  int vk;       /* non-blob nodes: the subtype of its value (GV_*) */
} gnode;

/* The Lua subtype a node's value has whatever the sample (the block
** evaluator stores its lanes as doubles, integers or tagged values). */
enum { GV_FLT, GV_INT, GV_MIX };

#define OP_BLOB (POD_G_NOPS + 0)
#define OP_FIELD (POD_G_NOPS + 1)

struct pod_graph {
  int nparams;
  double *probe_x;
  gnode *nodes;
  int n, cap;
  pod_gval *probe;       /* per node */
  unsigned char *parena; /* probe blobs */
  size_t arena_size, arena_cap;
  int *outputs, noutputs;
  int *live, nlive, nblobs;
  int *run, nrun; /* live nodes that depend on a parameter, in order */
  int finished;
};

struct pod_graph_ws {
  pod_gval *v;
  unsigned char *arena;
};

static inline double tonum(pod_gval v) {
  return v.isint ? (double)v.u.i : v.u.d;
}

static inline pod_gval mkflt(double d) {
  pod_gval r;
  r.u.d = d;
  r.isint = 0;
  return r;
}

static inline pod_gval mkint(int64_t i) {
  pod_gval r;
  r.u.i = i;
  r.isint = 1;
  return r;
}

/* The subtype of node nd's value (graph.c; nd's operands are in g). */
int pod_graph__kind(const pod_graph *g, const gnode *nd);

#endif
