-- expect-exit: 1
-- expect-error: FILE:6: time budget of 0.3 s exceeded (--timeout)
-- args: --timeout 0.3
-- pcall in a loop cannot swallow the time budget (it used to run forever:
-- each budget error was caught and the loop went on).
while true do pcall(function() while true do end end) end
