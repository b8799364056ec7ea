-- T9: DeepSeek-V3 at one release, NeMo 26.06 (NVIDIA-NeMo/Megatron-
-- Bridge docs/performance-summary-archive.md, "26.06 NeMo Container";
-- recipes at tag v0.5.0, scripts/performance/configs/deepseek/
-- deepseek_workload_base_configs.py).  MXFP8 (block scaling), GBS 4096,
-- seq 4096, 256 GPUs, balanced dropless routing, each system at its
-- published layout and recipe:
--   GB300 NVL72  TP1 PP2 VP8 EP32 MBS1  6,338 (T6, the fit)
--                GB300_FP8_MX_V2: full-iteration CUDA graphs, A2A
--                overlap, fused grouped MLP, fp8 attention, no recompute
--   GB300 NVL72  the same at GBS 15,360 (GB300_FP8_MX_GBS15360): 6,422
--   GB200 NVL72  TP1 PP4 VP4 EP64 MBS1  4,969
--                GB200_FP8_MX_V2: full-iteration graphs, A2A overlap,
--                fused grouped MLP, recompute_modules ["mla_up_proj"]
--   DGX-B300     TP1 PP8 EP8 MBS2       3,541
--                B300_V2: Transformer Engine graphs of attn, moe_router,
--                moe_preprocess (partial), no A2A overlap, unfused
--                experts, recompute_modules ["mla_up_proj"]
-- Every recipe uses moe_flex_dispatcher_backend "hybridep".  All rows are
-- predictions.  What separates DGX-B300 from GB300 here, by mechanism:
-- B300's sustained clock at 1,100 W (0.873 of boost, train.c), its eager
-- experts after the dropless sync (32 local experts at EP8), its exposed
-- EP all-to-all (no A2A overlap), bf16 attention, and the PP8 bubble
-- without virtual stages.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.06), recipes at v0.5.0"
local function run(sys, par, sw, gbs)
  local r = podsim.train{system = sys, model = "deepseek_v3", gpus = 256, seq = 4096,
    global_batch = gbs or 4096, dtype = "fp8", fp8_recipe = "block", software = sw, parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local gb300_par = {tp = 1, pp = 2, vp = 8, ep = 32, microbatch = 1, uneven = true}
local gb300_sw = {base = "megatron_bridge_26_06", fp8_attention = true}
local g3 = run("gb300_nvl72", gb300_par, gb300_sw)
local g3b = run("gb300_nvl72", gb300_par, gb300_sw, 15360)
local g2 = run("gb200_nvl72", {tp = 1, pp = 4, vp = 4, ep = 64, microbatch = 1, uneven = true,
  recompute_modules = {mla_up_proj = true}}, "megatron_bridge_26_06")
local b3 = run("hgx_b300", {tp = 1, pp = 8, ep = 8, microbatch = 2, uneven = true,
  recompute_modules = {mla_up_proj = true}},
  {base = "megatron_bridge_26_06", cuda_graphs = "partial", a2a_overlap = false,
   fused_grouped_mlp = false})
-- The MFU convention is Megatron-Core's (causal attention, MTP counted):
-- 1648e12 / 6338 = 2.60e11 FLOPs/token; a prediction of the FLOP count.
podsim.check{id = "T9", name = "DeepSeek-V3 GB300 256 GPUs TFLOP/s/GPU", published = 1648,
  value = g3.tflops_per_gpu, unit = "TFLOP/s", tol_rel = 0.15, fit = false, source = src}
-- GBS 15,360: podsim's per-step costs (bubble, exposed DP traffic,
-- optimizer) amortised over 120 instead of 32 micro-batches.
podsim.check{id = "T9", name = "DeepSeek-V3 GB300 256 GPUs GBS 15360 tokens/s/GPU", published = 6422,
  value = g3b.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T9", name = "DeepSeek-V3 GB200 NVL72 256 GPUs tokens/s/GPU", published = 4969,
  value = g2.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T9", name = "DeepSeek-V3 DGX-B300 256 GPUs tokens/s/GPU", published = 3541,
  value = b3.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T9", name = "DeepSeek-V3 GB300 over GB200 per GPU", published = 6338 / 4969,
  value = g3.tokens_per_s_per_gpu / g2.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
  fit = false, source = src}
podsim.check{id = "T9", name = "DeepSeek-V3 GB300 NVL72 over DGX-B300 per GPU", published = 6338 / 3541,
  value = g3.tokens_per_s_per_gpu / b3.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
  fit = false, source = src, nvl72_over_hgx = "DeepSeek-V3, Megatron-Bridge 26.06"}
