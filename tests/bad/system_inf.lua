-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: up_GBps: must be a finite number (got inf)
-- Infinite bandwidth is refused, not propagated.
local s = podsim.system{base = "hgx_h100", up_GBps = math.huge}
