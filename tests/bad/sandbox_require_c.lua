-- expect-exit: 1
-- expect-error: FILE:4: require: module 'lfs' is not available in the sandbox
-- C modules cannot be loaded.
local lfs = require("lfs")
