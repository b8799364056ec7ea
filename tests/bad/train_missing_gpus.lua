-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: gpus: required field is missing
-- gpus is required.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", seq = 8192, global_batch = 512}
