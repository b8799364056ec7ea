-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: failures[1].rate_per_h: must be in [0, 1000000] (got -1e-05)
-- Failure rates are non-negative.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24,
  failures = {{cause = "gpu", rate_per_h = -1e-5, unit = "gpu", blast = "node"}}}
