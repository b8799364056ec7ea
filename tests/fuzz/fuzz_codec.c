/*
** fuzz_codec.c: the chunk and merge-state decoders (pod_mc.h,
** serialisation) on arbitrary bytes.  The plan (sketch mode, a prefix of
** stored rows, Sobol sums: every section of both records) is built once.
** A decode either refuses the input or yields a chunk that merges and
** re-encodes to the same bytes; a state that decodes finishes cleanly.
** The first input byte picks the decoder; the rest is the record (with its
** CRC fixed up when the second byte is odd, so the fuzzer reaches past the
** checksum).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_fields.h"
#include "pod_mc.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static int eval(void *ud, void *w, int g, const double *x, double *y,
                pod_err *err) {
  (void)ud;
  (void)w;
  (void)err;
  y[0] = x[0] - x[1] + g;
  y[1] = x[0] * x[1];
  return POD_OK;
}

static pod_mc_plan *new_plan(void) {
  static const char *const pn[] = {"a", "b"};
  static const char *const mn[] = {"d", "p"};
  pod_dist d[2] = {pod_dist_uniform(-1, 1), pod_dist_normal(0, 2)};
  pod_mc_spec s;
  pod_mc_spec_init(&s);
  s.nparams = 2;
  s.param_names = pn;
  s.dists = d;
  s.nmetrics = 2;
  s.metric_names = mn;
  s.grid = 2;
  s.samples = 64;
  s.chunk_size = 4;
  s.seed = 3;
  s.keep_samples = 1;
  s.max_samples_mb = 0.002;
  s.sensitivity = POD_MC_SENS_SOBOL;
  s.eval.eval = eval;
  pod_mc_plan *pl = NULL;
  if (pod_mc_plan_new(&s, &pl, NULL) != POD_OK) abort();
  return pl;
}

static void put_seed(const char *dir, const char *name, int kind,
                     const unsigned char *buf, size_t len) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "wb");
  if (!f) return;
  unsigned char pre[2] = {(unsigned char)kind, 1}; /* CRC fixed up */
  fwrite(pre, 1, 2, f);
  fwrite(buf, 1, len, f);
  fclose(f);
}

/* Valid records as seeds, written into the corpus folder (the first
** argument that is not an option) before fuzzing starts: a stored chunk,
** a sketch-only chunk, a failed chunk and a partial merge state. */
int LLVMFuzzerInitialize(int *argc, char ***argv) {
  const char *dir = NULL;
  for (int i = 1; i < *argc && !dir; i++)
    if ((*argv)[i][0] != '-') dir = (*argv)[i];
  if (!dir) return 0;
  pod_mc_plan *pl = new_plan();
  static const int64_t ks[] = {0, 1, 20};
  for (int i = 0; i < 3; i++) {
    pod_mc_chunk *c;
    pod_mc_chunk_run(pl, ks[i], NULL, &c);
    unsigned char *buf;
    size_t len;
    char name[64];
    if (pod_mc_chunk_encode(pl, c, &buf, &len, NULL) == POD_OK) {
      snprintf(name, sizeof name, "seed_chunk_%d", (int)ks[i]);
      put_seed(dir, name, 0, buf, len);
      free(buf);
    }
    pod_mc_chunk_free(c);
  }
  for (int64_t k = 0; k < 6; k++) {
    pod_mc_chunk *c;
    pod_mc_chunk_run(pl, k, NULL, &c);
    pod_mc_merge(pl, c, NULL);
  }
  unsigned char *buf;
  size_t len;
  if (pod_mc_state_encode(pl, &buf, &len, NULL) == POD_OK) {
    put_seed(dir, "seed_state", 1, buf, len);
    free(buf);
  }
  pod_mc_plan_free(pl);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 2) return 0;
  int state = data[0] & 1, fix = data[1] & 1;
  size_t len = size - 2;
  unsigned char *buf = malloc(len + 1);
  if (!buf) return 0;
  memcpy(buf, data + 2, len);
  if (fix && len >= 4) {
    uint32_t crc = pod_mc_crc32(buf, len - 4);
    for (int i = 0; i < 4; i++)
      buf[len - 4 + i] = (unsigned char)(crc >> (8 * i));
  }
  pod_mc_plan *pl = new_plan();
  pod_err e;
  if (state) {
    if (pod_mc_state_decode(pl, buf, len, &e) == POD_OK) {
      unsigned char *again;
      size_t n;
      if (pod_mc_state_encode(pl, &again, &n, NULL) != POD_OK)
        FZ_FAIL("state re-encode failed");
      if (n != len || memcmp(again, buf, n) != 0)
        FZ_FAIL("state re-encodes to other bytes");
      free(again);
      pod_mc_results *r;
      if (pod_mc_finish(pl, &r, &e) != POD_OK)
        FZ_FAIL("decoded state does not finish: %s", e.msg);
      pod_mc_results_free(r);
    } else if (pod_mc_chunks_merged(pl) != 0) {
      FZ_FAIL("a refused state left chunks merged");
    }
  } else {
    pod_mc_chunk *c;
    if (pod_mc_chunk_decode(pl, buf, len, &c, &e) == POD_OK) {
      if (!c) FZ_FAIL("decode ok without a chunk");
      unsigned char *again;
      size_t n;
      if (pod_mc_chunk_encode(pl, c, &again, &n, NULL) != POD_OK)
        FZ_FAIL("chunk re-encode failed");
      if (n != len || memcmp(again, buf, n) != 0)
        FZ_FAIL("chunk re-encodes to other bytes");
      free(again);
      /* merging needs chunk order: merge the chunks before it first */
      int64_t k = pod_mc_chunk_index(c);
      for (int64_t j = 0; j < k; j++) {
        pod_mc_chunk *p;
        pod_mc_chunk_run(pl, j, NULL, &p);
        pod_mc_merge(pl, p, NULL);
      }
      pod_mc_merge(pl, c, NULL);
      pod_mc_results *r;
      if (pod_mc_finish(pl, &r, &e) != POD_OK)
        FZ_FAIL("finish after a decoded chunk: %s", e.msg);
      pod_mc_results_free(r);
    } else if (c) {
      FZ_FAIL("refused decode returned a chunk");
    }
  }
  pod_mc_plan_free(pl);
  free(buf);
  return 0;
}
