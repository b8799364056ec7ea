-- expect-exit: 1
-- expect-error: FILE:8: warning: podsim.search: no layout: 365 layouts pass the divisibility rules, but none of their 3285 ZeRO/recompute variants fits in 80 GB HBM per GPU
-- A model that cannot fit at all: the empty list explains itself (warning
-- first, then the scenario's own error).
-- (365 with the embedding-only and loss-only virtual stages of uneven
-- layouts, pp*vp up to layers + 2, and interleaving only with at least pp
-- micro-batches per pipeline.)
local r = podsim.search{system = "hgx_h100", model = "llama3_405b", gpus = 8, seq = 8192, global_batch = 8}
if #r == 0 then podsim.fail(nil, "search", "no layout fits") end
