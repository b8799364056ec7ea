-- T10: DeepSeek-V3 at one release, NeMo 26.04 (NVIDIA-NeMo/Megatron-
-- Bridge docs/performance-summary-archive.md, "26.04 NeMo Container";
-- recipes at tag v0.4.0, scripts/performance/configs/deepseek/
-- deepseek_workload_base_configs.py, the V2 configs = V1 with GBS 4096).
-- MXFP8, GBS 4096, seq 4096, 256 GPUs, hybridep dispatcher, no A2A
-- overlap, unfused experts, bf16 attention in every recipe:
--   GB300 NVL72  TP1 PP2 VP8 EP32 MBS2  4,965  no CUDA graphs
--                (cuda_graph_scope []), recompute ["mla_up_proj"]
--   GB200 NVL72  TP1 PP4 VP4 EP64 MBS1  4,193  Transformer Engine graphs
--                of attn, moe_router, moe_preprocess; recompute ["mlp"]
--   DGX-B300     TP1 PP16 EP8 MBS1      3,131  (T6, the host-time fit)
--   DGX-B200     TP1 PP16 EP8 MBS1      2,815  as B300
-- All rows here are predictions.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.04), recipes at v0.4.0"
local function run(sys, par, sw)
  local r = podsim.train{system = sys, model = "deepseek_v3", gpus = 256, seq = 4096,
    global_batch = 4096, dtype = "fp8", fp8_recipe = "block", software = sw, parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local hgx = {tp = 1, pp = 16, ep = 8, microbatch = 1, uneven = true,
  recompute_modules = {mla_up_proj = true}}
local g3 = run("gb300_nvl72", {tp = 1, pp = 2, vp = 8, ep = 32, microbatch = 2, uneven = true,
  recompute_modules = {mla_up_proj = true}}, "megatron_bridge_26_04")
local g2 = run("gb200_nvl72", {tp = 1, pp = 4, vp = 4, ep = 64, microbatch = 1, uneven = true,
  recompute_modules = {mlp = true}}, {base = "megatron_bridge_26_04", cuda_graphs = "partial"})
local b3 = run("hgx_b300", hgx, "megatron_bridge_26_04")
local b2 = run("hgx_b200", hgx, "megatron_bridge_26_04")
local function tok(name, pub, r)
  podsim.check{id = "T10", name = name, published = pub, value = r.tokens_per_s_per_gpu,
    unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src}
end
tok("DeepSeek-V3 GB300 NVL72 256 GPUs tokens/s/GPU (26.04)", 4965, g3)
tok("DeepSeek-V3 GB200 NVL72 256 GPUs tokens/s/GPU (26.04)", 4193, g2)
tok("DeepSeek-V3 DGX-B200 256 GPUs tokens/s/GPU (26.04)", 2815, b2)
local function ratio(name, pub, a, b, label)
  podsim.check{id = "T10", name = name, published = pub,
    value = a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
    fit = false, source = src, nvl72_over_hgx = label}
end
ratio("DeepSeek-V3 GB300 NVL72 over DGX-B300 per GPU (26.04)", 4965 / 3131, g3, b3,
  "DeepSeek-V3, Megatron-Bridge 26.04")
ratio("DeepSeek-V3 GB200 NVL72 over DGX-B200 per GPU (26.04)", 4193 / 2815, g2, b2,
  "DeepSeek-V3, Megatron-Bridge 26.04")
-- Sustained clocks: B300 and B200 have the same datasheet fp8 peak and
-- ran the same recipe; the published gap is their power limits (1,100
-- against 1,000 W, train_sw.c BLACKWELL_REF_W and BLACKWELL_STATIC_W:
-- 0.808 against 0.707 of the boost clock; podsim's step ratio is less
-- than that, diluted by the clock-free parts of the step).
ratio("DeepSeek-V3 DGX-B300 over DGX-B200 per GPU (26.04)", 3131 / 2815, b3, b2, nil)
-- The software features on one system: GB300 26.06 (T6: full-iteration
-- graphs, A2A overlap, fused grouped MLP, fp8 attention, MBS 1, no
-- recompute) over 26.04 (this case).
local g3n = podsim.train{system = "gb300_nvl72", model = "deepseek_v3", gpus = 256, seq = 4096,
  global_batch = 4096, dtype = "fp8", fp8_recipe = "block",
  software = {base = "megatron_bridge_26_06", fp8_attention = true},
  parallel = {tp = 1, pp = 2, vp = 8, ep = 32, microbatch = 1, uneven = true}}
ratio("DeepSeek-V3 GB300 26.06 over 26.04 (software alone)", 6338 / 4965, g3n, g3, nil)
