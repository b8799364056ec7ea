-- expect-exit: 1
-- expect-error: FILE:8: podsim.study: eval: a value nested deeper than 200 levels (at 'eval > upvalue 't'.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.next.') cannot be copied into a worker's Lua state
-- args: --threads 2
-- A deeply nested table captured by eval fails cleanly instead of overflowing the C stack.
local t = {}
local cur = t
for i = 1, 200000 do cur.next = {}; cur = cur.next end
local s = podsim.study{samples = 100, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return {y = t.next and p.x or 0} end}
local r = s:run()
