-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: opts: expected a table {ranks=, bytes=, ...}, got number
-- The options are a table.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", 8)
