-- expect-exit: 1
-- expect-error: FILE:4: podsim.write_json: f: a function has no JSON form
-- Functions have no JSON form.
podsim.write_json("f.json", {f = print})
