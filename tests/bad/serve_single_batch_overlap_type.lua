-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: single_batch_overlap
-- single-batch overlap is a boolean.
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 32,
  batch = 32, single_batch_overlap = "yes"}
