-- expect-exit: 1
-- expect-error: FILE:8: podsim.train: parallel: tp*pp*cp = 281474976710656 (tp 65536, pp 65536, cp 65536) exceeds gpus (16777216)
-- Each layout dimension is within its bound, but their product is 2^48 and,
-- with dp = 2^24, 2^72: it wrapped a 64-bit integer and the error claimed
-- tp*pp*cp*dp = 0.  The product is bounded by gpus first.
local m = podsim.model{base = "llama3_8b", heads = 65536, kv_heads = 65536,
  hidden = 1 << 22, head_dim = 64, layers = 65536}
local r = podsim.train{system = "gb200_nvl72", model = m, gpus = 1 << 24,
  seq = 1 << 17, global_batch = 1 << 24,
  parallel = {tp = 65536, pp = 65536, cp = 65536, dp = 1 << 24}}
