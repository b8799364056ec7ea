-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.normal: mean: given both by position (1) and by name
-- A parameter given by position and by name is ambiguous.
local d = podsim.dist.normal{1, 2, mean = 1}
