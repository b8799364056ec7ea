-- expect-exit: 1
-- expect-error: FILE:5: os.execute: not allowed in the sandbox (run with --unsafe to lift it)
-- load with a custom environment still has only the sandboxed functions.
local f = load("return os.execute('id')", "chunk", "t", {os = os})
f()
