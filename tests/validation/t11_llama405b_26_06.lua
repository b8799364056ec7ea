-- T11: Llama 3.1 405B at one release, NeMo 26.06 (NVIDIA-NeMo/Megatron-
-- Bridge docs/performance-summary-archive.md; recipes at v0.5.0,
-- llama31_workload_base_configs.py, the FP8_CS_V2 presets), FP8 with
-- per-tensor current scaling, GBS 1536, MBS 1, seq 8192:
--   GB300 NVL72  256 GPUs  TP4 PP8 VP4        1,048 (T6, the fit)
--   GB200 NVL72  256 GPUs  TP4 PP16 VP4         843
--   DGX-H100    1024 GPUs  TP8 PP8 CP2 VP8      326  (H100_FP8_CS_V1
--                           with GBS 1536)
-- Predictions, except the GB200 row: the Blackwell dies' static power
-- (train_sw.c BLACKWELL_STATIC_W, 300 W) is set on it, within the bound
-- T15's GB200-over-B200 ratio leaves (a fit).  The Hopper fp8 efficiency was fitted on an older release
-- (T4, dgxc-benchmarking v25.04, delayed scaling); the GB300 and GB200
-- rows share the Blackwell fit of T6 and differ by their sustained
-- clocks (1,400 against 1,200 W: 1 against 0.818 with the dies' static
-- power, train_sw.c BLACKWELL_STATIC_W; 0.857 without it put GB200 at
-- +8.2%) and layouts.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.06), recipes at v0.5.0"
local function run(sys, gpus, par)
  local r = podsim.train{system = sys, model = "llama3_405b", gpus = gpus, seq = 8192,
    global_batch = 1536, dtype = "fp8", fp8_recipe = "current", software = "megatron_bridge_26_06",
    parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local g3 = run("gb300_nvl72", 256, {tp = 4, pp = 8, vp = 4, uneven = true})
local g2 = run("gb200_nvl72", 256, {tp = 4, pp = 16, vp = 4, uneven = true})
local h = run("hgx_h100", 1024, {tp = 8, pp = 8, vp = 8, cp = 2, uneven = true})
podsim.check{id = "T11", name = "Llama 3.1 405B GB200 256 GPUs fp8 tokens/s/GPU (26.06)",
  published = 843, value = g2.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15,
  fit = true, source = src}
podsim.check{id = "T11", name = "Llama 3.1 405B H100 1024 GPUs fp8 tokens/s/GPU (26.06)",
  published = 326, value = h.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15,
  fit = false, source = src}
-- Model FLOPs per token, Megatron's causal convention: 2646e12 / 1048.
podsim.check{id = "T11", name = "Llama 3.1 405B GB300 fp8 TFLOP/s/GPU (26.06)",
  published = 2646, value = g3.tflops_per_gpu, unit = "TFLOP/s", tol_rel = 0.15,
  fit = false, source = src}
podsim.check{id = "T11", name = "Llama 3.1 405B GB300 NVL72 over DGX-H100 per GPU (26.06)",
  published = 1048 / 326, value = g3.tokens_per_s_per_gpu / h.tokens_per_s_per_gpu, unit = "x",
  tol_rel = 0.15, fit = false, source = src, nvl72_over_hgx = "Llama 3.1 405B, Megatron-Bridge 26.06"}
podsim.check{id = "T11", name = "Llama 3.1 405B GB200 NVL72 over DGX-H100 per GPU (26.06)",
  published = 843 / 326, value = g2.tokens_per_s_per_gpu / h.tokens_per_s_per_gpu, unit = "x",
  tol_rel = 0.15, fit = false, source = src, nvl72_over_hgx = "Llama 3.1 405B, Megatron-Bridge 26.06"}
