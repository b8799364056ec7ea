-- expect-exit: 1
-- expect-error: FILE:4: podsim.cost: expected a table of fields, got number
-- podsim.cost takes a table.
local c = podsim.cost(5)
