-- expect-exit: 1
-- expect-error: FILE:5: podsim.collective: algo: nvls cannot run all_reduce on hgx_h100 with 8 ranks, 8 per domain
-- NVLS on a system without in-switch reduction is refused by the kernel.
local sys = podsim.system{base = "hgx_h100", nvls = false}
local r = podsim.collective(sys, "all_reduce", {ranks = 8, bytes = 1e6, algo = "nvls"})
