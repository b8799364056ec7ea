-- expect-exit: 1
-- expect-error: FILE:4: podsim.all: expected a list of started studies
-- podsim.all takes a list of started studies.
local r = podsim.all(5)
