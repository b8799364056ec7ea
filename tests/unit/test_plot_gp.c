/*
** test_plot_gp.c: gnuplot scripts and plot recipes (lua/plot_gp.h): every
** embedded template declares its variables and passes the template check;
** the check refuses each of gnuplot's command, file and macro features;
** literals carry no backquote, quote, @ or newline; scripts refuse
** undeclared, mistyped, non-finite and relative-path values; recipes
** round-trip and refuse code.
*/
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "plot_gp.h"

/* the embedded files (build/pod_embed.c) */
typedef struct pod_embed_file {
  const char *name;
  const char *src;
  size_t len;
} pod_embed_file;
extern const pod_embed_file pod_embed_files[];

static void embedded_templates_pass(void **state) {
  (void)state;
  int n = 0;
  for (const pod_embed_file *f = pod_embed_files; f->name; f++) {
    if (strncmp(f->name, "plots/", 6) != 0) continue;
    n++;
    char err[256] = "";
    pod_gp_decl d[POD_GP_MAX_VARS];
    int nd = 0;
    assert_int_equal(pod_gp_template_check(f->src, f->len, err, sizeof err), 0);
    assert_int_equal(
        pod_gp_template_vars(f->src, f->len, d, &nd, err, sizeof err), 0);
    assert_true(nd >= 1); /* at least its data file */
    assert_string_equal(d[0].name, "datafile");
    assert_int_equal(d[0].type, POD_GP_FILE);
  }
  assert_true(n >= 4);
}

static void check_refuses(void **state) {
  (void)state;
  static const char *const bad[] = {"x = `id`\n",
                                    "set title \"a \\@m\"\n",
                                    "set title \"a \\`id`\"\n",
                                    "x = system(\"id\")\n",
                                    "!id\n",
                                    "set xlabel 'a'; !id\n",
                                    "plot \"< id\" using 1\n",
                                    "plot '< id'\n",
                                    "load \"x.gp\"\n",
                                    "call \"x.gp\"\n",
                                    "eval(s)\n",
                                    "print 1\n",
                                    "set print \"x\"\n",
                                    "set output \"/etc/x\"\n",
                                    "x = @y\n",
                                    "save \"x\"\n",
                                    "cd \"/\"\n",
                                    "fit f(x) 'd' via a\n",
                                    "set table \"x\"\n",
                                    "import f(x) from \"a.so\"\n",
                                    "shell\n",
                                    "set term x; set output '| id'\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char err[256] = "";
    assert_int_equal(
        pod_gp_template_check(bad[i], strlen(bad[i]), err, sizeof err), -1);
    assert_true(err[0] != '\0');
  }
  static const char ok[] =
      "# load system `x` in a comment\nif (!exists(\"s\")) s = \"a b\"\n"
      "plot for [w in s] datafile using 1:2 title w noenhanced\n";
  char err[256];
  assert_int_equal(pod_gp_template_check(ok, sizeof ok - 1, err, sizeof err),
                   0);
}

static void literals(void **state) {
  (void)state;
  pod_gp_buf b = {0};
  static const char s[] = "a`b\"c@d\\e\nf$g!h'i\xc3\xa9";
  assert_int_equal(pod_gp_quote(&b, s, sizeof s - 1), 0);
  assert_string_equal(
      b.p, "\"a\\140b\\042c\\100d\\134e\\012f\\044g\\041h\\047i\\303\\251\"");
  pod_gp_buf_free(&b);
}

static const char tpl[] =
    "# vars: datafile:file metric:string n:number\nplot datafile\n";

static int script(const pod_gp_value *v, int n, pod_gp_buf *b, char *err) {
  return pod_gp_script(tpl, sizeof tpl - 1, "/o/x.svg.tmp", v, n, b, err, 256);
}

static void scripts(void **state) {
  (void)state;
  char err[256];
  pod_gp_buf b = {0};
  pod_gp_value ok[] = {{"n", POD_GP_NUMBER, 3, NULL, 0},
                       {"metric", POD_GP_STRING, 0, "`id`", 4},
                       {"datafile", POD_GP_STRING, 0, "/o/d.csv", 8}};
  assert_int_equal(script(ok, 3, &b, err), 0);
  assert_non_null(strstr(
      b.p, "\ndatafile = \"/o/d.csv\"\nmetric = \"\\140id\\140\"\nn = 3\n"));
  assert_null(strchr(b.p, '`'));
  pod_gp_buf_free(&b);
  pod_gp_value undeclared[] = {{"evil", POD_GP_NUMBER, 1, NULL, 0}};
  assert_int_equal(script(undeclared, 1, &b, err), -1);
  assert_non_null(strstr(err, "evil: the template declares no such variable"));
  pod_gp_value badname[] = {{"a b", POD_GP_NUMBER, 1, NULL, 0}};
  assert_int_equal(script(badname, 1, &b, err), -1);
  pod_gp_value mistyped[] = {{"n", POD_GP_STRING, 0, "1", 1}};
  assert_int_equal(script(mistyped, 1, &b, err), -1);
  pod_gp_value nan[] = {{"n", POD_GP_NUMBER, NAN, NULL, 0}};
  assert_int_equal(script(nan, 1, &b, err), -1);
  pod_gp_value rel[] = {{"datafile", POD_GP_STRING, 0, "< id", 4}};
  assert_int_equal(script(rel, 1, &b, err), -1);
  assert_non_null(strstr(err, "absolute path"));
  pod_gp_value nul[] = {{"metric", POD_GP_STRING, 0, "a\0b", 3}};
  assert_int_equal(script(nul, 1, &b, err), -1);
  pod_gp_value twice[] = {{"n", POD_GP_NUMBER, 1, NULL, 0},
                          {"n", POD_GP_NUMBER, 2, NULL, 0}};
  assert_int_equal(script(twice, 2, &b, err), -1);
  pod_gp_buf_free(&b);
}

static void recipes(void **state) {
  (void)state;
  static const char text[] =
      "# c\nformat = 1\ntemplate = \"cdf\"\nvar.datafile = \"../d.csv\"\n"
      "var.npoints = 3\nvar.metric = \"a\\\"b\\x01\\n\"\n";
  pod_gp_recipe r;
  char err[300];
  assert_int_equal(
      pod_gp_recipe_parse(text, sizeof text - 1, &r, err, sizeof err), 0);
  assert_string_equal(r.tmpl, "cdf");
  assert_int_equal(r.nvars, 3);
  assert_string_equal(r.vars[2].name, "metric");
  assert_int_equal(r.vars[2].len, 5);
  assert_memory_equal(r.vars[2].str, "a\"b\x01\n", 5);
  assert_true(r.vars[1].is_number && r.vars[1].num == 3);
  pod_gp_buf b = {0};
  assert_int_equal(pod_gp_recipe_format(&r, &b, err, sizeof err), 0);
  pod_gp_recipe r2;
  assert_int_equal(pod_gp_recipe_parse(b.p, b.len, &r2, err, sizeof err), 0);
  assert_int_equal(r2.nvars, 3);
  assert_memory_equal(r2.vars[2].str, "a\"b\x01\n", 5);
  pod_gp_recipe_free(&r2);
  pod_gp_recipe_free(&r);
  pod_gp_buf_free(&b);
  static const char *const bad[] = {
      "return {template = 'cdf'}\n",
      "format = 1\n",
      "format = 2\ntemplate = \"cdf\"\n",
      "format = 1\ntemplate = \"../x\"\n",
      "format = 1\ntemplate = \"cdf\"\nvar.a b = 1\n",
      "format = 1\ntemplate = \"cdf\"\nvar.x = inf\n",
      "format = 1\ntemplate = \"cdf\"\nvar.x = \"unterminated\n",
      "format = 1\ntemplate = \"cdf\"\nvar.x = 1\nvar.x = 2\n",
      "format = 1\ntemplate = \"cdf\"\nos.execute = 1\n"};
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    err[0] = '\0';
    assert_int_equal(
        pod_gp_recipe_parse(bad[i], strlen(bad[i]), &r, err, sizeof err), -1);
    assert_true(err[0] != '\0');
    pod_gp_recipe_free(&r);
  }
}

int main(void) {
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(embedded_templates_pass),
      cmocka_unit_test(check_refuses), cmocka_unit_test(literals),
      cmocka_unit_test(scripts), cmocka_unit_test(recipes)};
  return cmocka_run_group_tests(tests, NULL, NULL);
}
