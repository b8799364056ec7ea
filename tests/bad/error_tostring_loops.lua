-- expect-exit: 1
-- expect-error: FILE:6: error object is a table value whose __tostring failed: the error object's __tostring exceeded its time budget
-- An error object whose __tostring never returns is stopped by the
-- reporting budget instead of hanging the process.
local e = setmetatable({}, {__tostring = function() while true do end end})
error(e)
