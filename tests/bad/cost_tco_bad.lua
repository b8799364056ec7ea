-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: tco.amort_years: must be in (0, 100] (got 0)
-- TCO parts are range-checked with their path.
local c = podsim.cost{tco = {capex_usd_per_gpu = 30000, amort_years = 0}, tokens_per_s_per_gpu = 1000, gpus = 64}
