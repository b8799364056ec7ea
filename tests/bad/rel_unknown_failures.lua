-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: failures: unknown failures preset 'lama3_meta' (presets: llama3_h100, gb200_nvl72)
-- Unknown failure presets suggest the nearest.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "lama3_meta"}
