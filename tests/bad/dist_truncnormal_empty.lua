-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.truncnormal: hi: must be greater than lo (got 4)
-- A truncated normal with an empty interval is refused.
local d = podsim.dist.truncnormal{0, 1, 5, 4}
