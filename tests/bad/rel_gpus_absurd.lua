-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: gpus: must be in [1, 10000000] (got 1e+15)
-- Absurd GPU counts are out of range.
local r = podsim.reliability{system = "hgx_h100", gpus = 1e15, hours = 24, failures = "llama3_h100",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}}
