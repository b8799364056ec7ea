-- expect-exit: 1
-- expect-error: FILE:4: attempt to call a nil value (field 'sethook')
-- debug has only traceback in the sandbox.
debug.sethook(function() end, "l")
