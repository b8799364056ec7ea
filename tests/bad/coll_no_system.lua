-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: system: required argument is missing
-- The system argument is required.
local r = podsim.collective(nil, "all_reduce", {ranks = 8, bytes = 1e6})
