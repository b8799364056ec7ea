-- expect-exit: 1
-- expect-error: FILE:4: podsim.systems: unknown system preset 'hgx_h10' (did you mean 'hgx_h100'?)
-- Reading an unknown preset is an error with a suggestion, not a nil.
local s = podsim.systems.hgx_h10
local r = podsim.collective(s, "all_reduce", {ranks = 8, bytes = 1e6})
