-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: rate_scale.node: must be in [1e-06, 1000000] (got 10000000)
-- A rate multiplier is bounded by 10^ the bound of its log10 field (pod_rel_cfg_fields).
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "llama3_h100", spares = "none",
  repair_h = 4, restart_s = 600, checkpoint = {write_s = 60, interval = "young"}, rate_scale = {node = 1e7}}
