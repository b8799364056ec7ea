-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: up_GBps: must be in (0, 100000] (got -3)
-- Bandwidths must be positive.
local s = podsim.system{base = "hgx_h100", up_GBps = -3}
