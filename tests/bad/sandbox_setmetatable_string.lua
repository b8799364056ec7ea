-- expect-exit: 1
-- expect-error: FILE:4: attempt to index a boolean value
-- The string metatable is hidden (its __index is podsim's string library).
getmetatable("").__index = function() return os.execute end
local x = ("abc"):anything("id")
