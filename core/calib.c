/*
** calib.c: least-squares fit of collective parameters (see pod_calib.h).
*/
#include "pod_calib.h"

#include <gsl/gsl_multifit_nlinear.h>
#include <gsl/gsl_vector.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define P(f, lo, hi) \
  { #f, offsetof(pod_system, f), lo, hi }
/* Bounds: physical ranges, wide enough for any real fabric. */
const pod_calib_param pod_calib_params[] = {P(up_eff, 0.05, 1.0),
                                            P(up_latency_us, 0.05, 100.0),
                                            P(up_fill_KiB, 0.1, 65536.0),
                                            P(nvls_eff, 0.05, 2.0),
                                            P(nvls_latency_us, 0.05, 500),
                                            P(out_eff, 0.05, 1.0),
                                            P(out_latency_us, 0.05, 500),
                                            P(out_half_MB, 1e-4, 4096.0),
                                            P(msg_overhead_us, 0.0, 100),
                                            P(net_channel_GBps, 0.5, 400.0),
                                            {NULL, 0, 0, 0}};
#undef P

const pod_calib_param *pod_calib_param_find(const char *name) {
  for (const pod_calib_param *p = pod_calib_params; name && p->name; p++)
    if (strcmp(p->name, name) == 0) return p;
  return NULL;
}

typedef struct fit_ctx {
  const pod_system *base;
  const pod_calib_row *rows;
  int n, np;
  const pod_calib_param **par;
  int failed; /* a row could not be evaluated */
  pod_err err;
} fit_ctx;

/* u (log space, clamped into the bounds) -> the system's fields. */
static void set_params(const fit_ctx *c, const gsl_vector *u, pod_system *s) {
  *s = *c->base;
  for (int j = 0; j < c->np; j++) {
    double lo = c->par[j]->lo > 0 ? c->par[j]->lo : 1e-6;
    double v = exp(gsl_vector_get(u, (size_t)j));
    if (v < lo) v = lo;
    if (v > c->par[j]->hi) v = c->par[j]->hi;
    memcpy((char *)s + c->par[j]->offset, &v, sizeof v);
  }
}

static int eval_rows(const fit_ctx *c, const pod_system *s, double *t,
                     pod_err *err) {
  for (int i = 0; i < c->n; i++) {
    pod_coll_args a = {c->rows[i].ranks, c->rows[i].ranks_per_domain,
                       c->rows[i].bytes, c->rows[i].algo};
    pod_coll_result r;
    int rc = pod_coll_eval(s, c->rows[i].op, &a, &r, err);
    if (rc) return rc;
    t[i] = r.time_s;
  }
  return POD_OK;
}

static int resid(const gsl_vector *u, void *ud, gsl_vector *f) {
  fit_ctx *c = ud;
  pod_system s;
  set_params(c, u, &s);
  for (int i = 0; i < c->n; i++) {
    pod_coll_args a = {c->rows[i].ranks, c->rows[i].ranks_per_domain,
                       c->rows[i].bytes, c->rows[i].algo};
    pod_coll_result r;
    double v = 10.0; /* a failed evaluation: a large residual */
    if (pod_coll_eval(&s, c->rows[i].op, &a, &r, &c->err) == POD_OK &&
        r.time_s > 0)
      v = log(r.time_s / c->rows[i].time_s);
    else
      c->failed = 1;
    gsl_vector_set(f, (size_t)i, v);
  }
  return GSL_SUCCESS;
}

static int check_rows(const pod_calib_row *rows, int n, pod_err *err) {
  if (!rows || n < 1) return pod_err_set(err, POD_EINVAL, "rows", "no rows");
  for (int i = 0; i < n; i++) {
    char f[POD_ERR_FIELD_MAX];
    if (!(rows[i].time_s > 0) || !isfinite(rows[i].time_s)) {
      snprintf(f, sizeof f, "rows[%d].time_s", i + 1);
      return pod_err_set(err, POD_EINVAL, f, "must be a positive time");
    }
    if (!(rows[i].bytes > 0) || !isfinite(rows[i].bytes)) {
      snprintf(f, sizeof f, "rows[%d].bytes", i + 1);
      return pod_err_set(err, POD_EINVAL, f, "must be > 0");
    }
  }
  return POD_OK;
}

int pod_calib_run(const pod_system *base, const pod_calib_row *rows, int n,
                  const char *const *params, int np, pod_system *out,
                  double *pred_s, pod_calib_fit *fit, pod_err *err) {
  int rc = check_rows(rows, n, err);
  if (rc) return rc;
  if (np < 1 || np > 16 || !params)
    return pod_err_set(err, POD_EINVAL, "params", "give 1 to 16 parameters");
  if (n < np)
    return pod_err_set(err, POD_EINVAL, "rows",
                       "%d rows cannot fit %d parameters", n, np);
  const pod_calib_param *par[16];
  for (int j = 0; j < np; j++) {
    char f[POD_ERR_FIELD_MAX];
    snprintf(f, sizeof f, "params[%d]", j + 1);
    if (!(par[j] = pod_calib_param_find(params[j])))
      return pod_err_set(err, POD_EINVAL, f, "'%s' is not a fittable field",
                         params[j] ? params[j] : "(null)");
  }
  fit_ctx c = {base, rows, n, np, par, 0, {0}};
  /* the base must evaluate every row */
  double *t = malloc(sizeof(double) * (size_t)n);
  if (!t) return pod_err_set(err, POD_ENOMEM, "rows", NULL);
  if ((rc = eval_rows(&c, base, t, err))) {
    free(t);
    return rc;
  }
  gsl_vector *u = gsl_vector_alloc((size_t)np);
  for (int j = 0; j < np; j++) {
    double v;
    memcpy(&v, (const char *)base + par[j]->offset, sizeof v);
    double lo = par[j]->lo > 0 ? par[j]->lo : 1e-6;
    if (!(v >= lo)) v = lo;
    if (v > par[j]->hi) v = par[j]->hi;
    gsl_vector_set(u, (size_t)j, log(v));
  }
  gsl_multifit_nlinear_fdf fdf = {resid, NULL, NULL, (size_t)n, (size_t)np,
                                  &c,    0,    0,    0};
  gsl_multifit_nlinear_parameters fp =
      gsl_multifit_nlinear_default_parameters();
  gsl_multifit_nlinear_workspace *w = gsl_multifit_nlinear_alloc(
      gsl_multifit_nlinear_trust, &fp, (size_t)n, (size_t)np);
  int info = 0;
  int st = w ? gsl_multifit_nlinear_init(u, &fdf, w) : GSL_ENOMEM;
  if (st == GSL_SUCCESS)
    st = gsl_multifit_nlinear_driver(200, 1e-10, 1e-10, 1e-10, NULL, NULL,
                                     &info, w);
  pod_system s;
  if (w)
    set_params(&c, w->x, &s);
  else
    s = *base;
  if (fit) {
    fit->iterations = w ? (int)gsl_multifit_nlinear_niter(w) : 0;
    fit->converged = st == GSL_SUCCESS;
  }
  if (w) gsl_multifit_nlinear_free(w);
  gsl_vector_free(u);
  if (st != GSL_SUCCESS && st != GSL_EMAXITER) {
    free(t);
    return pod_err_set(err, POD_ERANGE, "fit", "least squares failed: %s",
                       gsl_strerror(st));
  }
  if ((rc = eval_rows(&c, &s, t, err))) {
    free(t);
    return rc;
  }
  double ss = 0, mx = 0;
  for (int i = 0; i < n; i++) {
    double q = t[i] / rows[i].time_s;
    ss += log(q) * log(q);
    if (fabs(q - 1) > mx) mx = fabs(q - 1);
    if (pred_s) pred_s[i] = t[i];
  }
  if (fit) {
    fit->rms_rel = sqrt(ss / n);
    fit->max_rel = mx;
  }
  free(t);
  *out = s;
  return POD_OK;
}
