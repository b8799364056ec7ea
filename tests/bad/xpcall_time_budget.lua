-- expect-exit: 1
-- expect-error: FILE:5: time budget of 0.3 s exceeded (--timeout)
-- args: --timeout 0.3
-- xpcall cannot swallow the time budget either.
while true do xpcall(function() while true do end end, function(m) return m end) end
