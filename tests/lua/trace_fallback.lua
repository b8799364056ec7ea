-- Lua API tests of the trace's fallback: data-dependent control flow and
-- untraceable uses end the trace cleanly, the study runs eval in Lua per
-- sample (results.evaluator == "lua") and results.trace_stop says why,
-- located at the scenario line that stopped the trace.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/")
local T = dofile(here .. "/util/expect.lua")
local W = dofile(here .. "/util/twoways.lua")
local D = podsim.dist
local params = {x = D.uniform{0, 1}, y = D.uniform{1, 2}}

-- the line of the first statement in `f`'s body that stops the trace
local function falls_back(what, pattern, eval, extra, random, samples)
  local spec = {name = "fb", samples = samples or 200, seed = 9, params = extra or params, eval = eval}
  local r = random and podsim.study(spec):run() or W.both(spec, what, "lua")
  T.eq(r.evaluator, "lua", what .. ": evaluator")
  T.truthy(r.trace_stop and r.trace_stop:find(pattern), what .. ": trace_stop '" ..
    tostring(r.trace_stop) .. "' does not match '" .. pattern .. "'")
  T.truthy(r.trace_stop:find("^[^:]+trace_fallback%.lua:%d+: ") or r.trace_stop:find("disagree")
    , what .. ": located")
  return r
end

local line = debug.getinfo(1, "l").currentline
falls_back("branch", "trace_fallback%.lua:" .. (line + 2) .. ": comparison of a traced value", function(p)
  if p.x > 0.5 then return {v = p.x} end
  return {v = -p.x}
end)
falls_back("pcall", "pcall in eval %(error handling", function(p)
  local ok, v = pcall(function() return p.x * 2 end)
  return {v = ok and v or 0}
end)
falls_back("coroutine", "coroutine%.wrap in eval", function(p)
  return {v = coroutine.wrap(function() return p.x end)()}
end)
falls_back("tostring", "tostring of a traced value", function(p) return {v = #tostring(p.x)} end)
falls_back("concat", "concatenation of a traced value", function(p) return {v = #("x" .. p.x)} end)
falls_back("string.format", "number expected, got traced value", function(p)
  return {v = #string.format("%.3f", p.x)}
end)
falls_back("random", "math%.random %(a different value per call%)", function(p)
  return {v = p.x + math.random()}
end, nil, true)
falls_back("math.type", "math%.type of a traced value", function(p)
  return {v = math.type(p.x) == "float" and 1 or 0}
end)
falls_back("data-dependent result", "reading 'algo' of a traced podsim%.collective result", function(p)
  local a = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8, bytes = p.x * 1e6})
  return {v = a.algo == "ring" and 1 or 0}
end)
falls_back("fits", "reading 'fits' of a traced podsim%.train result", function(p)
  local t = podsim.train{system = podsim.system{base = "hgx_h100", up_eff = p.x * 0.5 + 0.4},
    model = "llama3_8b", gpus = 64, seq = 4096, global_batch = 256, parallel = {tp = 2, dp = 32}}
  return {v = t.fits and t.step_s or 0}
end)
falls_back("derived gpus", "reaches 'active_gpus' through a computation the trace does not know",
  function(p)
    local t = podsim.train{system = podsim.system{base = "hgx_h100", up_eff = p.x * 0.5 + 0.4},
      model = "llama3_8b", gpus = 64, seq = 4096, global_batch = 256, parallel = {tp = 2, dp = 32}}
    return {v = podsim.cost{train = t, usd_per_gpu_hour = 2, tokens = 1e12}.usd_total}
  end)
falls_back("simulate_run", "podsim%.simulate_run of a traced value", function(p)
  return {v = podsim.simulate_run{gpus = 64, domain_gpus = 8, failures = "llama3_h100", spares = "none",
    repair_h = 24, restart_s = 600, checkpoint = {write_s = 60, interval = "young"},
    hours = 100 * p.y, seed = 1}.wall_h}
end)
-- a lookup with a traced key records nothing: the check points catch it
-- (the probe sits at x = 0.5, the median)
local at_half = {[0.5] = 10}
falls_back("table key", "disagree at grid point 1 %(check point 1, metric 'v'", function(p)
  return {v = (at_half[p.x] or 0) + p.x}
end)
falls_back("too long", "more than %d+ million Lua instructions", function(p)
  local s = 0
  for i = 1, 2e7 do s = s + i end
  return {v = p.x + s}
end, nil, false, 1)

do -- a grid too large to hold a graph per point
  local big = {}
  for i = 1, 4097 do big[i] = i end
  local r = podsim.study{name = "fb_grid", samples = 1, params = params, grid = {k = big},
    eval = function(p) return {v = p.x + p.k} end}:run()
  T.eq(r.evaluator, "lua", "large grid: evaluator")
  T.truthy(r.trace_stop:find("more than 4096 grid points"), "large grid: reason")
end

-- its own error while traced: no trace, the per-sample run reports it
T.error("study 'fb_err': eval: .*boom", function()
  podsim.study{name = "fb_err", samples = 10, params = params, metrics = {"v"},
    eval = function(p) error("boom") end}:run()
end)
-- a bad spec field from a traced value fails per sample as in Lua
local ok1, e1 = pcall(function()
  return podsim.study{name = "bad", samples = 500, seed = 1, params = {e = D.uniform{0.5, 1.5}},
    eval = function(p) return {v = podsim.system{base = "hgx_h100", up_eff = p.e}.up_eff} end}:run()
end)
local ok2, e2 = pcall(function()
  return podsim.study{name = "bad", samples = 500, seed = 1, trace = false,
    params = {e = D.uniform{0.5, 1.5}},
    eval = function(p) return {v = podsim.system{base = "hgx_h100", up_eff = p.e}.up_eff} end}:run()
end)
T.truthy(not ok1 and not ok2, "out-of-range up_eff fails both ways")
local function tail(e) return tostring(e):match("podsim%.system: up_eff: must be in %(0, 1%] %(got [^)]*%)") end
T.truthy(tail(e1) and tail(e1) == tail(e2), "same error both ways: " .. tostring(e1) .. " / " .. tostring(e2))
T.truthy(tostring(e1):find("sample %d+") and tostring(e1):match("sample (%d+)") ==
  tostring(e2):match("sample (%d+)"), "same failing sample")

T.done("trace_fallback")
