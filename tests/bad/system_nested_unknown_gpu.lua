-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: gpu: unknown gpu preset 'h10' (did you mean 'h100'?)
-- An unknown GPU preset inside a system is located and suggested.
local s = podsim.system{base = "hgx_h100", gpu = "h10"}
