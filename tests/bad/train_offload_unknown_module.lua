-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.offload_modules.qkv_linear: unknown field
-- An offload module Megatron-Core has but podsim does not model.
local r = podsim.train{system = "gb200_nvl72", model = "llama3_8b", gpus = 8, seq = 8192,
  global_batch = 64, parallel = {offload_modules = {qkv_linear = true}}}
