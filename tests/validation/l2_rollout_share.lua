-- L2 (issue 14): the rollout's share of a synchronous RL step.  Source:
-- Gao et al. 2025, RollPacker (arXiv 2509.21009), introduction: in
-- synchronous on-policy RL the rollout stage "accounts for approximately
-- 70% of total training time", from their veRL runs of the Qwen2.5
-- family on up to 128 H800.  Checked as a range, 60-80%.
--
-- Configuration (chosen before running, from public recipes): DAPO's
-- recipe (Yu et al. 2025, arXiv 2503.14476; verl recipe/dapo): Qwen2.5-32B,
-- 512 prompts x 16 responses per step, prompts up to 2048 tokens (1024
-- taken), responses capped at 20480; response lengths lognormal with
-- median 3000 and p90 9000 (DAPO fig. 7: mean length rising from ~1k to
-- ~5k tokens); colocated on 128 H800 (rollout TP4 instances, training
-- TP8 bf16), reference and old-policy forward passes.
--
-- Prediction.  Mechanisms that carry it (core/rl.c): the static split of
-- the 8,192 sequences over 32 rollout instances (the step waits for the
-- slowest instance's work, +6.5% here) and decode at the token-weighted
-- context (a response's token p reads prompt + p of KV: over all tokens
-- the mean context is prompt + E[L^2] / (2 E[L]), 2.1x the naive
-- prompt + E[L] / 2 for this length distribution).  Before them podsim
-- put the rollout at 56%.  The tail still takes the longest response to
-- start last in its instance's queue (an upper bound on the drain).
local D = podsim.dist
-- Qwen/Qwen2.5-32B config.json: 64 layers, hidden 5120, intermediate
-- 27648, 40 heads / 8 KV (head_dim 128), vocab 152064, untied.
local qwen32 = podsim.model{base = "llama3_70b", name = "qwen25_32b", layers = 64, hidden = 5120,
  ffn = 27648, heads = 40, kv_heads = 8, head_dim = 128, vocab = 152064}
local r = podsim.rl{system = "hgx_h800", model = qwen32,
  rollout = {gpus = 4, parallel = {tp = 4}, dtype = "bf16"},
  train = {gpus = 128, parallel = {tp = 8}, dtype = "bf16"},
  prompts = 512, samples = 16, input_tokens = 1024,
  response = D.lognormal{median = 3000, p90 = 9000}, max_response = 20480}
podsim.check{id = "L2", name = "rollout share of a synchronous GRPO step (32B, 128 H800)",
  published = 0.70, value = r.rollout_s / r.step_s, unit = "share", range = {0.60, 0.80},
  fit = false, source = "RollPacker, arXiv 2509.21009"}
