-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: expected a table of fields, got string
-- podsim.reliability takes a table.
local r = podsim.reliability("hgx_h100")
