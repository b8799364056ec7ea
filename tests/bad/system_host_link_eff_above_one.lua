-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: host_link_eff: must be in [0, 1] (got 1.2)
-- A host link cannot beat its line rate.
local s = podsim.system{base = "hgx_h100", host_link_eff = 1.2}
