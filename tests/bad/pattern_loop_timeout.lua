-- expect-exit: 1
-- expect-error: FILE:8: time budget of 0.5 s exceeded (--timeout)
-- args: --timeout 0.5
-- Pattern matching runs in C, where Lua's instruction hook does not: a
-- loop of slow matches used to see the time budget only every million
-- instructions (hours here).  The pattern functions check it on entry.
local s = ("a"):rep(6000)
for i = 1, 1e6 do s:find(".-b") end
