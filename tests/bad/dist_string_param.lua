-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.gamma: shape: expected a number, got string
-- Parameters are numbers.
local d = podsim.dist.gamma{"two", 1}
