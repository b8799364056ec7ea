-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.offload_modules: needs host memory: system.host_mem_gb is 0
-- Activation offload on a system whose host memory is unknown.
local r = podsim.train{system = {base = "gb200_nvl72", host_mem_gb = 0}, model = "llama3_8b",
  gpus = 8, seq = 8192, global_batch = 64, parallel = {offload_modules = {mlp_norm = true}}}
