-- L1 (issue 14): weight updates from trainer to inference engines in RL,
-- checkpoint-engine's broadcast path (MoonshotAI/checkpoint-engine README,
-- benchmark table, vLLM v0.10.2rc1; "updating Kimi-K2 (1 trillion
-- parameters) across thousands of GPUs takes about 20 s").  Update times
-- (broadcast), GatherMetas excluded:
--   GLM-4.5-Air bf16         8 x H800 TP8    3.47 s
--   Qwen3-235B-A22B bf16     8 x H800 TP8    6.22 s
--   DeepSeek-V3.1 fp8       16 x H20  TP16  10.19 s
--   Kimi-K2-Instruct fp8    16 x H20  TP16  14.36 s
--   DeepSeek-V3.1 fp8      256 x H20  TP16  11.33 s
--   Kimi-K2-Instruct fp8   256 x H20  TP16  16.04 s
-- podsim (core/rl.c, sync_method "broadcast"): the model's buckets are
-- copied in from host memory one at a time and broadcast to every rollout
-- GPU (pod_coll_eval broadcast), copy and broadcast pipelined: max of the
-- two; no fixed part here (sync_fixed_s = 0: the table excludes metadata).
-- host_GBps = 64, the PCIe Gen5 x16 line rate, is the effective rate of
-- the Kimi-K2 256-GPU row (64.2 GB/s): that row is marked the fit.
-- Models from their public config.json files (below); H20 from NVIDIA's
-- H20 product brief (96 GB HBM3, 4.0 TB/s, 148 / 296 TFLOP/s bf16 / fp8
-- dense, NVLink 900 GB/s, 8 GPUs and 8 x 400 Gb/s NICs per node as H800).
-- Tolerance 20%.
local src = "MoonshotAI/checkpoint-engine README (benchmark)"
local h20 = podsim.system{base = "hgx_h100", name = "hgx_h20",
  gpu = {base = "h100", name = "h20", bf16_tflops = 148, fp8_tflops = 296, hbm_gb = 96,
    hbm_TBps = 4.0, power_w = 400}}
-- moonshotai/Kimi-K2-Instruct config.json: 61 layers, hidden 7168, 64
-- heads, MLA as DeepSeek-V3, 384 routed + 1 shared experts (top-8, width
-- 2048), first_k_dense_replace 1, vocab 163840, no MTP: 1.04T total.
local kimi = podsim.model{base = "deepseek_v3", name = "kimi_k2", heads = 64, kv_heads = 64,
  experts = 384, dense_layers = 1, vocab = 163840, mtp_layers = 0}
-- Qwen/Qwen3-235B-A22B config.json: 94 layers, hidden 4096, 64 heads / 4
-- KV (head_dim 128), 128 experts top-8 of width 1536, every layer MoE,
-- vocab 151936, untied.
local qwen = podsim.model{base = "mixtral_8x7b", name = "qwen3_235b", layers = 94, hidden = 4096,
  heads = 64, kv_heads = 4, head_dim = 128, experts = 128, top_k = 8, expert_ffn = 1536,
  ffn = 12288, vocab = 151936}
-- zai-org/GLM-4.5-Air config.json: 46 layers, hidden 4096, 96 heads / 8
-- KV (head_dim 128), 128 routed + 1 shared experts top-8 of width 1408,
-- first_k_dense_replace 1 (dense width 10944), vocab 151552.
local glm = podsim.model{base = "mixtral_8x7b", name = "glm45_air", layers = 46, hidden = 4096,
  heads = 96, kv_heads = 8, head_dim = 128, experts = 128, top_k = 8, expert_ffn = 1408,
  shared_experts = 1, dense_layers = 1, ffn = 10944, vocab = 151552}
local function sync(sys, model, gpus, inst, tp, bytes)
  return podsim.rl_sync{system = sys, model = model, placement = "disaggregated",
    rollout_gpus = gpus, rollout = {gpus = inst, parallel = {tp = tp},
      dtype = bytes == 1 and "fp8" or "bf16"},
    train = {gpus = 8}, sync_method = "broadcast", sync_bytes = bytes, sync_fixed_s = 0}.sync_s
end
local rows = {
  {"GLM-4.5-Air bf16, 8 x H800 TP8", "hgx_h800", glm, 8, 8, 8, 2, 3.47, false},
  {"Qwen3-235B-A22B bf16, 8 x H800 TP4 x DP2", "hgx_h800", qwen, 8, 8, 4, 2, 6.22, false},
  {"DeepSeek-V3.1 fp8, 16 x H20 TP16", h20, "deepseek_v3", 16, 16, 16, 1, 10.19, false},
  {"Kimi-K2 fp8, 16 x H20 TP16", h20, kimi, 16, 16, 16, 1, 14.36, false},
  {"DeepSeek-V3.1 fp8, 256 x H20 TP16", h20, "deepseek_v3", 256, 16, 16, 1, 11.33, false},
  {"Kimi-K2 fp8, 256 x H20 TP16", h20, kimi, 256, 16, 16, 1, 16.04, true},
}
for _, r in ipairs(rows) do
  podsim.check{id = "L1", name = "weight update " .. r[1] .. " (s)", published = r[8],
    value = sync(r[2], r[3], r[4], r[5], r[6], r[7]), unit = "s", tol_rel = 0.20, fit = r[9],
    source = src}
end
-- the model sizes the rows move, against the published totals
local kp = podsim.model_params(kimi)
podsim.check{id = "L1", name = "Kimi-K2 total parameters (B)", published = 1040,
  value = kp.total / 1e9, unit = "B", tol_rel = 0.02, fit = false,
  source = "moonshotai/Kimi-K2-Instruct model card (1T total, 32B activated)"}
podsim.check{id = "L1", name = "Qwen3-235B-A22B total parameters (B)", published = 235,
  value = podsim.model_params(qwen).total / 1e9, unit = "B", tol_rel = 0.02, fit = false,
  source = "Qwen/Qwen3-235B-A22B model card"}
