-- expect-exit: 1
-- expect-error: FILE:5: memory budget of 64 MB exceeded (--max-memory)
-- args: --max-memory 64
-- A single huge string is caught by the memory budget too.
local s = ("x"):rep(1 << 30)
