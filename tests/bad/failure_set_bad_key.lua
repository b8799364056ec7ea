-- expect-exit: 1
-- expect-error: FILE:4: podsim.failure_set: failures.rates: unknown field (a failures list holds causes and a name)
-- A failures list holds causes and a name only.
local f = podsim.failure_set{name = "mine", rates = {1, 2}}
