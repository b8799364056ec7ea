-- expect-exit: 1
-- expect-error: FILE:4: podsim.rl: rollout.gpus: 64 rollout GPUs do not split into instances of 24
-- The rollout pool splits into whole instances.
local r = podsim.rl{system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 24, parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}}}
