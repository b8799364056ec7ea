-- expect-exit: 1
-- expect-error: FILE:4: podsim.serve: gemm_w_overlap
-- A share of the weight streaming hidden above 1.
local r = podsim.serve{system = "hgx_h100", model = "deepseek_v3", gpus = 32,
  batch = 32, gemm_w_overlap = 1.5}
