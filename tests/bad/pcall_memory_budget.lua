-- expect-exit: 1
-- expect-error: FILE:5: memory budget of 64 MB exceeded (--max-memory)
-- args: --max-memory 64
-- pcall cannot swallow the memory budget: the error passes through it.
local ok = pcall(function()
  local t = {}
  for i = 1, math.huge do t[i] = ("x"):rep(100) .. i end
end)
print("caught by pcall", ok)
