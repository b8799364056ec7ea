-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: batch: 4096 sequences need
-- A batch whose KV cache does not fit in HBM next to the weights.
local r = podsim.serve{system = "hgx_h100", model = "llama3_70b", gpus = 8, parallel = {tp = 8},
  batch = 4096, input_tokens = 8000, output_tokens = 2000}
