-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.tp: must divide the attention heads (32 heads, tp 3)
-- The layout must divide the GPUs.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {tp = 3}}
