-- expect-exit: 1
-- expect-error: FILE:7: FILE:5: boom inside a coroutine
-- An error raised inside a user coroutine and re-raised keeps its location.
local co = coroutine.wrap(function()
  error("boom inside a coroutine")
end)
co()
