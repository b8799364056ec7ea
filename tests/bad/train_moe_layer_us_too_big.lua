-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: moe_layer_us: must be
-- moe_layer_us is microseconds per MoE layer per micro-batch, at most 1e6.
local r = podsim.train{system = "gb300_nvl72", model = "qwen3_30b_a3b", gpus = 8, seq = 4096,
  global_batch = 64, dtype = "fp8", parallel = {ep = 8}, moe_layer_us = 5e6}
