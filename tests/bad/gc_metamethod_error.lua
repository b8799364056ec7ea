-- expect-exit: 1
-- expect-error: FILE:7: after gc
-- An error raised inside a __gc metamethod does not crash the host.
setmetatable({}, {__gc = function() error("boom in gc") end})
collectgarbage()
collectgarbage()
error("after gc")
