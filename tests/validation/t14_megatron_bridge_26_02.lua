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
-- Near the edge: GB300's 26.02 and 26.04 recipes are the same in every
-- feature podsim models (TP1 PP2 VP8 EP32 MBS2, hybridep, no graphs, no
-- A2A overlap, recompute mla_up_proj); the published row rose 7.7% from
-- 26.02 (4,612) to 26.04 (4,965, T10), as every DeepSeek-V3 row of the
-- table did (GB200 +6.0%, B300 +5.0%, B200 +4.7%).  podsim lands 5% high
-- at 26.04 (T10) and 13.5% high here.  It was a known miss (+16.9%) while
-- the MoE layer's time beyond its GEMMs was one lump per micro-batch
-- fitted at MBS 1 (T6); with the dispatcher's staging copies and the
-- router's traffic counted per token (train_sw.c, pod_train__moe_stage_
-- bytes) the lump shrank and this MBS-2 row pays more per micro-batch.
-- Searched for the 26.02-26.04 difference
-- (Megatron-Bridge v0.3.0 against v0.4.0): the workload configs
-- (deepseek_workload_base_configs.py: the GB300 FP8_MX V1/V2 entries are
-- equal; only GB200 changed, recompute mla_up_proj -> mlp, which T10
-- carries), the recipe (recipes/deepseek/deepseek_v3.py and
-- deepseek_llm_pretrain.py: moe_router_fusion, moe_permute_fusion,
-- grouped GEMM, force load balancing and the optimizer dtypes are the
-- same; 26.02 sets the data loader to num_workers 0, pin_memory False on
-- GB300/GB200 "for better performance", 26.04 uses 8 workers), the
-- launch environment (perf_plugins.py: 26.04 sets
-- NUM_OF_TOKENS_PER_CHUNK_COMBINE_API=128 for every hybridep recipe, a
-- workaround for a DeepEP HybridEP combine-kernel regression, commit
-- ed760af44; 26.02 ran the default chunk of 64) and the library pins
-- (Megatron-LM 3rdparty submodule b0cc2706 -> d7288711, Transformer
-- Engine 5671fd36 -> 71bbefbf, pyproject.toml).  None is a feature with a
-- public magnitude: the combine workaround restores a regression of a
-- later DeepEP (deepseek-ai/DeepEP PR 588, its NVL combine kernel at 477
-- against 789 GB/s in a benchmark posted on that PR), not one the 26.02
-- container is known to have had, and the data-loader setting is host
-- work podsim does not time.
-- Searched again (this session): the precision column is MXFP8 in every
-- DeepSeek-V3 row of 26.02, 26.02.01, 26.04 and 26.04.01 (the case runs
-- block scaling; MXFP8's GEMM speed, train_sw.c MXFP8_GEMM_REL, took the
-- row from +16.9% to +15.8%).  The GB300 row climbs release by release
-- with one recipe: 4,612 (26.02), 4,691 (26.02.01), 4,965 (26.04), 4,992
-- (26.04.01), and every system with it (B300 2,983 -> 3,099 -> 3,131), a
-- software trend, not a step.  The containers (Megatron-Bridge docs/fern
-- releases/software-versions.mdx): 26.02 Transformer Engine 2.12, CUDA
-- 13.0.2, cuDNN 9.18, PyTorch 2.10; 26.04 TE 2.14, CUDA 13.1.1, cuDNN
-- 9.20, PyTorch 2.11.  Between them TE landed named changes with no
-- published effect on step time: "CPU performance optimizations" (TE PR
-- 2439) and "CPU Overhead Optimizations" (PR 2559), an MXFP8 kernel for
-- grouped tensors with fused scale pre-swizzling (PRs 2586, 2630).  The
-- 26.02 known issues (releases/known-issues.mdx) name one performance
-- issue, DeepEP unsupported in the 26.02 container, for H100 only.  The
-- 26.02.01 notes (r0.3.1) fix a Qwen3-VL issue.  None is a feature with a
-- published magnitude, so none is modelled: fitting one on this row
-- would be fitting the case.  With the MoE layer's staging copies and
-- router traffic counted per token (train_sw.c, pod_train__moe_stage_bytes)
-- and the fixed part refitted on T6 (2,110 us), the row is +12.2%: inside
-- its tolerance, no longer a known miss.
tok("DeepSeek-V3 GB300 NVL72 256 GPUs tokens/s/GPU (26.02)", 4612, d.gb300)
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
-- GB200 was already 8% high at 26.06 (T11) and passed here at +14.8%
-- (NVLink5's rate fitted on multi-node NVLink data, C11, slows its TP4
-- all-reduces); with current scaling's amax passes counted per operand
-- (train_sw.c, pod_train__quant_scale: the norms and activations fuse
-- them, the residual-stream gradients and the attention output do not)
-- its casts cost 0.2% less and it landed at +15.0%, a known miss again.
-- With the static power of the sustained-clock rule (train_sw.c,
-- BLACKWELL_STATIC_W: GB200 sustains 0.818 of its boost, not 0.857) it
-- lands at +10.3% and passes: no longer a known miss.  The 6% between
-- the releases is still unmodelled.
-- Searched (Megatron-Bridge v0.3.0 against v0.5.0):
-- llama31_workload_base_configs.py (GB200_FP8_CS_V2: TP4 PP16 VP4, GBS
-- 1536, no FSDP, no CPU offload at both tags), llama31_llm_pretrain.py
-- (the same userbuffers TP-overlap config, userbuffers_fp8_b200_h16384_
-- tp4_cp2_mbs1_seqlen8192), perf_plugins.py (26.04 adds
-- NCCL_GRAPH_REGISTER=0 for the GB200/GB300 fp8 runs, an out-of-memory
-- fix, commit 0ece35b6c) and the pins (Megatron-LM b0cc2706 -> d0b3b775,
-- Transformer Engine 5671fd36 -> 4220403e): nothing with a published
-- effect on step time.
tok("Llama 3.1 405B GB200 256 GPUs fp8 tokens/s/GPU (26.02)", 793, l.gb200)
tok("Llama 3.1 405B H100 1024 GPUs fp8 tokens/s/GPU (26.02)", 311, l.h100)
ratio("Llama 3.1 405B GB300 NVL72 over DGX-H100 per GPU (26.02)", 988 / 311, l.gb300, l.h100,
  "Llama 3.1 405B, Megatron-Bridge 26.02")
ratio("Llama 3.1 405B GB200 NVL72 over DGX-H100 per GPU (26.02)", 793 / 311, l.gb200, l.h100,
  "Llama 3.1 405B, Megatron-Bridge 26.02")
