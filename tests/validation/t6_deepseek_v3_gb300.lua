-- T6 (public.md): DeepSeek-V3 671B (37B active) on 256 GB300 NVL72 GPUs,
-- MXFP8, GBS 4096, MBS 1, seq 4096, TP1 PP2 VP8 CP1 EP32, balanced
-- dropless routing (imbalance 1): 6,338 tokens/s/GPU.  61 layers over
-- PP2 x VP8: Megatron-Bridge's pipeline layout "Et*4|(t*4|)*14tmL"
-- (uneven = true).  MXFP8 is block scaling (fp8_recipe = "block").
-- Release and features as the recipe set them (NVIDIA-NeMo/Megatron-
-- Bridge v0.5.0 = NeMo 26.06, scripts/performance/configs/deepseek/
-- deepseek_workload_base_configs.py, DEEPSEEK_V3_PRETRAIN_CONFIG_GB300_
-- FP8_MX_V2): cuda_graph_impl "full_iteration", moe_a2a_overlap True,
-- cutedsl_fused_grouped_mlp True, fp8_dot_product_attention True,
-- recompute_modules [], moe_flex_dispatcher_backend "hybridep".
-- Fit: this row sets the Blackwell fp8 GEMM efficiency (train.c,
-- EFF_BLACKWELL_FP8).  Everything else on DeepSeek-V3 is in T9 (26.06)
-- and T10 (26.04), predictions.
--
-- T7 (public.md, unconfirmed): 256 -> 1,024 GPUs keep 98.5% of per-GPU
-- throughput (Megatron Core); the trend tolerance asks for a 0.75-2.25%
-- decline.  NVIDIA runs DeepSeek-V3 scaling with the global batch
-- proportional to the GPUs ("weak scaling methodology",
-- NVIDIA/dgxc-benchmarking deepseek_v3/pretrain/megatron_bridge/README.md),
-- so the case weak-scales the T6 layout (16 sequences per GPU).  podsim
-- keeps ~99.5%: the straggler term and the expert-DP group growing 4 -> 16
-- ranks.  The direction is checked; the magnitude is a known miss.  Where
-- the configuration was searched for (none found at 1,024 GB300 GPUs):
-- the dgxc-benchmarking DeepSeek-V3 READMEs (configs, no GB300 1,024-GPU
-- results), the Megatron-Bridge performance summaries and their archive
-- (26.02 to 26.08: 256-GPU rows only), the Megatron Core MoE report
-- (arXiv 2603.07685, abstract only).  With a fixed global batch podsim
-- keeps more at larger batches, but the source does not say which batch
-- it ran, and choosing one to pass would be fitting the case.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary (26.06); seed 003"
local function run(gpus, gbs)
  return podsim.train{system = "gb300_nvl72", model = "deepseek_v3", gpus = gpus, seq = 4096,
    global_batch = gbs or 16 * gpus, dtype = "fp8", fp8_recipe = "block",
    software = {base = "megatron_bridge_26_06", fp8_attention = true},
    parallel = {tp = 1, pp = 2, vp = 8, cp = 1, ep = 32, microbatch = 1, uneven = true}}
end
local r = run(256)
assert(r.fits, "the published layout must fit in podsim's memory model")
podsim.check{id = "T6", name = "DeepSeek-V3 GB300 256 GPUs tokens/s/GPU (26.06)", published = 6338,
  value = r.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = true, source = src}
local r4 = run(1024)
local kept = r4.tokens_per_s_per_gpu / r.tokens_per_s_per_gpu
podsim.check{id = "T7", name = "DeepSeek-V3 GB300 1024 vs 256 GPUs, direction", published = 0.985,
  value = kept, unit = "ratio", range = {0.95, 1.0}, fit = false,
  source = "seed 003 (unconfirmed); direction"}
-- public.md: a trend's magnitude within half of the published change.
podsim.check{id = "T7", name = "DeepSeek-V3 GB300 1024 vs 256 GPUs, magnitude", published = 0.985,
  value = kept, unit = "ratio", range = {1 - 0.015 * 1.5, 1 - 0.015 * 0.5}, fit = false,
  source = "seed 003 (unconfirmed)",
  known_miss = "weak-scaled, podsim loses less than the claimed 1.5%; configuration not found (searched: see t6_deepseek_v3_gb300.lua)"}
