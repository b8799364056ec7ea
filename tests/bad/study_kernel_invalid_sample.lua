-- expect-exit: 1
-- expect-error: FILE:7: study 'study': up_eff: must be in (0, 1]
-- args: --threads 2
-- Sampled values outside a field's valid range stop the study with a located error.
local s = podsim.study{samples = 1000, params = {["system.up_eff"] = podsim.dist.uniform{-1, 0.5}},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1e6}}
local r = s:run()
