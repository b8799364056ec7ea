-- expect-exit: 1
-- expect-error: FILE:4: os.execute: not allowed in the sandbox
-- A scenario may not run programs.
os.execute("touch /tmp/podsim-pwned")
