-- expect-exit: 1
-- expect-error: FILE:4: podsim.gpu: bf16_tflop: unknown field (did you mean 'bf16_tflops'?)
-- podsim.gpu suggests the nearest field too.
local g = podsim.gpu{base = "h100", bf16_tflop = 1000}
