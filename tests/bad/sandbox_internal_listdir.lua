-- expect-exit: 1
-- expect-error: FILE:4: attempt to call a nil value (field '_listdir')
-- podsim's internals (here: the unchecked folder listing) are not in the podsim table.
podsim._listdir("/")
