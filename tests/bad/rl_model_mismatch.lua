-- expect-exit: 1
-- expect-error: FILE:4: podsim.rl: rollout.model: the policy is one model: llama3_8b vs llama3_70b
-- The rollout engines serve the model being trained.
local r = podsim.rl{system = "hgx_b200", model = "llama3_70b", rollout = {gpus = 8, model = "llama3_8b", parallel = {tp = 8}},
  train = {gpus = 64, parallel = {tp = 8}}}
