/*
** l_trace_specs.c: the per-sample checks of traced spec constructors
** (podsim.system, podsim.gpu, podsim.model) and when a traced call may
** skip them (l_trace_int.h): a kernel call whose config holds the bytes of
** a spec checked per sample does not check it again, and a system or
** model spec whose patches test what its check's field bounds would is
** checked per sample only for the rules across fields that its patched
** fields enter (none for a system, the routing imbalance for a model).
*/
#include <string.h>

#include "l_trace_int.h"
#include "pod_hw.h"
#include "pod_model.h"
#include "pod_train.h"

int lpod_trace__fn_system(void *b, pod_err *e) {
  return pod_hw_system_check(b, e);
}

/* A system spec whose per-sample check is its patches' (see
** lpod_trace__system_screened): nothing left to check. */
int lpod_trace__fn_system_screened(void *b, pod_err *e) {
  (void)b;
  (void)e;
  return POD_OK;
}

/* The bound of the field at offset off of a pod_system, or NULL. */
static const pod_field *system_field_at(size_t off) {
  for (const pod_field *f = pod_hw_system_fields; f->name; f++)
    if (f->offset == off) return f;
  for (const pod_field *f = pod_hw_gpu_fields; f->name; f++)
    if (offsetof(pod_system, gpu) + f->offset == off) return f;
  return NULL;
}

/* Does patch p write a plain field f (NULL: none) with a test at least as
** strict as f's bound (finite, the same minimum, the same inclusive
** maximum)? */
static int patch_as_strict(const pod_gpatch *p, const pod_field *f) {
  if (p->kind != POD_GP_DOUBLE && p->kind != POD_GP_INT) return 0;
  pod_ftype want = p->kind == POD_GP_INT ? POD_F_INT : POD_F_DOUBLE;
  return f != NULL && f->type == want && p->min == f->min && p->max == f->max &&
         p->min_open == ((f->open & POD_F_MIN_OPEN) != 0) &&
         !(f->open & POD_F_MAX_OPEN);
}

/* Can a system spec built from template t0 with `patches` skip
** pod_hw_system_check per sample?  That check (core/hw.c) is the
** conjunction of each field's bound (pod_hw_system_fields,
** pod_hw_gpu_fields), the nvls/nvls_eff rule, the enums and the names.
** When t0 passes it, and each patch writes a plain field with a test at
** least as strict as that field's bound (finite, the same minimum, the
** same inclusive maximum) and none writes nvls or nvls_eff, every sample
** whose patches pass passes the check too. */
int lpod_trace__system_screened(const unsigned char *t0,
                                const pod_gpatch *patches, int np) {
  pod_system s;
  pod_err e;
  memcpy(&s, t0, sizeof s);
  if (pod_hw_system_check(&s, &e) != POD_OK) return 0;
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    if (p->offset == offsetof(pod_system, nvls) ||
        p->offset == offsetof(pod_system, nvls_eff))
      return 0;
    if (!patch_as_strict(p, system_field_at(p->offset))) return 0;
  }
  return 1;
}

/* A model spec that lpod_trace__model_screened accepted.  pod_model_check
** (core/model.c) is its field bounds, which the patches test, and rules
** across fields, of which one reads a double field: an MoE model's
** imbalance >= 1 (the bound alone allows [0, 1e6]).  Every other rule
** reads integer fields, the template's.  On a failure the whole check
** runs, so the error is pod_model_check's. */
int lpod_trace__fn_model_screened(void *b, pod_err *e) {
  const pod_model *m = b;
  if (m->experts <= 0 || m->imbalance >= 1.0) return POD_OK;
  return pod_model_check(m, e);
}

/* Can a model spec built from template t0 with `patches` be checked per
** sample by lpod_trace__fn_model_screened?  When t0 passes
** pod_model_check and each patch writes a double field with a test at
** least as strict as its bound (an integer field may enter any rule
** across fields: none may be patched). */
int lpod_trace__model_screened(const unsigned char *t0,
                               const pod_gpatch *patches, int np) {
  pod_model m;
  pod_err e;
  memcpy(&m, t0, sizeof m);
  if (pod_model_check(&m, &e) != POD_OK) return 0;
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    const pod_field *f = NULL;
    for (const pod_field *q = pod_model_fields; q->name && !f; q++)
      if (q->offset == p->offset && q->type == POD_F_DOUBLE) f = q;
    if (p->kind != POD_GP_DOUBLE || !patch_as_strict(p, f)) return 0;
  }
  return 1;
}

/* Does a spec node of function `have` check what function fn checks? */
static int checks_as(pod_graph_blob_fn have, pod_graph_blob_fn fn) {
  return have == fn ||
         (fn == lpod_trace__fn_system &&
          have == lpod_trace__fn_system_screened) ||
         (fn == lpod_trace__fn_model && have == lpod_trace__fn_model_screened);
}

/* Is the spec at [base, base + size) of a new blob with `patches` always
** the bytes of one checked spec node (a blob of function fn, which
** checks it per sample)?  True when no patch writes it (the template's,
** checked when traced), or when every patch there copies field o of one
** spec node S to base + o, and every field S patches is copied so. */
int lpod_trace__spec_is_checked(const pod_graph *g, const pod_gpatch *patches,
                                int np, size_t base, size_t size,
                                pod_graph_blob_fn fn) {
  int spec = -1, n = 0;
  for (int i = 0; i < np; i++) {
    const pod_gpatch *p = &patches[i];
    if (p->offset < base || p->offset >= base + size) continue;
    int b;
    size_t off;
    if (p->kind == POD_GP_BYTES || !pod_graph_field_src(g, p->src, &b, &off))
      return 0;
    if (!checks_as(pod_graph_blob_fn_of(g, b), fn) || off != p->offset - base)
      return 0;
    if (spec >= 0 && b != spec) return 0;
    spec = b;
    n++;
  }
  if (spec < 0) return 1;
  for (int i = 0; i < pod_graph_blob_npatches(g, spec); i++) {
    size_t o = pod_graph_blob_patch(g, spec, i)->offset;
    int copied = 0;
    for (int k = 0; k < np && !copied; k++)
      copied = patches[k].offset == base + o;
    if (!copied) return 0;
  }
  return n > 0;
}
int lpod_trace__fn_gpu(void *b, pod_err *e) {
  return pod_hw_gpu_check(b, e);
}
int lpod_trace__fn_model(void *b, pod_err *e) {
  return pod_model_check(b, e);
}
/* Are the system and the model of the train config t0 checked specs'
** bytes per sample, and valid at the probe? */
int lpod_trace__train_specs_checked(const pod_graph *g, const unsigned char *t0,
                                    const pod_gpatch *patches, int np) {
  if (!lpod_trace__spec_is_checked(g, patches, np,
                                   offsetof(pod_train_cfg, system),
                                   sizeof(pod_system), lpod_trace__fn_system) ||
      !lpod_trace__spec_is_checked(g, patches, np,
                                   offsetof(pod_train_cfg, model),
                                   sizeof(pod_model), lpod_trace__fn_model))
    return 0;
  pod_train_cfg c;
  memcpy(&c, t0, sizeof c);
  pod_err e;
  return pod_hw_system_check(&c.system, &e) == POD_OK &&
         pod_model_check(&c.model, &e) == POD_OK;
}
