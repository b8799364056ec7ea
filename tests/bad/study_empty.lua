-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: eval: expected a function or podsim.kernel.<name>{...}, got nil
-- A study with no parameters, no grid and nothing to evaluate is refused.
local s = podsim.study{}
