-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.gamma: shape: must be in [0.001, 1e6] (got 1e-09)
-- Gamma shapes beyond [0.001, 1e6] are points (or all mass at 0) and break GSL's quantile.
local d = podsim.dist.gamma{1e-9, 2}
