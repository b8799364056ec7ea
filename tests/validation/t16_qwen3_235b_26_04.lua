-- T16: Qwen3-235B-A22B at one release, NeMo 26.04 (NVIDIA-NeMo/Megatron-
-- Bridge docs/performance-summary-archive.md, "26.04 NeMo Container";
-- recipes at v0.4.0, scripts/performance/configs/qwen/qwen3_workload_
-- base_configs.py, the *_V2 presets), GBS 8192, seq 4096, 256 GPUs,
-- balanced dropless routing:
--   GB300 NVL72  MXFP8 TP1 PP4 VP12 EP32 MBS2  6,994  hybridep, TE graphs
--                of attn, moe_router, moe_preprocess (GB300_FP8_MX_V2)
--   GB200 NVL72  MXFP8 TP1 PP8 VP3 EP32 MBS1   5,672  hybridep, TE graphs
--                of attn, moe_router, moe_preprocess (GB200_FP8_MX_V2)
--   DGX-B300     MXFP8 TP1 PP8 EP8 MBS2        4,865  NCCL all-to-all,
--                no graphs, no A2A overlap (B300_FP8_CS_V2 = MX)
--   DGX-H100     FP8   TP2 PP8 VP4 EP32 MBS1   1,686  NCCL all-to-all,
--                A2A overlap, per-tensor current scaling (H100_FP8_CS_V2)
-- 94 layers: the embedding and the loss take the two spare slots of each
-- layout (96 = 48 x 2 = 24 x 4 = 8 x 12 = 32 x 3).  All predictions.
-- GB300 over H100 was a known miss (3.4x against 4.15x) while routed-
-- expert GEMMs rolled off with expert width (1,536 here); with the fixed
-- MoE-layer time in its place (train_sw.c, MOE_LAYER_US) it passes.
-- Was a known miss: GB200 over H100 (2.8x against 3.36x).  GB200 runs MBS 1
-- with 256 micro-batches per step, so the fixed time per MoE layer per
-- micro-batch is 9 s of its 27 s step and podsim's GB200 lands 14% low;
-- T15's B200 row shows the same.  Solved before the experts' grouped
-- GEMMs took their own roll-off (train_sw.c, K_HALF_EXPERT_FP8), the row
-- needed about 1.25 ms per MoE layer per micro-batch where the fit (on
-- DeepSeek-V3, h = 7,168) held 2.44: across the MoE rows the needed time
-- follows the hidden size more than the tokens (docs/design.md 6.2, with
-- the forms tried).  The ratio went -16.8% -> -15.7% with that roll-off;
-- T17 (26.06, full graphs) shows the same GB200 row 13% low.  With
-- MXFP8's GEMM kernels at their measured speed (train_sw.c,
-- MXFP8_GEMM_REL) and the fixed time refitted on T6 (2.91 -> 2.63 ms) the
-- ratio went -16.3% -> -14.6%, inside the tolerance: no longer a known
-- miss, but the GB200 MBS-1 row stays the lowest of the table.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary archive (26.04), recipes at v0.4.0"
local function run(sys, par, sw, recipe)
  local r = podsim.train{system = sys, model = "qwen3_235b_a22b", gpus = 256, seq = 4096,
    global_batch = 8192, dtype = "fp8", fp8_recipe = recipe or "block", software = sw,
    parallel = par}
  assert(r.fits, "the published layout must fit in podsim's memory model (" .. sys .. ")")
  return r
end
local te = {base = "megatron_bridge_26_04", cuda_graphs = "partial"}
local g3 = run("gb300_nvl72", {pp = 4, vp = 12, ep = 32, microbatch = 2, uneven = true}, te)
local g2 = run("gb200_nvl72", {pp = 8, vp = 3, ep = 32, microbatch = 1, uneven = true}, te)
local b3 = run("hgx_b300", {pp = 8, ep = 8, microbatch = 2, uneven = true},
  {base = "megatron_bridge_26_04", dispatcher = "alltoall"})
local h = run("hgx_h100", {tp = 2, pp = 8, vp = 4, ep = 32, microbatch = 1, uneven = true},
  {base = "megatron_bridge_26_04", dispatcher = "alltoall", a2a_overlap = true}, "current")
local function tok(name, pub, r, miss)
  podsim.check{id = "T16", name = name, published = pub, value = r.tokens_per_s_per_gpu,
    unit = "tok/s/GPU", tol_rel = 0.15, fit = false, source = src, known_miss = miss}
end
tok("Qwen3-235B-A22B GB300 NVL72 256 GPUs tokens/s/GPU (26.04)", 6994, g3)
tok("Qwen3-235B-A22B GB200 NVL72 256 GPUs tokens/s/GPU (26.04)", 5672, g2)
tok("Qwen3-235B-A22B DGX-B300 256 GPUs tokens/s/GPU (26.04)", 4865, b3)
tok("Qwen3-235B-A22B DGX-H100 256 GPUs tokens/s/GPU (26.04)", 1686, h)
local function ratio(name, pub, a, b, miss)
  podsim.check{id = "T16", name = name, published = pub,
    value = a.tokens_per_s_per_gpu / b.tokens_per_s_per_gpu, unit = "x", tol_rel = 0.15,
    fit = false, source = src, nvl72_over_hgx = "Qwen3-235B-A22B, Megatron-Bridge 26.04",
    known_miss = miss}
end
ratio("Qwen3-235B-A22B GB300 NVL72 over DGX-B300 per GPU (26.04)", 6994 / 4865, g3, b3)
ratio("Qwen3-235B-A22B GB300 NVL72 over DGX-H100 per GPU (26.04)", 6994 / 1686, g3, h)
ratio("Qwen3-235B-A22B GB200 NVL72 over DGX-H100 per GPU (26.04)", 5672 / 1686, g2, h)
