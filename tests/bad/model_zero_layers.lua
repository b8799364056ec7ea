-- expect-exit: 1
-- expect-error: FILE:4: podsim.model: layers: must be in [1, 1048576] (got 0)
-- A model needs at least one layer.
local m = podsim.model{base = "llama3_8b", layers = 0}
