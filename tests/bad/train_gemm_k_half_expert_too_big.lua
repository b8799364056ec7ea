-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: gemm_k_half_expert:
-- gemm_k_half_expert is a hidden size (the experts' grouped-GEMM roll-off), at most 1e9.
local r = podsim.train{system = "gb300_nvl72", model = "qwen3_30b_a3b", gpus = 8, seq = 4096,
  global_batch = 64, dtype = "fp8", parallel = {ep = 8}, gemm_k_half_expert = 5e9}
