/*
** fuzz_gpenc.c: the gnuplot encoder (lua/plot_gp.h) on arbitrary bytes.
** Properties: a quoted literal decodes to exactly its input and holds only
** safe bytes, octal escapes and its two quotes (no backquote, @, quote,
** backslash of the input, newline); a script's variable lines are one
** line each, `name = number` or `name = literal`, with nothing of the
** values outside their literals; the template checker and declaration
** parser never crash, and a template without comments that passes has
** no backquote or @.
*/
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_gp.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FAIL(...)                 \
  do {                            \
    fprintf(stderr, __VA_ARGS__); \
    fprintf(stderr, "\n");        \
    abort();                      \
  } while (0)

static int safe(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
         (c >= '0' && c <= '9') || (c != 0 && strchr(" _.,:+=/-", c) != NULL);
}

/* Decode a literal q[0..n) as gnuplot reads it; checks its bytes. */
static size_t decode(const char *q, size_t n, char *out) {
  if (n < 2 || q[0] != '"' || q[n - 1] != '"') FAIL("literal not quoted");
  size_t o = 0;
  for (size_t i = 1; i + 1 < n; i++) {
    unsigned char c = (unsigned char)q[i];
    if (c == '\\') {
      if (i + 4 > n - 1) FAIL("short escape");
      int v = 0;
      for (int k = 1; k <= 3; k++) {
        char d = q[i + (size_t)k];
        if (d < '0' || d > '7') FAIL("escape not octal");
        v = v * 8 + (d - '0');
      }
      out[o++] = (char)v;
      i += 3;
    } else {
      if (!safe(c)) FAIL("unsafe byte 0x%02x in a literal", c);
      out[o++] = (char)c;
    }
  }
  return o;
}

static void check_quote(const char *s, size_t n) {
  pod_gp_buf b = {0};
  if (pod_gp_quote(&b, s, n) != 0) FAIL("quote failed");
  char *dec = malloc(n + 1);
  size_t dn = decode(b.p, b.len, dec);
  if (dn != n || memcmp(dec, s, n) != 0)
    FAIL("literal does not decode to its input");
  free(dec);
  pod_gp_buf_free(&b);
}

static const char tpl[] =
    "# vars: datafile:file metric:string npoints:number labels:string\n"
    "set title sprintf(\"Distribution of %s\", metric) noenhanced\n"
    "plot for [i=1:npoints] datafile using 1:2 title word(labels, i)\n";

static void check_script(const uint8_t *data, size_t size) {
  /* the input: a name selector, a number, then two strings split at 0xff */
  if (size < 10) return;
  static const char *const names[] = {"datafile", "metric", "npoints",
                                      "labels",   "x y",    "",
                                      "metric\n", "npoints"};
  pod_gp_value v[3];
  double num;
  memcpy(&num, data + 1, sizeof num);
  const char *rest = (const char *)data + 9;
  size_t rn = size - 9;
  const char *cut = memchr(rest, 0xff, rn);
  size_t n1 = cut ? (size_t)(cut - rest) : rn;
  v[0] = (pod_gp_value){names[data[0] & 7], POD_GP_STRING, 0, rest, n1};
  v[1] = (pod_gp_value){names[(data[0] >> 3) & 7], POD_GP_NUMBER, num, NULL, 0};
  v[2] = (pod_gp_value){names[(data[0] >> 6) & 3], POD_GP_STRING, 0,
                        cut ? cut + 1 : "", cut ? rn - n1 - 1 : 0};
  pod_gp_buf s = {0};
  char err[256];
  if (pod_gp_script(tpl, sizeof tpl - 1, "/out/x.svg.tmp", v, 3, &s, err,
                    sizeof err) != 0) {
    pod_gp_buf_free(&s);
    return;
  }
  /* header (3 lines), 3 variable lines, then the template verbatim */
  const char *p = s.p;
  for (int line = 0; line < 6; line++) {
    const char *e = strchr(p, '\n');
    if (e == NULL) FAIL("script too short");
    if (memchr(p, '`', (size_t)(e - p)) || memchr(p, '@', (size_t)(e - p)))
      FAIL("backquote or @ in a generated line");
    if (line >= 3) {
      const char *eq = strstr(p, " = ");
      if (eq == NULL || eq > e) FAIL("variable line without ' = '");
      for (const char *c = p; c < eq; c++)
        if (!((*c >= 'a' && *c <= 'z') || *c == '_'))
          FAIL("bad name in a variable line");
      const char *val = eq + 3;
      if (*val == '"') {
        char *dec = malloc((size_t)(e - val) + 1);
        decode(val, (size_t)(e - val), dec);
        free(dec);
      } else {
        char *end;
        double d = strtod(val, &end);
        if (end != e || !isfinite(d))
          FAIL("number line is not one finite number");
      }
    }
    p = e + 1;
  }
  if (strncmp(p, tpl, sizeof tpl - 1) != 0)
    FAIL("template not appended verbatim");
  pod_gp_buf_free(&s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  check_quote((const char *)data, size);
  check_script(data, size);
  char err[256];
  pod_gp_decl d[POD_GP_MAX_VARS];
  int nd;
  (void)pod_gp_template_vars((const char *)data, size, d, &nd, err, sizeof err);
  /* without comments, a template that passes has no backquote and no @ */
  if (pod_gp_template_check((const char *)data, size, err, sizeof err) == 0 &&
      !memchr(data, '#', size) &&
      (memchr(data, '`', size) || memchr(data, '@', size)))
    FAIL("template with a backquote or @ passed the check");
  return 0;
}
