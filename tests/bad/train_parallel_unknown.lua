-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.tensor: unknown field (one of tp, pp, vp, dp, ep, etp, cp, microbatch, zero, recompute, uneven, recompute_modules, offload_modules, base)
-- Unknown layout dimensions suggest the nearest.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {tensor = 8}}
