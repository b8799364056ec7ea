-- expect-exit: 1
-- expect-error: FILE:4: podsim.plot_breakdown: bars[1][2]: expected a podsim.train result (with step_s and breakdown)
-- Each bar is {label, podsim.train result}.
podsim.plot_breakdown{bars = {{"GB200", {step_s = 1}}}}
