-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: metrics: a kernel evaluator has fixed metrics; leave metrics out
-- Kernels have fixed metrics.
local s = podsim.study{params = {bytes = podsim.dist.uniform{1, 2}}, metrics = {"t"},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "all_reduce", ranks = 8, bytes = 1}}
