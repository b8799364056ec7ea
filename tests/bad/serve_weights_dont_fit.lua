-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: gpus: weights need
-- DeepSeek-V3 in fp8 (671 GB) does not fit on 8 x 80 GB H100.
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 8}
