-- expect-exit: 1
-- expect-error: FILE:5: podsim.collective: algo: nvls cannot run all_reduce on gb200_nvl72 with 144 ranks, 72 per domain
-- NVLS runs inside one NVLink domain; across domains NCCL runs NVLSTree.
local sys = podsim.systems.gb200_nvl72
local r = podsim.collective(sys, "all_reduce", {ranks = 144, bytes = 1e9, algo = "nvls"})
