-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.normal: sd: must be finite and > 0 (got 0)
-- A normal distribution needs a positive sd.
local d = podsim.dist.normal{1, 0}
