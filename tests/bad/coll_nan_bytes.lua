-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: bytes: must be a finite number (got nan)
-- A NaN message size is refused before computing.
local r = podsim.collective(podsim.systems.hgx_h100, "all_gather", {ranks = 8, bytes = 0/0})
