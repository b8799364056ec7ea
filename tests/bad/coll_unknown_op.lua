-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: op: unknown collective 'allreduce' (did you mean 'all_reduce'?)
-- Collective names are checked and the nearest is suggested.
local r = podsim.collective(podsim.systems.hgx_h100, "allreduce", {ranks = 8, bytes = 1e6})
