-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.uniform: lo: must be a finite number (got nan)
-- NaN parameters are refused.
local d = podsim.dist.uniform{0/0, 1}
