-- T18: Llama 3.1 405B in MXFP8 at NeMo 26.06 (NVIDIA-NeMo/Megatron-Bridge
-- docs/performance-summary-archive.md, "26.06 NeMo Container"; recipes at
-- tag v0.5.0, scripts/performance/configs/llama/llama31_workload_base_
-- configs.py, *_FP8_MX_V2), GBS 1536, seq 8192, 256 GPUs, the 26.06
-- features of T11:
--   GB300 NVL72  TP2 PP8 CP2 VP4  952   (FP8 current scaling, TP4 PP8
--                                        VP4: 1,048, T6)
--   GB200 NVL72  TP4 PP16 VP8     783   (current scaling, TP4 PP16 VP4:
--                                        843, T11)
-- GB200's PP16 VP8 is 128 virtual stages over 126 layers: an embedding-
-- only first and a loss-only last stage (uneven, pp x vp = layers + 2).
-- All predictions.  MXFP8 (block scaling) publishes 9% and 7% below
-- current scaling on these two systems.  What podsim counts for it
-- (core/train_sw.c): its GEMM kernels run at 0.951 of per-tensor fp8 ones
-- (Transformer Engine's GEMM profiling tutorial, B300, pre-quantised
-- inputs: 7.161 against 6.812 ms for a layer's 12 GEMMs; MXFP8_GEMM_REL,
-- measured, not fitted); its casts write a rowwise and a columnwise copy
-- with E8M0 scales and swizzle the scales (4.19 B per operand element
-- against 3 B for current scaling's cast on Blackwell, 5 B with an
-- unfused amax pass);
-- its weights are all-gathered in bf16 and cast into both copies every
-- step (reuse_grad_buf_for_mxfp8_param_ag).  That moved the MXFP8-over-
-- current ratios from 1.035 and 1.003 to 0.991 and 0.962 and the GB200
-- MXFP8 row from +16.7% (a known miss) to +12.0%.  Left: the GB300 ratio
-- (+9%) compares two layouts (TP2 CP2 against TP4), and podsim's GB200
-- Llama rows sit high at every release (T11 +8%, T14 +15%).
-- One layout, two recipes: the 26.02.01 table (same archive, "26.02.01
-- NeMo Container") ran both on GB300 at TP2 PP8 CP2 VP4: FP8 current
-- scaling 1,024, MXFP8 949 tokens/s/GPU, 0.927, the recipe alone.  Its
-- features are the 26.02 release's (software "megatron_bridge_26_02"; a
-- ratio of two recipes of one release does not depend on them much).
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.06), recipes at v0.5.0"
local function ll(sys, par, recipe)
  local r = podsim.train{system = sys, model = "llama3_405b", gpus = 256, seq = 8192,
    global_batch = 1536, dtype = "fp8", fp8_recipe = recipe, software = "megatron_bridge_26_06",
    parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local g3 = ll("gb300_nvl72", {tp = 2, pp = 8, cp = 2, vp = 4, uneven = true}, "block")
local g2 = ll("gb200_nvl72", {tp = 4, pp = 16, vp = 8, uneven = true}, "block")
local g3c = ll("gb300_nvl72", {tp = 4, pp = 8, vp = 4, uneven = true}, "current")
local g2c = ll("gb200_nvl72", {tp = 4, pp = 16, vp = 4, uneven = true}, "current")
local function check(name, pub, value, unit)
  podsim.check{id = "T18", name = name, published = pub, value = value, unit = unit,
    tol_rel = 0.15, fit = false, source = src}
end
check("Llama 3.1 405B GB300 256 GPUs MXFP8 tokens/s/GPU (26.06)", 952, g3.tokens_per_s_per_gpu,
  "tok/s/GPU")
check("Llama 3.1 405B GB200 256 GPUs MXFP8 tokens/s/GPU (26.06)", 783, g2.tokens_per_s_per_gpu,
  "tok/s/GPU")
check("Llama 3.1 405B GB300 MXFP8 over current scaling (26.06)", 952 / 1048,
  g3.tokens_per_s_per_gpu / g3c.tokens_per_s_per_gpu, "x")
check("Llama 3.1 405B GB200 MXFP8 over current scaling (26.06)", 783 / 843,
  g2.tokens_per_s_per_gpu / g2c.tokens_per_s_per_gpu, "x")
local function l02(recipe)
  return podsim.train{system = "gb300_nvl72", model = "llama3_405b", gpus = 256, seq = 8192,
    global_batch = 1536, dtype = "fp8", fp8_recipe = recipe, software = "megatron_bridge_26_02",
    parallel = {tp = 2, pp = 8, cp = 2, vp = 4, uneven = true}}
end
podsim.check{id = "T18", name = "Llama 3.1 405B GB300 MXFP8 over current scaling, TP2 PP8 CP2 VP4 (26.02.01)",
  published = 949 / 1024, value = l02("block").tokens_per_s_per_gpu / l02("current").tokens_per_s_per_gpu,
  unit = "x", tol_rel = 0.15, fit = false,
  source = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.02.01)"}
