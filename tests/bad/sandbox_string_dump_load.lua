-- expect-exit: 1
-- expect-error: FILE:7: attempt to load a binary chunk (mode is 't')
-- string.dump output cannot be loaded back as bytecode through a reader function.
local code = string.dump(function() return 1 end)
local done = false
local f, err = load(function() if done then return nil end done = true return code end)
if not f then error(err) end
