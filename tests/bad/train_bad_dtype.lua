-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: dtype: unknown value 'fp16' (did you mean 'bf16'? one of bf16, fp8, fp4)
-- dtypes are named.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512, dtype = "fp16"}
