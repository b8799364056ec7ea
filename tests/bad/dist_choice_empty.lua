-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.choice: values: needs at least one value
-- A choice needs at least one value.
local d = podsim.dist.choice{}
