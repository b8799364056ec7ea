-- expect-exit: 1
-- expect-error: FILE:4: podsim.model: base: unknown model preset 'llama3_7b' (did you mean 'llama3_8b'?)
-- Unknown model presets suggest the nearest.
local m = podsim.model{base = "llama3_7b"}
