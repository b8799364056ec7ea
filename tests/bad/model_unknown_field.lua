-- expect-exit: 1
-- expect-error: FILE:4: podsim.model: layer: unknown field (did you mean 'layers'?)
-- Misspelt model fields suggest the nearest name.
local m = podsim.model{base = "llama3_8b", layer = 40}
