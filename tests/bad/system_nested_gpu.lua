-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: gpu.bf16_tflops: must be in (0, 1000000] (got -1)
-- A nested spec's field errors carry the nested path.
local s = podsim.system{base = "hgx_h100", gpu = {base = "h100", bf16_tflops = -1}}
