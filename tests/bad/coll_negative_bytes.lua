-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: bytes: must be in [0, 1e+18] (got -1)
-- A negative message size is refused.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8, bytes = -1})
