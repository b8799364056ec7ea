-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: spares: expected "none" or a table {per_domain=, pool=, pool_scope=, swap_s=}, got no
-- Only the word "none" stands for no spares.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100",
  spares = "no", repair_h = 4, restart_s = 600, checkpoint = {write_s = 30}}
