-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.triangular: mode: required parameter is missing
-- Missing required parameters are named.
local d = podsim.dist.triangular{lo = 0, hi = 1}
