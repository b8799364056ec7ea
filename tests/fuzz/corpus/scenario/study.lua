local s = podsim.study{name = "s", samples = 64, seed = 3,
  params = {x = podsim.dist.uniform{0, 1}, y = podsim.dist.normal{1, 0.1}, c = podsim.dist.choice{"a", "b"}},
  grid = {n = {8, 16}},
  eval = function(p) return {z = p.x * p.y + p.n, k = p.c == "a" and 1 or 0} end,
  metrics = {"z", "k"}, keep_samples = true}
local r = s:run()
podsim.write(r)
print(r:summary("z", 1).mean)
