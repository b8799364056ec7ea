-- expect-exit: 1
-- expect-error: FILE:10: study 'study' stopped: memory budget of 64 MB exceeded in a worker's Lua state (--max-memory)
-- args: --threads 2 --max-memory 64
-- Unbounded allocation inside eval is stopped by the memory budget of the worker's state.
local s = podsim.study{samples = 1000, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p)
    local t = {}
    for i = 1, math.huge do t[i] = ("x"):rep(64) .. i end
  end}
local r = s:run()
