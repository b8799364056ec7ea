-- expect-exit: 1
-- expect-error: FILE:4: podsim.kernel: is read-only
-- podsim's own tables cannot be swapped out from under the library.
podsim.kernel.collective = function() end
