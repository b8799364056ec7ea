-- expect-exit: 1
-- expect-error: FILE:4: podsim.search: top: must be in [1, 1000] (got 0)
-- top is at least 1.
local r = podsim.search{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512, top = 0}
