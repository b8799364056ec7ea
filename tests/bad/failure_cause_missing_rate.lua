-- expect-exit: 1
-- expect-error: FILE:4: podsim.failure_set: failures[1].rate_per_h: required field is missing
-- Every cause needs its rate.
local f = podsim.failure_set{{cause = "gpu", unit = "gpu", blast = "node"}}
