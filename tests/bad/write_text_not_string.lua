-- expect-exit: 1
-- expect-error: FILE:4: podsim.write_text: text: expected a string, got table
-- write_text takes text.
podsim.write_text("x.txt", {})
