-- expect-exit: 1
-- expect-error: FILE:4: os.remove: not allowed in the sandbox
-- Deleting files is refused.
os.remove("important.csv")
