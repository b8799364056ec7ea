-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: rate_scale: must be in [1e-06, 1000000] (got 0)
-- Rate multipliers are positive.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}, rate_scale = 0}
