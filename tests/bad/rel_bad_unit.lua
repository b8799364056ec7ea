-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: failures[1].unit: unknown value 'rack' (one of gpu, node, domain, job)
-- Failure units are named.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24,
  failures = {{cause = "gpu", rate_per_h = 1e-5, unit = "rack", blast = "node"}}}
