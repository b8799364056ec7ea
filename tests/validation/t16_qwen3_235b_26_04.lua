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
-- GB200 over H100 was a known miss (2.82x against 3.36x, -16.3%) while
-- the MoE layer's time beyond its GEMMs was one lump per micro-batch
-- (MOE_LAYER_US, 2,908 us, fitted on DeepSeek-V3 at MBS 1): GB200 runs
-- MBS 1 with 256 micro-batches per step and paid it 256 times.  With the
-- dispatcher's staging copies and the router's traffic counted per token
-- (train_sw.c, pod_train__moe_stage_bytes: 38 B per routed hidden
-- element in fp8 where 24 were counted), the fixed part refitted on the
-- same T6 row (2,387 us) and the router's eager launches counted on the
-- rows without CUDA graphs, the GB200 row moves from -14.1% to -11.1% and
-- the ratio to -11.4%: no longer a miss.  With the fp8 recipes' kernels
-- (MXFP8 GEMMs at their measured speed against per-tensor fp8, each
-- recipe's cast bytes; train_sw.c) and the fixed part refitted on T6
-- again (2,110 us), the GB200 row is -9.3% and the ratio -9.6%.  T17
-- (26.06, full graphs) shows the same GB200 row at -7.4% (it was -13.1%).
-- EP wire dtype and fabric (ibroute).  Megatron-Core's dispatchers send
-- the all-to-all in bf16 whatever the recipe (token_dispatcher.py at
-- d98e8a6; podsim charged the forward dispatch in fp8): DGX-H100 +1.4% ->
-- -9.9%, GB300 over H100 -5.8% -> +4.3%, GB200 over H100 -11.2% -> +0.2%.
-- Fabric: the archive names the systems (DGX-H100, one 400G ConnectX-7
-- NDR port per GPU), not their fabric; NVIDIA's DGX SuperPOD reference
-- design is a rail-optimized NDR InfiniBand fat tree (assumed).  The H100
-- row's EP32 all-to-all spans 4 nodes, 24 of 31 peers on the network,
-- 4.2 MB per peer (2,048 tokens x 8 x 4,096 x 2 B / 32), and is the
-- step's bottleneck (EP time above the MoE layers' compute, A2A overlap
-- on).  The row bounds that all-to-all's rate per GPU NIC: within 15%
-- needs 31-43 GB/s (1,686 at about 37 GB/s, 0.74 of the 50 GB/s line),
-- below the 47 GB/s of C3's two-node rows; the IB presets' static-ECMP
-- term (3 peer nodes: 1 - (2/3)^3 = 0.70) gives 33 GB/s (-9.9%), no
-- collisions 47 GB/s (+23.7%, the ratios -24.0% and -27.0%).  Ruled out
-- as the missing mechanism: Megatron's combined-1F1B A2A overlap
-- (model_chunk_schedule_plan.py: combine_bwd | dispatch_fwd, dispatch_bwd
-- | combine_fwd on the comm stream under attn_fwd | mlp_bwd, dw, mlp_fwd
-- | attn_bwd; simulated per phase with 4 x 2.2 ms of all-to-all against
-- 7.4 ms of compute per layer, backward twice the forward, it adds 0.0-0.8
-- ms over podsim's max(EP, compute) for attention shares of 30-60% of the
-- compute, against the 2.4 ms per layer the row needs), NCCL's
-- p2p message overhead (4.2 MB per peer, 32 of NCCL's 128 KiB chunks),
-- PCIe (Gen5 x16, 63 GB/s per direction, above the NIC) and DP/PP
-- traffic on the same NICs (PP 3% of the EP bytes, DP under 0.1%).  A measured
-- large-message NCCL all-to-all on DGX-H100 at 4-8 nodes on a named fabric
-- would settle it; none was found (docs/validation.md, C6 and T16).
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
