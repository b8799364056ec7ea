/*
** pod_err.h: status codes and error details shared by every core module.
**
** Every core function that can fail returns an int status: POD_OK (0) or a
** negative code from the table below.  Functions that can say more take an
** optional `pod_err *` (may be NULL) and fill it with the offending field's
** path and a one-line message.  Nothing in core/ prints, aborts or exits.
** Thread-safe: pod_strerror returns static strings; a pod_err belongs to
** its caller.
*/
#ifndef POD_ERR_H
#define POD_ERR_H

#include <stddef.h>

enum {
  POD_OK = 0,
  POD_EINVAL = -22,    /* an argument is out of its domain */
  POD_ENOMEM = -12,    /* allocation failed */
  POD_ERANGE = -34,    /* result would overflow or is not finite */
  POD_ENOENT = -2,     /* no such preset or name */
  POD_ENOTSUP = -95,   /* valid request this model cannot answer */
  POD_ECANCELED = -125 /* stopped on request */
};

#define POD_ERR_FIELD_MAX 64
#define POD_ERR_MSG_MAX 256

typedef struct pod_err {
  int code;                      /* last status, POD_OK if none */
  char field[POD_ERR_FIELD_MAX]; /* field path, e.g. "parallel.tp" */
  char msg[POD_ERR_MSG_MAX];     /* what is wrong, without the field */
} pod_err;

/* Static name of a status code ("invalid argument", ...). */
const char *pod_strerror(int code);

/* Fill `e` (when not NULL) and return `code`, so callers can write
** `return pod_err_set(err, POD_EINVAL, "tp", "must divide %d", n);`. */
int pod_err_set(pod_err *e, int code, const char *field, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;

/* Reset `e` (when not NULL) to POD_OK with empty strings. */
void pod_err_clear(pod_err *e);

/* Process set-up for core; call once, first, from every entry point (the
** podsim executable, tests, benchmarks, fuzz targets), before any thread
** runs core code.  It turns GSL's error handler off: GSL's default
** handler aborts the process, and core reports every failure as a status
** code instead.  Contract: core itself never relies on the handler.  It
** calls no GSL function that reports through it on valid input (gamma
** functions come from libm, the Sobol dimension is checked before
** gsl_qrng_alloc), so even a caller that never called pod_init, or set an
** aborting handler of its own, gets no abort from core except when GSL
** itself runs out of memory.  Idempotent; not thread-safe (it sets a
** process-wide GSL variable). */
void pod_init(void);

/* Non-zero when x is a finite double. */
int pod_finite(double x);

#endif
