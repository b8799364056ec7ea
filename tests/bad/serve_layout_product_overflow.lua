-- expect-exit: 1
-- expect-error: FILE:7: podsim.serve: parallel.pp: tp x pp = 4294967296 does not divide 72 GPUs
-- tp and pp each within their bounds (2^16) multiplied to 2^32 in int,
-- a zero divisor (SIGFPE); the product is now bounded by the GPUs.
local m = podsim.model{base = "llama3_8b", heads = 65536, kv_heads = 65536,
  hidden = 1 << 22, head_dim = 64, layers = 65536}
local r = podsim.serve{system = "gb200_nvl72", model = m, gpus = 72,
  parallel = {tp = 65536, pp = 65536}}
