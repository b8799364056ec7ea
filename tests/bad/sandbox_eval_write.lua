-- expect-exit: 1
-- expect-error: FILE:4: study 's': eval: FILE:5: io.open: '/tmp/podsim-eval-escape.txt' is outside the output folder
-- An eval (a worker state) is sandboxed like the scenario: no writes outside the output folder.
podsim.study{name = "s", samples = 50, metrics = {"v"}, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) io.open("/tmp/podsim-eval-escape.txt", "w"); return {v = p.x} end}:run()
