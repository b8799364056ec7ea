/*
** err.c: status codes and error details (see pod_err.h).
*/
#include "pod_err.h"

#include <gsl/gsl_errno.h>

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

const char *pod_strerror(int code) {
  switch (code) {
    case POD_OK:
      return "success";
    case POD_EINVAL:
      return "invalid argument";
    case POD_ENOMEM:
      return "out of memory";
    case POD_ERANGE:
      return "result out of range";
    case POD_ENOENT:
      return "no such name";
    case POD_ENOTSUP:
      return "not supported";
    case POD_ECANCELED:
      return "canceled";
    default:
      return "unknown error";
  }
}

int pod_err_set(pod_err *e, int code, const char *field, const char *fmt, ...) {
  if (e == NULL) return code;
  e->code = code;
  snprintf(e->field, sizeof e->field, "%s", field ? field : "");
  if (fmt != NULL) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
  } else {
    snprintf(e->msg, sizeof e->msg, "%s", pod_strerror(code));
  }
  return code;
}

void pod_err_clear(pod_err *e) {
  if (e == NULL) return;
  e->code = POD_OK;
  e->field[0] = '\0';
  e->msg[0] = '\0';
}

int pod_finite(double x) {
  return isfinite(x) != 0;
}

void pod_init(void) {
  gsl_set_error_handler_off();
}
