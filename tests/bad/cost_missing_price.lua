-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: usd_per_gpu_hour: give usd_per_gpu_hour=, tco={...}, or a system= with a price
-- A cost needs a price or a TCO.
local c = podsim.cost{tokens_per_s_per_gpu = 1000, gpus = 64, tokens = 1e12}
