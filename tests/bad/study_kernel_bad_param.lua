-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: params.system.up_efff: is not a numeric field of the collective kernel's config (e.g. 'system.up_eff', 'bytes')
-- A kernel parameter must be a numeric config field; the path is named.
local s = podsim.study{params = {["system.up_efff"] = podsim.dist.uniform{0.5, 0.9}},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1e6}}
