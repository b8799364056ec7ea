-- expect-exit: 1
-- expect-error: FILE:9: time budget of 0.5 s exceeded (--timeout)
-- args: --timeout 0.5
-- The layout search runs in C, where Lua's instruction hook does not: a
-- loop of searches used to see the time budget only every million
-- instructions.  podsim.search checks it on entry.
local q = {system = "hgx_h100", model = "llama3_70b", gpus = 1024, seq = 8192,
  global_batch = 1024, dtype = "bf16", top = 1}
for i = 1, 1e9 do podsim.search(q) end
