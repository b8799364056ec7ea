-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: net_channels: must be in [1, 1024] (got 0)
-- A collective crosses the network on at least one channel.
local s = podsim.system{base = "gb200_nvl72", net_channels = 0}
