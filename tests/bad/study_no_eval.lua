-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: eval: expected a function or podsim.kernel.<name>{...}, got nil
-- A study needs an evaluator.
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}}
