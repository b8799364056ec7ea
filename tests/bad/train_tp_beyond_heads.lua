-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.tp: must divide the attention heads (32 heads, tp 64)
-- Tensor parallelism beyond the head count is an invalid layout.
local r = podsim.train{system = "gb200_nvl72", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {tp = 64}}
