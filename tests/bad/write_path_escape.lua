-- expect-exit: 1
-- expect-error: FILE:4: podsim.write_text: '/etc/podsim-escape.txt' is outside the scenario's folder and the output folder
-- Writers refuse paths outside the output folder.
podsim.write_text("/etc/podsim-escape.txt", "x")
