-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.uniform: hi: must be greater than lo (got 1)
-- uniform{lo, hi} with lo > hi is refused.
local d = podsim.dist.uniform{2, 1}
