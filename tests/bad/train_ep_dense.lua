-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.ep: must be 1 for a dense model (got 8)
-- Expert parallelism needs a mixture-of-experts model.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {ep = 8}}
