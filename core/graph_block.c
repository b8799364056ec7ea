/*
** graph_block.c: evaluating a recorded graph over a block of samples
** (pod_graph_eval_block, pod_graph.h).
**
** The block workspace holds, per live node, a column of `lanes` values
** (structure of arrays) and, per blob node that depends on a parameter,
** one blob per lane.  The graph is walked once per block: each node runs
** as a loop over the lanes, so the dispatch on the operation, the kind of
** each patch and its range are decided once per block, arithmetic on
** floats runs as plain loops and kernel calls run back to back.  Every
** lane does the same operations in the same order as pod_graph_eval (a
** node's value has one Lua subtype whatever the sample, GV_*, except for
** math.floor/ceil of floats and min/max of mixed subtypes: those lanes
** carry tagged values and go through pod_graph_arith), so the metrics are
** identical bit for bit.
**
** A lane that fails (a patch out of range, a kernel's check, an integer
** division by zero) ends the block there: the lanes after it are not
** evaluated further, and since only earlier lanes go on, the block ends
** at its first failing sample.  That sample is then evaluated again by
** pod_graph_eval, which reports its error word for word.
*/
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "graph_int.h"

#ifdef __SSE2__
#include <emmintrin.h>
#endif

struct pod_graph_bws {
  int lanes;
  void **col;           /* per node: lanes values (GV_FLT: double, GV_INT:
                           int64_t, GV_MIX: pod_gval); NULL for blobs */
  unsigned char **base; /* per blob node: lane 0's bytes */
  size_t *stride;       /* per blob node: bytes between lanes (0: one
                           copy, a blob that depends on no parameter) */
  unsigned char *mem;   /* columns and per-lane blobs */
  double *t0, *t1;      /* scratch columns */
  double *tl[2];        /* log10 of a patch source, memo_src's (run_blob) */
  pod_graph_ws *one;    /* for the error of a failing sample */
};

static size_t align16(size_t n) {
  return (n + 15) & ~(size_t)15;
}

static int is_flt_op(pod_graph_op op) {
  return op == POD_G_DIV || op == POD_G_POW ||
         (op >= POD_G_SQRT && op <= POD_G_ATAN);
}

int pod_graph__kind(const pod_graph *g, const gnode *nd) {
  int ka = nd->a >= 0 ? g->nodes[nd->a].vk : GV_FLT;
  int kb = nd->b >= 0 ? g->nodes[nd->b].vk : ka;
  switch ((int)nd->op) {
    case POD_G_CONST:
      return nd->k.isint ? GV_INT : GV_FLT;
    case POD_G_PARAM:
      return GV_FLT;
    case OP_BLOB:
      return GV_MIX; /* not a number */
    case OP_FIELD:
      return nd->ftype == POD_GF_DOUBLE ? GV_FLT : GV_INT;
    case POD_G_UNM:
    case POD_G_ABS:
      return ka;
    case POD_G_FLOOR:
    case POD_G_CEIL:
      return ka == GV_INT ? GV_INT : GV_MIX; /* a float: an int if it fits */
    case POD_G_MIN:
    case POD_G_MAX:
      return ka == kb ? ka : GV_MIX;
    default:
      if (is_flt_op(nd->op)) return GV_FLT;
      /* + - * // % fmod: integers on integers, else floats */
      if (ka == GV_MIX || kb == GV_MIX) return GV_MIX;
      return ka == GV_INT && kb == GV_INT ? GV_INT : GV_FLT;
  }
}

/* ---------------------------------------------------------------------- */
/* workspace                                                               */
/* ---------------------------------------------------------------------- */

static pod_gval lane_get(const void *col, int vk, int j) {
  if (vk == GV_FLT) return mkflt(((const double *)col)[j]);
  if (vk == GV_INT) return mkint(((const int64_t *)col)[j]);
  return ((const pod_gval *)col)[j];
}

static void lane_set(void *col, int vk, int j, pod_gval v) {
  if (vk == GV_FLT)
    ((double *)col)[j] = v.u.d;
  else if (vk == GV_INT)
    ((int64_t *)col)[j] = v.u.i;
  else
    ((pod_gval *)col)[j] = v;
}

void pod_graph_bws_free(pod_graph_bws *ws) {
  if (ws == NULL) return;
  free(ws->col);
  free(ws->base);
  free(ws->stride);
  free(ws->mem);
  pod_graph_ws_free(ws->one);
  free(ws);
}

/* Lay out the columns and per-lane blobs of ws (sizes only when mem is
** NULL); returns the bytes needed. */
static size_t bws_layout(const pod_graph *g, pod_graph_bws *ws) {
  size_t colb = align16(sizeof(pod_gval) * (size_t)ws->lanes), at = 0;
  at += 4 * colb; /* t0, t1, tl[0], tl[1] */
  if (ws->mem) {
    ws->t0 = (double *)ws->mem;
    ws->t1 = (double *)(ws->mem + colb);
    ws->tl[0] = (double *)(ws->mem + 2 * colb);
    ws->tl[1] = (double *)(ws->mem + 3 * colb);
  }
  for (int k = 0; k < g->nlive; k++) {
    int i = g->live[k];
    const gnode *nd = &g->nodes[i];
    if (nd->blob && nd->isconst) {
      if (ws->mem) ws->base[i] = g->parena + nd->arena; /* stride 0 */
    } else if (nd->blob) {
      size_t st = align16(nd->blob->size);
      if (ws->mem) {
        ws->base[i] = ws->mem + at;
        ws->stride[i] = st;
      }
      at += st * (size_t)ws->lanes;
    } else {
      if (ws->mem) ws->col[i] = ws->mem + at;
      at += colb;
    }
  }
  return at;
}

int pod_graph_bws_new(const pod_graph *g, int lanes, pod_graph_bws **out,
                      pod_err *err) {
  *out = NULL;
  if (!g->finished)
    return pod_err_set(err, POD_EINVAL, "graph", "not finished");
  if (lanes < 1 || lanes > 4096)
    return pod_err_set(err, POD_EINVAL, "lanes", "must be in [1, 4096]");
  pod_graph_bws *ws = calloc(1, sizeof *ws);
  if (ws == NULL) return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  ws->lanes = lanes;
  size_t need = bws_layout(g, ws);
  ws->col = calloc((size_t)g->n + 1, sizeof *ws->col);
  ws->base = calloc((size_t)g->n + 1, sizeof *ws->base);
  ws->stride = calloc((size_t)g->n + 1, sizeof *ws->stride);
  ws->mem = malloc(need);
  if (!ws->col || !ws->base || !ws->stride || !ws->mem ||
      pod_graph_ws_new(g, &ws->one, err) != POD_OK) {
    pod_graph_bws_free(ws);
    return pod_err_set(err, POD_ENOMEM, "", "out of memory");
  }
  bws_layout(g, ws);
  /* what depends on no parameter: its probe value in every lane; the
  ** per-lane blobs start from their templates (as pod_graph_ws_new) */
  for (int k = 0; k < g->nlive; k++) {
    int i = g->live[k];
    const gnode *nd = &g->nodes[i];
    if (nd->blob && !nd->isconst) {
      for (int j = 0; j < lanes; j++)
        memcpy(ws->base[i] + ws->stride[i] * (size_t)j, nd->blob->tmpl,
               nd->blob->size);
    } else if (!nd->blob && nd->isconst) {
      for (int j = 0; j < lanes; j++)
        lane_set(ws->col[i], nd->vk, j, g->probe[i]);
    }
  }
  *out = ws;
  return POD_OK;
}

int pod_graph_bws_lanes(const pod_graph_bws *ws) {
  return ws->lanes;
}

/* ---------------------------------------------------------------------- */
/* nodes over n lanes; each returns the lanes still going (<= n)          */
/* ---------------------------------------------------------------------- */

/* Node id's lanes as doubles (its column, or tmp converted). */
static const double *as_dbl(const pod_graph *g, const pod_graph_bws *ws, int id,
                            double *tmp, int n) {
  int vk = g->nodes[id].vk;
  if (vk == GV_FLT) return ws->col[id];
  for (int j = 0; j < n; j++) tmp[j] = tonum(lane_get(ws->col[id], vk, j));
  return tmp;
}

/* The float operations (arith_flt in graph_arith.c, operation by
** operation). */
static void flt_loop(pod_graph_op op, const double *restrict x,
                     const double *restrict y, double *restrict r, int n) {
  switch (op) {
    case POD_G_ADD:
      for (int j = 0; j < n; j++) r[j] = x[j] + y[j];
      break;
    case POD_G_SUB:
      for (int j = 0; j < n; j++) r[j] = x[j] - y[j];
      break;
    case POD_G_MUL:
      for (int j = 0; j < n; j++) r[j] = x[j] * y[j];
      break;
    case POD_G_DIV:
      for (int j = 0; j < n; j++) r[j] = x[j] / y[j];
      break;
    case POD_G_UNM:
      for (int j = 0; j < n; j++) r[j] = -x[j];
      break;
    case POD_G_ABS:
      for (int j = 0; j < n; j++) r[j] = fabs(x[j]);
      break;
    case POD_G_SQRT:
      for (int j = 0; j < n; j++) r[j] = sqrt(x[j]);
      break;
    case POD_G_MIN: /* the first least: b only when b < a */
      for (int j = 0; j < n; j++) r[j] = y[j] < x[j] ? y[j] : x[j];
      break;
    case POD_G_MAX:
      for (int j = 0; j < n; j++) r[j] = x[j] < y[j] ? y[j] : x[j];
      break;
    case POD_G_FMOD:
      for (int j = 0; j < n; j++) r[j] = fmod(x[j], y[j]);
      break;
    case POD_G_POW: /* graph_arith.c's luai_numpow on floats */
      for (int j = 0; j < n; j++)
        r[j] = y[j] == 2 ? x[j] * x[j] : pow(x[j], y[j]);
      break;
    default: /* the rest call libm per lane, as graph_arith.c does */
      for (int j = 0; j < n; j++) {
        pod_gval v;
        pod_graph_arith(op, mkflt(x[j]), mkflt(y[j]), &v, NULL);
        r[j] = v.u.d;
      }
      break;
  }
}

static int int_loop(pod_graph_op op, const int64_t *restrict a,
                    const int64_t *restrict b, int64_t *restrict r, int n) {
  switch (op) {
    case POD_G_ADD:
      for (int j = 0; j < n; j++)
        r[j] = (int64_t)((uint64_t)a[j] + (uint64_t)b[j]);
      return 1;
    case POD_G_SUB:
      for (int j = 0; j < n; j++)
        r[j] = (int64_t)((uint64_t)a[j] - (uint64_t)b[j]);
      return 1;
    case POD_G_MUL:
      for (int j = 0; j < n; j++)
        r[j] = (int64_t)((uint64_t)a[j] * (uint64_t)b[j]);
      return 1;
    case POD_G_MIN:
      for (int j = 0; j < n; j++) r[j] = b[j] < a[j] ? b[j] : a[j];
      return 1;
    case POD_G_MAX:
      for (int j = 0; j < n; j++) r[j] = a[j] < b[j] ? b[j] : a[j];
      return 1;
    default:
      return 0;
  }
}

static int run_arith(const pod_graph *g, pod_graph_bws *ws, int i, int n) {
  const gnode *nd = &g->nodes[i];
  int binary = nd->b >= 0;
  int ka = g->nodes[nd->a].vk, kb = binary ? g->nodes[nd->b].vk : ka;
  /* float results of numbers of fixed subtypes: plain loops */
  if (nd->vk == GV_FLT && ka != GV_MIX && kb != GV_MIX) {
    const double *x = as_dbl(g, ws, nd->a, ws->t0, n);
    const double *y = binary ? as_dbl(g, ws, nd->b, ws->t1, n) : x;
    flt_loop(nd->op, x, y, ws->col[i], n);
    return n;
  }
  if (nd->vk == GV_INT && ka == GV_INT && binary &&
      int_loop(nd->op, ws->col[nd->a], ws->col[nd->b], ws->col[i], n))
    return n;
  /* the rest lane by lane with Lua's rules (integer // and % fail on 0) */
  pod_err e;
  pod_err_clear(&e);
  for (int j = 0; j < n; j++) {
    pod_gval a = lane_get(ws->col[nd->a], ka, j), r;
    pod_gval b = binary ? lane_get(ws->col[nd->b], kb, j) : mkint(0);
    if (pod_graph_arith(nd->op, a, b, &r, &e) != POD_OK) return j;
    lane_set(ws->col[i], nd->vk, j, r);
  }
  return n;
}

/* Any of x[0..n) not finite or not in range (apply_patch's test):
** branch-free, two lanes a step in SSE2 (an ordered compare is false on
** NaN, and |x| <= DBL_MAX false on infinities), the scalar test else. */
static int any_out(const double *restrict x, int n, double lo, double hi,
                   int open) {
  int bad = 0, j = 0;
#ifdef __SSE2__
  const __m128d sign = _mm_set1_pd(-0.0), big = _mm_set1_pd(DBL_MAX);
  const __m128d vlo = _mm_set1_pd(lo), vhi = _mm_set1_pd(hi);
  __m128d ok = _mm_castsi128_pd(_mm_set1_epi32(-1));
  if (open)
    for (; j + 2 <= n; j += 2) {
      __m128d v = _mm_loadu_pd(x + j);
      __m128d in =
          _mm_and_pd(_mm_cmple_pd(_mm_andnot_pd(sign, v), big),
                     _mm_and_pd(_mm_cmpgt_pd(v, vlo), _mm_cmple_pd(v, vhi)));
      ok = _mm_and_pd(ok, in);
    }
  else
    for (; j + 2 <= n; j += 2) {
      __m128d v = _mm_loadu_pd(x + j);
      __m128d in =
          _mm_and_pd(_mm_cmple_pd(_mm_andnot_pd(sign, v), big),
                     _mm_and_pd(_mm_cmpge_pd(v, vlo), _mm_cmple_pd(v, vhi)));
      ok = _mm_and_pd(ok, in);
    }
  bad = _mm_movemask_pd(ok) != 3;
#endif
  if (open)
    for (; j < n; j++)
      bad |= !((fabs(x[j]) <= DBL_MAX) & (x[j] > lo) & (x[j] <= hi));
  else
    for (; j < n; j++)
      bad |= !((fabs(x[j]) <= DBL_MAX) & (x[j] >= lo) & (x[j] <= hi));
  return bad;
}

/* The first of x[0..n) that is not finite or not in range (apply_patch's
** test), or n: a branch-free scan first, then the lane. */
static int first_out(const double *restrict x, int n, double lo, double hi,
                     int open) {
  if (!any_out(x, n, lo, hi, open)) return n;
  for (int j = 0; j < n; j++) {
    double v = x[j];
    if (!isfinite(v) || (open ? !(v > lo) : !(v >= lo)) || v > hi) return j;
  }
  return n;
}

static int run_patch(const pod_graph *g, pod_graph_bws *ws, unsigned char *dst,
                     size_t st, const pod_gpatch *p, int checked, int *memo_src,
                     int n) {
  if (p->kind == POD_GP_BYTES) {
    const unsigned char *s = ws->base[p->src] + p->src_offset;
    size_t sst = ws->stride[p->src];
    for (int j = 0; j < n; j++)
      memcpy(dst + st * (size_t)j + p->offset, s + sst * (size_t)j, p->size);
    return n;
  }
  const double *x = as_dbl(g, ws, p->src, ws->t0, n);
  if (!checked) n = first_out(x, n, p->min, p->max, p->min_open);
  unsigned char *d = dst + p->offset;
  switch (p->kind) {
    case POD_GP_DOUBLE:
      for (int j = 0; j < n; j++)
        memcpy(d + st * (size_t)j, &x[j], sizeof(double));
      break;
    case POD_GP_INT:
      for (int j = 0; j < n; j++) {
        if (x[j] != floor(x[j])) {
          n = j;
          break;
        }
        int iv = (int)x[j];
        memcpy(d + st * (size_t)j, &iv, sizeof iv);
      }
      break;
    case POD_GP_LOG10: {
      /* one log10 per source for up to two sources of a blob's fields
      ** (log10 of the same lanes' values: the same doubles); memo_src[2]
      ** is the slot the next new source takes */
      int m = memo_src[0] == p->src ? 0 : memo_src[1] == p->src ? 1 : -1;
      if (m < 0) {
        m = memo_src[2];
        memo_src[2] = !m;
        memo_src[m] = p->src;
        for (int j = 0; j < n; j++) ws->tl[m][j] = log10(x[j]);
      }
      for (int j = 0; j < n; j++)
        memcpy(d + st * (size_t)j, &ws->tl[m][j], sizeof(double));
      break;
    }
    default:
      break;
  }
  return n;
}

static int run_blob(const pod_graph *g, pod_graph_bws *ws, int i, int n) {
  const gblob *b = g->nodes[i].blob;
  unsigned char *dst = ws->base[i];
  size_t st = ws->stride[i], from = b->out_off, to = b->out_end;
  /* a result stored whole on success needs no restore: a lane's stale
  ** bytes are overwritten before any field is read, and a lane that
  ** fails ends the block */
  if (from < to && !b->out_full)
    for (int j = 0; j < n; j++)
      memcpy(dst + st * (size_t)j + from, b->tmpl + from, to - from);
  int memo_src[3] = {-1, -1, 0};
  for (int k = 0; k < b->npatches && n > 0; k++)
    n = run_patch(g, ws, dst, st, &b->patches[k], b->checked[k], memo_src, n);
  if (b->fn) {
    pod_err e;
    pod_err_clear(&e);
    int j = 0;
    if (b->fn2 && st > 0) /* lanes in pairs */
      for (; j + 2 <= n; j += 2) {
        int failed = 0;
        if (b->fn2(dst + st * (size_t)j, dst + st * (size_t)(j + 1), &failed,
                   &e) != POD_OK)
          return j + (failed == 1);
      }
    for (; j < n; j++)
      if (b->fn(dst + st * (size_t)j, &e) != POD_OK) return j;
  }
  return n;
}

static void run_field(const pod_graph *g, pod_graph_bws *ws, int i, int n) {
  const gnode *nd = &g->nodes[i];
  const unsigned char *s = ws->base[nd->a] + nd->off;
  size_t st = ws->stride[nd->a];
  if (nd->ftype == POD_GF_DOUBLE) {
    double *r = ws->col[i];
    for (int j = 0; j < n; j++)
      memcpy(&r[j], s + st * (size_t)j, sizeof(double));
  } else if (nd->ftype == POD_GF_INT) {
    int64_t *r = ws->col[i];
    for (int j = 0; j < n; j++) {
      int iv;
      memcpy(&iv, s + st * (size_t)j, sizeof iv);
      r[j] = iv;
    }
  } else {
    int64_t *r = ws->col[i];
    for (int j = 0; j < n; j++)
      memcpy(&r[j], s + st * (size_t)j, sizeof(int64_t));
  }
}

/* Row j's index in x and y: rows[j], or j. */
static size_t row_of(const int *rows, int j) {
  return (size_t)(rows ? rows[j] : j);
}

/* n <= lanes samples, lane j being row row_of(rows, j) of x and y; the
** lanes that went through (n: all). */
static int run_block(const pod_graph *g, pod_graph_bws *ws, int n,
                     const int *rows, const double *x, double *y) {
  size_t P = (size_t)g->nparams;
  for (int k = 0; k < g->nrun && n > 0; k++) {
    int i = g->run[k];
    const gnode *nd = &g->nodes[i];
    switch ((int)nd->op) {
      case POD_G_CONST:
        break; /* never per sample */
      case POD_G_PARAM: {
        double *r = ws->col[i];
        const double *xp = x + nd->param;
        if (rows)
          for (int j = 0; j < n; j++) r[j] = xp[(size_t)rows[j] * P];
        else /* a pointer stepping over the rows: no index product */
          for (int j = 0; j < n; j++, xp += P) r[j] = *xp;
        break;
      }
      case OP_BLOB:
        n = run_blob(g, ws, i, n);
        break;
      case OP_FIELD:
        run_field(g, ws, i, n);
        break;
      default:
        n = run_arith(g, ws, i, n);
        break;
    }
  }
  size_t M = (size_t)g->noutputs;
  for (size_t m = 0; m < M; m++) {
    const double *v = as_dbl(g, ws, g->outputs[m], ws->t0, n);
    if (rows) {
      for (int j = 0; j < n; j++) y[(size_t)rows[j] * M + m] = v[j];
    } else {
      double *yp = y + m;
      for (int j = 0; j < n; j++, yp += M) *yp = v[j];
    }
  }
  return n;
}

int pod_graph_eval_rows(const pod_graph *g, pod_graph_bws *ws, int n,
                        const int *rows, const double *x, double *y, int *nok,
                        pod_err *err) {
  *nok = 0;
  if (!g->finished)
    return pod_err_set(err, POD_EINVAL, "graph", "not finished");
  size_t P = (size_t)g->nparams, M = (size_t)g->noutputs;
  for (int j0 = 0; j0 < n; j0 += ws->lanes) {
    int nb = n - j0 < ws->lanes ? n - j0 : ws->lanes;
    const int *rb = rows ? rows + j0 : NULL;
    const double *xb = rows ? x : x + (size_t)j0 * P;
    double *yb = rows ? y : y + (size_t)j0 * M;
    int ok = run_block(g, ws, nb, rb, xb, yb);
    *nok = j0 + ok;
    if (ok < nb) {
      /* the first failing sample: its error as pod_graph_eval gives it */
      size_t r = row_of(rb, ok);
      int rc = pod_graph_eval(g, ws->one, xb + r * P, yb + r * M, err);
      if (rc == POD_OK)
        rc = pod_err_set(err, POD_EINVAL, "eval",
                         "internal error: sample %d failed in a block but "
                         "not alone",
                         j0 + ok);
      return rc;
    }
  }
  return POD_OK;
}

int pod_graph_eval_block(const pod_graph *g, pod_graph_bws *ws, int n,
                         const double *x, double *y, int *nok, pod_err *err) {
  return pod_graph_eval_rows(g, ws, n, NULL, x, y, nok, err);
}
