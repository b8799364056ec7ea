-- expect-exit: 1
-- expect-error: FILE:4: podsim.train: dtpye: unknown field (did you mean 'dtype'?)
-- Unknown training fields suggest the nearest.
local r = podsim.train{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512, dtpye = "bf16"}
