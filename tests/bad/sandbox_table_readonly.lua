-- expect-exit: 1
-- expect-error: FILE:4: table: sort: the standard library is read-only in the sandbox
-- The standard library is read-only: podsim's own code relies on it.
table.sort = function() end
