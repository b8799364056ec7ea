-- S4 (issue 14): SGLang's DeepSeek deployment on GB200 NVL72 (LMSYS blog
-- "Deploying DeepSeek on GB200 NVL72 with PD and Large Scale EP (Part
-- II)", 2025-09-25): for 2000-token inputs, 18,471 input and 9,087
-- output tokens/s per GPU with bf16 attention and fp8 GEMMs; 26,156 and
-- 13,386 with fp8 attention (fp8 KV cache) and NVFP4 MoE.  Decode on 12
-- trays (48 GPUs, EP48), prefill groups of 2 trays (8 GPUs, EP8), all in
-- one NVLink domain; DeepEP low-latency in decode, 32 redundant experts
-- as on H100 (S2), decode saturated to DeepEP's low-latency buffer limit
-- of 256 tokens per rank (DeepEP README: num_max_dispatch_tokens_per_rank
-- should stay below 256).  podsim applies the fp4 dtype to every GEMM
-- (the deployment keeps attention projections in fp8).
--
-- All predictions.  Tolerance 20%.
-- Known misses: podsim over-credits this GB200 deployment.  Prefill:
-- podsim's Blackwell GEMM efficiency is the training table's (fitted on
-- Megatron-Bridge 26.06 on GB300, T6); the blog's prefill sits 30-35%
-- below what that efficiency gives, while its H100 prefill (S2) matches
-- the Hopper table.  Decode with bf16 attention (and so the GB200/H100
-- ratio): podsim's step is the roofline of its parts with DeepEP's
-- NVLink fixed cost (S1, H20); the blog's Part I lists Blackwell kernels
-- that do not yet saturate memory bandwidth or compute.  Neither is
-- modelled: read podsim's NVL72 serving figures as an upper bound of
-- what that software reached.
local src = "LMSYS blog 2025-09-25 GB200 NVL72 part II"
local function run(fp4)
  return podsim.serve{system = "gb200_nvl72", model = "deepseek_v3", gpus = 48,
    parallel = {tp = 1, ep = 48}, batch = 256 * 48, input_tokens = 2000, output_tokens = 100,
    redundant_experts = 32, two_batch_overlap = true, dtype = fp4 and "fp4" or "fp8",
    kv_dtype = fp4 and "fp8" or "bf16", prefill = {gpus = 8, tp = 1, ep = 8}, prefill_tokens = 16384}
end
local a, b = run(false), run(true)
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 EP48 bf16-attn/fp8, tok/s/GPU",
  published = 9087, value = a.decode_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src,
  known_miss = "podsim's GB200 decode roofline over-credits this deployment's kernels; see s4_sglang_gb200.lua"}
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 EP48 fp8-KV/fp4, tok/s/GPU",
  published = 13386, value = b.decode_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src}
podsim.check{id = "S4", name = "DeepSeek-V3 prefill GB200 EP8 bf16-attn/fp8, tok/s/GPU",
  published = 18471, value = a.prefill_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src,
  known_miss = "Blackwell GEMM efficiency from the training table over-credits this prefill; see s4_sglang_gb200.lua"}
podsim.check{id = "S4", name = "DeepSeek-V3 prefill GB200 EP8 fp8-KV/fp4, tok/s/GPU",
  published = 26156, value = b.prefill_tokens_per_s_per_gpu, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src,
  known_miss = "Blackwell GEMM efficiency from the training table over-credits this prefill; see s4_sglang_gb200.lua"}
-- The NVL72-over-HGX question at the same software (S2 against this
-- case): GB200 decode per GPU over H100's, 9,087 / 2,787.
local h = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 72,
  parallel = {tp = 1, ep = 72}, batch = 256 * 72, input_tokens = 2000, output_tokens = 100,
  redundant_experts = 32, two_batch_overlap = true}
podsim.check{id = "S4", name = "DeepSeek-V3 decode GB200 NVL72 over H100 per GPU",
  published = 9087 / 2787.5, value = a.decode_tokens_per_s_per_gpu / h.decode_tokens_per_s_per_gpu,
  unit = "x", tol_rel = 0.20, fit = false, source = src .. "; LMSYS 2025-05-05",
  known_miss = "inherits the GB200 decode over-credit; see s4_sglang_gb200.lua"}
