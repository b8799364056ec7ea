-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: expected a table {name=, samples=, params=, eval=, ...}
-- podsim.study takes a table.
local s = podsim.study("mystudy")
