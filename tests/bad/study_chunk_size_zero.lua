-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: chunk_size: must be in [1, 16777216] (got 0)
-- chunk_size is at least 1.
local s = podsim.study{chunk_size = 0, params = {x = podsim.dist.uniform{0, 1}}, eval = function(p) return p.x end}
