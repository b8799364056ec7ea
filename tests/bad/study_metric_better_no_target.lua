-- expect-exit: 1
-- expect-error: FILE:4: podsim.study: metrics.cost.better: needs a target
-- `better` says which side of a target wins; without a target it means nothing.
podsim.study{samples = 10, metrics = {cost = {better = "lower"}}, eval = function() return {cost = 1} end}
