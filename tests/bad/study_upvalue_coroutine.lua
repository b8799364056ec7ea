-- expect-exit: 1
-- expect-error: FILE:5: podsim.study: eval: a coroutine (at 'eval > upvalue 'co'') cannot be copied into a worker's Lua state
-- An upvalue that cannot cross into worker threads is named.
local co = coroutine.create(function() end)
local s = podsim.study{params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return {y = coroutine.status(co) == "dead" and 1 or p.x} end}
local r = s:run()
