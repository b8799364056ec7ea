/*
** lpod.h: the binding infrastructure shared by every lua/l_*.c module.
**
** Specs (GPUs, systems, models, failure sets, ...) are immutable userdata
** holding a core value struct.  Each kind is described once by an
** lpod_type: its fields with type, offset, range and unit.  From that one
** description (with the ranges from core, lpod_type.bounds) come the
** constructor (`podsim.system{base=..., ...}` with
** unknown-field suggestions and range checks), field reads
** (`sys.up_GBps`), `pairs`, `tostring`, copying into another lua_State,
** and the offset of a dotted field path for Monte Carlo bindings.
**
** Errors raised here start with the scenario's `file:line:` (the first
** stack frame that belongs to a script file rather than to podsim's
** embedded library) and name the field path.  Only this folder touches Lua.
*/
#ifndef LPOD_H
#define LPOD_H

#include <lauxlib.h>
#include <lua.h>
#include <stddef.h>

#include "pod_err.h"
#include "pod_field.h"
#include "pod_kernel.h"

typedef enum lpod_ftype {
  LPOD_DOUBLE, /* double; range from the type's core bounds */
  LPOD_INT,    /* int; integral number in the core bounds */
  LPOD_BOOL,   /* int holding 0/1; Lua boolean */
  LPOD_STRING, /* char[size]; Lua string shorter than size */
  LPOD_ENUM,   /* int; Lua string, one of names[] */
  LPOD_STRUCT  /* nested spec of type `sub`: a preset name, spec or table */
} lpod_ftype;

typedef struct lpod_type lpod_type;

#define LPOD_ENUM_MAX 32

typedef struct lpod_field {
  const char *name;
  lpod_ftype type;
  size_t offset;
  size_t size;              /* LPOD_STRING: buffer size; LPOD_ENUM: when
                            ** > 0, only the first `size` names (at most
                            ** LPOD_ENUM_MAX) are accepted */
  const char *unit;         /* non-numeric fields: shown in help (the
                            ** numeric ones' units and ranges are in the
                            ** type's core bounds) */
  const char *const *names; /* LPOD_ENUM: NULL-terminated names */
  const lpod_type *sub;     /* LPOD_STRUCT */
} lpod_field;

struct lpod_type {
  const char *tname;   /* metatable name, e.g. "podsim.system" */
  const char *kind;    /* user-facing noun, e.g. "system" */
  const char *ctor;    /* constructor name, e.g. "podsim.system" */
  const char *presets; /* podsim table of presets, e.g. "systems" */
  size_t size;
  const lpod_field *fields; /* terminated by a field with name NULL */
  /* Whole-value check from core (may be NULL). */
  int (*check)(const void *value, pod_err *err);
  /* Copy preset `name` into out; POD_ENOENT when unknown (may be NULL). */
  int (*preset)(const char *name, void *out);
  /* Name of the i-th preset or NULL past the end (may be NULL). */
  const char *(*preset_name)(int i);
  /* Public source of the i-th preset (may be NULL). */
  const char *(*preset_source)(int i);
  /* Core bounds of the numeric fields (pod_field.h), the one home of each
  ** range: an LPOD_DOUBLE/INT field is checked against the entry at its
  ** offset as it is read; a type with numeric fields must have one for
  ** each (lpod_type_register raises otherwise). */
  const pod_field *bounds;
};

/* The core bound of numeric field f of t, or NULL when t has none. */
const pod_field *lpod_field_bound(const lpod_type *t, const lpod_field *f);

/* preset_name/preset_source adapters over a core preset iterator
** `const T *at(int i, const char **source)` (NULL past the end) whose
** items carry a `name`: defines static PREFIX_name and PREFIX_source. */
#define LPOD_PRESET_ITER(prefix, T, at)       \
  static const char *prefix##_name(int i) {   \
    const T *p_ = at(i, NULL);                \
    return p_ ? p_->name : NULL;              \
  }                                           \
  static const char *prefix##_source(int i) { \
    const char *src_ = NULL;                  \
    return at(i, &src_) ? src_ : NULL;        \
  }

/* preset_name of a type whose only preset is "default" (kernel configs). */
const char *lpod_default_preset_name(int i);

/* Register the metatable of `t` in L (idempotent).  [-0, +0, m] */
void lpod_type_register(lua_State *L, const lpod_type *t);

/* Push a new spec userdata holding a copy of `value`; returns its memory.
** [-0, +1, m] */
void *lpod_push(lua_State *L, const lpod_type *t, const void *value);

/* The struct inside the spec at idx, or NULL when it is not of type t.
** [-0, +0, -] */
void *lpod_test(lua_State *L, int idx, const lpod_type *t);

/* Read the value at idx as a spec of type t into `out`: a spec userdata,
** a preset name, or a table (as the constructor).  `path` names the value
** in errors ("system").  Raises a located error on bad input.
** [-0, +0, v] */
void lpod_to_value(lua_State *L, int idx, const lpod_type *t, void *out,
                   const char *path);

/* Build from the table at idx (fields plus optional `base`) into out.
** [-0, +0, v] */
void lpod_build(lua_State *L, int idx, const lpod_type *t, void *out,
                const char *path);
/* The same, with errors naming the API call `ctx` ("podsim.study").
** [-0, +0, v] */
void lpod_build_in(lua_State *L, int idx, const lpod_type *t, void *out,
                   const char *path, const char *ctx);

/* Resolve a dotted field path ("gpu.bf16_tflops") of type t to a bind.
** Returns 0 and fills *b, or -1 when the path names no numeric field. */
int lpod_field_bind(const lpod_type *t, const char *path, pod_bind *b);

/* Push the preset table podsim.<t->presets> (name -> spec).  [-0, +1, m] */
void lpod_push_presets(lua_State *L, const lpod_type *t);

/* Set podsim.<t->presets> and podsim._sources.<t->presets> (name -> text)
** on the podsim table at `podsim`, and register the type.  [-0, +0, m] */
void lpod_open_type(lua_State *L, int podsim, const lpod_type *t);

/* The binding modules (lua/modules.h): lpod_open_<name> sets that module's
** functions on the podsim table at the top of the stack.  [-0, +0, m] */
#define LPOD_MODULE(name) void lpod_open_##name(lua_State *L);
#include "modules.h"
#undef LPOD_MODULE

/* --- built-in evaluators ---------------------------------------------------
 */

/* Register kernel `k` under `name` (podsim.kernels[name]) with the lpod
** type describing its config struct, so a study can build per-grid-point
** configs from a table (lpod_build) and bind sampled parameters to dotted
** field paths (lpod_field_bind).  cfg_type->size must equal k->cfg_size.
** [-0, +0, m] */
void lpod_register_kernel(lua_State *L, const char *name, const pod_kernel *k,
                          const lpod_type *cfg_type);

/* Look up a registered kernel; returns 0 when `name` is unknown.
** [-0, +0, m] */
int lpod_find_kernel(lua_State *L, const char *name, const pod_kernel **k,
                     const lpod_type **cfg_type);

/* --- errors ---------------------------------------------------------- */

/* Push "file:line:" of the innermost script frame (or "" when none).
** [-0, +1, m] */
void lpod_where(lua_State *L);

/* Raise "file:line: ctx: path: message".  `ctx` is the API function
** ("podsim.system"), `path` the field path (may be NULL). Never returns.
** [-0, +0, v] */
int lpod_error(lua_State *L, const char *ctx, const char *path, const char *fmt,
               ...);

/* Raise a located error from a core status.  [-0, +0, v] */
int lpod_error_core(lua_State *L, const char *ctx, const char *prefix,
                    const pod_err *e);

/* Nearest of `names` (NULL-terminated) to `word`, or NULL when none is
** close enough to suggest. */
const char *lpod_nearest(const char *word, const char *const *names);

/* Push "a, b, c": the NULL-terminated names joined for a message.
** [-0, +1, m] */
void lpod_push_names(lua_State *L, const char *const *names);

/* Raise "ctx: path: unknown <what> '<name>' (did you mean '<near>'?)", or
** "... (<label>: a, b, c)" when no name is close.  [-0, +0, v] */
int lpod_error_unknown(lua_State *L, const char *ctx, const char *path,
                       const char *what, const char *name,
                       const char *const *names, const char *label);

/* --- option tables ----------------------------------------------------- */

/* Check that every string key of the table at idx is one of `allowed`
** (NULL-terminated); raise an "unknown field" error with a suggestion.
** [-0, +0, v] */
void lpod_check_keys(lua_State *L, int idx, const char *ctx, const char *path,
                     const char *const *allowed);

/* Number of keys of the table at idx.  A binding that read k known
** fields and finds k keys can skip lpod_check_keys (its fast path).
** [-0, +0, -] */
int lpod_count_keys(lua_State *L, int idx);

/* Field `key` of the table at idx as a number in [min, max]; `def` when
** absent (if required, absent is an error).  Path is "path.key".
** lpod_opt_number, lpod_opt_int, lpod_opt_bool: [-0, +0, v] */
double lpod_opt_number(lua_State *L, int idx, const char *key, double def,
                       double min, double max, int required, const char *ctx,
                       const char *path);
int lpod_opt_int(lua_State *L, int idx, const char *key, int def, int min,
                 int max, int required, const char *ctx, const char *path);
int lpod_opt_bool(lua_State *L, int idx, const char *key, int def,
                  const char *ctx, const char *path);
/* String field that must be one of names[]; returns the index.
** [-0, +0, v] */
int lpod_opt_enum(lua_State *L, int idx, const char *key, int def,
                  const char *const *names, int required, const char *ctx,
                  const char *path);

/* The value at idx as a number satisfying the core bound f (an integer
** for POD_F_INT, 0/1 for POD_F_BOOL); the error names ctx and path.
** [-0, +0, v] */
double lpod_check_field(lua_State *L, int idx, const pod_field *f,
                        const char *ctx, const char *path);
/* Field `key` of the table at idx checked against core bound f (see
** lpod_opt_number); f NULL is an internal error naming key.
** [-0, +0, v] */
double lpod_opt_field(lua_State *L, int idx, const char *key, double def,
                      const pod_field *f, int required, const char *ctx,
                      const char *path);
/* Check that the value at idx is a number (not NaN/inf) in [min, max]
** (min excluded when min_open). [-0, +0, v] */
double lpod_check_range(lua_State *L, int idx, double min, double max,
                        int min_open, const char *ctx, const char *path);

/* --- copying between states ------------------------------------------------
 */

/* Copy the plain value at `idx` of `from` onto the top of `to`: nil,
** booleans, numbers, strings, tables of those (cycles and shared tables
** kept), podsim specs, and Lua functions (as bytecode, their upvalues
** copied the same way; _ENV becomes the target's globals).  Returns 0, or
** -1 with an error message pushed on `to` naming the path of the value
** that cannot cross (a coroutine, a userdata, a C function).
** from: [-0, +0, m]; to: [-0, +1, m] */
int lpod_copy_value(lua_State *from, int idx, lua_State *to, const char *path);

#endif
