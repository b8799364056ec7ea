-- expect-exit: 1
-- expect-error: FILE:4: podsim.search: fix.pp_size: unknown field (one of tp, pp, vp, dp, ep, etp, cp, microbatch, zero, recompute, uneven)
-- Unknown fixed dimensions suggest the nearest.
local r = podsim.search{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512, fix = {pp_size = 2}}
