-- expect-exit: 1
-- expect-error: FILE:5: podsim.reliability: spares: required field is missing (spares = "none", or {per_domain=, pool=, pool_scope=, swap_s=}
-- Issue 13: a reliability estimate states its spares.  This call passed
-- before, silently assuming no spares at all.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}}
