-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: params: expected a table {name = podsim.dist.<kind>{...}}
-- params is a table.
local s = podsim.study{params = 5, eval = function(p) return 1 end}
