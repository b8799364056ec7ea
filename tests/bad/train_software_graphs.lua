-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: software.cuda_graphs:
-- A CUDA-graph mode that does not exist.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 8, seq = 8192, global_batch = 8,
  software = {base = "none", cuda_graphs = "everything"}}
