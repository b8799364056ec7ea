/*
** pod_graph.h: a recorded evaluation graph (pure: no Lua, no printing).
**
** A study's Lua `eval`, run once with tracing values (lua/l_trace.c),
** records what it computes as a graph of nodes: constants, sampled
** parameters, Lua arithmetic and math functions, struct-valued "blob"
** nodes (a spec built from a template with fields patched from other
** nodes, or a kernel call: config template, patches, then a function that
** checks the config and writes its result after it) and scalar reads of
** blob fields.  Evaluating the graph for a sample does the same
** floating-point operations in the same order as the Lua interpreter
** would, so its metrics are identical bit for bit.
**
** Scalars carry Lua 5.4's two number subtypes: integer operations wrap
** like lua_Integer, `//` and `%` follow luaV_idiv/luaV_mod (integers) and
** floor(a/b)/luai_nummod (floats), `^` is luai_numpow (b == 2 ? a*a :
** pow), math.floor/ceil return integers when the result fits, math.min
** and math.max pick the first least (greatest) argument with Lua's
** mixed integer/float comparison.
**
** Nodes are added in dependency order; every node is evaluated at the
** probe point (the parameter values given to pod_graph_new) as it is
** added, so the recorder can read probe values (pod_graph_probe_*) and a
** failing node fails where it is added.  After pod_graph_finish the graph
** is read-only and may be evaluated from any number of threads, each with
** its own workspace.  A node that depends on no parameter (a kernel call
** on constant inputs, say) is not evaluated per sample: its probe value
** is its value (the same code on the same inputs), copied into each
** workspace; blob functions must be pure for this (they are: kernels and
** checks).
*/
#ifndef POD_GRAPH_H
#define POD_GRAPH_H

#include <stddef.h>
#include <stdint.h>

#include "pod_err.h"

typedef enum pod_graph_op {
  POD_G_CONST,
  POD_G_PARAM,
  /* binary arithmetic (Lua operators) */
  POD_G_ADD,
  POD_G_SUB,
  POD_G_MUL,
  POD_G_DIV,
  POD_G_MOD,
  POD_G_POW,
  POD_G_IDIV,
  /* unary */
  POD_G_UNM,
  /* math library */
  POD_G_FLOOR,
  POD_G_CEIL,
  POD_G_ABS,
  POD_G_SQRT,
  POD_G_EXP,
  POD_G_LOG,   /* natural */
  POD_G_LOG2,  /* math.log(x, 2) */
  POD_G_LOG10, /* math.log(x, 10) */
  POD_G_LOGB,  /* math.log(x, b): log(x)/log(b) */
  POD_G_SIN,
  POD_G_COS,
  POD_G_TAN,
  POD_G_ASIN,
  POD_G_ACOS,
  POD_G_ATAN, /* math.atan(y, x) */
  POD_G_FMOD,
  POD_G_MIN,
  POD_G_MAX,
  POD_G_NOPS
} pod_graph_op;

/* A Lua number: a float or an integer. */
typedef struct pod_gval {
  union {
    double d;
    int64_t i;
  } u;
  int isint;
} pod_gval;

/* How a patch writes a scalar into a blob (after checks on the number). */
typedef enum pod_gpatch_kind {
  POD_GP_DOUBLE, /* double field: finite, in range */
  POD_GP_INT,    /* int field: finite, in range, integral */
  POD_GP_LOG10,  /* double field holding log10 of the number (> 0) */
  POD_GP_BYTES   /* copy `size` bytes of blob node src at src_offset */
} pod_gpatch_kind;

typedef struct pod_gpatch {
  size_t offset; /* in the destination blob */
  pod_gpatch_kind kind;
  int src;           /* source node */
  size_t src_offset; /* POD_GP_BYTES */
  size_t size;       /* POD_GP_BYTES */
  double min, max;   /* the number's range (checked before the transform) */
  int min_open;      /* 1: must be > min */
  const char *field; /* path named in errors ("up_eff"); copied */
} pod_gpatch;

/* Checks a blob and (for kernels) writes its result inside it. */
typedef int (*pod_graph_blob_fn)(void *blob, pod_err *err);
/* fn on two blobs at once (a, then b; their work may interleave): POD_OK
** when both succeed, else the first failure's code with its index (0: a,
** 1: b) in *failed; each blob ends as fn leaves it (a's result stored when
** only b fails). */
typedef int (*pod_graph_blob_fn2)(void *a, void *b, int *failed, pod_err *err);

typedef struct pod_gblob_spec {
  const char *name;     /* API named in errors ("podsim.train"); copied */
  const char *where;    /* "file:line:" of the call, or ""; copied */
  size_t size;          /* blob bytes */
  const void *tmpl;     /* size bytes (copied) */
  pod_graph_blob_fn fn; /* may be NULL */
  const pod_gpatch *patches;
  int npatches;
  size_t out_off; /* fn writes only bytes [out_off, size) of the blob (its
                     result; size: none): the rest holds the template and
                     the patches, so per sample only [out_off, size) is
                     restored from the template; 0 (the default): fn may
                     write anywhere, the whole template is copied */
  size_t out_end; /* with out_off > 0: fn writes only [out_off, out_end),
                     and the bytes [out_end, size) are constants it reads
                     (figures prepared once), copied into a workspace when
                     it is made, never restored per sample; 0 (the
                     default) or any value outside [out_off, size]: size */
  int out_full;   /* with out_off > 0: 1 when fn, on success, writes every
                     field of [out_off, out_end) (a result stored whole),
                     so evaluating blocks (pod_graph_eval_block) restores
                     none of it per sample; 0 (the default): restored */
  pod_graph_blob_fn2 fn2; /* may be NULL; with fn, the same results: blocks
                             (pod_graph_eval_block) evaluate lanes in
                             pairs through it */
} pod_gblob_spec;

typedef enum pod_gfield_type {
  POD_GF_DOUBLE, /* double: a Lua float */
  POD_GF_INT,    /* int: a Lua integer */
  POD_GF_INT64   /* int64_t: a Lua integer */
} pod_gfield_type;

typedef struct pod_graph pod_graph;

/* A new graph over `nparams` parameters, probe point x (copied). */
int pod_graph_new(int nparams, const double *probe_x, pod_graph **out,
                  pod_err *err);
void pod_graph_free(pod_graph *g);

/* Each adder returns the new node's id (>= 0) or a negative status with
** err filled (a failing probe evaluation: e.g. the patch of a checked
** field is out of range at the probe point).  `where` ("file:line:")
** locates errors of operations that can fail per sample (// and % of
** integers by zero, math.fmod). */
int pod_graph_const(pod_graph *g, pod_gval v, pod_err *err);
int pod_graph_param(pod_graph *g, int i, pod_err *err);
int pod_graph_node_op(pod_graph *g, pod_graph_op op, int a, int b,
                      const char *where, pod_err *err);
int pod_graph_blob(pod_graph *g, const pod_gblob_spec *spec, pod_err *err);
int pod_graph_field(pod_graph *g, int blob, size_t offset, pod_gfield_type type,
                    pod_err *err);

/* Structure queries (for recorders that reason about provenance). */
/* Non-zero when node is a field read; its blob node and offset. */
int pod_graph_field_src(const pod_graph *g, int node, int *blob,
                        size_t *offset);
/* The blob node's function (NULL when none or not a blob). */
pod_graph_blob_fn pod_graph_blob_fn_of(const pod_graph *g, int node);
/* The blob node's patches (count; the i-th, or NULL). */
int pod_graph_blob_npatches(const pod_graph *g, int node);
const pod_gpatch *pod_graph_blob_patch(const pod_graph *g, int node, int i);

/* Probe values. */
pod_gval pod_graph_probe(const pod_graph *g, int node);
const void *pod_graph_probe_blob(const pod_graph *g, int node);
int pod_graph_is_blob(const pod_graph *g, int node);
size_t pod_graph_blob_size(const pod_graph *g, int node);
int pod_graph_nodes(const pod_graph *g);
/* Non-zero when a patch of blob node `node` writes a byte of
** [offset, offset + size). */
int pod_graph_blob_writes(const pod_graph *g, int node, size_t offset,
                          size_t size);
/* The same for a list of np patches (before their blob is added). */
int pod_graph_patches_write(const pod_gpatch *patches, int np, size_t offset,
                            size_t size);

/* Set the nodes of the M metrics and freeze the graph (drops nodes no
** metric depends on). */
int pod_graph_finish(pod_graph *g, const int *outputs, int noutputs,
                     pod_err *err);
int pod_graph_live(const pod_graph *g);  /* nodes the metrics depend on */
int pod_graph_blobs(const pod_graph *g); /* of which blob nodes */
/* Of the live nodes, those that depend on no parameter: evaluated once,
** at the probe (their values and bytes are copied into each workspace);
** the others are evaluated per sample. */
int pod_graph_hoisted(const pod_graph *g);

/* Per-thread scratch. */
typedef struct pod_graph_ws pod_graph_ws;
int pod_graph_ws_new(const pod_graph *g, pod_graph_ws **out, pod_err *err);
void pod_graph_ws_free(pod_graph_ws *ws);

/* Evaluate the metrics y (noutputs doubles) at parameter values x. */
int pod_graph_eval(const pod_graph *g, pod_graph_ws *ws, const double *x,
                   double *y, pod_err *err);

/* Block evaluation: the same over many samples at once, node by node
** over lanes (graph_block.c), with metrics identical bit for bit to
** pod_graph_eval's.  A block workspace holds `lanes` samples (1..4096;
** per thread, like pod_graph_ws). */
typedef struct pod_graph_bws pod_graph_bws;
int pod_graph_bws_new(const pod_graph *g, int lanes, pod_graph_bws **out,
                      pod_err *err);
void pod_graph_bws_free(pod_graph_bws *ws);
int pod_graph_bws_lanes(const pod_graph_bws *ws);

/* Evaluate n samples (any n >= 0; more than the workspace's lanes run as
** several blocks): row j of x (the P parameters at x + j * P) gives row j
** of y (the metrics at y + j * noutputs).  POD_OK with *nok = n; or the
** status of the first sample that fails, *nok its index (the rows before
** it are evaluated), err filled exactly as pod_graph_eval fills it for
** that sample. */
int pod_graph_eval_block(const pod_graph *g, pod_graph_bws *ws, int n,
                         const double *x, double *y, int *nok, pod_err *err);
/* The same over rows rows[0..n) of x and y (in that order; *nok counts
** them): a block of the samples that share this graph. */
int pod_graph_eval_rows(const pod_graph *g, pod_graph_bws *ws, int n,
                        const int *rows, const double *x, double *y, int *nok,
                        pod_err *err);

/* Lua 5.4 semantics of one operation on numbers (exposed for tests);
** returns POD_EINVAL with err filled for integer division by zero. */
int pod_graph_arith(pod_graph_op op, pod_gval a, pod_gval b, pod_gval *out,
                    pod_err *err);

#endif
