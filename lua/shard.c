/*
** shard.c: shard files and `podsim merge` (see scale.h, docs/scale.md).
**
** A shard file DIR/shard-I-of-N.pods, little-endian:
**
**   "PODSHARD", u32 format version (1), u32 header bytes H, the header
**   (strings as u32 length + bytes: podsim version, scenario path as
**   given, scenario SHA-256 in hex; u32 I, u32 N; u32 option count, the
**   options), u32 CRC-32 of the header; then records:
**     'S' u32 study number, u64 plan fingerprint, u64 chunks, string name,
**         u32 CRC-32 of the record from its tag
**     'C' u32 study number, u64 bytes, a chunk record (mc_codec.c, which
**         carries its own CRC)
**     'E' u64 record count, u32 CRC-32 of the record from its tag
**
** It is written under a temporary name and renamed once the run ended
** well, so a failed or interrupted shard run leaves no shard file.
*/
#include "scale.h"

#include <dirent.h>
#include <errno.h>
#include <nettle/sha2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define SHARD_MAGIC "PODSHARD"
#define SHARD_VERSION 1
#define MAX_SHARDS 100000
#define MAX_OPTS 600

/* ---- little-endian helpers ---- */

static void put_uint(unsigned char *b, uint64_t v, int n) {
  for (int i = 0; i < n; i++) b[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_uint(const unsigned char *b, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; i++) v |= (uint64_t)b[i] << (8 * i);
  return v;
}

typedef struct sbuf {
  unsigned char *p;
  size_t n, cap;
  int oom;
} sbuf;

static void sb_add(sbuf *b, const void *src, size_t len) {
  if (b->oom) return;
  if (b->n + len > b->cap) {
    size_t cap = b->cap ? b->cap * 2 : 256;
    while (cap < b->n + len) cap *= 2;
    unsigned char *p = realloc(b->p, cap);
    if (!p) {
      b->oom = 1;
      return;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->n, src, len);
  b->n += len;
}

static void sb_uint(sbuf *b, uint64_t v, int n) {
  unsigned char t[8];
  put_uint(t, v, n);
  sb_add(b, t, (size_t)n);
}

static void sb_str(sbuf *b, const char *s) {
  sb_uint(b, strlen(s), 4);
  sb_add(b, s, strlen(s));
}

static int sha256_hex(const char *path, char out[65]) {
  FILE *f = fopen(path, "rb");
  if (!f) return -1;
  struct sha256_ctx ctx;
  sha256_init(&ctx);
  unsigned char buf[65536];
  size_t n;
  while ((n = fread(buf, 1, sizeof buf, f)) > 0) sha256_update(&ctx, n, buf);
  int bad = ferror(f);
  fclose(f);
  if (bad) return -1;
  unsigned char d[SHA256_DIGEST_SIZE];
  sha256_digest(&ctx, sizeof d, d);
  for (int i = 0; i < SHA256_DIGEST_SIZE; i++)
    snprintf(out + 2 * i, 3, "%02x", d[i]);
  return 0;
}

/* ---- writing ---- */

static struct {
  FILE *f;
  char path[4096], tmp[4200];
  uint64_t records;
  int failed;
} W;

static int w_put(const void *p, size_t n) {
  if (W.failed || fwrite(p, 1, n, W.f) != n) W.failed = 1;
  return W.failed ? -1 : 0;
}

/* A record body with its CRC. */
static int w_record(sbuf *b) {
  sb_uint(b, pod_mc_crc32(b->p, b->n), 4);
  if (b->oom) W.failed = 1;
  int rc = b->oom ? -1 : w_put(b->p, b->n);
  free(b->p);
  W.records++;
  return rc;
}

int lpod_shard_begin(const pod_host_opts *o, const char *const *opts,
                     int nopts) {
  char sha[65];
  if (sha256_hex(o->scenario, sha) != 0) {
    fprintf(stderr, "podsim: cannot read '%s': %s\n", o->scenario,
            strerror(errno));
    return -1;
  }
  snprintf(W.path, sizeof W.path, "%s/shard-%d-of-%d.pods", o->shard_dir,
           o->shard_i, o->shard_n);
  snprintf(W.tmp, sizeof W.tmp, "%s.tmp.%ld", W.path, (long)getpid());
  W.f = fopen(W.tmp, "wb");
  if (!W.f) {
    fprintf(stderr, "podsim: cannot write '%s': %s\n", W.tmp, strerror(errno));
    return -1;
  }
  sbuf h = {0};
  sb_str(&h, POD_VERSION);
  sb_str(&h, o->scenario);
  sb_str(&h, sha);
  sb_uint(&h, (uint64_t)o->shard_i, 4);
  sb_uint(&h, (uint64_t)o->shard_n, 4);
  sb_uint(&h, (uint64_t)nopts, 4);
  for (int i = 0; i < nopts; i++) sb_str(&h, opts[i]);
  unsigned char t[8];
  w_put(SHARD_MAGIC, 8);
  put_uint(t, SHARD_VERSION, 4);
  w_put(t, 4);
  put_uint(t, h.n, 4);
  w_put(t, 4);
  if (h.oom)
    W.failed = 1;
  else
    w_put(h.p, h.n);
  put_uint(t, pod_mc_crc32(h.p, h.n), 4);
  w_put(t, 4);
  free(h.p);
  return W.failed ? -1 : 0;
}

int lpod_shard_study(int seq, const char *name, const pod_mc_plan *plan,
                     pod_err *err) {
  sbuf b = {0};
  sb_uint(&b, 'S', 1);
  sb_uint(&b, (uint64_t)seq, 4);
  sb_uint(&b, pod_mc_plan_fingerprint(plan), 8);
  sb_uint(&b, (uint64_t)pod_mc_plan_chunks(plan), 8);
  sb_str(&b, name);
  if (w_record(&b))
    return pod_err_set(err, POD_EINVAL, "shard", "cannot write '%s'", W.tmp);
  return POD_OK;
}

int lpod_shard_put(int seq, const pod_mc_plan *plan, pod_mc_chunk *c,
                   pod_err *err) {
  unsigned char *buf;
  size_t len;
  int rc = pod_mc_chunk_encode(plan, c, &buf, &len, err);
  pod_mc_chunk_free(c);
  if (rc) return rc;
  unsigned char t[13];
  t[0] = 'C';
  put_uint(t + 1, (uint64_t)seq, 4);
  put_uint(t + 5, len, 8);
  w_put(t, 13);
  w_put(buf, len);
  free(buf);
  W.records++;
  if (W.failed)
    return pod_err_set(err, POD_EINVAL, "shard", "cannot write '%s'", W.tmp);
  return POD_OK;
}

int lpod_shard_end(int ok) {
  if (!W.f) return 0;
  if (ok) {
    sbuf b = {0};
    sb_uint(&b, 'E', 1);
    sb_uint(&b, W.records, 8);
    w_record(&b);
  }
  if (fflush(W.f) != 0 || fsync(fileno(W.f)) != 0) W.failed = 1;
  if (fclose(W.f) != 0) W.failed = 1;
  W.f = NULL;
  if (ok && !W.failed && rename(W.tmp, W.path) == 0) {
    fprintf(stderr, "podsim: wrote %s\n", W.path);
    return 0;
  }
  if (ok)
    fprintf(stderr, "podsim: cannot write '%s': %s\n", W.path, strerror(errno));
  remove(W.tmp);
  return ok ? -1 : 0;
}

/* ---- reading: podsim merge ---- */

typedef struct rstudy {
  int seq;
  uint64_t fp;
  int64_t nchunks;
  char name[80];
  int64_t *off; /* nchunks: file offset of chunk k's record, -1 if absent */
  uint64_t *len;
} rstudy;

typedef struct rfile {
  char path[4096];
  FILE *f;
  int index;
  rstudy *st;
  int nst;
} rfile;

static struct {
  rfile *files;
  int n; /* N */
  char version[64], scenario[4096], sha[80];
  char **opts;
  int nopts;
  int active;
} R;

static int rd(FILE *f, void *p, size_t n) {
  return fread(p, 1, n, f) == n ? 0 : -1;
}

static int rd_str(const unsigned char *h, size_t hn, size_t *at, char *out,
                  size_t cap) {
  if (hn - *at < 4) return -1;
  uint64_t len = get_uint(h + *at, 4);
  *at += 4;
  if (len >= cap || hn - *at < len) return -1;
  memcpy(out, h + *at, (size_t)len);
  out[len] = '\0';
  *at += (size_t)len;
  return 0;
}

static int corrupt(const char *path, const char *what) {
  fprintf(stderr, "podsim merge: %s: %s\n", path, what);
  return -1;
}

/* Header of one shard file into rf (and the run's identity, compared with
** the first file's). */
static int read_header(rfile *rf, int first) {
  unsigned char t[16];
  if (rd(rf->f, t, 16) || memcmp(t, SHARD_MAGIC, 8) != 0)
    return corrupt(rf->path, "not a podsim shard file");
  if (get_uint(t + 8, 4) != SHARD_VERSION)
    return corrupt(rf->path, "shard format of another podsim version");
  size_t hn = (size_t)get_uint(t + 12, 4);
  unsigned char *h = malloc(hn + 4);
  if (!h || rd(rf->f, h, hn + 4) ||
      get_uint(h + hn, 4) != pod_mc_crc32(h, hn)) {
    free(h);
    return corrupt(rf->path, "corrupt header (checksum)");
  }
  size_t at = 0;
  char version[64], scen[4096], sha[80], opt[4096];
  int bad = rd_str(h, hn, &at, version, sizeof version) ||
            rd_str(h, hn, &at, scen, sizeof scen) ||
            rd_str(h, hn, &at, sha, sizeof sha) || hn - at < 12;
  unsigned idx = 0, n = 0, nopts = 0;
  if (!bad) {
    idx = (unsigned)get_uint(h + at, 4);
    n = (unsigned)get_uint(h + at + 4, 4);
    nopts = (unsigned)get_uint(h + at + 8, 4);
    at += 12;
    bad = n < 1 || n > MAX_SHARDS || idx >= n || nopts > MAX_OPTS;
  }
  char **opts = NULL;
  if (!bad) opts = calloc(nopts + 1, sizeof(char *));
  for (unsigned i = 0; !bad && i < nopts; i++) {
    bad = !opts || rd_str(h, hn, &at, opt, sizeof opt);
    if (!bad) bad = !(opts[i] = strdup(opt));
  }
  free(h);
  if (bad) {
    for (unsigned i = 0; opts && i < nopts; i++) free(opts[i]);
    free(opts);
    return corrupt(rf->path, "corrupt header");
  }
  rf->index = (int)idx;
  int rc = 0;
  if (first) {
    snprintf(R.version, sizeof R.version, "%s", version);
    snprintf(R.scenario, sizeof R.scenario, "%s", scen);
    snprintf(R.sha, sizeof R.sha, "%s", sha);
    R.n = (int)n;
    R.opts = opts;
    R.nopts = (int)nopts;
    opts = NULL;
  } else {
    if (strcmp(version, R.version) != 0) {
      fprintf(stderr,
              "podsim merge: %s: written by podsim %s, another shard by %s\n",
              rf->path, version, R.version);
      rc = -1;
    } else if (strcmp(sha, R.sha) != 0 || strcmp(scen, R.scenario) != 0) {
      fprintf(stderr,
              "podsim merge: %s: from another scenario (%s, sha256 %.12s) than "
              "the other shards (%s, sha256 %.12s)\n",
              rf->path, scen, sha, R.scenario, R.sha);
      rc = -1;
    } else if ((int)n != R.n) {
      fprintf(stderr, "podsim merge: %s: shard of %u, another of %d\n",
              rf->path, n, R.n);
      rc = -1;
    } else {
      int same = (int)nopts == R.nopts;
      for (int i = 0; same && i < R.nopts; i++)
        same = strcmp(opts[i], R.opts[i]) == 0;
      if (!same) {
        fprintf(stderr,
                "podsim merge: %s: run with other options (--seed, --samples, "
                "--set, ...) than the other shards\n",
                rf->path);
        rc = -1;
      }
    }
    for (unsigned i = 0; i < nopts; i++) free(opts[i]);
    free(opts);
  }
  if (rc == 0 && strcmp(version, POD_VERSION) != 0) {
    fprintf(stderr,
            "podsim merge: %s: written by podsim %s, this is podsim %s\n",
            rf->path, version, POD_VERSION);
    rc = -1;
  }
  return rc;
}

static rstudy *find_study(rfile *rf, int seq) {
  for (int i = 0; i < rf->nst; i++)
    if (rf->st[i].seq == seq) return &rf->st[i];
  return NULL;
}

/* Index the records of rf (offsets of the chunk records). */
static int read_index(rfile *rf) {
  int ended = 0;
  uint64_t count = 0;
  unsigned char t[32];
  while (!ended) {
    long at = ftell(rf->f);
    if (rd(rf->f, t, 1)) return corrupt(rf->path, "truncated (no end record)");
    count++;
    if (t[0] == 'S') {
      unsigned char b[4 + 8 + 8 + 4 + 80 + 4];
      b[0] = 'S';
      if (rd(rf->f, b + 1, 24))
        return corrupt(rf->path, "truncated study record");
      size_t nl = (size_t)get_uint(b + 21, 4);
      if (nl >= 80 || rd(rf->f, b + 25, nl + 4))
        return corrupt(rf->path, "corrupt study record");
      if (get_uint(b + 25 + nl, 4) != pod_mc_crc32(b, 25 + nl))
        return corrupt(rf->path, "corrupt study record (checksum)");
      rstudy *ns = realloc(rf->st, sizeof(rstudy) * (size_t)(rf->nst + 1));
      if (!ns) return corrupt(rf->path, "out of memory");
      rf->st = ns;
      rstudy *s = &rf->st[rf->nst];
      memset(s, 0, sizeof *s);
      s->seq = (int)get_uint(b + 1, 4);
      s->fp = get_uint(b + 5, 8);
      s->nchunks = (int64_t)get_uint(b + 13, 8);
      memcpy(s->name, b + 25, nl);
      s->name[nl] = '\0';
      if (s->nchunks < 0 || s->nchunks > (1 << 24) || find_study(rf, s->seq))
        return corrupt(rf->path, "bad study record");
      s->off = malloc(sizeof(int64_t) * (size_t)(s->nchunks + 1));
      s->len = malloc(sizeof(uint64_t) * (size_t)(s->nchunks + 1));
      if (!s->off || !s->len) return corrupt(rf->path, "out of memory");
      for (int64_t k = 0; k < s->nchunks; k++) s->off[k] = -1;
      rf->nst++;
    } else if (t[0] == 'C') {
      if (rd(rf->f, t + 1, 12))
        return corrupt(rf->path, "truncated chunk record");
      rstudy *s = find_study(rf, (int)get_uint(t + 1, 4));
      uint64_t len = get_uint(t + 5, 8);
      if (!s || len < 32 || len > ((uint64_t)1 << 40))
        return corrupt(rf->path, "corrupt chunk record");
      /* the whole record is checked now, so a corrupt file is refused
      ** before the scenario runs (decoding checks it again) */
      unsigned char *rec = malloc((size_t)len);
      if (!rec) return corrupt(rf->path, "out of memory");
      int ok = rd(rf->f, rec, (size_t)len) == 0 &&
               get_uint(rec + len - 4, 4) == pod_mc_crc32(rec, (size_t)len - 4);
      int64_t k = ok ? (int64_t)get_uint(rec + 24, 8) : -1;
      free(rec);
      if (!ok) return corrupt(rf->path, "corrupt chunk record (checksum)");
      if (k < 0 || k >= s->nchunks || s->off[k] >= 0)
        return corrupt(rf->path, "corrupt chunk record (index)");
      s->off[k] = at + 13;
      s->len[k] = len;
    } else if (t[0] == 'E') {
      unsigned char b[13];
      b[0] = 'E';
      if (rd(rf->f, b + 1, 12) || get_uint(b + 9, 4) != pod_mc_crc32(b, 9) ||
          get_uint(b + 1, 8) != count - 1)
        return corrupt(rf->path, "corrupt end record");
      ended = 1;
    } else {
      return corrupt(rf->path, "corrupt record");
    }
  }
  if (fgetc(rf->f) != EOF)
    return corrupt(rf->path, "trailing bytes after the end record");
  return 0;
}

static int open_one(const char *path, int *count, rfile **files) {
  rfile *nf = realloc(*files, sizeof(rfile) * (size_t)(*count + 1));
  if (!nf) return corrupt(path, "out of memory");
  *files = nf;
  rfile *rf = &nf[*count];
  memset(rf, 0, sizeof *rf);
  snprintf(rf->path, sizeof rf->path, "%s", path);
  rf->f = fopen(path, "rb");
  if (!rf->f) {
    fprintf(stderr, "podsim merge: cannot read '%s': %s\n", path,
            strerror(errno));
    return -1;
  }
  (*count)++;
  if (read_header(rf, *count == 1) || read_index(rf)) return -1;
  return 0;
}

static int ends_with(const char *s, const char *suf) {
  size_t a = strlen(s), b = strlen(suf);
  return a >= b && strcmp(s + a - b, suf) == 0;
}

/* Opens the shard file dir (*.pods) or every shard file in the folder dir,
** adding them to *files; -1 on an error (printed). */
static int open_dir(const char *dir, int *count, rfile **files) {
  DIR *dh = opendir(dir);
  if (!dh) {
    if (ends_with(dir, ".pods")) return open_one(dir, count, files) ? -1 : 0;
    fprintf(stderr, "podsim merge: cannot read '%s': %s\n", dir,
            strerror(errno));
    return -1;
  }
  struct dirent *e;
  char **names = NULL;
  int nn = 0;
  while ((e = readdir(dh)) != NULL) {
    if (!ends_with(e->d_name, ".pods")) continue;
    char **t = realloc(names, sizeof(char *) * (size_t)(nn + 1));
    if (!t) break;
    names = t;
    names[nn++] = strdup(e->d_name);
  }
  closedir(dh);
  for (int i = 0; i < nn; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", dir, names[i]);
    int rc = names[i] ? open_one(p, count, files) : -1;
    free(names[i]);
    if (rc) {
      for (int j = i + 1; j < nn; j++) free(names[j]);
      free(names);
      return -1;
    }
  }
  free(names);
  return 0;
}

int lpod_merge_open(const char *const *dirs, int ndirs, const char **scenario,
                    const char *const **opts, int *nopts) {
  rfile *files = NULL;
  int count = 0;
  for (int d = 0; d < ndirs; d++)
    if (open_dir(dirs[d], &count, &files)) goto fail;
  if (count == 0) {
    fprintf(stderr,
            "podsim merge: no shard files (*.pods) in the folders given\n");
    goto fail;
  }
  R.files = calloc((size_t)R.n, sizeof(rfile));
  if (!R.files) goto fail;
  for (int i = 0; i < count; i++) {
    rfile *slot = &R.files[files[i].index];
    if (slot->f) {
      fprintf(stderr, "podsim merge: shard %d of %d given twice (%s and %s)\n",
              files[i].index, R.n, slot->path, files[i].path);
      goto fail;
    }
    *slot = files[i];
    files[i].f = NULL;
    files[i].st = NULL;
    files[i].nst = 0;
  }
  for (int i = 0; i < R.n; i++)
    if (!R.files[i].f) {
      fprintf(stderr,
              "podsim merge: shard %d of %d is missing (shard-%d-of-%d.pods)\n",
              i, R.n, i, R.n);
      goto fail;
    }
  free(files);
  files = NULL;
  count = 0;
  {
    char sha[65];
    if (sha256_hex(R.scenario, sha) != 0) {
      fprintf(
          stderr,
          "podsim merge: cannot read the scenario '%s' the shards ran: %s\n",
          R.scenario, strerror(errno));
      goto fail;
    }
    if (strcmp(sha, R.sha) != 0) {
      fprintf(stderr,
              "podsim merge: the scenario '%s' changed since the shards ran "
              "(sha256 %.12s, shards %.12s)\n",
              R.scenario, sha, R.sha);
      goto fail;
    }
  }
  R.active = 1;
  *scenario = R.scenario;
  *opts = (const char *const *)R.opts;
  *nopts = R.nopts;
  return 0;
fail:
  for (int i = 0; i < count; i++) {
    if (files[i].f) fclose(files[i].f);
    for (int j = 0; j < files[i].nst; j++) {
      free(files[i].st[j].off);
      free(files[i].st[j].len);
    }
    free(files[i].st);
  }
  free(files);
  lpod_merge_close();
  return -1;
}

int lpod_merge_active(void) {
  return R.active;
}

int lpod_merge_study(int seq, const char *name, pod_mc_plan *plan,
                     pod_err *err) {
  uint64_t fp = pod_mc_plan_fingerprint(plan);
  for (int i = 0; i < R.n; i++) {
    rstudy *s = find_study(&R.files[i], seq);
    if (!s)
      return pod_err_set(err, POD_EINVAL, "merge",
                         "%s has no study #%d '%s' (the scenario or its "
                         "options differ from the sharded run)",
                         R.files[i].path, seq + 1, name);
    if (s->fp != fp || strcmp(s->name, name) != 0 ||
        s->nchunks != pod_mc_plan_chunks(plan))
      return pod_err_set(err, POD_EINVAL, "merge",
                         "%s: study #%d '%s' was sharded with other settings "
                         "(seed, samples, parameters or storage differ)",
                         R.files[i].path, seq + 1, s->name);
  }
  int64_t n = pod_mc_plan_chunks(plan);
  for (int64_t k = 0; k < n && !pod_mc_should_stop(plan); k++) {
    rfile *rf = &R.files[k % R.n];
    rstudy *s = find_study(rf, seq);
    if (s->off[k] < 0)
      return pod_err_set(err, POD_EINVAL, "merge",
                         "%s lacks chunk %lld of study '%s'", rf->path,
                         (long long)k, name);
    unsigned char *buf = malloc(s->len[k]);
    if (!buf) return pod_err_set(err, POD_ENOMEM, "merge", "out of memory");
    if (fseek(rf->f, (long)s->off[k], SEEK_SET) != 0 ||
        rd(rf->f, buf, s->len[k])) {
      free(buf);
      return pod_err_set(err, POD_EINVAL, "merge", "%s: cannot read chunk %lld",
                         rf->path, (long long)k);
    }
    pod_mc_chunk *c;
    pod_err e;
    int rc = pod_mc_chunk_decode(plan, buf, s->len[k], &c, &e);
    free(buf);
    if (rc)
      return pod_err_set(err, rc, "merge", "%s: chunk %lld of study '%s': %s",
                         rf->path, (long long)k, name, e.msg);
    if ((rc = pod_mc_merge(plan, c, err))) return rc;
  }
  return POD_OK;
}

void lpod_merge_close(void) {
  for (int i = 0; R.files && i < R.n; i++) {
    if (R.files[i].f) fclose(R.files[i].f);
    for (int j = 0; j < R.files[i].nst; j++) {
      free(R.files[i].st[j].off);
      free(R.files[i].st[j].len);
    }
    free(R.files[i].st);
  }
  free(R.files);
  R.files = NULL;
  for (int i = 0; i < R.nopts; i++) free(R.opts[i]);
  free(R.opts);
  R.opts = NULL;
  R.nopts = 0;
  R.active = 0;
}
