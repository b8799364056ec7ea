-- expect-exit: 1
-- expect-error: FILE:4: podsim.search: parallel: the search chooses the layout; fix dimensions with fix={...}
-- The search chooses the layout itself.
local r = podsim.search{system = "hgx_h100", model = "llama3_8b", gpus = 64, seq = 8192, global_batch = 512,
  parallel = {tp = 8}}
