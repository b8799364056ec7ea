-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: jitter: must be in [0, 1) (got 1)
-- An open upper end (pod_train_cfg_fields) reads as such in the message.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 8, seq = 4096,
  global_batch = 64, jitter = 1}
