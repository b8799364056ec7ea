-- expect-exit: 1
-- expect-error: FILE:6: podsim.train: parallel.vp:
-- pp * vp = 2^32 wrapped to 0 in int and `layers % 0` killed podsim with
-- SIGFPE; the layout check now bounds pp * vp by the layers first.
local m = podsim.model{base = "llama3_8b", layers = 1048576}
local r = podsim.train{system = "hgx_h100", model = m, gpus = 65536, seq = 8192, global_batch = 65536,
  parallel = {pp = 65536, vp = 65536}}
