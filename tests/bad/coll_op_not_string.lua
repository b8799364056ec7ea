-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: op: expected one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv; got number
-- The op is a string.
local r = podsim.collective(podsim.systems.hgx_h100, 3, {ranks = 8, bytes = 1e6})
