-- expect-exit: 1
-- expect-error: FILE:4: podsim.reliability: failures: unknown failures preset 'tpu_v5' (presets: llama3_h100, gb200_nvl72)
-- A failures preset with no close match lists the presets.
local r = podsim.reliability{system = "hgx_h100", gpus = 1024, hours = 24, failures = "tpu_v5"}
