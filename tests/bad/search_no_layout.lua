-- expect-exit: 1
-- expect-error: FILE:5: search: no layout fits
-- A model that cannot fit at all yields a clear error, not an empty list.
local r = podsim.search{system = "hgx_h100", model = "llama3_405b", gpus = 8, seq = 8192, global_batch = 8}
if #r == 0 then podsim.fail(nil, "search", "no layout fits") end
