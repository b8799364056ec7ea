-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: domain_gpus: must be an integer (got 7.5)
-- Integer fields take integers only.
local s = podsim.system{base = "hgx_h100", domain_gpus = 7.5}
