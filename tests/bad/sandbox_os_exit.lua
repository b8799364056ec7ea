-- expect-exit: 1
-- expect-error: FILE:4: os.exit: not allowed in the sandbox
-- A scenario may not end the process behind podsim's back.
os.exit(0)
