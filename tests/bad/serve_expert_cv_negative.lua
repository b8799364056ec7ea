-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: expert_cv
-- A negative per-batch expert-load drift.
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 32,
  batch = 32, expert_cv = -0.5}
