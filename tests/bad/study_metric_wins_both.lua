-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: metrics.cost.wins_below: give wins_above or wins_below, not both
-- A metric wins above a value or below it, not both.
podsim.study{samples = 10, metrics = {cost = {wins_above = 0, wins_below = 1}}, eval = function() return {cost = 1} end}
