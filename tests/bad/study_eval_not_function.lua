-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: eval: expected a function or podsim.kernel.<name>{...}, got number
-- eval is a function or a built-in kernel.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, eval = 42}
