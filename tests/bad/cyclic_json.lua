-- expect-exit: 1
-- expect-error: cyclic table in JSON output
-- Writing a cyclic table as JSON is an error, and no file is left behind.
local t = {}
t.self = t
podsim.write_json("cyclic.json", t)
