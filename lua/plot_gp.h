/*
** plot_gp.h: gnuplot scripts that carry no scenario code, and plot
** recipes as data.  Pure C (no Lua, no I/O), fuzzed by
** tests/fuzz/fuzz_gpenc.c and tests/fuzz/fuzz_recipe.c.
**
** gnuplot is a shell: backquotes (even inside double-quoted strings),
** system(), load/call/eval, `!cmd`, macros (@name), `set print`/`set
** output` to any path and data files named "< cmd" all run commands or
** touch files.  So the host never interpolates scenario text into a
** script.  It builds the whole script itself from an embedded template:
**
**   set terminal svg ...            fixed
**   set output "<checked path>"     the host's temporary SVG name
**   name = <value>                  one line per declared variable
**   <template text>                 embedded, checked by pod_gp_template_check
**   set output
**
** where every name is a variable the template declares in a line
**   # vars: datafile:file metric:string npoints:number
** (identifiers [A-Za-z][A-Za-z0-9_]{0,31}), a number is a finite double
** printed with %.17g, and a string or a path is a double-quoted literal in
** which every byte outside [A-Za-z0-9 _.,:+=/-] is an octal escape \ooo,
** so no backquote, quote, @, newline or backslash of the value appears
** in the script text.  Paths must be absolute (so never "<", "-", "+" or
** "" as gnuplot's special file names); the caller checks them with the
** sandbox (lua/host_paths.c) first.
**
** A recipe (<name>.plot beside <name>.svg) is data, never code:
**   # podsim plot recipe
**   format = 1
**   template = "cdf"
**   var.datafile = "cdf_step_time.csv"
**   var.npoints = 3
** one `key = value` per line, a value a number or a double-quoted string
** with the escapes \\ \" \n \t \xHH; '#' lines are comments.
*/
#ifndef POD_PLOT_GP_H
#define POD_PLOT_GP_H

#include <stddef.h>

#define POD_GP_NAME_MAX 32      /* identifier length limit, with the NUL */
#define POD_GP_MAX_VARS 16      /* variables per template or recipe */
#define POD_GP_STR_MAX 4096     /* bytes of one string value */
#define POD_GP_RECIPE_MAX 65536 /* bytes of a recipe file */

typedef enum { POD_GP_NUMBER, POD_GP_STRING, POD_GP_FILE } pod_gp_type;

typedef struct pod_gp_decl {
  char name[POD_GP_NAME_MAX];
  pod_gp_type type;
} pod_gp_decl;

/* A growable byte buffer; `oom` set once an allocation failed. */
typedef struct pod_gp_buf {
  char *p;
  size_t len, cap;
  int oom;
} pod_gp_buf;

void pod_gp_buf_free(pod_gp_buf *b);

/* 1 when s[0..n) is an identifier [A-Za-z][A-Za-z0-9_]{0,30}. */
int pod_gp_name_ok(const char *s, size_t n);

/* Append s[0..n) as a gnuplot double-quoted literal (see above).  The
** literal decodes to exactly s; it contains only the bytes
** [A-Za-z0-9 _.,:+=/-], '\\' followed by three octal digits, and the two
** quotes.  0, or -1 when out of memory. */
int pod_gp_quote(pod_gp_buf *b, const char *s, size_t n);

/* The variables a template declares ("# vars:" lines) into d (at most
** POD_GP_MAX_VARS); 0, or -1 with a message in err. */
int pod_gp_template_vars(const char *tpl, size_t len, pod_gp_decl *d, int *n,
                         char *err, size_t errn);

/* 0 when the template text uses none of gnuplot's command, file or macro
** features (backquote, @, !cmd, system, load, call, eval, shell, print,
** save, cd, output, pipe, "<"), -1 with the offending word in err.
** Comments are skipped.  Every embedded template must pass. */
int pod_gp_template_check(const char *tpl, size_t len, char *err, size_t errn);

/* One variable's value. */
typedef struct pod_gp_value {
  const char *name;
  pod_gp_type type; /* as given: NUMBER, or STRING (also for paths) */
  double num;
  const char *str;
  size_t len;
} pod_gp_value;

/* Build the script for template tpl (already checked), output path `out`
** (absolute) and values v[0..n): every value must be declared with a
** matching type (a FILE takes a string: an absolute path), numbers
** finite, strings at most POD_GP_STR_MAX bytes.  0, or -1 with a message
** naming the variable in err. */
int pod_gp_script(const char *tpl, size_t tpllen, const char *out,
                  const pod_gp_value *v, int n, pod_gp_buf *script, char *err,
                  size_t errn);

/* A parsed recipe. */
typedef struct pod_gp_recipe {
  char tmpl[POD_GP_NAME_MAX];
  int nvars;
  struct {
    char name[POD_GP_NAME_MAX];
    int is_number;
    double num;
    char *str; /* NUL-terminated (may hold NULs before len) */
    size_t len;
  } vars[POD_GP_MAX_VARS];
} pod_gp_recipe;

/* Parse a recipe; 0, or -1 with "line N: ..." in err.  Free with
** pod_gp_recipe_free whatever the result. */
int pod_gp_recipe_parse(const char *text, size_t len, pod_gp_recipe *r,
                        char *err, size_t errn);
void pod_gp_recipe_free(pod_gp_recipe *r);

/* Write a recipe in the format above (names must be identifiers, numbers
** finite); 0, or -1 with a message in err.  pod_gp_recipe_parse of the
** text gives the recipe back. */
int pod_gp_recipe_format(const pod_gp_recipe *r, pod_gp_buf *b, char *err,
                         size_t errn);

#endif
