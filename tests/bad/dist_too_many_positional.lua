-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.uniform: takes at most 2 positional parameters
-- Extra positional parameters are refused.
local d = podsim.dist.uniform{0, 1, 2}
