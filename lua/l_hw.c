/*
** l_hw.c: GPUs and systems: podsim.gpus, podsim.systems, podsim.gpu{},
** podsim.system{} (DESIGN.md 4.1, 5).  Specs are immutable userdata
** described by the field tables below (lpod.h).
*/
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "l_hw.h"
#include "lpod.h"
#include "pod_hw.h"

#define INF HUGE_VAL

static int gpu_check(const void *v, pod_err *e) {
  return pod_hw_gpu_check(v, e);
}
static int gpu_preset(const char *n, void *out) {
  return pod_hw_gpu_preset(n, out);
}
LPOD_PRESET_ITER(gpu, pod_gpu, pod_hw_gpu_at)

/* Numeric fields: bounds and units in pod_hw_gpu_fields (core/hw.c). */
#define GF(name, type) \
  { #name, type, offsetof(pod_gpu, name), 0, "", NULL, NULL }
static const lpod_field gpu_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_gpu, name), POD_NAME_MAX, "", NULL,
     NULL},
    GF(bf16_tflops, LPOD_DOUBLE),
    GF(fp8_tflops, LPOD_DOUBLE),
    GF(fp4_tflops, LPOD_DOUBLE),
    GF(hbm_gb, LPOD_DOUBLE),
    GF(hbm_TBps, LPOD_DOUBLE),
    GF(power_w, LPOD_DOUBLE),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_gpu_type = {
    "podsim.gpu",    "gpu",      "podsim.gpu",     "gpus",
    sizeof(pod_gpu), gpu_fields, gpu_check,        gpu_preset,
    gpu_name,        gpu_source, pod_hw_gpu_fields};

static int sys_check(const void *v, pod_err *e) {
  return pod_hw_system_check(v, e);
}
static int sys_preset(const char *n, void *out) {
  return pod_hw_system_preset(n, out);
}
LPOD_PRESET_ITER(sys, pod_system, pod_hw_system_at)

/* Numeric fields: bounds and units in pod_hw_system_fields (core/hw.c). */
#define SF(name, type) \
  { #name, type, offsetof(pod_system, name), 0, "", NULL, NULL }
#define SE(name, names, unit) \
  { #name, LPOD_ENUM, offsetof(pod_system, name), 0, unit, names, NULL }
/* In the order of pod_transport and pod_routing. */
static const lpod_field system_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_system, name), POD_NAME_MAX, "", NULL,
     NULL},
    {"gpu", LPOD_STRUCT, offsetof(pod_system, gpu), 0, "", NULL,
     &lpod_gpu_type},
    SF(domain_gpus, LPOD_INT),
    SF(up_GBps, LPOD_DOUBLE),
    SF(up_latency_us, LPOD_DOUBLE),
    SF(nvls, LPOD_BOOL),
    SF(nics_per_gpu, LPOD_DOUBLE),
    SF(nic_gbps, LPOD_DOUBLE),
    SF(out_latency_us, LPOD_DOUBLE),
    SF(oversub, LPOD_DOUBLE),
    SF(usd_per_gpu_hour, LPOD_DOUBLE),
    SF(up_eff, LPOD_DOUBLE),
    SF(up_fill_KiB, LPOD_DOUBLE),
    SF(out_eff, LPOD_DOUBLE),
    SF(out_half_MB, LPOD_DOUBLE),
    SF(nvls_eff, LPOD_DOUBLE),
    SF(nvls_latency_us, LPOD_DOUBLE),
    SF(up_channels, LPOD_INT),
    SF(net_channels, LPOD_INT),
    SF(net_channel_GBps, LPOD_DOUBLE),
    SE(transport, pod_hw_transport_names, "scale-out transport"),
    SE(routing, pod_hw_routing_names, "scale-out path selection"),
    SF(sharp, LPOD_BOOL),
    SF(msg_overhead_us, LPOD_DOUBLE),
    SF(leaf_gpus, LPOD_INT),
    SF(host_link_GBps, LPOD_DOUBLE),
    SF(host_link_eff, LPOD_DOUBLE),
    SF(host_mem_gb, LPOD_DOUBLE),
    {NULL, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_system_type = {
    "podsim.system",    "system",      "podsim.system",     "systems",
    sizeof(pod_system), system_fields, sys_check,           sys_preset,
    sys_name,           sys_source,    pod_hw_system_fields};

/* Names of the fabric presets, for suggestions (NULL-terminated). */
static const char *const *fabric_names(void) {
  static const char *names[16];
  if (names[0] == NULL) {
    int i = 0;
    for (const pod_fabric *f; i < 15 && (f = pod_hw_fabric_at(i, NULL)) != NULL;
         i++)
      names[i] = f->name;
  }
  return names;
}

/* podsim.system{base=, fabric=, ...}: the base system with the fabric
** preset's scale-out fields, then the other fields.  Rebuilds the table
** with base = that system and no fabric key.  [-0, +1, e] */
static void system_with_fabric(lua_State *L, int tbl, pod_system *out) {
  static const char ctx[] = "podsim.system";
  tbl = lua_absindex(L, tbl);
  if (lua_getfield(L, tbl, "fabric") != LUA_TSTRING) /* stack: fabric */
    lpod_error(L, ctx, "fabric",
               "expected a fabric name (podsim.fabrics), got %s",
               luaL_typename(L, -1));
  const char *fname = lua_tostring(L, -1);
  if (lua_getfield(L, tbl, "base") == LUA_TNIL) /* stack: fabric, base */
    lpod_error(L, ctx, "fabric", "needs base= (a system preset or spec)");
  pod_system base;
  lua_createtable(L, 0, 1); /* stack: fabric, base, {base=} */
  lua_insert(L, -2);
  lua_setfield(L, -2, "base");
  lpod_build(L, -1, &lpod_system_type, &base, NULL);
  lua_pop(L, 1); /* stack: fabric */
  if (pod_hw_fabric_apply(fname, &base) != POD_OK) {
    const char *near = lpod_nearest(fname, fabric_names());
    lpod_error(L, ctx, "fabric", "unknown fabric '%s'%s%s%s", fname,
               near ? " (did you mean '" : "", near ? near : "",
               near ? "'?)" : "");
  }
  lua_pop(L, 1);
  lua_newtable(L); /* stack: copy */
  lua_pushnil(L);
  while (lua_next(L, tbl) != 0) { /* stack: copy, key, value */
    if (lua_type(L, -2) == LUA_TSTRING &&
        strcmp(lua_tostring(L, -2), "fabric") == 0) {
      lua_pop(L, 1);
      continue;
    }
    lua_pushvalue(L, -2);
    lua_insert(L, -2);
    lua_rawset(L, -4);
  }
  lpod_push(L, &lpod_system_type, &base); /* stack: copy, base */
  lua_setfield(L, -2, "base");
  lpod_build(L, -1, &lpod_system_type, out, NULL);
  lua_pop(L, 1);
}

/* podsim.gpu{base=, ...} and podsim.system{base=, fabric=, ...} */
static int l_new(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  char buf[sizeof(pod_system) > sizeof(pod_gpu) ? sizeof(pod_system)
                                                : sizeof(pod_gpu)];
  if (!lua_istable(L, 1))
    return lpod_error(L, t->ctor, NULL, "expected a table of fields, got %s",
                      luaL_typename(L, 1));
  int has_fabric = 0;
  if (t == &lpod_system_type) {
    has_fabric = lua_getfield(L, 1, "fabric") != LUA_TNIL;
    lua_pop(L, 1);
  }
  if (has_fabric)
    system_with_fabric(L, 1, (pod_system *)(void *)buf);
  else
    lpod_build(L, 1, t, buf, NULL);
  lpod_push(L, t, buf);
  return 1;
}

/* podsim.fabrics: name -> {field = value, ..., source = text}. [-0, +1, m] */
static void push_fabrics(lua_State *L) {
  lua_newtable(L);
  const char *src;
  const pod_fabric *f;
  for (int i = 0; (f = pod_hw_fabric_at(i, &src)) != NULL; i++) {
    lua_createtable(L, 0, 10);
    lua_pushnumber(L, f->nics_per_gpu);
    lua_setfield(L, -2, "nics_per_gpu");
    lua_pushnumber(L, f->nic_gbps);
    lua_setfield(L, -2, "nic_gbps");
    lua_pushnumber(L, f->out_eff);
    lua_setfield(L, -2, "out_eff");
    lua_pushnumber(L, f->out_latency_us);
    lua_setfield(L, -2, "out_latency_us");
    lua_pushnumber(L, f->out_half_MB);
    lua_setfield(L, -2, "out_half_MB");
    lua_pushnumber(L, f->msg_overhead_us);
    lua_setfield(L, -2, "msg_overhead_us");
    lua_pushstring(L, pod_hw_transport_name(f->transport));
    lua_setfield(L, -2, "transport");
    lua_pushstring(L, pod_hw_routing_name(f->routing));
    lua_setfield(L, -2, "routing");
    lua_pushboolean(L, f->sharp);
    lua_setfield(L, -2, "sharp");
    lua_pushstring(L, src);
    lua_setfield(L, -2, "source");
    lua_setfield(L, -2, f->name);
  }
}

void lpod_open_hw(lua_State *L) {
  int podsim = lua_gettop(L);
  lpod_open_type(L, podsim, &lpod_gpu_type);
  lpod_open_type(L, podsim, &lpod_system_type);
  lua_pushlightuserdata(L, (void *)&lpod_gpu_type);
  lua_pushcclosure(L, l_new, 1);
  lua_setfield(L, podsim, "gpu");
  lua_pushlightuserdata(L, (void *)&lpod_system_type);
  lua_pushcclosure(L, l_new, 1);
  lua_setfield(L, podsim, "system");
  push_fabrics(L);
  lua_setfield(L, podsim, "fabrics");
}
