-- expect-exit: 1
-- expect-error: FILE:4: podsim.failure_set: failures[1].rate_per_h: must be in [0, 1000000] (got 2000000)
-- A cause's rate is bounded by pod_rel_cause_fields (core/rel.c).
local f = podsim.failure_set{{cause = "x", rate_per_h = 2e6, unit = "gpu", blast = "gpu"}}
