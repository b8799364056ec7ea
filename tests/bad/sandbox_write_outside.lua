-- expect-exit: 1
-- expect-error: FILE:4: io.open: '/tmp/podsim-escape.txt' is outside the output folder
-- Writing outside the scenario's folder and the output folder is refused.
local f = io.open("/tmp/podsim-escape.txt", "w")
