-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: repair: unknown value 'weibull' (one of exponential, lognormal)
-- An unknown enum name lists the allowed ones (core's name table, pod_rel.h).
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 60, interval = "young"}, repair = "weibull"}
