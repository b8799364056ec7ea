-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: global_batch: must be a finite number (got nan)
-- NaN batch sizes are refused.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 0/0}
