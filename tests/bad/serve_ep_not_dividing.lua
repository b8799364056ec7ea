-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: parallel.ep: 48 does not divide 256 experts
-- Expert parallelism must divide the experts (256 routed, none redundant).
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 48, parallel = {ep = 48}}
