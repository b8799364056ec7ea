-- expect-exit: 1
-- expect-error: FILE:5: podsim.collective: algo: collnet cannot run all_reduce on hgx_h100 with 64 ranks, 8 per domain
-- CollNet needs in-network reduction (sharp = true or an *_sharp fabric).
local sys = podsim.systems.hgx_h100
local r = podsim.collective(sys, "all_reduce", {ranks = 64, bytes = 1e9, algo = "collnet"})
