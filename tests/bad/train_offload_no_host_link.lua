-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: parallel.offload_modules: needs a host link: system.host_link_GBps and host_link_eff are 0 and 0.838095
-- Activation offload on a system whose host link is unknown.
local r = podsim.train{system = {base = "hgx_h100", host_link_GBps = 0}, model = "llama3_8b",
  gpus = 8, seq = 8192, global_batch = 64, parallel = {offload_modules = {core_attn = true}}}
