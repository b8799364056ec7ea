-- expect-exit: 1
-- expect-error: FILE:4: io.popen: not allowed in the sandbox
-- A scenario may not spawn a shell.
local p = io.popen("id")
