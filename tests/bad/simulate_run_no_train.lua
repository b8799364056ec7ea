-- expect-exit: 1
-- expect-error: FILE:4: podsim.simulate_run: seed: required field is missing (an integer >= 0)
-- simulate_run needs the training step.
local r = podsim.simulate_run{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 30, interval = "young"}}
