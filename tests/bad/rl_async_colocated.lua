-- expect-exit: 1
-- expect-error: FILE:4: podsim.rl: async: needs the disaggregated placement
-- One-step-stale overlap needs two pools.
local r = podsim.rl{system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}}, async = true}
