-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: routing: unknown value 'ecmp'
-- Routing is one of static_ecmp, adaptive, spray, srd.
local s = podsim.system{base = "hgx_h100", routing = "ecmp"}
