-- Lua API tests: metric declarations (label, unit, scale).
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")
local U = podsim.dist.uniform
local r = podsim.study{name = "decl", samples = 400, params = {x = U{0, 0.3}},
  metrics = {advantage = {label = "GB200 cost advantage", unit = "%", scale = 100}, t = true},
  eval = function(p) return {advantage = p.x, t = 1 + p.x} end}:run()
T.eq(r.metrics[1], "advantage", "sorted names")
T.eq(r.metrics[2], "t", "sorted names")
T.eq(r.metric_info.advantage.label, "GB200 cost advantage", "label")
T.eq(r.metric_info.advantage.scale, 100, "scale")
T.eq(r.metric_info.t.scale, 1, "default scale")
T.truthy(r.stats.advantage[1].mean < 0.3, "stored values unscaled")
T.error("podsim.study: metrics.a.scale: expected a finite non%-zero number", podsim.study,
  {samples = 10, metrics = {a = {scale = 0}}, eval = function() return {a = 1} end})
T.error("podsim.study: metrics.a.colour: unknown field", podsim.study,
  {samples = 10, metrics = {a = {colour = "red"}}, eval = function() return {a = 1} end})
T.error("podsim.study: metrics.a: expected {label =, unit =, scale =} or true", podsim.study,
  {samples = 10, metrics = {a = 3}, eval = function() return {a = 1} end})
T.eq(podsim.study{name = "plain", samples = 10, metrics = {"a"}, eval = function() return {a = 1} end}:run().metric_info.a, nil, "a list declares nothing")
local dir = podsim.write(r)
T.truthy(io.open(dir .. "/meta.json"):read("a"):find('"label": "GB200 cost advantage"', 1, true), "meta.json")
T.done("metric_decl")
