-- expect-exit: 1
-- expect-error: FILE:6: error object is a table value whose __tostring failed: FILE:5: tostring broke
-- An error object whose __tostring itself raises is reported (the host
-- calls __tostring protected); it used to abort the process.
local e = setmetatable({}, {__tostring = function() error("tostring broke") end})
error(e)
