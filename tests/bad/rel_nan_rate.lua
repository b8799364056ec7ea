-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: failures[1].rate_per_h: must be a finite number (got nan)
-- NaN failure rates are refused.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24,
  failures = {{cause = "gpu", rate_per_h = 0/0, unit = "gpu", blast = "node"}}}
