-- expect-exit: 1
-- expect-error: FILE:4: podsim.args: n: is read-only
-- podsim.args is read-only.
podsim.args.n = 5
