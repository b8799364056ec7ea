-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: eval.op: unknown value 'allreduce' (did you mean 'all_reduce'? one of all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, send_recv)
-- A kernel's config is checked like the constructor's fields.
local s = podsim.study{params = {bytes = podsim.dist.uniform{1, 2}},
  eval = podsim.kernel.collective{system = "hgx_h100", op = "allreduce", ranks = 8}}
