-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: metrics: 't' is not a metric of the collective kernel (time_s, algbw_GBps, busbw_GBps)
-- A kernel study's metrics= names a subset of the kernel's metrics.
local s = podsim.study{params = {bytes = podsim.dist.uniform{1, 2}}, metrics = {"t"},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}}
