-- expect-exit: 1
-- expect-error: FILE:5: podsim.train: parallel.vp: pp*vp = 132 exceeds layers (126) + 2
-- With uneven a layout may add an embedding-only and a loss-only virtual
-- stage (pp*vp up to layers + 2), no more: PP4 VP33 over 126 layers.
local r = podsim.train{system = "gb200_nvl72", model = "llama3_405b", gpus = 256, seq = 8192,
  global_batch = 1536, dtype = "fp8", parallel = {tp = 4, pp = 4, vp = 33, uneven = true}}
