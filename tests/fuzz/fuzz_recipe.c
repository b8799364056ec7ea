/*
** fuzz_recipe.c: the plot recipe parser (lua/plot_gp.h) on arbitrary
** bytes.  Properties: no crash or leak; a recipe that parses formats to
** text that parses to the same recipe (template, names, types, values
** bit for bit), and formatting is stable.
*/
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

static void same(const pod_gp_recipe *a, const pod_gp_recipe *b) {
  if (strcmp(a->tmpl, b->tmpl) != 0) FAIL("template changed");
  if (a->nvars != b->nvars) FAIL("variable count changed");
  for (int i = 0; i < a->nvars; i++) {
    if (strcmp(a->vars[i].name, b->vars[i].name) != 0) FAIL("name changed");
    if (a->vars[i].is_number != b->vars[i].is_number) FAIL("type changed");
    if (a->vars[i].is_number) {
      if (memcmp(&a->vars[i].num, &b->vars[i].num, sizeof(double)) != 0)
        FAIL("number changed");
    } else if (a->vars[i].len != b->vars[i].len ||
               memcmp(a->vars[i].str, b->vars[i].str, a->vars[i].len) != 0) {
      FAIL("string changed");
    }
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  pod_gp_recipe r, r2;
  char err[300];
  int rc = pod_gp_recipe_parse((const char *)data, size, &r, err, sizeof err);
  if (rc != 0) {
    if (err[0] == '\0') FAIL("error without a message");
    pod_gp_recipe_free(&r);
    return 0;
  }
  pod_gp_buf b = {0}, b2 = {0};
  if (pod_gp_recipe_format(&r, &b, err, sizeof err) != 0)
    FAIL("format failed: %s", err);
  if (pod_gp_recipe_parse(b.p, b.len, &r2, err, sizeof err) != 0)
    FAIL("formatted recipe does not parse: %s\n%s", err, b.p);
  same(&r, &r2);
  if (pod_gp_recipe_format(&r2, &b2, err, sizeof err) != 0)
    FAIL("second format failed");
  if (b.len != b2.len || memcmp(b.p, b2.p, b.len) != 0)
    FAIL("format not stable");
  pod_gp_buf_free(&b);
  pod_gp_buf_free(&b2);
  pod_gp_recipe_free(&r);
  pod_gp_recipe_free(&r2);
  return 0;
}
