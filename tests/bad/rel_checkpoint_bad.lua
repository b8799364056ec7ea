-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: checkpoint.write_s: must be in [0, 1000000000] (got -5)
-- Checkpoint settings are checked with their path.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = -5, interval = "young"}}
