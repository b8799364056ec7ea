-- expect-exit: 1
-- expect-error: FILE:4: podsim.gpu: bf16_tflops: must be in (0, 1000000] (got 0)
-- A GPU from scratch still needs its required fields.
local g = podsim.gpu{name = "mine"}
