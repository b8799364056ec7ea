-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: sharp: expected a boolean, got number
-- SHARP is on or off.
local s = podsim.system{base = "hgx_h100", sharp = 1}
