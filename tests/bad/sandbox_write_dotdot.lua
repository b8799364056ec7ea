-- expect-exit: 1
-- expect-error: FILE:4: io.open:
-- A relative path climbing out of the allowed folders is refused too.
local f = io.open("../../../../../../../../etc/podsim-escape", "w")
