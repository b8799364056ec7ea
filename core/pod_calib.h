/*
** pod_calib.h: fitting a system's collective parameters to measured
** collectives (nccl-tests tables) by nonlinear least squares (GSL
** multifit_nlinear, trust region): `podsim calibrate`.
**
** Residual of a row: ln(t_model / t_measured), so every size weighs by
** its relative error.  Parameters move in log space inside [lo, hi].
*/
#ifndef POD_CALIB_H
#define POD_CALIB_H

#include <stddef.h>

#include "pod_coll.h"
#include "pod_err.h"
#include "pod_hw.h"

/* One measured collective. */
typedef struct pod_calib_row {
  pod_coll_op op;
  int ranks;
  int ranks_per_domain; /* 0: packed */
  double bytes;         /* nccl-tests size S */
  double time_s;        /* measured time (> 0) */
  pod_coll_algo algo;   /* the algorithm the run forced (NCCL_ALGO), or
                           POD_ALGO_AUTO */
} pod_calib_row;

/* A fittable double field of pod_system. */
typedef struct pod_calib_param {
  const char *name; /* "up_eff", ... */
  size_t offset;
  double lo, hi; /* bounds of the fit */
} pod_calib_param;

/* The fittable fields, NULL-terminated by name. */
extern const pod_calib_param pod_calib_params[];
const pod_calib_param *pod_calib_param_find(const char *name);

typedef struct pod_calib_fit {
  int iterations;
  double rms_rel; /* sqrt(mean(residual^2)) of ln(t_model/t_meas) */
  double max_rel; /* largest |t_model/t_meas - 1| */
  int converged;  /* GSL's test passed (else: stopped at the iteration cap) */
} pod_calib_fit;

/* Fit the fields `params[0..np-1]` of `base` to the rows; the fitted
** system goes to *out (base's other fields unchanged), the model's time
** of every row to pred_s[0..n-1] (may be NULL).  POD_EINVAL for bad rows
** (field "rows[i].<field>") or unknown parameters ("params[i]"),
** POD_ENOTSUP when a row cannot be evaluated on the system. */
int pod_calib_run(const pod_system *base, const pod_calib_row *rows, int n,
                  const char *const *params, int np, pod_system *out,
                  double *pred_s, pod_calib_fit *fit, pod_err *err);

#endif
