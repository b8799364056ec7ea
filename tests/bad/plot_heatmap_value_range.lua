-- expect-exit: 1
-- expect-error: FILE:4: podsim.plot_heatmap: cells[2].value: expected a number in [0, 1] or nil, got 1.5
-- A heatmap cell holds a probability.
podsim.plot_heatmap{cells = {{row = "a", col = 1, value = 0.5}, {row = "b", col = 1, value = 1.5}}}
