-- expect-exit: 1
-- expect-error: FILE:4: podsim.kernel: colective: unknown kernel (kernels: collective, cost, reliability,
-- Unknown built-in kernels are named with the list of kernels.
local s = podsim.study{params = {bytes = podsim.dist.uniform{1, 2}}, eval = podsim.kernel.colective{}}
