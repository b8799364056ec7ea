-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: leaf_gpus: must be in [1, 16777216] (got 0)
-- A leaf group holds at least one GPU.
local s = podsim.system{base = "hgx_h100", oversub = 2, leaf_gpus = 0}
