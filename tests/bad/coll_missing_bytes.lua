-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: bytes: required field is missing
-- bytes is required.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8})
