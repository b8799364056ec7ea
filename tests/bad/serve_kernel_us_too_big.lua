-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: kernel_us: must be
-- kernel_us is microseconds per kernel boundary inside a CUDA graph, at most 1e3.
local r = podsim.serve{system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8},
  batch = 64, kernel_us = 5e3}
