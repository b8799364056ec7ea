-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: tokens_per_s_per_gpu: must be a finite number (got inf)
-- Infinite throughput is refused.
local c = podsim.cost{usd_per_gpu_hour = 2, tokens_per_s_per_gpu = math.huge, gpus = 64}
