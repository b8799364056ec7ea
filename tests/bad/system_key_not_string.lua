-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: fields are named; got a number key
-- Field tables are keyed by names.
local s = podsim.system{base = "hgx_h100", [1] = 5}
