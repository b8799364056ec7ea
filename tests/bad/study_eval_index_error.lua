-- expect-exit: 1
-- expect-error: FILE:9: study 'ix': eval: FILE:7: index broke
-- args: --threads 2
-- eval returns a table whose __index raises while the worker reads the
-- metrics: the reading is protected (it used to abort the process).
local s = podsim.study{name = "ix", samples = 100, params = {x = podsim.dist.uniform{0, 1}},
  metrics = {"y"}, eval = function(p) return setmetatable({}, {__index = function() error("index broke") end}) end}
podsim.write = nil
s:run()
