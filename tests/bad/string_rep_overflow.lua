-- expect-exit: 1
-- expect-error: FILE:4: resulting string too large
-- A string size that overflows is refused by Lua.
local s = ("x"):rep(1 << 62)
