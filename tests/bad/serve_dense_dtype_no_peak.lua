-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: dense_dtype: fp4 has no peak on
-- Dense GEMMs in a dtype the GPU has no tensor cores for (H100: no fp4).
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 16,
  dense_dtype = "fp4", batch = 64}
