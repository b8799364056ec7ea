-- T14: the NeMo 26.02 table (NVIDIA-NeMo/Megatron-Bridge docs/
-- performance-summary-archive.md, "26.02 NeMo Container"; recipes at tag
-- v0.3.0, scripts/performance/configs/): every system at its published
-- layout, balanced dropless MoE routing.  All predictions.
--   DeepSeek-V3, MXFP8, GBS 4096, seq 4096, 256 GPUs (deepseek_workload_
--   base_configs.py, V2 = V1 with GBS 4096; hybridep, no A2A overlap,
--   unfused experts, recompute_modules ["mla_up_proj"] everywhere):
--     GB300 NVL72  TP1 PP2 VP8 EP32 MBS2  4,612  no CUDA graphs
--     GB200 NVL72  TP1 PP4 VP4 EP64 MBS1  3,955  TE graphs (attn,
--                                                moe_router, moe_preprocess)
--     DGX-B300     TP1 PP16 EP8 MBS1      2,983  no graphs
--     DGX-B200     TP1 PP16 EP8 MBS1      2,689  no graphs
--   Llama 3.1 405B, FP8 current scaling, GBS 1536, seq 8192 (llama31_
--   workload_base_configs.py, FP8_CS_V2; H100_FP8_CS_V1 with GBS 1536):
--     GB300 NVL72   256 GPUs  TP4 PP8 VP4       988
--     GB200 NVL72   256 GPUs  TP4 PP16 VP4      793
--     DGX-H100     1024 GPUs  TP8 PP8 CP2 VP8   311
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.02), recipes at v0.3.0"
local function ds(sys, par, sw)
  local r = podsim.train{system = sys, model = "deepseek_v3", gpus = 256, seq = 4096,
    global_batch = 4096, dtype = "fp8", fp8_recipe = "block", software = sw, parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local function ll(sys, gpus, par)
  local r = podsim.train{system = sys, model = "llama3_405b", gpus = gpus, seq = 8192,
    global_batch = 1536, dtype = "fp8", fp8_recipe = "current", software = "megatron_bridge_26_02",
    parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local up = {mla_up_proj = true}
local hgx = {tp = 1, pp = 16, ep = 8, microbatch = 1, uneven = true, recompute_modules = up}
local d = {
  gb300 = ds("gb300_nvl72", {tp = 1, pp = 2, vp = 8, ep = 32, microbatch = 2, uneven = true,
    recompute_modules = up}, "megatron_bridge_26_02"),
  gb200 = ds("gb200_nvl72", {tp = 1, pp = 4, vp = 4, ep = 64, microbatch = 1, uneven = true,
    recompute_modules = up}, {base = "megatron_bridge_26_02", cuda_graphs = "partial"}),
  b300 = ds("hgx_b300", hgx, "megatron_bridge_26_02"),
  b200 = ds("hgx_b200", hgx, "megatron_bridge_26_02"),
}
local l = {
  gb300 = ll("gb300_nvl72", 256, {tp = 4, pp = 8, vp = 4, uneven = true}),
  gb200 = ll("gb200_nvl72", 256, {tp = 4, pp = 16, vp = 4, uneven = true}),
  h100 = ll("hgx_h100", 1024, {tp = 8, pp = 8, vp = 8, cp = 2, uneven = true}),
}
local function tok(name, pub, r, miss)
  podsim.check{id = "T14", name = name, published = pub, value = r.tokens_per_s_per_gpu,
    unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src, known_miss = miss}
end
local function ratio(name, pub, a, b, label)
  podsim.check{id = "T14", name = name, published = pub,
    value = a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
    fit = false, source = src, nvl72_over_hgx = label}
end
-- Known miss: GB300's 26.02 and 26.04 recipes are the same in every
-- feature podsim models (TP1 PP2 VP8 EP32 MBS2, hybridep, no graphs, no
-- A2A overlap, recompute mla_up_proj); the published row rose 7.7% from
-- 26.02 (4,612) to 26.04 (4,965, T10), a library difference podsim does
-- not model.  podsim is 8% high at 26.04 (T10) and lands 16% high here.
tok("DeepSeek-V3 GB300 NVL72 256 GPUs tokens/s/GPU (26.02)", 4612, d.gb300,
  "same recipe as 26.04, published 7.7% lower (library changes not modelled); see t14_megatron_bridge_26_02.lua")
tok("DeepSeek-V3 GB200 NVL72 256 GPUs tokens/s/GPU (26.02)", 3955, d.gb200)
tok("DeepSeek-V3 DGX-B300 256 GPUs tokens/s/GPU (26.02)", 2983, d.b300)
tok("DeepSeek-V3 DGX-B200 256 GPUs tokens/s/GPU (26.02)", 2689, d.b200)
ratio("DeepSeek-V3 GB300 NVL72 over DGX-B300 per GPU (26.02)", 4612 / 2983, d.gb300, d.b300,
  "DeepSeek-V3, Megatron-Bridge 26.02")
ratio("DeepSeek-V3 GB200 NVL72 over DGX-B200 per GPU (26.02)", 3955 / 2689, d.gb200, d.b200,
  "DeepSeek-V3, Megatron-Bridge 26.02")
tok("Llama 3.1 405B GB300 256 GPUs fp8 tokens/s/GPU (26.02)", 988, l.gb300)
-- Near the edge: the 26.02 and 26.06 recipes are the same (layout, FP8
-- current scaling, no recompute); the published rows rose 6% on every
-- system from 26.02 to 26.06 (GB300 988 -> 1,048, GB200 793 -> 843) with
-- no recipe feature changed, a library difference podsim does not model.
-- GB200 is 8% high at 26.06 (T11) and lands at the tolerance here: it was
-- a known miss (+15.2%) until NVLink5's rate was fitted on multi-node
-- NVLink data (C11), which slows its TP4 all-reduces.
tok("Llama 3.1 405B GB200 256 GPUs fp8 tokens/s/GPU (26.02)", 793, l.gb200)
tok("Llama 3.1 405B H100 1024 GPUs fp8 tokens/s/GPU (26.02)", 311, l.h100)
ratio("Llama 3.1 405B GB300 NVL72 over DGX-H100 per GPU (26.02)", 988 / 311, l.gb300, l.h100,
  "Llama 3.1 405B, Megatron-Bridge 26.02")
ratio("Llama 3.1 405B GB200 NVL72 over DGX-H100 per GPU (26.02)", 793 / 311, l.gb200, l.h100,
  "Llama 3.1 405B, Megatron-Bridge 26.02")
