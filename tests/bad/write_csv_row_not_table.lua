-- expect-exit: 1
-- expect-error: FILE:4: podsim.write_csv: rows[1]: expected a table keyed by the header's names, got number
-- CSV rows are tables.
podsim.write_csv("x.csv", {"a", "b"}, {5})
