-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: out_collision: unknown field
-- Path collisions follow from routing now; the old constant is gone.
local s = podsim.system{base = "hgx_h100", out_collision = 0.5}
