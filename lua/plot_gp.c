/*
** plot_gp.c: gnuplot scripts without scenario code, recipes as data (see
** plot_gp.h).
*/
#include "plot_gp.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- */
/* buffers and messages                                                    */
/* ---------------------------------------------------------------------- */

void pod_gp_buf_free(pod_gp_buf *b) {
  free(b->p);
  b->p = NULL;
  b->len = b->cap = 0;
}

static int buf_add(pod_gp_buf *b, const char *s, size_t n) {
  if (b->oom) return -1;
  if (b->len + n + 1 > b->cap) {
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + n + 1) cap *= 2;
    char *p = realloc(b->p, cap);
    if (p == NULL) {
      b->oom = 1;
      return -1;
    }
    b->p = p;
    b->cap = cap;
  }
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = '\0';
  return 0;
}

static int buf_str(pod_gp_buf *b, const char *s) {
  return buf_add(b, s, strlen(s));
}

static int fail(char *err, size_t errn, const char *fmt, ...) {
  if (errn) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errn, fmt, ap);
    va_end(ap);
  }
  return -1;
}

static int is_alpha(int c) {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}
static int is_digit(int c) {
  return c >= '0' && c <= '9';
}
static int is_word(int c) {
  return is_alpha(c) || is_digit(c) || c == '_';
}

int pod_gp_name_ok(const char *s, size_t n) {
  if (n == 0 || n >= POD_GP_NAME_MAX || !is_alpha((unsigned char)s[0]))
    return 0;
  for (size_t i = 1; i < n; i++)
    if (!is_word((unsigned char)s[i])) return 0;
  return 1;
}

/* ---------------------------------------------------------------------- */
/* encoding                                                                */
/* ---------------------------------------------------------------------- */

static int safe_byte(int c) {
  return is_alpha(c) || is_digit(c) ||
         (c != 0 && strchr(" _.,:+=/-", c) != NULL);
}

int pod_gp_quote(pod_gp_buf *b, const char *s, size_t n) {
  if (buf_add(b, "\"", 1) != 0) return -1;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (safe_byte(c)) {
      if (buf_add(b, (const char *)&c, 1) != 0) return -1;
    } else {
      char esc[5] = {'\\', (char)('0' + (c >> 6)), (char)('0' + ((c >> 3) & 7)),
                     (char)('0' + (c & 7)), 0};
      if (buf_add(b, esc, 4) != 0) return -1;
    }
  }
  return buf_add(b, "\"", 1);
}

/* ---------------------------------------------------------------------- */
/* templates                                                               */
/* ---------------------------------------------------------------------- */

static int parse_type(const char *s, size_t n, pod_gp_type *t) {
  if (n == 6 && memcmp(s, "number", 6) == 0)
    *t = POD_GP_NUMBER;
  else if (n == 6 && memcmp(s, "string", 6) == 0)
    *t = POD_GP_STRING;
  else if (n == 4 && memcmp(s, "file", 4) == 0)
    *t = POD_GP_FILE;
  else
    return -1;
  return 0;
}

/* One "# vars:" line's declarations (p..e) into d. */
static int decl_line(const char *p, const char *e, pod_gp_decl *d, int *n,
                     char *err, size_t errn) {
  while (p < e) {
    while (p < e && (*p == ' ' || *p == ',' || *p == '\t')) p++;
    if (p >= e) break;
    const char *name = p;
    while (p < e && is_word((unsigned char)*p)) p++;
    size_t nl = (size_t)(p - name);
    if (p >= e || *p != ':' || !pod_gp_name_ok(name, nl))
      return fail(err, errn, "template: bad variable declaration '%.*s'",
                  (int)(e - name), name);
    const char *ty = ++p;
    while (p < e && is_alpha((unsigned char)*p)) p++;
    pod_gp_type t;
    if (parse_type(ty, (size_t)(p - ty), &t) != 0)
      return fail(
          err, errn,
          "template: variable '%.*s': type must be number, string or file",
          (int)nl, name);
    for (int i = 0; i < *n; i++)
      if (strlen(d[i].name) == nl && memcmp(d[i].name, name, nl) == 0)
        return fail(err, errn, "template: variable '%.*s' declared twice",
                    (int)nl, name);
    if (*n >= POD_GP_MAX_VARS)
      return fail(err, errn, "template: more than %d variables",
                  POD_GP_MAX_VARS);
    memcpy(d[*n].name, name, nl);
    d[*n].name[nl] = '\0';
    d[*n].type = t;
    (*n)++;
  }
  return 0;
}

int pod_gp_template_vars(const char *tpl, size_t len, pod_gp_decl *d, int *n,
                         char *err, size_t errn) {
  static const char tag[] = "# vars:";
  *n = 0;
  const char *p = tpl, *end = tpl + len;
  while (p < end) {
    const char *e = memchr(p, '\n', (size_t)(end - p));
    if (e == NULL) e = end;
    if ((size_t)(e - p) >= sizeof tag - 1 &&
        memcmp(p, tag, sizeof tag - 1) == 0 &&
        decl_line(p + sizeof tag - 1, e, d, n, err, errn) != 0)
      return -1;
    p = e + 1;
  }
  return 0;
}

int pod_gp_template_check(const char *tpl, size_t len, char *err, size_t errn) {
  static const char *const banned[] = {
      "system", "load",     "call",   "eval",     "evaluate", "shell",
      "print",  "printerr", "save",   "cd",       "output",   "pipe",
      "popen",  "fit",      "table",  "update",   "history",  "import",
      "plugin", "pause",    "bind",   "loadpath", "exit",     "quit",
      "reread", "test",     "toggle", "mouse",    NULL};
  int cmd_start = 1; /* at the start of a command: `!cmd` runs a shell */
  char quote = 0;
  for (size_t i = 0; i < len; i++) {
    unsigned char c = (unsigned char)tpl[i];
    if (c == '`' || c == '@')
      return fail(err, errn,
                  "template uses '%c' (command or macro substitution)", c);
    if (quote) {
      if (c == '\\' && quote == '"' && i + 1 < len) {
        unsigned char n = (unsigned char)tpl[i + 1];
        if (n == '`' || n == '@') /* an escape does not hide them */
          return fail(err, errn,
                      "template uses '%c' (command or macro substitution)", n);
        i++;
      } else if (c == (unsigned char)quote)
        quote = 0;
      continue;
    }
    if (c == '#') {
      while (i < len && tpl[i] != '\n') i++;
      cmd_start = 1;
      continue;
    }
    if (c == '\n' || c == ';') {
      /* a '\' before the newline continues the command */
      cmd_start = !(c == '\n' && i > 0 && tpl[i - 1] == '\\');
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') continue;
    if (cmd_start && c == '!')
      return fail(err, errn, "template runs a shell command ('!')");
    cmd_start = 0;
    if (c == '"' || c == '\'') {
      if (i + 1 < len && (tpl[i + 1] == '<' || tpl[i + 1] == '|'))
        return fail(err, errn, "template names a piped data file (%c%c)", c,
                    tpl[i + 1]);
      quote = (char)c;
      continue;
    }
    if (is_alpha(c) || c == '_') {
      size_t s = i;
      while (i < len && is_word((unsigned char)tpl[i])) i++;
      for (int b = 0; banned[b]; b++)
        if (strlen(banned[b]) == i - s &&
            memcmp(banned[b], tpl + s, i - s) == 0)
          return fail(err, errn,
                      "template uses '%s' (not allowed in plot templates)",
                      banned[b]);
      i--;
    }
  }
  return 0;
}

/* ---------------------------------------------------------------------- */
/* scripts                                                                 */
/* ---------------------------------------------------------------------- */

static int path_ok(const char *s, size_t n) {
  if (n == 0 || s[0] != '/') return 0;
  for (size_t i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f) return 0;
  return 1;
}

static int cmp_values(const void *a, const void *b) {
  return strcmp((*(const pod_gp_value *const *)a)->name,
                (*(const pod_gp_value *const *)b)->name);
}

/* Check value v against the declarations; the declared type out. */
static int check_value(const pod_gp_value *v, const pod_gp_decl *d, int nd,
                       char *err, size_t errn) {
  if (v->name == NULL || !pod_gp_name_ok(v->name, strlen(v->name)))
    return fail(
        err, errn,
        "variable name '%s' is not an identifier ([A-Za-z][A-Za-z0-9_]*)",
        v->name ? v->name : "?");
  int k = -1;
  for (int i = 0; i < nd; i++)
    if (strcmp(d[i].name, v->name) == 0) k = i;
  if (k < 0)
    return fail(err, errn, "%s: the template declares no such variable",
                v->name);
  if (d[k].type == POD_GP_NUMBER) {
    if (v->type != POD_GP_NUMBER)
      return fail(err, errn, "%s: expected a number", v->name);
    if (!isfinite(v->num))
      return fail(err, errn, "%s: must be a finite number", v->name);
    return 0;
  }
  if (v->type == POD_GP_NUMBER)
    return fail(err, errn, "%s: expected a %s", v->name,
                d[k].type == POD_GP_FILE ? "file name" : "string");
  if (v->len > POD_GP_STR_MAX)
    return fail(err, errn, "%s: longer than %d bytes", v->name, POD_GP_STR_MAX);
  if (memchr(v->str, '\0', v->len))
    return fail(err, errn, "%s: contains a NUL byte", v->name);
  if (d[k].type == POD_GP_FILE && !path_ok(v->str, v->len))
    return fail(err, errn,
                "%s: expected an absolute path without control characters",
                v->name);
  return 0;
}

int pod_gp_script(const char *tpl, size_t tpllen, const char *out,
                  const pod_gp_value *v, int n, pod_gp_buf *s, char *err,
                  size_t errn) {
  pod_gp_decl d[POD_GP_MAX_VARS];
  int nd;
  if (pod_gp_template_vars(tpl, tpllen, d, &nd, err, errn) != 0) return -1;
  if (pod_gp_template_check(tpl, tpllen, err, errn) != 0) return -1;
  if (n < 0 || n > POD_GP_MAX_VARS)
    return fail(err, errn, "more than %d variables", POD_GP_MAX_VARS);
  if (out == NULL || !path_ok(out, strlen(out)))
    return fail(err, errn,
                "output: expected an absolute path without control characters");
  const pod_gp_value *sorted[POD_GP_MAX_VARS];
  for (int i = 0; i < n; i++) {
    if (check_value(&v[i], d, nd, err, errn) != 0) return -1;
    sorted[i] = &v[i];
  }
  qsort(sorted, (size_t)n, sizeof sorted[0], cmp_values);
  for (int i = 1; i < n; i++)
    if (strcmp(sorted[i - 1]->name, sorted[i]->name) == 0)
      return fail(err, errn, "%s: given twice", sorted[i]->name);
  buf_str(s,
          "set terminal svg size 900,560 dynamic enhanced font 'sans,11'\nset "
          "output ");
  pod_gp_quote(s, out, strlen(out));
  buf_str(s, "\nset datafile separator ','\n");
  for (int i = 0; i < n; i++) {
    buf_str(s, sorted[i]->name);
    buf_str(s, " = ");
    if (sorted[i]->type == POD_GP_NUMBER) {
      char num[40];
      snprintf(num, sizeof num, "%.17g", sorted[i]->num);
      buf_str(s, num);
    } else {
      pod_gp_quote(s, sorted[i]->str, sorted[i]->len);
    }
    buf_str(s, "\n");
  }
  buf_add(s, tpl, tpllen);
  buf_str(s, "\nset output\n");
  if (s->oom) return fail(err, errn, "out of memory");
  return 0;
}

/* ---------------------------------------------------------------------- */
/* recipes                                                                 */
/* ---------------------------------------------------------------------- */

void pod_gp_recipe_free(pod_gp_recipe *r) {
  for (int i = 0; i < r->nvars; i++) free(r->vars[i].str);
  r->nvars = 0;
}

static int hexval(int c) {
  if (is_digit(c)) return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

/* A quoted string at p (p < e, *p == '"') into b; *endp after it. */
static const char *parse_string(const char *p, const char *e, pod_gp_buf *b) {
  for (p++; p < e; p++) {
    char c = *p;
    if (c == '"') return p + 1;
    if (c == '\\') {
      if (++p >= e) return NULL;
      switch (*p) {
        case '\\':
          c = '\\';
          break;
        case '"':
          c = '"';
          break;
        case 'n':
          c = '\n';
          break;
        case 't':
          c = '\t';
          break;
        case 'x': {
          int hi = p + 1 < e ? hexval((unsigned char)p[1]) : -1;
          int lo = p + 2 < e ? hexval((unsigned char)p[2]) : -1;
          if (hi < 0 || lo < 0) return NULL;
          c = (char)(hi * 16 + lo);
          p += 2;
          break;
        }
        default:
          return NULL;
      }
    } else if ((unsigned char)c < 0x20) {
      return NULL;
    }
    if (buf_add(b, &c, 1) != 0 || b->len > POD_GP_STR_MAX) return NULL;
  }
  return NULL;
}

/* One `key = value` line (p..e, no newline) into r. */
static int recipe_line(pod_gp_recipe *r, const char *p, const char *e,
                       int *have, char *err, size_t errn) {
  const char *k = p;
  while (p < e && (is_word((unsigned char)*p) || *p == '.')) p++;
  size_t kl = (size_t)(p - k);
  while (p < e && *p == ' ') p++;
  if (kl == 0 || p >= e || *p != '=')
    return fail(err, errn, "expected 'key = value'");
  p++;
  while (p < e && *p == ' ') p++;
  if (p >= e) return fail(err, errn, "missing value");
  int is_num = 0;
  double num = 0;
  pod_gp_buf b = {0};
  if (*p == '"') {
    p = parse_string(p, e, &b);
    if (p == NULL) {
      pod_gp_buf_free(&b);
      return fail(err, errn,
                  "bad string (quotes, escapes \\\\ \\\" \\n \\t \\xHH, at "
                  "most %d bytes)",
                  POD_GP_STR_MAX);
    }
    if (b.p == NULL && buf_add(&b, "", 0) != 0)
      return fail(err, errn, "out of memory");
  } else {
    char tmp[64];
    size_t n = (size_t)(e - p);
    while (n > 0 && p[n - 1] == ' ') n--;
    if (n == 0 || n >= sizeof tmp)
      return fail(err, errn, "expected a number or a quoted string");
    memcpy(tmp, p, n);
    tmp[n] = '\0';
    char *end;
    num = strtod(tmp, &end);
    if (*end != '\0' || !isfinite(num) ||
        !(is_digit((unsigned char)tmp[0]) || tmp[0] == '-' || tmp[0] == '+' ||
          tmp[0] == '.'))
      return fail(err, errn, "expected a finite number or a quoted string");
    is_num = 1;
    p += n;
  }
  while (p < e && *p == ' ') p++;
  int rc = 0;
  if (p != e) {
    rc = fail(err, errn, "unexpected text after the value");
  } else if (kl == 6 && memcmp(k, "format", 6) == 0) {
    if (!is_num || num != 1)
      rc = fail(err, errn, "format: only format 1 is known");
    else if (have[0]++)
      rc = fail(err, errn, "format given twice");
  } else if (kl == 8 && memcmp(k, "template", 8) == 0) {
    if (is_num || !pod_gp_name_ok(b.p, b.len))
      rc = fail(err, errn,
                "template: expected the name of an embedded template");
    else if (have[1]++)
      rc = fail(err, errn, "template given twice");
    else
      memcpy(r->tmpl, b.p, b.len + 1);
  } else if (kl > 4 && memcmp(k, "var.", 4) == 0 &&
             pod_gp_name_ok(k + 4, kl - 4)) {
    for (int i = 0; i < r->nvars && rc == 0; i++)
      if (strlen(r->vars[i].name) == kl - 4 &&
          memcmp(r->vars[i].name, k + 4, kl - 4) == 0)
        rc = fail(err, errn, "%.*s given twice", (int)kl, k);
    if (rc == 0 && r->nvars >= POD_GP_MAX_VARS)
      rc = fail(err, errn, "more than %d variables", POD_GP_MAX_VARS);
    if (rc == 0) {
      int i = r->nvars++;
      memcpy(r->vars[i].name, k + 4, kl - 4);
      r->vars[i].name[kl - 4] = '\0';
      r->vars[i].is_number = is_num;
      r->vars[i].num = num;
      r->vars[i].str = is_num ? NULL : b.p;
      r->vars[i].len = is_num ? 0 : b.len;
      if (!is_num) b.p = NULL;
    }
  } else {
    rc = fail(err, errn, "unknown key '%.*s' (format, template, var.<name>)",
              (int)kl, k);
  }
  pod_gp_buf_free(&b);
  return rc;
}

int pod_gp_recipe_parse(const char *text, size_t len, pod_gp_recipe *r,
                        char *err, size_t errn) {
  memset(r, 0, sizeof *r);
  if (len > POD_GP_RECIPE_MAX)
    return fail(err, errn, "larger than %d bytes", POD_GP_RECIPE_MAX);
  int have[2] = {0, 0}, line = 0;
  const char *p = text, *end = text + len;
  while (p < end) {
    line++;
    const char *e = memchr(p, '\n', (size_t)(end - p));
    const char *next = e ? e + 1 : end;
    if (e == NULL) e = end;
    if (e > p && e[-1] == '\r') e--;
    const char *q = p;
    while (q < e && *q == ' ') q++;
    if (q < e && *q != '#') {
      char msg[200];
      if (recipe_line(r, q, e, have, msg, sizeof msg) != 0)
        return fail(err, errn, "line %d: %s", line, msg);
    }
    p = next;
  }
  if (!have[0])
    return fail(err, errn, "not a plot recipe (no 'format = 1' line)");
  if (!have[1]) return fail(err, errn, "no 'template = \"...\"' line");
  return 0;
}

static int recipe_string(pod_gp_buf *b, const char *s, size_t n) {
  buf_add(b, "\"", 1);
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    char esc[5];
    if (c == '"' || c == '\\') {
      esc[0] = '\\', esc[1] = (char)c;
      buf_add(b, esc, 2);
    } else if (c == '\n') {
      buf_add(b, "\\n", 2);
    } else if (c == '\t') {
      buf_add(b, "\\t", 2);
    } else if (c < 0x20 || c == 0x7f) {
      snprintf(esc, sizeof esc, "\\x%02x", c);
      buf_add(b, esc, 4);
    } else {
      buf_add(b, (const char *)&c, 1);
    }
  }
  return buf_add(b, "\"", 1);
}

int pod_gp_recipe_format(const pod_gp_recipe *r, pod_gp_buf *b, char *err,
                         size_t errn) {
  if (!pod_gp_name_ok(r->tmpl, strlen(r->tmpl)))
    return fail(err, errn, "template: not an identifier");
  if (r->nvars < 0 || r->nvars > POD_GP_MAX_VARS)
    return fail(err, errn, "more than %d variables", POD_GP_MAX_VARS);
  buf_str(b,
          "# podsim plot recipe: `podsim plot DIR` renders it again (data, not "
          "code)\n"
          "format = 1\ntemplate = ");
  recipe_string(b, r->tmpl, strlen(r->tmpl));
  buf_str(b, "\n");
  for (int i = 0; i < r->nvars; i++) {
    if (!pod_gp_name_ok(r->vars[i].name, strlen(r->vars[i].name)))
      return fail(err, errn, "variable name '%s' is not an identifier",
                  r->vars[i].name);
    buf_str(b, "var.");
    buf_str(b, r->vars[i].name);
    buf_str(b, " = ");
    if (r->vars[i].is_number) {
      if (!isfinite(r->vars[i].num))
        return fail(err, errn, "%s: must be a finite number", r->vars[i].name);
      char num[40];
      snprintf(num, sizeof num, "%.17g", r->vars[i].num);
      buf_str(b, num);
    } else {
      if (r->vars[i].len > POD_GP_STR_MAX)
        return fail(err, errn, "%s: longer than %d bytes", r->vars[i].name,
                    POD_GP_STR_MAX);
      recipe_string(b, r->vars[i].str, r->vars[i].len);
    }
    buf_str(b, "\n");
  }
  if (b->oom) return fail(err, errn, "out of memory");
  return 0;
}
