-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: expected a table {system=, model=, gpus=, ...}, got string
-- podsim.train takes a table.
local r = podsim.train("llama3_8b")
