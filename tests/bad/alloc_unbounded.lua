-- expect-exit: 1
-- expect-error: FILE:5: memory budget of 64 MB exceeded (--max-memory)
-- args: --max-memory 64
local t = {}
for i = 1, math.huge do t[i] = ("x"):rep(64) .. i end
