-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: sensitivity: unknown value 'sobel' (did you mean 'sobol'? one of none, spearman, sobol)
-- Sensitivity methods are named.
local s = podsim.study{sensitivity = "sobel", params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
