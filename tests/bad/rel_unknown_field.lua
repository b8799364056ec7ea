-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: hour: unknown field (did you mean 'hours'?)
-- Unknown reliability fields suggest the nearest.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, failures = "llama3_meta", hour = 24}
