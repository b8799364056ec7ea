-- expect-exit: 1
-- expect-error: FILE:4: podsim.collective: ranks_per_domain: 64 exceeds the domain's 8 GPUs
-- More ranks per domain than the domain holds is an invalid layout.
local r = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 64, bytes = 1e6, ranks_per_domain = 64})
