-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: domain_gpus: must be in [1, 1048576] (got 1e+12)
-- Absurdly large domains are out of range.
local s = podsim.system{base = "hgx_h100", domain_gpus = 1e12}
