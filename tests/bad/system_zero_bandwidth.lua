-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: nic_gbps: must be in (0, 100000] (got 0)
-- A zero bandwidth would divide by zero in every kernel.
local s = podsim.system{base = "gb200_nvl72", nic_gbps = 0}
