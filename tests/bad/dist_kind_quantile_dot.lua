-- expect-exit: 1
-- expect-error: FILE:5: dist:quantile: call as dist:quantile(u)
-- Quantile is a method.
local d = podsim.dist.normal{0, 1}
local q = d.quantile(0.5)
