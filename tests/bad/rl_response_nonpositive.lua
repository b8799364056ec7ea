-- expect-exit: 1
-- expect-error: FILE:4: podsim.rl: response: uniform has non-positive support (lowest value 0)
-- A response length distribution must stay above zero.
local r = podsim.rl{system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}}, response = podsim.dist.uniform{0, 4000}}
