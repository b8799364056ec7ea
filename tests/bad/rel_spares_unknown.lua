-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: spares.per_domian: unknown field (did you mean 'per_domain'?)
-- Unknown spare settings suggest the nearest.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, spares = {per_domian = 1},
  failures = podsim.failures[next(podsim.failures)]}
