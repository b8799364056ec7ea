-- expect-exit: 1
-- expect-error: podsim: the scenario yielded outside a podsim call
-- A bare coroutine.yield in the main flow has nobody to resume it.
coroutine.yield(1)
