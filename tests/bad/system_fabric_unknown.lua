-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: fabric: unknown fabric 'ib_ndr_sharpp' (did you mean 'ib_ndr_sharp'?)
-- A fabric preset name is checked, with a suggestion.
local s = podsim.system{base = "hgx_h100", fabric = "ib_ndr_sharpp"}
