-- expect-exit: 1
-- expect-error: FILE:4: podsim.system: name: string too long (31 bytes at most)
-- Names are bounded (they are fixed-size fields of value structs).
local s = podsim.system{base = "hgx_h100", name = ("x"):rep(100000)}
