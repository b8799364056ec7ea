-- expect-exit: 1
-- expect-error: FILE:4: podsim.rl: response: normal has non-positive support
-- A normal distribution reaches below zero: not a length.
local r = podsim.rl{system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}}, response = podsim.dist.normal{2000, 300}}
