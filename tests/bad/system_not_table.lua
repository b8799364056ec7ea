-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: expected a table of fields, got string
-- podsim.system takes a table of fields, not a preset name.
local s = podsim.system("hgx_h100")
