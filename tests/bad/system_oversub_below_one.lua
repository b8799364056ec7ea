-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: oversub: must be in [1, 1000] (got 0.5)
-- Oversubscription is a ratio of at least 1.
local s = podsim.system{base = "hgx_h100", oversub = 0.5}
