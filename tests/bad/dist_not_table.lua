-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.normal: expected a table of parameters, e.g. podsim.dist.normal{...}
-- Parameters go in a table.
local d = podsim.dist.normal(1, 2)
