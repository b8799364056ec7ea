-- expect-exit: 1
-- expect-error: FILE:4: podsim.dist.lognormal: give exactly one of {mu, sigma}, {median=, p90=} or {p5=, p95=}
-- lognormal takes exactly one parameterisation.
local d = podsim.dist.lognormal{mu = 0, sigma = 1, median = 2, p90 = 3}
