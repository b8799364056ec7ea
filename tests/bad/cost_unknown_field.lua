-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: usd_per_gpu_hr: unknown field (did you mean 'usd_per_gpu_hour'?)
-- Unknown cost fields suggest the nearest.
local c = podsim.cost{usd_per_gpu_hr = 2, tokens_per_s_per_gpu = 1000, gpus = 64}
