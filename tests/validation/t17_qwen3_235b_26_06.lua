-- T17: Qwen3-235B-A22B at NeMo 26.06 (NVIDIA-NeMo/Megatron-Bridge docs/
-- performance-summary-archive.md, "26.06 NeMo Container"; recipes at tag
-- v0.5.0, scripts/performance/configs/qwen/qwen3_workload_base_configs.py,
-- the *_FP8_MX_V2 presets), MXFP8, GBS 8192, seq 4096, 256 GPUs, the same
-- layouts as 26.04 (T16), hybridep, and the 26.06 features on both:
-- cuda_graph_impl "full_iteration", moe_a2a_overlap True,
-- cutedsl_fused_grouped_mlp True, fp8_dot_product_attention True:
--   GB300 NVL72  TP1 PP4 VP12 EP32 MBS2  9,015
--   GB200 NVL72  TP1 PP8 VP3 EP32 MBS1   7,376
-- The release has no HGX row for this model.  All predictions; the
-- release-over-release ratios on one system test the software features
-- alone (the layouts did not change).
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.06), recipes at v0.5.0"
local function run(sys, par, sw)
  local r = podsim.train{system = sys, model = "qwen3_235b_a22b", gpus = 256, seq = 4096,
    global_batch = 8192, dtype = "fp8", fp8_recipe = "block", software = sw, parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local g3par = {pp = 4, vp = 12, ep = 32, microbatch = 2, uneven = true}
local g2par = {pp = 8, vp = 3, ep = 32, microbatch = 1, uneven = true}
local f06 = {base = "megatron_bridge_26_06", fp8_attention = true}
local p04 = {base = "megatron_bridge_26_04", cuda_graphs = "partial"} -- T16's 26.04 recipes
local g3, g2 = run("gb300_nvl72", g3par, f06), run("gb200_nvl72", g2par, f06)
local g3o, g2o = run("gb300_nvl72", g3par, p04), run("gb200_nvl72", g2par, p04)
local function check(name, pub, value, unit)
  podsim.check{id = "T17", name = name, published = pub, value = value, unit = unit,
    tol_rel = 0.15, fit = false, source = src}
end
check("Qwen3-235B-A22B GB300 NVL72 256 GPUs tokens/s/GPU (26.06)", 9015, g3.tokens_per_s_per_gpu,
  "tok/s/GPU")
check("Qwen3-235B-A22B GB200 NVL72 256 GPUs tokens/s/GPU (26.06)", 7376, g2.tokens_per_s_per_gpu,
  "tok/s/GPU")
check("Qwen3-235B-A22B GB300 over GB200 per GPU (26.06)", 9015 / 7376,
  g3.tokens_per_s_per_gpu / g2.tokens_per_s_per_gpu, "x")
-- 26.04 published (T16): GB300 6,994, GB200 5,672.
check("Qwen3-235B-A22B GB300 26.06 over 26.04 (software alone)", 9015 / 6994,
  g3.tokens_per_s_per_gpu / g3o.tokens_per_s_per_gpu, "x")
check("Qwen3-235B-A22B GB200 26.06 over 26.04 (software alone)", 7376 / 5672,
  g2.tokens_per_s_per_gpu / g2o.tokens_per_s_per_gpu, "x")
