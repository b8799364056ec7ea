-- T6 (public.md): DeepSeek-V3 671B (37B active) on 256 GB300 NVL72 GPUs,
-- MXFP8, GBS 4096, MBS 1, seq 4096, TP1 PP2 VP8 CP1 EP32, balanced
-- dropless routing (imbalance 1): 1,648 TFLOP/s/GPU and 6,338
-- tokens/s/GPU.  61 layers over PP2 x VP8: Megatron-Bridge's uneven
-- pipeline layout (uneven = true).  The MFU convention is Megatron-Core's
-- (causal attention, MTP counted): 1648e12 / 6338 = 2.60e11 FLOPs/token.
-- MXFP8 is block scaling (fp8_recipe = "block"): scales are computed
-- per 32-element block on each rank, no amax all-reduce.
-- Fit: tokens/s/GPU sets the Blackwell fp8 GEMM efficiency.  The TFLOP/s
-- check then tests the FLOP count alone (a prediction of the formula).
--
-- Same table: the same layout at GBS 15,360 (DeepSeek-V3's production
-- batch) gives 6,422 tokens/s/GPU, +1.3%.  A prediction: podsim's per-step
-- overheads (bubble, exposed DP traffic, optimizer) amortised over 120
-- instead of 32 micro-batches per pipeline.  podsim gains +0.5%: its
-- per-step fixed cost at 256 GPUs is ~0.07 s where the two published
-- rows imply ~0.19 s (step = F + m a solved for both batches).
--
-- T7 (public.md, unconfirmed): 256 -> 1,024 GPUs keep 98.5% of per-GPU
-- throughput (Megatron Core); the trend tolerance asks for a 0.75-2.25%
-- decline.  NVIDIA runs DeepSeek-V3 scaling with the global batch
-- proportional to the GPUs ("weak scaling methodology",
-- NVIDIA/dgxc-benchmarking deepseek_v3/pretrain/megatron_bridge/README.md),
-- so the case weak-scales the T6 layout (16 sequences per GPU).  podsim
-- keeps 99.5%: the straggler term (jitter fitted on dense H100, T3) and
-- the expert-DP group growing 4 -> 16 ranks give 0.5%.  The direction is
-- checked; the magnitude is a known miss, reported by `podsim validate`.
-- No mechanism found that adds ~1% per 4x on NVL72 MoE without a per-case
-- parameter (examined: DP buckets and the exposed share of the expert
-- gradient reduction, ECMP collisions on the scale-out tier, a Blackwell
-- jitter; MXFP8 scales are local, so T3's fp8 amax wait does not apply).
-- T2 (GB200 Maverick, -2.2% vs -3.6%) points the same way.  With a fixed
-- global batch podsim keeps 97.5% (4,096), 98.4% (8,192), 98.9% (15,360):
-- inside the band for the larger batches, but the source does not say
-- which batch it ran, and choosing one to pass would be fitting the case.
local src = "NVIDIA-NeMo/Megatron-Bridge performance summary (26.06); seed 003"
local function run(gpus, gbs)
  return podsim.train{system = "gb300_nvl72", model = "deepseek_v3", gpus = gpus, seq = 4096,
    global_batch = gbs or 16 * gpus, dtype = "fp8", fp8_recipe = "block",
    parallel = {tp = 1, pp = 2, vp = 8, cp = 1, ep = 32, microbatch = 1, uneven = true}}
end
local r = run(256)
podsim.check{id = "T6", name = "DeepSeek-V3 GB300 256 GPUs tokens/s/GPU", published = 6338,
  value = r.tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = true, source = src}
podsim.check{id = "T6", name = "DeepSeek-V3 GB300 256 GPUs TFLOP/s/GPU", published = 1648,
  value = r.tflops_per_gpu, unit = "TFLOP/s", tol_rel = 0.15, fit = false, source = src}
podsim.check{id = "T6", name = "DeepSeek-V3 GB300 256 GPUs GBS 15360 tokens/s/GPU", published = 6422,
  value = run(256, 15360).tokens_per_s_per_gpu, unit = "tok/s/GPU", tol_rel = 0.15, fit = false,
  source = src}
local r4 = run(1024)
local kept = r4.tokens_per_s_per_gpu / r.tokens_per_s_per_gpu
podsim.check{id = "T7", name = "DeepSeek-V3 GB300 1024 vs 256 GPUs, direction", published = 0.985,
  value = kept, unit = "ratio", range = {0.95, 1.0}, fit = false,
  source = "seed 003 (unconfirmed); direction"}
-- public.md: a trend's magnitude within half of the published change.
podsim.check{id = "T7", name = "DeepSeek-V3 GB300 1024 vs 256 GPUs, magnitude", published = 0.985,
  value = kept, unit = "ratio", range = {1 - 0.015 * 1.5, 1 - 0.015 * 0.5}, fit = false,
  source = "seed 003 (unconfirmed)",
  known_miss = "weak-scaled, podsim loses less than the claimed 1.5%; see t6_deepseek_v3_gb300.lua"}
