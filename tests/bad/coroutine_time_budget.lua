-- expect-exit: 1
-- expect-error: FILE:6: time budget of 0.3 s exceeded (--timeout)
-- args: --timeout 0.3
-- coroutine.resume cannot swallow the time budget.
while true do
  coroutine.resume(coroutine.create(function() while true do end end))
end
