/*
** serve_fixture.h: serving configs and checks shared by the serving unit
** tests (include after <cmocka.h>):
**   serve_cfg(sys, model, gpus)  a config from a system and a model preset;
**   serve_ok(c)                  pod_serve_eval that fails the test, naming
**                                the field, when the config is refused;
**   serve_expect_err(c, field)   the config refused, naming `field`.
*/
#ifndef POD_TEST_SERVE_FIXTURE_H
#define POD_TEST_SERVE_FIXTURE_H

#include <string.h>

#include "pod_serve.h"

static inline pod_serve_cfg serve_cfg(const char *sys, const char *model,
                                      int gpus) {
  pod_serve_cfg c;
  pod_serve_cfg_init(&c);
  assert_int_equal(pod_hw_system_preset(sys, &c.system), POD_OK);
  assert_int_equal(pod_model_preset(model, &c.model), POD_OK);
  c.gpus = gpus;
  return c;
}

static inline pod_serve_result serve_ok(const pod_serve_cfg *c) {
  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  if (pod_serve_eval(c, &r, &e) != POD_OK)
    fail_msg("eval failed: %s: %s", e.field, e.msg);
  return r;
}

static inline void serve_expect_err(const pod_serve_cfg *c, const char *field) {
  pod_serve_result r;
  pod_err e;
  pod_err_clear(&e);
  assert_int_equal(pod_serve_eval(c, &r, &e), POD_EINVAL);
  assert_string_equal(e.field, field);
  assert_true(strlen(e.msg) > 0);
}

#endif
