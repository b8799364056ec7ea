-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: seq: must be in [1, 16777216] (got -8192)
-- Sequence lengths are positive.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = -8192, global_batch = 512}
