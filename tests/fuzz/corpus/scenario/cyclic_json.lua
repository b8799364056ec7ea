-- expect-exit: 1
-- expect-error: FILE:6: podsim.write_json: self: cyclic table in JSON output
-- Writing a cyclic table as JSON is an error, and no file is left behind.
local t = {}
t.self = t
podsim.write_json("cyclic.json", t)
