-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: nvls: expected a boolean, got string
-- Booleans are booleans, not strings.
local s = podsim.system{base = "hgx_h100", nvls = "yes"}
