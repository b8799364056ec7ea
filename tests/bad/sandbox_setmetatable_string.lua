-- expect-exit: 1
-- expect-error: FILE:5: os.execute: not allowed in the sandbox (run with --unsafe to lift it)
-- Changing the string metatable cannot reach the host.
getmetatable("").__index = function() return os.execute end
local x = ("abc"):anything("id")
