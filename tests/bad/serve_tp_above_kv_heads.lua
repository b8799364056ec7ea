-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: parallel.tp: 16 is above the model's 8 KV heads
-- Tensor parallelism cannot split 8 KV heads 16 ways.
local r = podsim.serve{system = "hgx_h100", model = "llama3_70b", gpus = 16, parallel = {tp = 16}}
