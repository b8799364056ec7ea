/*
** main.c: the podsim executable: command-line parsing and dispatch.
** Exit codes (DESIGN.md 6): 0 success, 1 runtime or scenario error,
** 2 usage error, 130 interrupted.
*/
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <ftw.h>

#include "host.h"
#include "pod_err.h"
#include "pod_run.h"
#include "scale.h"

#define MAX_SETS 256

static const char usage_text[] =
    "usage: podsim COMMAND [OPTIONS]\n"
    "\n"
    "Evaluate AI training clusters under uncertainty: collectives, step time,\n"
    "cost and reliability, as Lua scenarios with Monte Carlo studies.\n"
    "\n"
    "commands:\n"
    "  run FILE.lua [OPTIONS]   run a scenario (run FILE --help: its "
    "arguments)\n"
    "  validate [ID]            print every validation case (published value,\n"
    "                           podsim's value, error, fit or prediction)\n"
    "  presets [gpus|systems|models|failures|software] [--format table|json]\n"
    "                           list the built-in presets and their sources\n"
    "  plot DIR                 render the plots for the CSV files in DIR\n"
    "  report DIR               one self-contained HTML page (and Markdown) "
    "of\n"
    "                           a run: summaries, plots, assumptions, "
    "warnings\n"
    "  eval collective --system S --op OP --ranks N[,N..] --bytes "
    "SIZE[,SIZE..]\n"
    "                  [--algo A] [--ranks-per-domain N]\n"
    "  eval train --system S --model M --gpus N --seq N --global-batch N\n"
    "             [--dtype D] [--tp N --pp N ...] [--search [--top N]]\n"
    "                           one-line queries, no Lua file (SIZE: 4096, "
    "64KiB,\n"
    "                           1GiB, 1G = 1GiB as in nccl-tests, 1GB = 1e9)\n"
    "                           with --format table|csv|json\n"
    "  calibrate FILE... --system S [--fit a,b,...] [--out FILE.lua] [--name "
    "N]\n"
    "            [--min-bytes SIZE] [--ranks N,M,...] [--check FILE,...]\n"
    "                           fit a system's collective parameters to\n"
    "                           nccl-tests output (*_perf tables or CSV)\n"
    "  merge DIR... [--out DIR] [--threads N]\n"
    "                           outputs of a sharded run from its shard files\n"
    "                           (presets and plot take --timeout, "
    "--max-memory)\n"
    "  --help, --version\n"
    "\n"
    "run options:\n"
    "  --out DIR              output folder (default out/<scenario>)\n"
    "  --set KEY=VALUE        value for podsim.args.KEY (repeatable; numbers "
    "and\n"
    "                         true/false are parsed)\n"
    "  --samples N            override every study's sample count\n"
    "  --seed S               override every study's seed\n"
    "  --threads N            worker threads (default: number of cores)\n"
    "  --format table|csv|json  how studies print their summary (default "
    "table)\n"
    "  --max-samples-mb MB    memory for exact quantiles per study (default "
    "256)\n"
    "  --max-memory MB        memory budget per Lua state (default 2048)\n"
    "  --timeout SECONDS      wall-clock budget (default: none)\n"
    "  --quiet                print only what the scenario prints itself\n"
    "  --no-trace             run every study's Lua eval per sample (no "
    "compiled\n"
    "                         graph; same results, for checking and timing)\n"
    "  --unsafe               lift the sandbox (os.execute, io.popen, C "
    "modules,\n"
    "                         files anywhere)\n"
    "  --shard I/N            run shard I (0-based) of N of every study and "
    "write\n"
    "                         its chunk results to --out DIR (see podsim "
    "merge)\n"
    "  --mpi                  under mpirun: distribute every study's chunks "
    "over\n"
    "                         the ranks; rank 0 prints and writes\n"
    "\n"
    "exit codes: 0 success, 1 scenario or runtime error (also: output lost,\n"
    "a budget ran out), 2 usage error, 130/143/129 interrupted by SIGINT/\n"
    "SIGTERM/SIGHUP (partial results written and marked incomplete)\n";

static int usage_error(const char *fmt, const char *arg) {
  fprintf(stderr, "podsim: ");
  fprintf(stderr, fmt, arg);
  fprintf(stderr, "\nTry 'podsim --help'.\n");
  return 2;
}

static int parse_number(const char *s, double min, double max, double *out) {
  char *end;
  errno = 0;
  double v = strtod(s, &end);
  if (errno || end == s || *end != '\0' || !(v >= min) || v > max) return -1;
  *out = v;
  return 0;
}

/* An integer option within core bound f (pod_mc_spec_fields,
** pod_run_threads: the one home of each range). */
static int parse_field(const char *s, const pod_field *f, double *out) {
  return parse_number(s, f->min, f->max, out) || !pod_field_ok(f, *out) ? -1
                                                                        : 0;
}

static void default_opts(pod_host_opts *o) {
  memset(o, 0, sizeof *o);
  o->samples = -1;
  o->seed = -1;
  o->format = "table";
  o->max_memory_mb = 2048;
  o->max_samples_mb = 256;
  o->progress = isatty(2);
}

/* Parse run options from argv[i..]; returns 0 or an exit code. */
static int parse_run_opts(int argc, char **argv, int i, pod_host_opts *o,
                          const char **sets, int allow_file) {
  for (; i < argc; i++) {
    const char *a = argv[i];
    const char *v = (i + 1 < argc) ? argv[i + 1] : NULL;
    double x;
#define NEEDV()                                                        \
  do {                                                                 \
    if (v == NULL) return usage_error("option '%s' needs a value", a); \
    i++;                                                               \
  } while (0)
    if (strcmp(a, "--out") == 0) {
      NEEDV();
      o->out_dir = v;
    } else if (strcmp(a, "--set") == 0) {
      NEEDV();
      if (strchr(v, '=') == NULL || v[0] == '=')
        return usage_error("--set needs KEY=VALUE, got '%s'", v);
      if (o->nsets >= MAX_SETS)
        return usage_error("too many --set options%s", "");
      sets[o->nsets++] = v;
    } else if (strcmp(a, "--samples") == 0) {
      NEEDV();
      if (parse_field(v, pod_field_find(pod_mc_spec_fields, "samples"), &x))
        return usage_error("--samples needs a positive integer, got '%s'", v);
      o->samples = (long long)x;
    } else if (strcmp(a, "--seed") == 0) {
      NEEDV();
      if (parse_field(v, pod_field_find(pod_mc_spec_fields, "seed"), &x))
        return usage_error("--seed needs a non-negative integer, got '%s'", v);
      o->seed = (long long)x;
    } else if (strcmp(a, "--threads") == 0) {
      NEEDV();
      if (parse_field(v, &pod_run_threads, &x)) {
        char fmt[96];
        snprintf(fmt, sizeof fmt,
                 "--threads needs an integer from %.0f to %.0f, got '%%s'",
                 pod_run_threads.min, pod_run_threads.max);
        return usage_error(fmt, v);
      }
      o->threads = (int)x;
    } else if (strcmp(a, "--format") == 0) {
      NEEDV();
      if (strcmp(v, "table") && strcmp(v, "csv") && strcmp(v, "json"))
        return usage_error("--format is table, csv or json, got '%s'", v);
      o->format = v;
    } else if (strcmp(a, "--max-samples-mb") == 0) {
      NEEDV();
      if (parse_field(v, pod_field_find(pod_mc_spec_fields, "max_samples_mb"),
                      &x))
        return usage_error(
            "--max-samples-mb needs a number >= 0 (0: every quantile from the "
            "sketch), got '%s'",
            v);
      o->max_samples_mb = x;
    } else if (strcmp(a, "--max-memory") == 0) {
      NEEDV();
      if (parse_number(v, 16, 1e7, &x))
        return usage_error("--max-memory needs a number of MB >= 16, got '%s'",
                           v);
      o->max_memory_mb = x;
    } else if (strcmp(a, "--timeout") == 0) {
      NEEDV();
      if (parse_number(v, 0.001, 1e9, &x))
        return usage_error(
            "--timeout needs a positive number of seconds, got '%s'", v);
      o->timeout_s = x;
    } else if (allow_file &&
               (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
      o->help = 1;
    } else if (strcmp(a, "--shard") == 0) {
      NEEDV();
      int si, sn;
      char tail;
      if (sscanf(v, "%d/%d%c", &si, &sn, &tail) != 2 || sn < 1 || sn > 100000 ||
          si < 0 || si >= sn)
        return usage_error("--shard needs I/N with 0 <= I < N, got '%s'", v);
      o->shard_i = si;
      o->shard_n = sn;
    } else if (strcmp(a, "--mpi") == 0) {
      if (!lpod_mpi_available())
        return usage_error("--mpi: this podsim was built without MPI%s", "");
      o->mpi = 1;
    } else if (strcmp(a, "--quiet") == 0) {
      o->quiet = 1;
    } else if (strcmp(a, "--no-trace") == 0) {
      o->no_trace = 1;
    } else if (strcmp(a, "--unsafe") == 0) {
      o->unsafe = 1;
    } else if (a[0] == '-' && a[1] != '\0') {
      return usage_error("unknown option '%s'", a);
    } else if (allow_file && o->scenario == NULL) {
      o->scenario = a;
    } else if (!allow_file && o->tool_arg == NULL) {
      o->tool_arg = a;
    } else {
      return usage_error("unexpected argument '%s'", a);
    }
#undef NEEDV
  }
  return 0;
}

/* podsim eval collective|train --key value ...: every --key value (or
** --key=value) becomes a "key=value" argument of the embedded eval tool
** (dashes in keys become '_'); --format, --threads and the --search flag
** are options. */
static int eval_main(int argc, char **argv, pod_host_opts *o,
                     const char **sets) {
  if (argc < 3 || argv[2][0] == '-')
    return usage_error("eval needs what to evaluate: collective or train%s",
                       "");
  if (strcmp(argv[2], "collective") && strcmp(argv[2], "train"))
    return usage_error("eval evaluates 'collective' or 'train', got '%s'",
                       argv[2]);
  o->tool = "eval";
  o->tool_arg = argv[2];
  o->quiet = 1;
  o->threads = 1;
  for (int i = 3; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) != 0 || a[2] == '\0' || a[2] == '=')
      return usage_error("eval takes --name value options, got '%s'", a);
    const char *name = a + 2, *eq = strchr(name, '='), *val;
    size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
    if (eq) {
      val = eq + 1;
    } else if (strcmp(name, "search") == 0) {
      val = "true";
    } else {
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
      val = argv[++i];
    }
    if (nlen == 6 && strncmp(name, "format", 6) == 0) {
      if (strcmp(val, "table") && strcmp(val, "csv") && strcmp(val, "json"))
        return usage_error("--format is table, csv or json, got '%s'", val);
      o->format = val;
      continue;
    }
    if (o->nsets >= MAX_SETS) return usage_error("too many options%s", "");
    size_t n = nlen + strlen(val) + 2;
    char *kv = malloc(n); /* lives for the process */
    if (kv == NULL) return 1;
    for (size_t k = 0; k < nlen; k++) kv[k] = name[k] == '-' ? '_' : name[k];
    kv[nlen] = '=';
    strcpy(kv + nlen + 1, val);
    sets[o->nsets++] = kv;
  }
  pod_run_set_threads(1);
  return pod_host_main(o);
}

/* podsim calibrate FILE... --system S [--fit a,b] [--out FILE.lua]
** [--name N] [--min-bytes SIZE] [--ranks N,M] [--check FILE,...]: files
** and options become arguments of the embedded calibrate tool ("files"
** joined by newlines). */
static int calibrate_main(int argc, char **argv, pod_host_opts *o,
                          const char **sets) {
  static char files[16384];
  size_t flen = 0;
  int nfiles = 0;
  o->tool = "calibrate";
  o->quiet = 1;
  o->threads = 1;
  o->out_dir = ".";
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (strncmp(a, "--", 2) == 0) {
      const char *name = a + 2;
      static const char *const known[] = {"system",    "fit",   "out",   "name",
                                          "min-bytes", "ranks", "check", NULL};
      int ok = 0;
      for (int k = 0; known[k]; k++) ok |= strcmp(name, known[k]) == 0;
      if (!ok) return usage_error("unknown calibrate option '%s'", a);
      if (i + 1 >= argc) return usage_error("option '%s' needs a value", a);
      const char *val = argv[++i];
      if (strcmp(name, "out") ==
          0) { /* the file's folder is the output folder */
        static char dir[4096];
        const char *slash = strrchr(val, '/');
        if (slash) {
          snprintf(dir, sizeof dir, "%.*s", (int)(slash - val), val);
          o->out_dir = dir[0] ? dir : "/";
          val = slash + 1;
        }
        if (val[0] == '\0')
          return usage_error("--out needs a file name, got '%s'", argv[i]);
      }
      if (o->nsets >= MAX_SETS) return usage_error("too many options%s", "");
      size_t n = strlen(name) + strlen(val) + 2;
      char *kv = malloc(n); /* lives for the process */
      if (kv == NULL) return 1;
      size_t k = 0;
      for (; name[k]; k++) kv[k] = name[k] == '-' ? '_' : name[k];
      kv[k] = '=';
      strcpy(kv + k + 1, val);
      sets[o->nsets++] = kv;
    } else {
      size_t n = strlen(a);
      if (flen + n + 2 > sizeof files)
        return usage_error("too many files%s", "");
      if (flen) files[flen++] = '\n';
      memcpy(files + flen, a, n);
      flen += n;
      files[flen] = '\0';
      nfiles++;
    }
  }
  if (nfiles == 0)
    return usage_error("calibrate needs nccl-tests output files%s", "");
  static char fileset[16400];
  snprintf(fileset, sizeof fileset, "files=%s", files);
  if (o->nsets >= MAX_SETS) return usage_error("too many options%s", "");
  sets[o->nsets++] = fileset;
  pod_run_set_threads(1);
  return pod_host_main(o);
}

/* ---- scale-out (scale.h) ---- */

static char g_scratch[4096]; /* discarded outputs of shards and ranks > 0 */

static int rm_entry(const char *path, const struct stat *st, int flag,
                    struct FTW *f) {
  (void)st;
  (void)flag;
  (void)f;
  return remove(path);
}

static int at_end(int rc) {
  if (g_scratch[0]) nftw(g_scratch, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
  if (lpod_shard_end(rc == 0) != 0 && rc == 0) rc = 1;
  return lpod_mpi_finish(rc);
}

/* Outputs of this process go nowhere (a shard, an MPI rank > 0): stdout
** to /dev/null, files into a scratch folder removed at the end. */
static int discard_outputs(pod_host_opts *o) {
  const char *tmp = getenv("TMPDIR");
  snprintf(g_scratch, sizeof g_scratch, "%s/podsim-discard-XXXXXX",
           tmp && tmp[0] ? tmp : P_tmpdir);
  if (!mkdtemp(g_scratch)) {
    fprintf(stderr, "podsim: cannot create a scratch folder: %s\n",
            strerror(errno));
    g_scratch[0] = '\0';
    return 1;
  }
  o->out_dir = g_scratch;
  o->progress = 0;
  if (!freopen("/dev/null", "w", stdout)) return 1;
  return 0;
}

/* The options of `podsim run` that decide results (everything but
** --shard, --out, --threads, --mpi), kept in the shard file for merge. */
static int kept_opts(int argc, char **argv, const char **out) {
  int n = 0;
  for (int i = 2; i < argc; i++) {
    if (strcmp(argv[i], "--shard") == 0 || strcmp(argv[i], "--out") == 0 ||
        strcmp(argv[i], "--threads") == 0) {
      i++;
      continue;
    }
    if (strcmp(argv[i], "--mpi") == 0) continue;
    out[n++] = argv[i];
  }
  return n;
}

static int default_threads(void) {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
}

/* podsim merge DIR... [--out DIR] [--threads N] [--quiet] */
static int merge_main(int argc, char **argv, pod_host_opts *o,
                      const char **sets) {
  static const char *dirs[1024], *merged[2048];
  int nd = 0, i = 2;
  for (; i < argc && argv[i][0] != '-'; i++) {
    if (nd == 1024) return usage_error("too many folders%s", "");
    dirs[nd++] = argv[i];
  }
  if (nd == 0)
    return usage_error("merge needs the folders of the shard files%s", "");
  const char *scen;
  const char *const *kept;
  int nk;
  if (lpod_merge_open(dirs, nd, &scen, &kept, &nk) != 0) return 1;
  int n = 0;
  merged[n++] = argv[0];
  merged[n++] = "run";
  for (int k = 0; k < nk && n < 2000; k++) merged[n++] = kept[k];
  int rc = parse_run_opts(n, (char **)merged, 2, o, sets, 1);
  if (!rc) rc = parse_run_opts(argc, argv, i, o, sets, 0);
  if (rc) return rc;
  if (o->tool_arg) return usage_error("unexpected argument '%s'", o->tool_arg);
  if (o->shard_n || o->mpi)
    return usage_error("merge takes neither --shard nor --mpi%s", "");
  o->merge = 1;
  if (o->threads == 0) o->threads = default_threads();
  pod_run_set_threads(o->threads);
  if (access(o->scenario, R_OK) != 0) {
    fprintf(stderr, "podsim merge: cannot read the scenario '%s': %s\n",
            o->scenario, strerror(errno));
    return 1;
  }
  o->at_end = at_end;
  rc = pod_host_main(o);
  lpod_merge_close();
  return rc;
}

/* podsim run SCENARIO [options]. */
static int run_main(int argc, char **argv, pod_host_opts *o,
                    const char **sets) {
  int rc = parse_run_opts(argc, argv, 2, o, sets, 1);
  if (rc) return rc;
  if (o->scenario == NULL)
    return usage_error("run needs a scenario file%s", "");
  if (o->shard_n && o->mpi)
    return usage_error("--shard and --mpi exclude each other%s", "");
  if (o->shard_n && !o->out_dir)
    return usage_error("--shard needs --out DIR for the shard file%s", "");
  if (o->threads == 0) o->threads = default_threads();
  if (access(o->scenario, R_OK) != 0) {
    fprintf(stderr, "podsim: cannot read '%s': %s\n", o->scenario,
            strerror(errno));
    return 1;
  }
  int pool = o->threads;
  o->at_end = at_end;
  if (o->mpi) {
    if (lpod_mpi_init(&argc, &argv, o->threads) != 0) return 1;
    if (lpod_mpi_rank() == 0) {
      pool = o->threads * lpod_mpi_size(); /* local workers + proxies */
    } else {
      /* mpirun passes ^C on as SIGTERM to every rank, then SIGKILL after
      ** its grace period (odls_base_sigkill_timeout): this rank ignores
      ** the SIGTERM so that rank 0 gets that time to write the partial
      ** results before the job is torn down */
      signal(SIGTERM, SIG_IGN);
      o->mpi = 0;
      if (discard_outputs(o)) return lpod_mpi_finish(1);
    }
  }
  pod_run_set_threads(pool);
  if (o->shard_n) {
    static const char *kept[1024];
    int nk = kept_opts(argc, argv, kept);
    static char dir[4096];
    snprintf(dir, sizeof dir, "%s", o->out_dir);
    o->shard_dir = dir;
    if (mkdir(dir, 0777) != 0) {
      if (errno != EEXIST) {
        fprintf(stderr, "podsim: cannot create '%s': %s\n", dir,
                strerror(errno));
        return 1;
      }
    }
    if (lpod_shard_begin(o, kept, nk) != 0 || discard_outputs(o)) {
      lpod_shard_end(0);
      return 1;
    }
  }
  return pod_host_main(o);
}

/* podsim presets [KIND] and podsim plot DIR (cmd). */
static int listing_main(int argc, char **argv, const char *cmd,
                        pod_host_opts *o, const char **sets) {
  /* the run options that make sense here are the budgets (and presets'
  ** --format) */
  o->tool = cmd;
  int rc = parse_run_opts(argc, argv, 2, o, sets, 0);
  if (rc) return rc;
  if (o->out_dir || o->nsets || o->samples >= 0 || o->seed >= 0 || o->unsafe ||
      o->threads)
    return usage_error("%s takes only --timeout and --max-memory", cmd);
  if (strcmp(cmd, "presets") == 0) {
    if (strcmp(o->format, "csv") == 0)
      return usage_error("presets --format is table or json, got '%s'",
                         o->format);
    const char *k = o->tool_arg;
    if (k && strcmp(k, "gpus") && strcmp(k, "systems") && strcmp(k, "models") &&
        strcmp(k, "failures") && strcmp(k, "software"))
      return usage_error(
          "unknown preset kind '%s' (gpus, systems, models, failures, "
          "software)",
          k);
  }
  if (strcmp(cmd, "plot") == 0 && o->tool_arg == NULL)
    return usage_error("plot needs the folder of a run's CSV files%s", "");
  if (strcmp(cmd, "plot") == 0) o->out_dir = o->tool_arg;
  return pod_host_main(o);
}

int main(int argc, char **argv) {
  static const char *sets[MAX_SETS];
  pod_host_std_streams();
  pod_init();
  pod_host_opts o;
  default_opts(&o);
  if (argc < 2) {
    fputs(usage_text, stderr);
    return 2;
  }
  const char *cmd = argv[1];
  if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
      strcmp(cmd, "help") == 0) {
    fputs(usage_text, stdout);
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  }
  if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
    printf("podsim %s\n", POD_VERSION);
    printf("MPI: %s\n", lpod_mpi_available()
                            ? "built in (podsim run --mpi under mpirun)"
                            : "not built in");
    return fflush(stdout) == 0 && !ferror(stdout) ? 0 : 1;
  }
  o.sets = sets;
  if (strcmp(cmd, "run") == 0) return run_main(argc, argv, &o, sets);
  if (strcmp(cmd, "validate") == 0) {
    o.tool = "validate";
    o.quiet = 1;
    int rc = parse_run_opts(argc, argv, 2, &o, sets, 0);
    if (rc) return rc;
    if (o.shard_n || o.mpi)
      return usage_error("--shard and --mpi are options of run%s", "");
    if (o.threads == 0) {
      long n = sysconf(_SC_NPROCESSORS_ONLN);
      o.threads = n > 0 ? (int)(n > 1024 ? 1024 : n) : 1;
    }
    pod_run_set_threads(o.threads);
    return pod_host_main(&o);
  }
  if (strcmp(cmd, "merge") == 0) return merge_main(argc, argv, &o, sets);
  if (strcmp(cmd, "eval") == 0) return eval_main(argc, argv, &o, sets);
  if (strcmp(cmd, "calibrate") == 0)
    return calibrate_main(argc, argv, &o, sets);
  if (strcmp(cmd, "report") == 0) {
    if (argc != 3 || argv[2][0] == '-')
      return usage_error("report needs the folder of one run%s", "");
    o.tool = cmd;
    o.tool_arg = argv[2];
    o.out_dir = argv[2];
    o.quiet = 1;
    return pod_host_main(&o);
  }
  if (strcmp(cmd, "presets") == 0 || strcmp(cmd, "plot") == 0)
    return listing_main(argc, argv, cmd, &o, sets);
  return usage_error("unknown command '%s'", cmd);
}
