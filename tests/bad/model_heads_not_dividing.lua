-- expect-exit: 1
-- expect-error: FILE:4: podsim.model: kv_heads: must be in [1, heads=7] (got 8)
-- The core check rejects inconsistent shapes.
local m = podsim.model{base = "llama3_8b", heads = 7}
