-- expect-exit: 1
-- expect-error: FILE:10: study 'study': eval: FILE:7: x too large
-- args: --threads 2
-- An error thrown inside eval in a worker thread stops the study and names the scenario line.
local s = podsim.study{samples = 5000, params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p)
    if p.x > 0.999 then error("x too large: " .. p.x) end
    return {y = p.x}
  end}
local r = s:run()
