-- expect-exit: 1
-- expect-error: FILE:4: load: binary chunks are not allowed in scenarios
-- Precompiled bytecode can crash the VM, so load takes text only.
local f = load(string.dump(function() return 1 end))
