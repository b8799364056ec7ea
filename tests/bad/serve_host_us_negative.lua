-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: host_us
-- A negative host time per decode step.
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 32,
  batch = 32, host_us = -1}
