/*
** mc_codec.c: binary encoding of chunk results and of a plan's merge
** state (see pod_mc.h, "serialisation").
**
** Layout (every integer little-endian whatever the host, doubles as the
** little-endian bytes of their IEEE-754 binary64 pattern, so NaN payloads
** and signed zeros survive):
**
**   0  "PODM"            magic
**   4  u16 version       POD_MC_CODEC_VERSION
**   6  u8  kind          1 chunk result, 2 merge state
**   7  u8  0
**   8  u64 fingerprint   pod_mc_plan_fingerprint of the producing plan
**  16  u64 payload bytes
**  24  payload
**   .  u32 CRC-32 (IEEE 802.3, reflected 0xEDB88320) of bytes 0 .. end of
**      payload
**
** Chunk payload: i64 k, i64 n, i32 status; a failed chunk then carries its
** error (field, message: u32 length + bytes); otherwise M moments
** (i64 n, mean, m2, m3, m4, min, max, scale: the sums are kept in units
** of a power-of-two scale, pod_stats.h), u8 flags (1 sketch, 2 stored rows,
** 4 stored parameter rows, 8 Sobol sums), the M sketches (alpha, n, zero,
** min, max, positive and negative stores: i32 offset, i32 length, that
** many i64 counts, trimmed to the non-empty range), the stored rows
** (M metric columns then P parameter columns of n doubles), and for Sobol
** M moments of f(A), f(B) and P*M sums (i64 n, first, total).
**
** State payload: i64 chunks merged, i64 samples merged, i32 stopped, the
** G*M moments, u8 flags (1 sketch, 8 Sobol), G*M sketches, G stored row
** counts and their columns, G*M Sobol moments and G*P*M Sobol sums.
**
** Decoding checks everything it reads against the plan (fingerprint,
** chunk range, sample counts, flags, sketch counts, row counts): a buffer
** that passes is one the plan could have produced, and merges exactly as
** the original (the same bits in every accumulator).
*/
#include "mc_int.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define HDR_BYTES 24
#define MAGIC "PODM"
#define KIND_CHUNK 1
#define KIND_STATE 2
#define FLAG_SKETCH 1
#define FLAG_ROWS 2
#define FLAG_XROWS 4
#define FLAG_SOBOL 8
#define STORE_MAX (1 << 22) /* buckets: |key| < 2^17 for alpha 0.005 */

/* ---- CRC-32 and fingerprint ---- */

/* Slicing-by-8 (Intel, Kounavis & Berry 2005): crc_tab[0] is the bytewise
** table, crc_tab[k][i] the CRC of byte i followed by k zero bytes. */
static uint32_t crc_tab[8][256];
static pthread_once_t crc_once = PTHREAD_ONCE_INIT;

static void crc_init(void) {
  for (uint32_t i = 0; i < 256; i++) {
    uint32_t c = i;
    for (int j = 0; j < 8; j++) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_tab[0][i] = c;
  }
  for (int k = 1; k < 8; k++)
    for (int i = 0; i < 256; i++)
      crc_tab[k][i] =
          (crc_tab[k - 1][i] >> 8) ^ crc_tab[0][crc_tab[k - 1][i] & 0xFF];
}

uint32_t pod_mc_crc32(const void *data, size_t len) {
  pthread_once(&crc_once, crc_init);
  const unsigned char *p = data;
  uint32_t c = 0xFFFFFFFFu;
  for (; len >= 8; len -= 8, p += 8) {
    uint32_t lo = c ^ ((uint32_t)p[0] | (uint32_t)p[1] << 8 |
                       (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24);
    uint32_t hi = (uint32_t)p[4] | (uint32_t)p[5] << 8 | (uint32_t)p[6] << 16 |
                  (uint32_t)p[7] << 24;
    c = crc_tab[7][lo & 0xFF] ^ crc_tab[6][(lo >> 8) & 0xFF] ^
        crc_tab[5][(lo >> 16) & 0xFF] ^ crc_tab[4][lo >> 24] ^
        crc_tab[3][hi & 0xFF] ^ crc_tab[2][(hi >> 8) & 0xFF] ^
        crc_tab[1][(hi >> 16) & 0xFF] ^ crc_tab[0][hi >> 24];
  }
  for (; len > 0; len--, p++) c = crc_tab[0][(c ^ *p) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

static uint64_t fnv(uint64_t h, const void *data, size_t len) {
  const unsigned char *p = data;
  for (size_t i = 0; i < len; i++) {
    h ^= p[i];
    h *= 0x100000001b3ULL;
  }
  return h;
}

static uint64_t fnv_u64(uint64_t h, uint64_t v) {
  unsigned char b[8];
  for (int i = 0; i < 8; i++) b[i] = (unsigned char)(v >> (8 * i));
  return fnv(h, b, 8);
}

static uint64_t fnv_f64(uint64_t h, double x) {
  uint64_t v;
  memcpy(&v, &x, 8);
  return fnv_u64(h, v);
}

uint64_t pod_mc_plan_fingerprint(const pod_mc_plan *pl) {
  uint64_t h = 0xcbf29ce484222325ULL;
  h = fnv(h, "podsim-mc", 9);
  h = fnv_u64(h, POD_MC_CODEC_VERSION);
  int64_t ints[] = {
      pl->P,    pl->M,         pl->G,        pl->cs,          pl->N,
      pl->keep, pl->sens,      pl->exact,    pl->store_x,     pl->store_chunks,
      pl->qrng, pl->hist_bins, pl->hist_log, pl->stop_metric, pl->stop_min};
  for (size_t i = 0; i < sizeof ints / sizeof ints[0]; i++)
    h = fnv_u64(h, (uint64_t)ints[i]);
  h = fnv_u64(h, pl->seed);
  h = fnv_f64(h, pl->stop_rel);
  h = fnv_f64(h, pl->budget_bytes);
  for (int i = 0; i < pl->P; i++) {
    h = fnv(h, pl->pnames[i], strlen(pl->pnames[i]) + 1);
    const pod_dist *d = &pl->dists[i];
    h = fnv_u64(h, (uint64_t)d->kind);
    for (int j = 0; j < 4; j++) h = fnv_f64(h, d->p[j]);
    h = fnv_u64(h, (uint64_t)d->n);
    for (int j = 0; j < d->n; j++) {
      if (d->values) h = fnv_f64(h, d->values[j]);
      if (d->weights) h = fnv_f64(h, d->weights[j]);
    }
  }
  for (int m = 0; m < pl->M; m++)
    h = fnv(h, pl->mnames[m], strlen(pl->mnames[m]) + 1);
  return h;
}

/* ---- writer ---- */

typedef struct wbuf {
  unsigned char *p;
  size_t n, cap;
  int oom;
} wbuf;

static void w_bytes(wbuf *w, const void *src, size_t len) {
  if (w->oom) return;
  if (w->n + len > w->cap) {
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->n + len) cap *= 2;
    unsigned char *p = realloc(w->p, cap);
    if (!p) {
      w->oom = 1;
      return;
    }
    w->p = p;
    w->cap = cap;
  }
  memcpy(w->p + w->n, src, len);
  w->n += len;
}

static void w_uint(wbuf *w, uint64_t v, int bytes) {
  unsigned char b[8];
  for (int i = 0; i < bytes; i++) b[i] = (unsigned char)(v >> (8 * i));
  w_bytes(w, b, (size_t)bytes);
}

static void w_i64(wbuf *w, int64_t v) {
  w_uint(w, (uint64_t)v, 8);
}
static void w_i32(wbuf *w, int32_t v) {
  w_uint(w, (uint32_t)v, 4);
}
static void w_f64(wbuf *w, double x) {
  uint64_t v;
  memcpy(&v, &x, 8);
  w_uint(w, v, 8);
}

/* n doubles / int64 counts in one reservation (the per-row paths). */
static void w_words(wbuf *w, const void *src, size_t n, size_t stride) {
  if (w->oom || n == 0) return;
  size_t at = w->n;
  if (w->n + 8 * n > w->cap) {
    size_t cap = w->cap ? w->cap : 256;
    while (cap < w->n + 8 * n) cap *= 2;
    unsigned char *p = realloc(w->p, cap);
    if (!p) {
      w->oom = 1;
      return;
    }
    w->p = p;
    w->cap = cap;
  }
  const unsigned char *b = src;
  for (size_t i = 0; i < n; i++) {
    uint64_t v;
    memcpy(&v, b + i * stride, 8);
    unsigned char *d = w->p + at + 8 * i;
    for (int j = 0; j < 8; j++) d[j] = (unsigned char)(v >> (8 * j));
  }
  w->n = at + 8 * n;
}

static void w_str(wbuf *w, const char *s) {
  size_t len = strlen(s);
  w_uint(w, len, 4);
  w_bytes(w, s, len);
}

static void w_moments(wbuf *w, const pod_moments *m) {
  w_i64(w, m->n);
  w_f64(w, m->mean);
  w_f64(w, m->m2);
  w_f64(w, m->m3);
  w_f64(w, m->m4);
  w_f64(w, m->min);
  w_f64(w, m->max);
  w_f64(w, m->scale);
}

static void w_store(wbuf *w, const pod_sketch_store *st) {
  int32_t lo = 0, hi = 0; /* non-empty range [lo, hi) in st->c */
  if (st->c) {
    lo = 0;
    hi = st->len;
    while (lo < hi && st->c[lo] == 0) lo++;
    while (hi > lo && st->c[hi - 1] == 0) hi--;
  }
  w_i32(w, hi > lo ? st->off + lo : 0);
  w_i32(w, hi - lo);
  if (hi > lo) w_words(w, st->c + lo, (size_t)(hi - lo), sizeof(int64_t));
}

static void w_sketch(wbuf *w, const pod_sketch *s) {
  w_f64(w, s->alpha);
  w_i64(w, s->n);
  w_i64(w, s->zero);
  w_f64(w, s->min);
  w_f64(w, s->max);
  w_store(w, &s->pos);
  w_store(w, &s->neg);
}

static void w_sobol(wbuf *w, const pod_sobol_acc *a) {
  w_i64(w, a->n);
  w_f64(w, a->first);
  w_f64(w, a->total);
}

/* Header with a placeholder length; w_end fills it and appends the CRC. */
static void w_begin(wbuf *w, const pod_mc_plan *pl, int kind) {
  w_bytes(w, MAGIC, 4);
  w_uint(w, POD_MC_CODEC_VERSION, 2);
  w_uint(w, (uint64_t)kind, 1);
  w_uint(w, 0, 1);
  w_uint(w, pod_mc_plan_fingerprint(pl), 8);
  w_uint(w, 0, 8);
}

static int w_end(wbuf *w, unsigned char **buf, size_t *len, pod_err *err) {
  if (!w->oom) {
    uint64_t payload = w->n - HDR_BYTES;
    for (int i = 0; i < 8; i++)
      w->p[16 + i] = (unsigned char)(payload >> (8 * i));
    w_uint(w, pod_mc_crc32(w->p, w->n), 4);
  }
  if (w->oom) {
    free(w->p);
    *buf = NULL;
    *len = 0;
    return pod_err_set(err, POD_ENOMEM, "encode", "out of memory");
  }
  *buf = w->p;
  *len = w->n;
  return POD_OK;
}

/* ---- reader ---- */

typedef struct rbuf {
  const unsigned char *p;
  size_t n, at;
  int bad; /* ran past the end */
} rbuf;

static uint64_t r_uint(rbuf *r, int bytes) {
  if (r->bad || r->n - r->at < (size_t)bytes) {
    r->bad = 1;
    return 0;
  }
  uint64_t v = 0;
  for (int i = 0; i < bytes; i++) v |= (uint64_t)r->p[r->at + i] << (8 * i);
  r->at += (size_t)bytes;
  return v;
}

static int64_t r_i64(rbuf *r) {
  return (int64_t)r_uint(r, 8);
}
static int32_t r_i32(rbuf *r) {
  return (int32_t)(uint32_t)r_uint(r, 4);
}
static double r_f64(rbuf *r) {
  uint64_t v = r_uint(r, 8);
  double x;
  memcpy(&x, &v, 8);
  return x;
}

/* A string of at most cap-1 bytes into out. */
static void r_str(rbuf *r, char *out, size_t cap) {
  uint64_t len = r_uint(r, 4);
  if (r->bad || len >= cap || r->n - r->at < len) {
    r->bad = 1;
    out[0] = '\0';
    return;
  }
  memcpy(out, r->p + r->at, (size_t)len);
  out[len] = '\0';
  r->at += (size_t)len;
}

static void r_moments(rbuf *r, pod_moments *m) {
  m->n = r_i64(r);
  m->mean = r_f64(r);
  m->m2 = r_f64(r);
  m->m3 = r_f64(r);
  m->m4 = r_f64(r);
  m->min = r_f64(r);
  m->max = r_f64(r);
  m->scale = r_f64(r);
  m->inv = 1.0 / m->scale; /* exact: the scale is a power of two */
}

/* Moments a run could have produced: a power-of-two scale >= 1, empty
** as pod_moments_init leaves them, or finite sums and min <= max (m2 and m4 are
*not checked for
** sign: rounding may leave them a hair below 0 for near-constant data). */
static int moments_ok(const pod_moments *m) {
  int e;
  if (!(m->scale >= 1.0) || !isfinite(m->scale) || frexp(m->scale, &e) != 0.5)
    return 0; /* the scale is a power of two >= 1 */
  if (m->n == 0)
    return m->mean == 0 && m->m2 == 0 && m->m3 == 0 && m->m4 == 0 &&
           isnan(m->min) && isnan(m->max);
  return m->n > 0 && isfinite(m->mean) && isfinite(m->m2) && isfinite(m->m3) &&
         isfinite(m->m4) && isfinite(m->min) && isfinite(m->max) &&
         m->min <= m->max;
}

/* n finite doubles at x. */
static int finite_all(const double *x, int64_t n) {
  for (int64_t i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* n 8-byte words (doubles of a column, or counts) into dst. */
static void r_column(rbuf *r, void *dst, int64_t n) {
  if (r->bad || n < 0 || (uint64_t)n > (r->n - r->at) / 8) {
    r->bad = 1;
    return;
  }
  const unsigned char *b = r->p + r->at;
  for (int64_t i = 0; i < n; i++) {
    uint64_t v = 0;
    for (int j = 0; j < 8; j++) v |= (uint64_t)b[8 * i + j] << (8 * j);
    memcpy((unsigned char *)dst + 8 * i, &v, 8);
  }
  r->at += 8 * (size_t)n;
}

static int bad(pod_err *err, const char *what) {
  return pod_err_set(err, POD_EINVAL, "decode", "%s", what);
}

/* A store: checked, allocated to exactly its range; returns its count. */
static int r_store(rbuf *r, pod_sketch_store *st, int64_t *total,
                   pod_err *err) {
  int32_t off = r_i32(r), len = r_i32(r);
  if (r->bad) return bad(err, "truncated sketch");
  if (len < 0 || len > STORE_MAX || off < -STORE_MAX || off > STORE_MAX)
    return bad(err, "sketch store out of range");
  if ((uint64_t)len > (r->n - r->at) / 8) return bad(err, "truncated sketch");
  if (len == 0)
    return off == 0 ? POD_OK : bad(err, "sketch store not canonical");
  st->c = calloc((size_t)len, sizeof(int64_t));
  if (!st->c) return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
  st->off = off;
  st->len = len;
  r_column(r, st->c, len); /* 8-byte words, as the rows */
  if (r->bad) return bad(err, "truncated sketch");
  for (int32_t i = 0; i < len; i++) {
    int64_t c = st->c[i];
    if (c < 0 || c > INT64_MAX - *total) return bad(err, "bad sketch count");
    *total += c;
  }
  if (st->c[0] == 0 || st->c[len - 1] == 0)
    return bad(err, "sketch store not canonical"); /* encoders trim */
  return POD_OK;
}

/* A sketch of n values into s (initialised here; freed by the caller). */
static int r_sketch(rbuf *r, pod_sketch *s, int64_t n, pod_err *err) {
  double alpha = r_f64(r);
  if (r->bad) return bad(err, "truncated sketch");
  if (alpha != POD_SKETCH_ALPHA) return bad(err, "sketch of another accuracy");
  pod_sketch_init(s, alpha, NULL);
  s->n = r_i64(r);
  s->zero = r_i64(r);
  s->min = r_f64(r);
  s->max = r_f64(r);
  int64_t total = s->zero;
  if (s->zero < 0) return bad(err, "bad sketch count");
  int rc = r_store(r, &s->pos, &total, err);
  if (!rc) rc = r_store(r, &s->neg, &total, err);
  if (rc) return rc;
  if (s->n != n || total != n) return bad(err, "sketch counts do not add up");
  if (n > 0 ? !(isfinite(s->min) && isfinite(s->max) && s->min <= s->max)
            : !(isnan(s->min) && isnan(s->max)))
    return bad(err, "sketch range is not finite");
  return POD_OK;
}

/* Check the header and CRC; r is positioned at the payload. */
static int r_begin(rbuf *r, const pod_mc_plan *pl, int kind, pod_err *err) {
  if (r->n < HDR_BYTES + 4) return bad(err, "truncated record");
  if (memcmp(r->p, MAGIC, 4) != 0) return bad(err, "not a podsim record");
  r->at = 4;
  unsigned version = (unsigned)r_uint(r, 2);
  if (version != POD_MC_CODEC_VERSION)
    return pod_err_set(err, POD_EINVAL, "decode",
                       "format version %u (this podsim reads %d)", version,
                       POD_MC_CODEC_VERSION);
  int k = (int)r_uint(r, 1);
  if (r_uint(r, 1) != 0) /* reserved: one encoding per record */
    return bad(err, "reserved header byte is not 0");
  uint64_t fp = r_uint(r, 8);
  uint64_t payload = r_uint(r, 8);
  if (payload != r->n - HDR_BYTES - 4)
    return bad(err, "record length mismatch");
  uint32_t crc = (uint32_t)(r->p[r->n - 4] | (uint32_t)r->p[r->n - 3] << 8 |
                            (uint32_t)r->p[r->n - 2] << 16 |
                            (uint32_t)r->p[r->n - 1] << 24);
  if (crc != pod_mc_crc32(r->p, r->n - 4))
    return bad(err, "checksum mismatch (corrupt record)");
  if (k != kind) return bad(err, "record of another kind");
  if (fp != pod_mc_plan_fingerprint(pl))
    return bad(err, "record of another study (plan fingerprint differs)");
  r->n -= 4; /* the CRC is not payload */
  return POD_OK;
}

/* ---- chunks ---- */

static int chunk_flags(const pod_mc_plan *pl, int stored) {
  int f = 0;
  if (!pl->exact) f |= FLAG_SKETCH;
  if (stored) f |= FLAG_ROWS;
  if (stored && pl->store_x && pl->P > 0) f |= FLAG_XROWS;
  if (pl->sens == POD_MC_SENS_SOBOL) f |= FLAG_SOBOL;
  return f;
}

int pod_mc_chunk_encode(const pod_mc_plan *pl, const pod_mc_chunk *c,
                        unsigned char **buf, size_t *len, pod_err *err) {
  *buf = NULL;
  *len = 0;
  if (!c || c->M != pl->M || c->k < 0 || c->k >= pl->nchunks)
    return pod_err_set(err, POD_EINVAL, "chunk", "not a chunk of this plan");
  wbuf w = {0};
  w_begin(&w, pl, KIND_CHUNK);
  w_i64(&w, c->k);
  w_i64(&w, c->n);
  w_i32(&w, c->status);
  if (c->status) {
    w_str(&w, c->err.field);
    w_str(&w, c->err.msg);
    return w_end(&w, buf, len, err);
  }
  int M = pl->M, P = pl->P;
  int f = chunk_flags(pl, c->stored);
  /* samples recorded (the rest dropped: NaN/inf metrics, unfit layouts) */
  w_i64(&w, c->kept);
  w_i64(&w, c->unfit);
  for (int m = 0; m < M; m++) w_i64(&w, c->nonfinite[m]);
  for (int m = 0; m < M; m++) w_moments(&w, &c->mom[m]);
  w_uint(&w, (uint64_t)f, 1);
  if (f & FLAG_SKETCH)
    for (int m = 0; m < M; m++) w_sketch(&w, &c->sk[m]);
  if (f & FLAG_ROWS)
    for (int m = 0; m < M; m++)
      w_words(&w, c->yd[m], (size_t)c->kept, sizeof(double));
  if (f & FLAG_XROWS)
    for (int p = 0; p < P; p++)
      w_words(&w, c->xd[p], (size_t)c->kept, sizeof(double));
  if (f & FLAG_SOBOL) {
    for (int m = 0; m < M; m++) w_moments(&w, &c->svar[m]);
    for (int i = 0; i < P * M; i++) w_sobol(&w, &c->sob[i]);
  }
  return w_end(&w, buf, len, err);
}

/* The accumulators of a decoded, successful chunk. */
static int decode_chunk_body(pod_mc_plan *pl, pod_mc_chunk *c, rbuf *r,
                             pod_err *err) {
  int M = pl->M, P = pl->P;
  c->mom = malloc(sizeof(pod_moments) * (size_t)M);
  c->nonfinite = calloc((size_t)M, sizeof(int64_t));
  if (!c->mom || !c->nonfinite)
    return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
  c->kept = r_i64(r);
  c->unfit = r_i64(r);
  for (int m = 0; m < M; m++) c->nonfinite[m] = r_i64(r);
  if (!r->bad &&
      (c->kept < 0 || c->kept > c->n || c->unfit < 0 || c->unfit > c->n))
    return bad(err, "kept or unfit sample counts out of range");
  for (int m = 0; !r->bad && m < M; m++)
    if (c->nonfinite[m] < 0 || c->nonfinite[m] > c->n)
      return bad(err, "non-finite count out of range");
  for (int m = 0; m < M; m++) {
    r_moments(r, &c->mom[m]);
    if (!r->bad && c->mom[m].n != c->kept)
      return bad(err, "moments count differs from the chunk's samples");
    if (!r->bad && !moments_ok(&c->mom[m]))
      return bad(err, "moments are not finite");
  }
  int f = (int)r_uint(r, 1);
  if (r->bad) return bad(err, "truncated chunk");
  if (f != chunk_flags(pl, c->stored))
    return bad(err, "chunk flags do not match the plan");
  if (f & FLAG_SKETCH) {
    c->sk = calloc((size_t)M, sizeof(pod_sketch));
    if (!c->sk) return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
    for (int m = 0; m < M; m++) {
      int rc = r_sketch(r, &c->sk[m], c->kept, err);
      if (rc) return rc;
    }
  }
  if (f & FLAG_ROWS) {
    if (!pl->ycol)
      return pod_err_set(err, POD_EINVAL, "chunk", "plan already finished");
    c->yd = malloc(sizeof(double *) * (size_t)M);
    if (!c->yd) return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
    for (int m = 0; m < M; m++) {
      c->yd[m] = pl->ycol[c->g * M + m] + c->i0;
      r_column(r, c->yd[m], c->kept);
      if (!r->bad && !finite_all(c->yd[m], c->kept))
        return bad(err, "stored rows are not finite");
    }
  }
  if (f & FLAG_XROWS) {
    c->xd = malloc(sizeof(double *) * (size_t)P);
    if (!c->xd) return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
    for (int p = 0; p < P; p++) {
      c->xd[p] = pl->xcol[c->g * P + p] + c->i0;
      r_column(r, c->xd[p], c->kept);
      if (!r->bad && !finite_all(c->xd[p], c->kept))
        return bad(err, "stored rows are not finite");
    }
  }
  if (f & FLAG_SOBOL) {
    c->svar = malloc(sizeof(pod_moments) * (size_t)M);
    c->sob = calloc((size_t)(P * M) + 1, sizeof(pod_sobol_acc));
    if (!c->svar || !c->sob)
      return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
    for (int m = 0; m < M; m++) {
      r_moments(r, &c->svar[m]);
      if (!r->bad && (c->svar[m].n != 2 * c->kept || !moments_ok(&c->svar[m])))
        return bad(err, "Sobol moments are not those of the chunk");
    }
    for (int i = 0; i < P * M; i++) {
      c->sob[i].n = r_i64(r);
      c->sob[i].first = r_f64(r);
      c->sob[i].total = r_f64(r);
      if (!r->bad && !(isfinite(c->sob[i].first) && isfinite(c->sob[i].total) &&
                       c->sob[i].n >= 0))
        return bad(err, "Sobol sums are not finite");
    }
  }
  if (r->bad) return bad(err, "truncated chunk");
  if (r->at != r->n) return bad(err, "trailing bytes after the chunk");
  return POD_OK;
}

int pod_mc_chunk_decode(pod_mc_plan *pl, const unsigned char *buf, size_t len,
                        pod_mc_chunk **out, pod_err *err) {
  *out = NULL;
  rbuf r = {buf, len, 0, 0};
  int rc = r_begin(&r, pl, KIND_CHUNK, err);
  if (rc) return rc;
  int64_t k = r_i64(&r), n = r_i64(&r);
  int32_t status = r_i32(&r);
  if (r.bad) return bad(err, "truncated chunk");
  if (k < 0 || k >= pl->nchunks) return bad(err, "chunk index out of range");
  if (n != pod_mc_chunk_samples(pl, k))
    return bad(err, "chunk sample count differs from the plan");
  pod_mc_chunk *c = calloc(1, sizeof *c);
  if (!c) return pod_err_set(err, POD_ENOMEM, "decode", "out of memory");
  c->k = k;
  c->n = n;
  c->M = pl->M;
  c->g = (int)(k % pl->G);
  c->i0 = (k / pl->G) * pl->cs;
  c->stored = k < pl->store_chunks;
  if (status) {
    pod_err_clear(&c->err);
    r_str(&r, c->err.field, sizeof c->err.field);
    r_str(&r, c->err.msg, sizeof c->err.msg);
    if (r.bad || r.at != r.n || status > 0) {
      pod_mc_chunk_free(c);
      return bad(err, "bad failed-chunk record");
    }
    c->err.code = c->status = status;
    *out = c;
    return POD_OK;
  }
  rc = decode_chunk_body(pl, c, &r, err);
  if (rc) {
    pod_mc_chunk_free(c);
    return rc;
  }
  *out = c;
  return POD_OK;
}

/* ---- merge state ---- */

int pod_mc_state_encode(const pod_mc_plan *pl, unsigned char **buf, size_t *len,
                        pod_err *err) {
  *buf = NULL;
  *len = 0;
  if (pl->finished || pl->finishing || !pl->ycol)
    return pod_err_set(err, POD_EINVAL, "plan", "already finished");
  int G = pl->G, M = pl->M, P = pl->P;
  wbuf w = {0};
  w_begin(&w, pl, KIND_STATE);
  w_i64(&w, pl->merged);
  w_i64(&w, pl->samples_merged);
  w_i32(&w, pl->stopped);
  for (int i = 0; i < G * M; i++) w_i64(&w, pl->nonfinite[i]);
  for (int g = 0; g < G; g++) w_i64(&w, pl->unfit_n[g]);
  for (int i = 0; i < G * M; i++) w_moments(&w, &pl->mom[i]);
  int f = (pl->sk ? FLAG_SKETCH : 0) |
          (pl->sens == POD_MC_SENS_SOBOL ? FLAG_SOBOL : 0);
  w_uint(&w, (uint64_t)f, 1);
  if (f & FLAG_SKETCH)
    for (int i = 0; i < G * M; i++) w_sketch(&w, &pl->sk[i]);
  for (int g = 0; g < G; g++) {
    w_i64(&w, pl->rows[g]);
    for (int m = 0; m < M && pl->rows[g] > 0; m++)
      for (int64_t i = 0; i < pl->rows[g]; i++)
        w_f64(&w, pl->ycol[g * M + m][i]);
    for (int p = 0; p < P && pl->rows[g] > 0 && pl->store_x; p++)
      for (int64_t i = 0; i < pl->rows[g]; i++)
        w_f64(&w, pl->xcol[g * P + p][i]);
  }
  if (f & FLAG_SOBOL) {
    for (int i = 0; i < G * M; i++) w_moments(&w, &pl->svar[i]);
    for (int i = 0; i < G * P * M; i++) w_sobol(&w, &pl->sob[i]);
  }
  return w_end(&w, buf, len, err);
}

/* The merge state as pod_mc_plan_new left it (after a failed decode). */
static void reset_merge(pod_mc_plan *pl) {
  int G = pl->G, M = pl->M, P = pl->P;
  for (int i = 0; i < G * M; i++) pod_moments_init(&pl->mom[i]);
  for (int i = 0; pl->sk && i < G * M; i++) {
    pod_sketch_free(&pl->sk[i]);
    pod_sketch_init(&pl->sk[i], POD_SKETCH_ALPHA, NULL);
  }
  for (int g = 0; g < G; g++) pl->rows[g] = 0;
  for (int i = 0; pl->svar && i < G * M; i++) pod_moments_init(&pl->svar[i]);
  if (pl->sob) memset(pl->sob, 0, sizeof(pod_sobol_acc) * (size_t)(G * P * M));
  pl->merged = pl->samples_merged = 0;
  pl->stopped = 0;
}

/* Samples of grid point g in the first `merged` chunks. */
static int64_t grid_samples(const pod_mc_plan *pl, int g, int64_t merged) {
  int64_t n = 0;
  for (int64_t k = g; k < merged; k += pl->G) n += pod_mc_chunk_samples(pl, k);
  return n;
}

/* Rows grid point g stores once `merged` chunks are merged. */
static int64_t expected_rows(const pod_mc_plan *pl, int g, int64_t merged) {
  int64_t rows = 0,
          last = merged < pl->store_chunks ? merged : pl->store_chunks;
  for (int64_t k = g; k < last; k += pl->G) rows += pod_mc_chunk_samples(pl, k);
  return rows;
}

static int decode_state_body(pod_mc_plan *pl, rbuf *r, pod_err *err) {
  int G = pl->G, M = pl->M, P = pl->P;
  int64_t merged = r_i64(r), samples = r_i64(r);
  int32_t stopped = r_i32(r);
  if (r->bad) return bad(err, "truncated state");
  if (merged < 0 || merged > pl->nchunks || (stopped != 0 && stopped != 1))
    return bad(err, "merged chunk count out of range");
  int64_t want = 0;
  for (int64_t k = 0; k < merged && want >= 0; k++)
    want += pod_mc_chunk_samples(pl, k);
  if (samples != want)
    return bad(err, "merged sample count does not match the chunks");
  /* dropped samples (NaN/inf metrics, unfit layouts): the recorded counts
  ** below may fall short of the merged chunks' samples by these */
  for (int i = 0; i < G * M; i++) {
    pl->nonfinite[i] = r_i64(r);
    if (!r->bad && (pl->nonfinite[i] < 0 ||
                    pl->nonfinite[i] > grid_samples(pl, i / M, merged)))
      return bad(err, "non-finite count out of range");
  }
  for (int g = 0; g < G; g++) {
    pl->unfit_n[g] = r_i64(r);
    if (!r->bad &&
        (pl->unfit_n[g] < 0 || pl->unfit_n[g] > grid_samples(pl, g, merged)))
      return bad(err, "unfit count out of range");
  }
  for (int i = 0; i < G * M; i++) {
    r_moments(r, &pl->mom[i]);
    if (r->bad) return bad(err, "truncated state");
    if (pl->mom[i].n > grid_samples(pl, i / M, merged) ||
        !moments_ok(&pl->mom[i]))
      return bad(err, "moments do not match the merged chunks");
  }
  int f = (int)r_uint(r, 1);
  int want_f = (pl->sk ? FLAG_SKETCH : 0) |
               (pl->sens == POD_MC_SENS_SOBOL ? FLAG_SOBOL : 0);
  if (r->bad || f != want_f)
    return bad(err, "state flags do not match the plan");
  if (f & FLAG_SKETCH) {
    for (int i = 0; i < G * M; i++) {
      pod_sketch_free(&pl->sk[i]);
      int rc = r_sketch(r, &pl->sk[i], pl->mom[i].n, err);
      if (rc) return rc;
    }
  }
  for (int g = 0; g < G; g++) {
    int64_t rows = r_i64(r);
    if (r->bad) return bad(err, "truncated state");
    if (rows < 0 || rows > expected_rows(pl, g, merged) ||
        rows > pl->mom[g * M].n)
      return bad(err, "stored rows do not match the chunks");
    pl->rows[g] = rows;
    for (int m = 0; m < M && rows > 0; m++) {
      r_column(r, pl->ycol[g * M + m], rows);
      if (!r->bad && !finite_all(pl->ycol[g * M + m], rows))
        return bad(err, "stored rows are not finite");
    }
    for (int p = 0; p < P && rows > 0 && pl->store_x; p++) {
      r_column(r, pl->xcol[g * P + p], rows);
      if (!r->bad && !finite_all(pl->xcol[g * P + p], rows))
        return bad(err, "stored rows are not finite");
    }
    if (pl->store_x && rows > 0) pod_mc__xrange_rows(pl, g, 0, rows);
  }
  if (f & FLAG_SOBOL) {
    for (int i = 0; i < G * M; i++) {
      r_moments(r, &pl->svar[i]);
      if (!r->bad && (pl->svar[i].n > 2 * grid_samples(pl, i / M, merged) ||
                      !moments_ok(&pl->svar[i])))
        return bad(err, "Sobol moments do not match the merged chunks");
    }
    for (int i = 0; i < G * P * M; i++) {
      pl->sob[i].n = r_i64(r);
      pl->sob[i].first = r_f64(r);
      pl->sob[i].total = r_f64(r);
      if (!r->bad && !(isfinite(pl->sob[i].first) &&
                       isfinite(pl->sob[i].total) && pl->sob[i].n >= 0))
        return bad(err, "Sobol sums are not finite");
    }
  }
  if (r->bad) return bad(err, "truncated state");
  if (r->at != r->n) return bad(err, "trailing bytes after the state");
  pl->merged = merged;
  pl->samples_merged = samples;
  pl->stopped = stopped;
  return POD_OK;
}

int pod_mc_state_decode(pod_mc_plan *pl, const unsigned char *buf, size_t len,
                        pod_err *err) {
  if (pl->finished || pl->finishing || pl->merged != 0 || !pl->ycol)
    return pod_err_set(err, POD_EINVAL, "plan", "has already merged chunks");
  rbuf r = {buf, len, 0, 0};
  int rc = r_begin(&r, pl, KIND_STATE, err);
  if (!rc) rc = decode_state_body(pl, &r, err);
  if (rc) reset_merge(pl); /* leave the plan as it was */
  return rc;
}
