-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: up_eff: must be in (0, 1] (got 1.5)
-- Efficiencies are fractions of line rate.
local s = podsim.system{base = "hgx_h100", up_eff = 1.5}
