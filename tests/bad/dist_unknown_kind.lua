-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist: gausian: unknown distribution (fixed, uniform, loguniform, normal, truncnormal, lognormal, triangular, beta, gamma, weibull, exponential, choice, empirical)
-- An unknown distribution kind suggests the nearest.
local d = podsim.dist.gausian{0, 1}
