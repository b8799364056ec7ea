-- expect-exit: 1
-- expect-error: FILE:7: podsim.train: parallel.vp:
-- Pending (not run by CTest until core/train.c computes layout products
-- in 64 bits): pp * vp = 2^32 wraps to 0 in int and `layers % 0` kills
-- podsim with SIGFPE.  Move to tests/bad/ when fixed.
local m = podsim.model{base = "llama3_8b", layers = 1048576}
local r = podsim.train{system = "hgx_h100", model = m, gpus = 65536, seq = 8192, global_batch = 65536,
  parallel = {pp = 65536, vp = 65536}}
