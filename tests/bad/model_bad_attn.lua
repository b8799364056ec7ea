-- expect-exit: 1
-- expect-error: FILE:4: podsim.model: attn: unknown value 'flash' (one of mha, gqa, mla)
-- Attention kinds are named.
local m = podsim.model{base = "llama3_8b", attn = "flash"}
