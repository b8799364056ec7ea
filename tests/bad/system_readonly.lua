-- expect-exit: 1
-- expect-error: FILE:5: podsim.system: up_GBps: system specs are read-only; derive a new one with podsim.system{base=..., ...}
-- Specs are immutable values.
local s = podsim.systems.hgx_h100
s.up_GBps = 1
