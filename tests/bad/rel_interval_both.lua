-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: checkpoint.interval: give interval_s or interval, not both
-- A checkpoint interval is fixed or a rule, not both.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young", interval_s = 600}}
