-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: fabric: needs base= (a system preset or spec)
-- A fabric sets only the scale-out fields: the rest must come from a base.
local s = podsim.system{fabric = "ib_ndr"}
