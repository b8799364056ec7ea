-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: ranks: must be in [1, 16777216] (got 0)
-- A collective needs at least one rank.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 0, bytes = 1e6})
