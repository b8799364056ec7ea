-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: ranks: must be in [1, 16777216] (got 1000000000)
-- Rank counts beyond 2^24 are out of range.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 1e9, bytes = 1e6})
