-- expect-exit: 1
-- expect-error: FILE:7: podsim.write_json: next.next.next.next.next.next.next.next: table nested deeper than 100 levels in JSON output
-- A table nested beyond the C stack limit fails cleanly instead of crashing.
local t = {}
local cur = t
for i = 1, 300000 do cur.next = {}; cur = cur.next end
podsim.write_json("deep.json", t)
