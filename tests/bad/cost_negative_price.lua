-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: usd_per_gpu_hour: must be in [0, 1000000] (got -2)
-- Prices are non-negative.
local c = podsim.cost{usd_per_gpu_hour = -2, tokens_per_s_per_gpu = 1000, gpus = 64, tokens = 1e12}
