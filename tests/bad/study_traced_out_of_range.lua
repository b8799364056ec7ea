-- expect-exit: 1
-- expect-error: FILE:9: study 'study': eval: FILE:6: podsim.system: up_eff: must be in (0, 1]
-- A compiled eval fails on the sample that puts a spec field out of range,
-- located at the scenario line of the constructor, as the Lua path does.
local s = podsim.study{samples = 2000, params = {e = podsim.dist.uniform{0.5, 1.2}},
  eval = function(p) return {v = podsim.system{base = "hgx_h100", up_eff = p.e}.up_eff}
  end}
assert(true)
local r = s:run()
