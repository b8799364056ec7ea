-- expect-exit: 1
-- expect-error: FILE:5: time budget
-- args: --timeout 0.3
-- An endless loop is stopped by the time budget.
while true do end
