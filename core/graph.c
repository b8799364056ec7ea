/*
** graph.c: recorded evaluation graphs (see pod_graph.h): building,
** freezing and evaluating them per sample; evaluating them over a block
** of samples is in graph_block.c, the Lua number semantics of their
** arithmetic in graph_arith.c.
*/
#include "graph_int.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define WHERE_MAX 160

static char *dupstr(const char *s) {
  if (s == NULL) s = "";
  size_t n = strlen(s) + 1;
  char *p = malloc(n);
  if (p) memcpy(p, s, n);
  return p;
}

int pod_graph_new(int nparams, const double *probe_x, pod_graph **out,
                  pod_err *err) {
  *out = NULL;
  if (nparams < 0)
    return pod_err_set(err, POD_EINVAL, "nparams", "must be >= 0");
  pod_graph *g = calloc(1, sizeof *g);
  if (g == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  g->nparams = nparams;
  g->probe_x = malloc(sizeof(double) * (size_t)(nparams + 1));
  if (g->probe_x == NULL) {
    free(g);
    return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  if (nparams) memcpy(g->probe_x, probe_x, sizeof(double) * (size_t)nparams);
  *out = g;
  return POD_OK;
}

static void blob_free(gblob *b) {
  if (b == NULL) return;
  for (int i = 0; i < b->npatches; i++) free((char *)b->patches[i].field);
  free(b->patches);
  free(b->checked);
  free(b->tmpl);
  free(b->name);
  free(b->where);
  free(b);
}

void pod_graph_free(pod_graph *g) {
  if (g == NULL) return;
  for (int i = 0; i < g->n; i++) {
    blob_free(g->nodes[i].blob);
    free(g->nodes[i].where);
  }
  free(g->nodes);
  free(g->probe);
  free(g->parena);
  free(g->probe_x);
  free(g->outputs);
  free(g->live);
  free(g->run);
  free(g);
}

/* ---------------------------------------------------------------------- */
/* evaluation                                                              */
/* ---------------------------------------------------------------------- */

/* "where name: field: must be ..." as lpod_check_range words it. */
static int patch_error(const gblob *b, const pod_gpatch *p, pod_err *err,
                       const char *fmt, double v) {
  char msg[POD_ERR_MSG_MAX];
  const char *w = b->where[0] ? b->where : "";
  const char *sp = b->where[0] ? " " : "";
  if (fmt == NULL) {
    if (isnan(v) || isinf(v))
      snprintf(msg, sizeof msg, "must be a finite number (got %s)",
               isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
    else if (p->max == HUGE_VAL)
      snprintf(msg, sizeof msg, "must be %s %.10g (got %.10g)",
               p->min_open ? ">" : ">=", p->min, v);
    else
      snprintf(msg, sizeof msg, "must be in %s%.10g, %.10g] (got %.10g)",
               p->min_open ? "(" : "[", p->min, p->max, v);
  } else {
    snprintf(msg, sizeof msg, fmt, v);
  }
  return pod_err_set(err, POD_EINVAL, "eval", "%s%s%s: %s: %s", w, sp, b->name,
                     p->field, msg);
}

/* The last log10 a blob's patches took, by source node: patches of one
** value into several log10 fields (a rate scale per failure unit) take
** it once. */
typedef struct log_memo {
  int src;
  double l;
} log_memo;

static int apply_patch(const gblob *b, const pod_gpatch *p, unsigned char *dst,
                       const pod_gval *v, const unsigned char *arena,
                       const gnode *nodes, log_memo *lm, pod_err *err) {
  if (p->kind == POD_GP_BYTES) {
    memcpy(dst + p->offset, arena + nodes[p->src].arena + p->src_offset,
           p->size);
    return POD_OK;
  }
  double x = tonum(v[p->src]);
  if (!isfinite(x) || (p->min_open ? !(x > p->min) : !(x >= p->min)) ||
      x > p->max)
    return patch_error(b, p, err, NULL, x);
  switch (p->kind) {
    case POD_GP_DOUBLE:
      memcpy(dst + p->offset, &x, sizeof x);
      break;
    case POD_GP_INT: {
      if (x != floor(x))
        return patch_error(b, p, err, "must be an integer (got %.10g)", x);
      int iv = (int)x;
      memcpy(dst + p->offset, &iv, sizeof iv);
      break;
    }
    case POD_GP_LOG10: {
      if (lm->src != p->src) {
        lm->src = p->src;
        lm->l = log10(x);
      }
      double l = lm->l;
      memcpy(dst + p->offset, &l, sizeof l);
      break;
    }
    default:
      break;
  }
  return POD_OK;
}

/* Fresh (the probe): the blob's bytes start from nothing; else they hold
** the template from the workspace's start, and only what fn may write is
** restored (patches rewrite their own bytes every time). */
static int eval_blob(const gnode *nodes, const gnode *nd, pod_gval *v,
                     unsigned char *arena, int fresh, pod_err *err) {
  const gblob *b = nd->blob;
  unsigned char *dst = arena + nd->arena;
  size_t from = fresh ? 0 : b->out_off, to = fresh ? b->size : b->out_end;
  memcpy(dst + from, b->tmpl + from, to - from);
  log_memo lm = {-1, 0.0};
  for (int i = 0; i < b->npatches; i++) {
    int rc = apply_patch(b, &b->patches[i], dst, v, arena, nodes, &lm, err);
    if (rc != POD_OK) return rc;
  }
  if (b->fn) {
    pod_err e;
    pod_err_clear(&e);
    int rc = b->fn(dst, &e);
    if (rc != POD_OK) {
      const char *w = b->where[0] ? b->where : "";
      const char *sp = b->where[0] ? " " : "";
      return pod_err_set(err, rc, "eval", "%s%s%s: %s%s%s", w, sp, b->name,
                         e.field, e.field[0] ? ": " : "",
                         e.msg[0] ? e.msg : pod_strerror(rc));
    }
  }
  return POD_OK;
}

static int eval_node(const pod_graph *g, int i, const double *x, pod_gval *v,
                     unsigned char *arena, int fresh, pod_err *err) {
  const gnode *nd = &g->nodes[i];
  switch ((int)nd->op) {
    case POD_G_CONST:
      v[i] = nd->k;
      return POD_OK;
    case POD_G_PARAM:
      v[i] = mkflt(x[nd->param]);
      return POD_OK;
    case OP_BLOB:
      return eval_blob(g->nodes, nd, v, arena, fresh, err);
    case OP_FIELD: {
      const unsigned char *p = arena + g->nodes[nd->a].arena + nd->off;
      if (nd->ftype == POD_GF_DOUBLE) {
        double d;
        memcpy(&d, p, sizeof d);
        v[i] = mkflt(d);
      } else if (nd->ftype == POD_GF_INT) {
        int iv;
        memcpy(&iv, p, sizeof iv);
        v[i] = mkint(iv);
      } else {
        int64_t iv;
        memcpy(&iv, p, sizeof iv);
        v[i] = mkint(iv);
      }
      return POD_OK;
    }
    default: {
      pod_gval b = nd->b >= 0 ? v[nd->b] : mkint(0);
      int rc = pod_graph_arith(nd->op, v[nd->a], b, &v[i], err);
      if (rc != POD_OK && err && nd->where && nd->where[0]) {
        char msg[POD_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", err->msg);
        pod_err_set(err, rc, "eval", "%s %s", nd->where, msg);
      }
      return rc;
    }
  }
}

/* ---------------------------------------------------------------------- */
/* building                                                                */
/* ---------------------------------------------------------------------- */

static int grow(pod_graph *g, pod_err *err) {
  if (g->finished)
    return pod_err_set(err, POD_EINVAL, "graph", "graph is finished");
  if (g->n < g->cap) return POD_OK;
  int cap = g->cap ? 2 * g->cap : 64;
  gnode *nn = realloc(g->nodes, sizeof *nn * (size_t)cap);
  if (nn == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  g->nodes = nn;
  pod_gval *pv = realloc(g->probe, sizeof *pv * (size_t)cap);
  if (pv == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  g->probe = pv;
  g->cap = cap;
  return POD_OK;
}

/* Does node nd (not yet added) depend on no parameter? */
static int node_isconst(const pod_graph *g, const gnode *nd) {
  switch ((int)nd->op) {
    case POD_G_CONST:
      return 1;
    case POD_G_PARAM:
      return 0;
    case OP_BLOB:
      for (int p = 0; p < nd->blob->npatches; p++)
        if (!g->nodes[nd->blob->patches[p].src].isconst) return 0;
      return 1;
    default:
      return g->nodes[nd->a].isconst && (nd->b < 0 || g->nodes[nd->b].isconst);
  }
}

/* Append node *nd (taking its allocations) and evaluate it at the probe. */
static int push_node(pod_graph *g, gnode *nd, pod_err *err) {
  int rc = grow(g, err);
  if (rc == POD_OK && nd->op == (pod_graph_op)OP_BLOB) {
    size_t need = g->arena_size + ((nd->blob->size + 15) & ~(size_t)15);
    if (need > g->arena_cap) {
      size_t cap = g->arena_cap ? g->arena_cap : 4096;
      while (cap < need) cap *= 2;
      unsigned char *na = realloc(g->parena, cap);
      if (na == NULL)
        rc = pod_err_set(err, POD_ENOMEM, "", "out of memory");
      else {
        g->parena = na;
        g->arena_cap = cap;
      }
    }
    if (rc == POD_OK) {
      nd->arena = g->arena_size;
      g->arena_size = need;
    }
  }
  if (rc == POD_OK) {
    nd->isconst = node_isconst(g, nd);
    nd->vk = pod_graph__kind(g, nd);
    g->nodes[g->n] = *nd;
    rc = eval_node(g, g->n, g->probe_x, g->probe, g->parena, 1, err);
    if (rc != POD_OK && nd->op == (pod_graph_op)OP_BLOB)
      g->arena_size = nd->arena;
  }
  if (rc != POD_OK) {
    blob_free(nd->blob);
    free(nd->where);
    return rc;
  }
  return g->n++;
}

static int check_node(const pod_graph *g, int a, pod_err *err) {
  if (a < 0 || a >= g->n)
    return pod_err_set(err, POD_EINVAL, "node", "no node %d", a);
  return POD_OK;
}

int pod_graph_const(pod_graph *g, pod_gval v, pod_err *err) {
  gnode nd;
  memset(&nd, 0, sizeof nd);
  nd.op = POD_G_CONST;
  nd.k = v;
  nd.a = nd.b = -1;
  return push_node(g, &nd, err);
}

int pod_graph_param(pod_graph *g, int i, pod_err *err) {
  if (i < 0 || i >= g->nparams)
    return pod_err_set(err, POD_EINVAL, "param", "no parameter %d", i);
  gnode nd;
  memset(&nd, 0, sizeof nd);
  nd.op = POD_G_PARAM;
  nd.param = i;
  nd.a = nd.b = -1;
  return push_node(g, &nd, err);
}

static int is_binary(pod_graph_op op) {
  switch (op) {
    case POD_G_ADD:
    case POD_G_SUB:
    case POD_G_MUL:
    case POD_G_DIV:
    case POD_G_MOD:
    case POD_G_POW:
    case POD_G_IDIV:
    case POD_G_LOGB:
    case POD_G_ATAN:
    case POD_G_FMOD:
    case POD_G_MIN:
    case POD_G_MAX:
      return 1;
    default:
      return 0;
  }
}

int pod_graph_node_op(pod_graph *g, pod_graph_op op, int a, int b,
                      const char *where, pod_err *err) {
  if ((int)op < POD_G_ADD || op >= POD_G_NOPS)
    return pod_err_set(err, POD_EINVAL, "op", "not an operation: %d", (int)op);
  int rc = check_node(g, a, err);
  if (rc == POD_OK && is_binary(op)) rc = check_node(g, b, err);
  if (rc != POD_OK) return rc;
  if (pod_graph_is_blob(g, a) || (is_binary(op) && pod_graph_is_blob(g, b)))
    return pod_err_set(err, POD_EINVAL, "op", "arithmetic on a struct node");
  gnode nd;
  memset(&nd, 0, sizeof nd);
  nd.op = op;
  nd.a = a;
  nd.b = is_binary(op) ? b : -1;
  if (where && where[0] &&
      (op == POD_G_IDIV || op == POD_G_MOD || op == POD_G_FMOD)) {
    nd.where = dupstr(where);
    if (nd.where == NULL)
      return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  return push_node(g, &nd, err);
}

int pod_graph_blob(pod_graph *g, const pod_gblob_spec *s, pod_err *err) {
  if (s->size == 0 || s->tmpl == NULL || s->npatches < 0)
    return pod_err_set(err, POD_EINVAL, "blob", "needs a size and a template");
  for (int i = 0; i < s->npatches; i++) {
    const pod_gpatch *p = &s->patches[i];
    int rc = check_node(g, p->src, err);
    if (rc != POD_OK) return rc;
    size_t w = p->kind == POD_GP_BYTES ? p->size
               : p->kind == POD_GP_INT ? sizeof(int)
                                       : sizeof(double);
    if (p->offset > s->size || w > s->size - p->offset)
      return pod_err_set(err, POD_EINVAL, "patch",
                         "patch %d is outside the blob", i);
    int src_blob = pod_graph_is_blob(g, p->src);
    if ((p->kind == POD_GP_BYTES) != src_blob)
      return pod_err_set(err, POD_EINVAL, "patch",
                         "patch %d: source kind mismatch", i);
    if (src_blob && (p->src_offset > g->nodes[p->src].blob->size ||
                     p->size > g->nodes[p->src].blob->size - p->src_offset))
      return pod_err_set(err, POD_EINVAL, "patch",
                         "patch %d reads outside its source", i);
  }
  gblob *b = calloc(1, sizeof *b);
  if (b == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  b->name = dupstr(s->name);
  b->where = dupstr(s->where);
  b->size = s->size;
  b->fn = s->fn;
  b->fn2 = s->fn ? s->fn2 : NULL;
  b->out_off = s->out_off <= s->size ? s->out_off : 0;
  b->out_end =
      b->out_off > 0 && s->out_end >= b->out_off && s->out_end <= s->size
          ? s->out_end
          : s->size;
  b->out_full = b->out_off > 0 && s->out_full;
  b->tmpl = malloc(s->size);
  b->patches = calloc((size_t)s->npatches + 1, sizeof *b->patches);
  if (!b->name || !b->where || !b->tmpl || !b->patches) {
    blob_free(b);
    return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  memcpy(b->tmpl, s->tmpl, s->size);
  for (int i = 0; i < s->npatches; i++) {
    b->patches[i] = s->patches[i];
    b->patches[i].field = dupstr(s->patches[i].field);
    b->npatches = i + 1;
    if (b->patches[i].field == NULL) {
      blob_free(b);
      return pod_err_set(err, POD_ENOMEM, "", "out of memory");
    }
  }
  gnode nd;
  memset(&nd, 0, sizeof nd);
  nd.op = (pod_graph_op)OP_BLOB;
  nd.a = nd.b = -1;
  nd.blob = b;
  return push_node(g, &nd, err);
}

int pod_graph_field(pod_graph *g, int blob, size_t offset, pod_gfield_type type,
                    pod_err *err) {
  int rc = check_node(g, blob, err);
  if (rc != POD_OK) return rc;
  if (!pod_graph_is_blob(g, blob))
    return pod_err_set(err, POD_EINVAL, "field", "node %d is not a struct",
                       blob);
  size_t w = type == POD_GF_DOUBLE ? sizeof(double)
             : type == POD_GF_INT  ? sizeof(int)
                                   : sizeof(int64_t);
  if (offset > g->nodes[blob].blob->size ||
      w > g->nodes[blob].blob->size - offset)
    return pod_err_set(err, POD_EINVAL, "field",
                       "offset %zu is outside the struct", offset);
  gnode nd;
  memset(&nd, 0, sizeof nd);
  nd.op = (pod_graph_op)OP_FIELD;
  nd.a = blob;
  nd.b = -1;
  nd.off = offset;
  nd.ftype = type;
  return push_node(g, &nd, err);
}

pod_gval pod_graph_probe(const pod_graph *g, int node) {
  return g->probe[node];
}

const void *pod_graph_probe_blob(const pod_graph *g, int node) {
  return g->parena + g->nodes[node].arena;
}

int pod_graph_is_blob(const pod_graph *g, int node) {
  return node >= 0 && node < g->n && g->nodes[node].op == (pod_graph_op)OP_BLOB;
}

size_t pod_graph_blob_size(const pod_graph *g, int node) {
  return pod_graph_is_blob(g, node) ? g->nodes[node].blob->size : 0;
}

int pod_graph_nodes(const pod_graph *g) {
  return g->n;
}

int pod_graph_patches_write(const pod_gpatch *patches, int np, size_t offset,
                            size_t size) {
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    size_t w = p->kind == POD_GP_BYTES ? p->size
               : p->kind == POD_GP_INT ? sizeof(int)
                                       : sizeof(double);
    if (p->offset < offset + size && offset < p->offset + w) return 1;
  }
  return 0;
}

int pod_graph_blob_writes(const pod_graph *g, int node, size_t offset,
                          size_t size) {
  if (!pod_graph_is_blob(g, node)) return 0;
  const gblob *b = g->nodes[node].blob;
  return pod_graph_patches_write(b->patches, b->npatches, offset, size);
}
int pod_graph_live(const pod_graph *g) {
  return g->nlive;
}
int pod_graph_blobs(const pod_graph *g) {
  return g->nblobs;
}
int pod_graph_hoisted(const pod_graph *g) {
  return g->nlive - g->nrun;
}

/* Has the number patch p writes always passed p's own test before?  When
** its source reads field o of a blob whose patch at o wrote it with the
** same test (a spec's field copied into a kernel's config): the value is
** that patch's, which was checked first. */
static int patch_prechecked(const pod_graph *g, const pod_gpatch *p) {
  if (p->kind != POD_GP_DOUBLE && p->kind != POD_GP_INT) return 0;
  const gnode *f = &g->nodes[p->src];
  if (f->op != (pod_graph_op)OP_FIELD) return 0;
  if (f->ftype != (p->kind == POD_GP_INT ? POD_GF_INT : POD_GF_DOUBLE))
    return 0;
  const gblob *s = g->nodes[f->a].blob;
  int hit = 0;
  for (int i = 0; i < s->npatches; i++) {
    const pod_gpatch *q = &s->patches[i];
    size_t w = q->kind == POD_GP_BYTES ? q->size
               : q->kind == POD_GP_INT ? sizeof(int)
                                       : sizeof(double);
    if (q->offset >=
            f->off + (f->ftype == POD_GF_INT ? sizeof(int) : sizeof(double)) ||
        f->off >= q->offset + w)
      continue; /* does not touch the field */
    /* the last patch there wins: it must be the same test, exactly there */
    hit = q->offset == f->off && q->kind == p->kind && q->min == p->min &&
          q->max == p->max && q->min_open == p->min_open;
  }
  /* and the blob's function must not rewrite it: only [out_off, size) */
  return hit && s->out_off > 0 && f->off + sizeof(double) <= s->out_off;
}

int pod_graph_finish(pod_graph *g, const int *outputs, int noutputs,
                     pod_err *err) {
  if (g->finished)
    return pod_err_set(err, POD_EINVAL, "graph", "already finished");
  if (noutputs < 1)
    return pod_err_set(err, POD_EINVAL, "outputs", "at least one output");
  for (int m = 0; m < noutputs; m++) {
    int rc = check_node(g, outputs[m], err);
    if (rc != POD_OK) return rc;
    if (pod_graph_is_blob(g, outputs[m]))
      return pod_err_set(err, POD_EINVAL, "outputs", "output %d is a struct",
                         m);
  }
  char *mark = calloc((size_t)g->n + 1, 1);
  g->outputs = malloc(sizeof(int) * (size_t)noutputs);
  g->live = malloc(sizeof(int) * (size_t)(g->n + 1));
  g->run = malloc(sizeof(int) * (size_t)(g->n + 1));
  if (!mark || !g->outputs || !g->live || !g->run) {
    free(mark);
    return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  memcpy(g->outputs, outputs, sizeof(int) * (size_t)noutputs);
  g->noutputs = noutputs;
  for (int m = 0; m < noutputs; m++) mark[outputs[m]] = 1;
  /* nodes only depend on earlier nodes: one backward sweep marks them */
  for (int i = g->n - 1; i >= 0; i--) {
    if (!mark[i]) continue;
    const gnode *nd = &g->nodes[i];
    if (nd->a >= 0) mark[nd->a] = 1;
    if (nd->b >= 0) mark[nd->b] = 1;
    if (nd->blob)
      for (int p = 0; p < nd->blob->npatches; p++)
        mark[nd->blob->patches[p].src] = 1;
  }
  g->nlive = g->nblobs = g->nrun = 0;
  for (int i = 0; i < g->n; i++)
    if (mark[i]) {
      g->live[g->nlive++] = i;
      if (g->nodes[i].blob) g->nblobs++;
      if (!g->nodes[i].isconst) g->run[g->nrun++] = i;
    }
  free(mark);
  for (int k = 0; k < g->nlive; k++) {
    gblob *b = g->nodes[g->live[k]].blob;
    if (b == NULL) continue;
    b->checked = calloc((size_t)b->npatches + 1, 1);
    if (b->checked == NULL)
      return pod_err_set(err, POD_ENOMEM, "", "out of memory");
    for (int i = 0; i < b->npatches; i++)
      b->checked[i] = (unsigned char)patch_prechecked(g, &b->patches[i]);
  }
  g->finished = 1;
  return POD_OK;
}

int pod_graph_ws_new(const pod_graph *g, pod_graph_ws **out, pod_err *err) {
  *out = NULL;
  pod_graph_ws *ws = calloc(1, sizeof *ws);
  if (ws == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  ws->v = calloc((size_t)g->n + 1, sizeof *ws->v);
  ws->arena = malloc(g->arena_size + 16);
  if (!ws->v || !ws->arena) {
    pod_graph_ws_free(ws);
    return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  /* Nodes that depend on no parameter once: their probe values and
  ** bytes (evaluated by the same code on the same inputs).  The other
  ** blobs start from their templates (eval_blob). */
  for (int k = 0; k < g->nlive; k++) {
    const gnode *nd = &g->nodes[g->live[k]];
    if (nd->isconst) {
      ws->v[g->live[k]] = g->probe[g->live[k]];
      if (nd->blob)
        memcpy(ws->arena + nd->arena, g->parena + nd->arena, nd->blob->size);
    } else if (nd->blob) {
      memcpy(ws->arena + nd->arena, nd->blob->tmpl, nd->blob->size);
    }
  }
  *out = ws;
  return POD_OK;
}

void pod_graph_ws_free(pod_graph_ws *ws) {
  if (ws == NULL) return;
  free(ws->v);
  free(ws->arena);
  free(ws);
}

int pod_graph_eval(const pod_graph *g, pod_graph_ws *ws, const double *x,
                   double *y, pod_err *err) {
  if (!g->finished)
    return pod_err_set(err, POD_EINVAL, "graph", "not finished");
  for (int k = 0; k < g->nrun; k++) {
    int i = g->run[k];
    int rc = eval_node(g, i, x, ws->v, ws->arena, 0, err);
    if (rc != POD_OK) return rc;
  }
  for (int m = 0; m < g->noutputs; m++) y[m] = tonum(ws->v[g->outputs[m]]);
  return POD_OK;
}

int pod_graph_field_src(const pod_graph *g, int node, int *blob,
                        size_t *offset) {
  if (node < 0 || node >= g->n || g->nodes[node].op != (pod_graph_op)OP_FIELD)
    return 0;
  *blob = g->nodes[node].a;
  *offset = g->nodes[node].off;
  return 1;
}

pod_graph_blob_fn pod_graph_blob_fn_of(const pod_graph *g, int node) {
  return pod_graph_is_blob(g, node) ? g->nodes[node].blob->fn : NULL;
}

int pod_graph_blob_npatches(const pod_graph *g, int node) {
  return pod_graph_is_blob(g, node) ? g->nodes[node].blob->npatches : 0;
}

const pod_gpatch *pod_graph_blob_patch(const pod_graph *g, int node, int i) {
  if (i < 0 || i >= pod_graph_blob_npatches(g, node)) return NULL;
  return &g->nodes[node].blob->patches[i];
}
