-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: sample: unknown field (did you mean 'samples'?)
-- Misspelt study fields are refused with the nearest name.
local s = podsim.study{sample = 10, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
