-- expect-exit: 1
-- expect-error: FILE:4: attempt to index a nil value (global 'package')
-- package (and so package.loadlib) does not exist in the sandbox.
local f = package.loadlib("libc.so.6", "system")
