-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.empirical: values: value 3 is not a finite number
-- Empirical samples must be finite numbers.
local d = podsim.dist.empirical{1, 2, 0/0}
