-- expect-exit: 1
-- expect-error: FILE:4: podsim.write_csv: header: expected a non-empty list of column names
-- A CSV needs its columns.
podsim.write_csv("x.csv", {}, {})
