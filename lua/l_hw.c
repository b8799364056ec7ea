/*
** l_hw.c: GPUs and systems: podsim.gpus, podsim.systems, podsim.gpu{},
** podsim.system{} (DESIGN.md 4.1, 5).  Specs are immutable userdata
** described by the field tables below (lpod.h).
*/
#include <float.h>
#include <math.h>
#include <stddef.h>

#include "l_hw.h"
#include "lpod.h"
#include "pod_hw.h"

#define INF HUGE_VAL

static int gpu_check(const void *v, pod_err *e) { return pod_hw_gpu_check(v, e); }
static int gpu_preset(const char *n, void *out) { return pod_hw_gpu_preset(n, out); }
LPOD_PRESET_ITER(gpu, pod_gpu, pod_hw_gpu_at)

#define GF(name, type, min, max, open, unit) \
  {#name, type, offsetof(pod_gpu, name), 0, min, max, open, unit, NULL, NULL}
static const lpod_field gpu_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_gpu, name), POD_NAME_MAX, 0, 0, 0, "", NULL, NULL},
    GF(bf16_tflops, LPOD_DOUBLE, 0, 1e6, 1, "dense TFLOP/s"),
    GF(fp8_tflops, LPOD_DOUBLE, 0, 1e6, 0, "dense TFLOP/s (0: none)"),
    GF(fp4_tflops, LPOD_DOUBLE, 0, 1e6, 0, "dense TFLOP/s (0: none)"),
    GF(hbm_gb, LPOD_DOUBLE, 0, 1e5, 1, "GB"),
    GF(hbm_TBps, LPOD_DOUBLE, 0, 1e3, 1, "TB/s"),
    GF(power_w, LPOD_DOUBLE, 0, 1e5, 1, "W"),
    {NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_gpu_type = {
    "podsim.gpu", "gpu", "podsim.gpu", "gpus", sizeof(pod_gpu), gpu_fields,
    gpu_check, gpu_preset, gpu_name, gpu_source};

static int sys_check(const void *v, pod_err *e) { return pod_hw_system_check(v, e); }
static int sys_preset(const char *n, void *out) { return pod_hw_system_preset(n, out); }
LPOD_PRESET_ITER(sys, pod_system, pod_hw_system_at)

#define SF(name, type, min, max, open, unit) \
  {#name, type, offsetof(pod_system, name), 0, min, max, open, unit, NULL, NULL}
static const lpod_field system_fields[] = {
    {"name", LPOD_STRING, offsetof(pod_system, name), POD_NAME_MAX, 0, 0, 0, "", NULL, NULL},
    {"gpu", LPOD_STRUCT, offsetof(pod_system, gpu), 0, 0, 0, 0, "", NULL, &lpod_gpu_type},
    SF(domain_gpus, LPOD_INT, 1, 1 << 20, 0, "GPUs per scale-up domain"),
    SF(up_GBps, LPOD_DOUBLE, 0, 1e5, 1, "GB/s per GPU per direction"),
    SF(up_latency_us, LPOD_DOUBLE, 0, 1e6, 0, "us"),
    SF(nvls, LPOD_BOOL, 0, 1, 0, "in-switch reduction"),
    SF(nics_per_gpu, LPOD_DOUBLE, 0, 64, 1, "NICs per GPU"),
    SF(nic_gbps, LPOD_DOUBLE, 0, 1e5, 1, "Gb/s per NIC"),
    SF(out_latency_us, LPOD_DOUBLE, 0, 1e6, 0, "us"),
    SF(oversub, LPOD_DOUBLE, 1, 1e3, 0, "ratio"),
    SF(usd_per_gpu_hour, LPOD_DOUBLE, 0, 1e6, 0, "USD per GPU-hour"),
    SF(up_eff, LPOD_DOUBLE, 0, 1, 1, "fraction of line rate"),
    SF(up_half_MB, LPOD_DOUBLE, 0, 1e9, 0, "MiB"),
    SF(out_eff, LPOD_DOUBLE, 0, 1, 1, "fraction of line rate"),
    SF(out_half_MB, LPOD_DOUBLE, 0, 1e9, 0, "MiB"),
    SF(nvls_eff, LPOD_DOUBLE, 0, 2, 0, "NVLS busbw over up_GBps (0: no NVLS)"),
    SF(nvls_latency_us, LPOD_DOUBLE, 0, 1e6, 0, "us"),
    SF(out_collision, LPOD_DOUBLE, 0, 1, 0, "share of traffic hit by path collisions"),
    {NULL, 0, 0, 0, 0, 0, 0, NULL, NULL, NULL}};

const lpod_type lpod_system_type = {
    "podsim.system", "system", "podsim.system", "systems", sizeof(pod_system),
    system_fields, sys_check, sys_preset, sys_name, sys_source};

/* podsim.gpu{base=, ...} and podsim.system{base=, ...} */
static int l_new(lua_State *L) {
  const lpod_type *t = lua_touserdata(L, lua_upvalueindex(1));
  char buf[sizeof(pod_system) > sizeof(pod_gpu) ? sizeof(pod_system) : sizeof(pod_gpu)];
  if (!lua_istable(L, 1))
    return lpod_error(L, t->ctor, NULL, "expected a table of fields, got %s",
                      luaL_typename(L, 1));
  lpod_build(L, 1, t, buf, NULL);
  lpod_push(L, t, buf);
  return 1;
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
}
