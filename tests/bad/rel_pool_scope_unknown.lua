-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: spares.pool_scope: unknown value 'rack' (one of gpu, node, domain)
-- A pool scope outside pod_rel_pool_scope_names is refused with the list.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100",
  spares = {pool = 2, pool_scope = "rack", swap_s = 60},
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 60, interval = "young"}}
