-- The shipped scenarios with a Lua eval trace, and give the same results
-- bit for bit traced and per-sample in Lua (trace = false): each scenario
-- runs as shipped, with podsim.study wrapped to build every study both
-- ways (at most 4000 samples per grid point) and podsim.write/plot
-- stubbed out.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/")
local T = dofile(here .. "/util/expect.lua")
local W = dofile(here .. "/util/twoways.lua")
local root = here .. "/../.."

local study, write, plot = podsim.study, podsim.write, podsim.plot
local ran = {}
podsim.study = function(spec)
  local a = {}
  for k, v in pairs(spec) do a[k] = v end
  a.samples = math.min(spec.samples or 10000, 4000)
  local b = {}
  for k, v in pairs(a) do b[k] = v end
  b.trace = false
  local sa, sb = study(a), study(b)
  return {run = function()
    local ra, rb = sa:run(), sb:run()
    T.eq(ra.evaluator, "traced", spec.name .. " traced (" .. tostring(ra.trace_stop) .. ")")
    T.eq(rb.evaluator, "lua", spec.name .. " with trace = false")
    W.same(ra, rb, spec.name)
    ran[#ran + 1] = spec.name
    return ra
  end}
end
podsim.write = function() return "(not written)" end
podsim.plot = function() end

for _, f in ipairs{"alltoall_uncertainty.lua", "moe_nvl72_vs_hgx.lua"} do
  dofile(root .. "/scenarios/" .. f)
end
podsim.study, podsim.write, podsim.plot = study, write, plot
T.eq(#ran, 2, "studies compared")
T.done("trace_scenarios")
