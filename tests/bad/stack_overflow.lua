-- expect-exit: 1
-- expect-error: FILE:4: stack overflow
-- Unbounded recursion is a stack overflow error, not a crash.
local function f(n) return 1 + f(n + 1) end
f(1)
