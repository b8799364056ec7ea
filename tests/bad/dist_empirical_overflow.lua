-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.empirical: values: are too large: their mean is inf
-- A list whose mean overflows the double range is refused.
local d = podsim.dist.empirical{1e308, 1e308}
