/*
** fuzz_scenario.c: arbitrary Lua source through the sandboxed scenario
** host, in process: pod_host_main on a temporary file with a short time
** budget (--timeout 0.5), a small memory budget (--max-memory 64), two
** threads and studies capped at 64 samples.  Properties: no crash, no
** sanitizer report, no leak, and an exit code of 0 or 1 (never 2, 130 or
** anything else); files written stay inside the scenario's and the output
** folder (the sandbox).  The corpus seeds are small scenarios using every
** part of the API.
*/
#include <dirent.h>
#include <gsl/gsl_errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host.h"
#include "pod_err.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char g_dir[256], g_scen[300], g_out[300];

/* rm -r the contents of a folder (the output folder between inputs) */
static void clear_dir(const char *path, int depth) {
  DIR *d = opendir(path);
  if (d == NULL) return;
  struct dirent *e;
  while ((e = readdir(d)) != NULL) {
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
    char p[1024];
    snprintf(p, sizeof p, "%s/%s", path, e->d_name);
    struct stat st;
    if (lstat(p, &st) != 0) continue;
    if (S_ISDIR(st.st_mode) && depth < 16) {
      clear_dir(p, depth + 1);
      rmdir(p);
    } else {
      unlink(p);
    }
  }
  closedir(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int runs;
  if (g_dir[0] == '\0') {
    pod_init();
    snprintf(g_dir, sizeof g_dir, "/tmp/podsim-fuzz-%d", (int)getpid());
    mkdir(g_dir, 0700);
    snprintf(g_scen, sizeof g_scen, "%s/s.lua", g_dir);
    snprintf(g_out, sizeof g_out, "%s/out", g_dir);
  }
  if (size > 65536) return 0;
  FILE *f = fopen(g_scen, "wb");
  if (f == NULL) return 0;
  fwrite(data, 1, size, f);
  fclose(f);
  pod_host_opts o;
  memset(&o, 0, sizeof o);
  o.scenario = g_scen;
  o.out_dir = g_out;
  o.quiet = 1;
  o.threads = 2;
  o.samples = 64;
  o.seed = -1;
  o.format = "table";
  o.max_memory_mb = 64;
  o.timeout_s = 0.5;
  o.max_samples_mb = 16;
  int rc = pod_host_main(&o);
  if (rc != 0 && rc != 1) {
    fprintf(stderr, "fuzz property violated: exit code %d\n", rc);
    abort();
  }
  if (++runs % 256 == 0) clear_dir(g_out, 0);
  return 0;
}
