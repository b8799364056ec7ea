-- expect-exit: 1
-- expect-error: FILE:4: podsim.simulate_run: spares.swap_s: required field is missing (seconds to bring a spare or the repaired unit into the job; 0 states none)
-- A spares table states the swap time (it was 0 by default).
local r = podsim.simulate_run{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100",
  spares = {pool = 4}, repair_h = 4, restart_s = 600, checkpoint = {write_s = 30}, seed = 1}
