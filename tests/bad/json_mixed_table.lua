-- expect-exit: 1
-- expect-error: FILE:5: podsim.json: cfg: table mixes list items (1..2) and the key "name": no JSON form
-- A table with both list items and named keys is an error in JSON (the
-- named keys used to be dropped without a word).
print(podsim.json{cfg = {1, 2, name = "x"}})
