-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: up_latency_us: must be a finite number (got nan)
-- NaN is not a number podsim accepts anywhere.
local s = podsim.system{base = "hgx_h100", up_latency_us = 0/0}
