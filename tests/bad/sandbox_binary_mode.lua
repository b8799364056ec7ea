-- expect-exit: 1
-- expect-error: FILE:4: load: binary chunks are not allowed in scenarios
-- Asking for binary mode explicitly is refused as well.
local f = load("return 1", "x", "b")
