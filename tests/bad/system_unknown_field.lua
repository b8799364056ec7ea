-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: up_gbps: unknown field (did you mean 'up_GBps'?)
-- A misspelt field is refused with the nearest valid name.
local s = podsim.system{base = "hgx_h100", up_gbps = 900}
