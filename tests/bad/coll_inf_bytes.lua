-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: bytes: must be a finite number (got inf)
-- An infinite message size is refused before computing.
local r = podsim.collective(podsim.systems.hgx_h100, "all_gather", {ranks = 8, bytes = math.huge})
