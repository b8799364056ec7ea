-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: global_batch: must be divisible by dp*microbatch = 24 (got 100)
-- The global batch must split over data-parallel ranks and micro-batches.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 100,
  parallel = {tp = 8, microbatch = 3}}
