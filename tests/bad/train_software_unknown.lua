-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: software: unknown software release preset 'megatron_bridge_25_01'
-- An unknown release names the known ones.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 8, seq = 8192, global_batch = 8,
  software = "megatron_bridge_25_01"}
