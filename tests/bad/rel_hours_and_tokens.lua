-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: tokens: give hours or tokens, not both
-- The run length is given once.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, tokens = 1e12, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}}
