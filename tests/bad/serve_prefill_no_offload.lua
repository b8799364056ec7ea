-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: prefill.gpus: weights need
-- A prefill instance too small for the weights, without host offload.
local r = podsim.serve{system = "gb200_nvl72", model = "deepseek_v3", gpus = 32,
  batch = 48, prefill = {gpus = 2, ep = 2}}
