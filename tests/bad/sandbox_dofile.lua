-- expect-exit: 1
-- expect-error: FILE:4: dofile: not allowed in the sandbox
-- dofile reads arbitrary files.
dofile("/etc/passwd")
