-- S2 (issue 14): SGLang's large-scale expert-parallel DeepSeek deployment
-- on 96 H100 (12 nodes, 8 GPUs each, one 400 Gb/s NIC per GPU).  Source:
-- LMSYS blog "Deploying DeepSeek with PD Disaggregation and Large-scale
-- Expert Parallelism on 96 H100 GPUs" (2025-05-05): 52.3k input and
-- 22.3k output tokens/s per node for 2000-token inputs; prefill on 4
-- nodes (EP32, DP-attention 32), decode on 9 nodes (EP72, DP-attention
-- 72), DeepEP (normal in prefill, low-latency in decode), 32 redundant
-- experts (EPLB, 288 physical), two-batch overlap, fp8 GEMMs, bf16 KV;
-- decode saturated at 256 sequences per GPU (max-running-requests 18432
-- = 256 x 72, cuda-graph batch 256).
--
-- Decode: FIT (fit = true): this row sets serve.c's `overlap` (the share
-- of communication two-batch overlap hides in decode) and lands on its
-- bound, 0.
-- Prefill: predictions (16,384 prompt tokens per GPU per pass, two-batch
-- overlap: the all-to-all under the other micro-batch's compute, DeepEP's
-- normal kernels holding 20 SMs).  The blog's profile section also runs
-- 4,096-token prompts with "simulated perfect EPLB" (59,337 tokens/s per
-- node) beside the default expert placement (50,302): podsim's experts
-- are perfectly balanced, so the perfect-EPLB row is its like-for-like
-- check.  Known miss: the default-placement rows; podsim does not model
-- the expert imbalance of in-distribution EPLB, which the blog measures
-- at 15% of throughput (4K) and names as the cause ("communication
-- kernels exhibit longer execution times and higher variance ...
-- extended computation stream bubbles").
-- Tolerance 20%.
local src = "LMSYS blog 2025-05-05 large-scale EP on 96 H100"
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 72,
  parallel = {tp = 1, ep = 72}, batch = 256 * 72, input_tokens = 2000, output_tokens = 100,
  redundant_experts = 32, two_batch_overlap = true, kv_dtype = "bf16", dtype = "fp8",
  prefill = {gpus = 32, tp = 1, ep = 32}, prefill_tokens = 16384}
podsim.check{id = "S2", name = "DeepSeek-V3 decode on 72 H100 (EP72), tok/s/node",
  published = 22300, value = r.decode_tokens_per_s_per_gpu * 8, unit = "tok/s", tol_rel = 0.20,
  fit = true, source = src}
podsim.check{id = "S2", name = "DeepSeek-V3 prefill on 32 H100 (EP32), tok/s/node",
  published = 52300, value = r.prefill_tokens_per_s_per_gpu * 8, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src,
  known_miss = "expert imbalance of the default EPLB placement not modelled; see s2_sglang_h100.lua"}
local p4 = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 72,
  parallel = {tp = 1, ep = 72}, batch = 72, input_tokens = 4096, output_tokens = 1,
  redundant_experts = 32, two_batch_overlap = true, kv_dtype = "bf16", dtype = "fp8",
  prefill = {gpus = 32, tp = 1, ep = 32}, prefill_tokens = 16384}
podsim.check{id = "S2", name = "DeepSeek-V3 prefill 4K, perfect EPLB, 32 H100, tok/s/node",
  published = 59337, value = p4.prefill_tokens_per_s_per_gpu * 8, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src .. ", profile results"}
podsim.check{id = "S2", name = "DeepSeek-V3 prefill 4K, default EPLB, 32 H100, tok/s/node",
  published = 50302, value = p4.prefill_tokens_per_s_per_gpu * 8, unit = "tok/s", tol_rel = 0.20,
  fit = false, source = src .. ", profile results",
  known_miss = "expert imbalance of the default EPLB placement not modelled; see s2_sglang_h100.lua"}
