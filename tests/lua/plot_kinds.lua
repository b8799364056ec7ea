-- Lua API tests: podsim.plot's histogram, Sobol tornado and win-probability
-- map, podsim.plot_heatmap and podsim.plot_breakdown (their data files,
-- checked against values computed here; the SVGs when gnuplot runs).
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")
local U = podsim.dist.uniform
local out = podsim.out_dir()

local function read_csv(path)
  local f = assert(io.open(path))
  local header, rows = nil, {}
  for line in f:lines() do
    local cells = {}
    for c in (line .. ","):gmatch("([^,]*),") do cells[#cells + 1] = tonumber(c) or c end
    if not header then header = cells else
      local row = {}
      for i, h in ipairs(header) do row[h] = cells[i] end
      rows[#rows + 1] = row
    end
  end
  f:close()
  return rows
end
local function exists(p) local f = io.open(p); if f then f:close() end; return f ~= nil end

-- y = b x + a with x ~ U(0, 1): P(y > 0.5) = 1 - (0.5 - a) / b, clipped;
-- the histogram is uniform, so the interpolation inside a bin is exact
-- up to sampling noise (se <= 0.004 at 20,000 samples).
local r = podsim.study{name = "win", samples = 20000, seed = 5,
  params = {x = U{0, 1}, z = U{0, 1}},
  grid = {a = {-0.25, 0, 0.25}, b = {1, 2}},
  metrics = {y = {label = "gain", unit = "%", scale = 100, wins_above = 0.5},
    ylow = {wins_below = 0.5}},
  eval = function(p) return {y = p.b * p.x + p.a + 0 * p.z, ylow = p.b * p.x + p.a} end}:run()
T.eq(r.metric_info.y.wins_above, 0.5, "wins_above kept")
T.eq(r.metric_info.ylow.wins_below, 0.5, "wins_below kept")
local svgs = podsim.plot(r)
local cells = read_csv(out .. "/win/heatmap_y.csv")
T.eq(#cells, 6, "one cell per grid point")
for _, c in ipairs(cells) do
  local a, b = tonumber(c.rowlabel), tonumber(c.collabel)
  local want = math.max(0, math.min(1, 1 - (0.5 - a) / b))
  T.truthy(math.abs(c.value - want) < 0.02, string.format("P(y > 0.5) at a=%g b=%g: %g vs %g", a, b, c.value, want))
end
for i, c in ipairs(read_csv(out .. "/win/heatmap_ylow.csv")) do
  T.truthy(math.abs(c.value + cells[i].value - 1) < 1e-9, "wins_below is the complement")
end
-- the histogram's density integrates to one at every grid point
local mass = {}
for _, h in ipairs(read_csv(out .. "/win/histplot_y.csv")) do
  mass[h.point] = (mass[h.point] or 0) + h.density * h.width
end
for g = 1, 6 do T.truthy(math.abs(mass[g] - 1) < 1e-6, "density integrates to 1 at point " .. g) end
local have = {}
for _, s in ipairs(svgs) do have[s:match("[^/]+$")] = true end
if next(have) then -- gnuplot installed
  T.truthy(have["hist_y.svg"] and have["heatmap_y.svg"] and have["cdf_y.svg"], "SVGs listed")
  T.truthy(not have["sobol_y_a-0_b-1.svg"], "no Sobol tornado without sensitivity = sobol")
end

-- Sobol: y = x1 + 2 x2 (uniform): S1 = 1/5, S2 = 4/5, no interactions.
local rs = podsim.study{name = "sob", samples = 20000, seed = 9, sensitivity = "sobol",
  params = {x1 = U{0, 1}, x2 = U{0, 1}},
  eval = function(p) return {y = p.x1 + 2 * p.x2} end}:run()
podsim.plot(rs)
local sob = read_csv(out .. "/sob/sobol_y.csv")
T.eq(#sob, 2, "one row per parameter")
T.eq(sob[2].param, "x2", "largest first-order index last (top of the chart)")
T.truthy(math.abs(sob[1].first - 0.2) < 0.03 and math.abs(sob[2].first - 0.8) < 0.03, "first-order indices")
T.truthy(math.abs(sob[1].total - 0.2) < 0.03 and math.abs(sob[2].total - 0.8) < 0.03, "total indices")
T.near(sob[2].first, rs.sens.y[1].x2.sobol_first, 1e-9, "the results' indices")

-- declarations
local function st(m) return {samples = 10, metrics = {a = m}, eval = function() return {a = 1} end} end
T.error("podsim.study: metrics.a.wins_above: expected a finite number", podsim.study, st{wins_above = "0"})
T.error("podsim.study: metrics.a.wins_below: expected a finite number", podsim.study, st{wins_below = 0 / 0})
T.error("podsim.study: metrics.a.wins_below: give wins_above or wins_below, not both", podsim.study,
  st{wins_above = 0, wins_below = 1})

-- podsim.plot_heatmap
podsim.plot_heatmap{cells = {{row = "r1", col = 512, value = 0.25}, {row = "r2", col = 512, value = 1},
  {row = "r1", col = 2048, value = 0}}, title = "t", xname = "GPUs", output = "maps/m.svg"}
local hm = read_csv(out .. "/maps/m.csv")
T.eq(#hm, 4, "every (row, col)")
T.eq(hm[2].collabel, 2048, "columns in order of first appearance")
T.eq(hm[4].value, -1, "a missing cell is n/a")
local H = podsim.plot_heatmap
T.error("podsim.plot_heatmap: cells: expected a non%-empty list", H, {cells = {}})
T.error("podsim.plot_heatmap: cells%[1%]%.value: expected a number in %[0, 1%]", H, {cells = {{row = 1, col = 1, value = 1.5}}})
T.error("podsim.plot_heatmap: cells%[2%]: the cell %(a, 1%) is given twice", H,
  {cells = {{row = "a", col = 1}, {row = "a", col = 1}}})
T.error("podsim.plot_heatmap: cells%[1%]%.row: expected a non%-empty string or a number", H, {cells = {{col = 1}}})
T.error("podsim.plot_heatmap: output: expected a file name ending in %.svg", H, {cells = {{row = 1, col = 1}}, output = "m.png"})
T.error("podsim.plot_heatmap: colour: unknown field", H, {cells = {{row = 1, col = 1}}, colour = 1})

-- podsim.plot_breakdown: the parts add up to the step time
local a = podsim.train{system = "gb200_nvl72", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = {tp = 4, pp = 2}}
local b = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = {tp = 8, pp = 2}}
podsim.plot_breakdown{bars = {{"GB200", a}, {"H100", b}}, title = "70B", output = "bd/step.svg"}
local bd = read_csv(out .. "/bd/step.csv")
T.eq(#bd, 2, "one bar per result")
for i, t in ipairs{a, b} do
  local sum = 0
  for _, k in ipairs{"compute", "tp", "cp", "ep", "pp", "dp", "bubble", "optimizer", "host", "straggler"} do
    sum = sum + bd[i][k]
  end
  T.near(sum, t.step_s, 1e-6, "parts add up to step_s (" .. bd[i].label .. ")")
  T.near(bd[i].step_s, t.step_s, 1e-9, "step_s")
end
T.truthy(exists(out .. "/bd/step.plot"), "recipe written")
local B = podsim.plot_breakdown
T.error("podsim.plot_breakdown: bars: expected a non%-empty list", B, {bars = {}})
T.error("podsim.plot_breakdown: bars%[1%]%[2%]: expected a podsim.train result", B, {bars = {{"x", {}}}})
T.error("podsim.plot_breakdown: bars%[1%]%[1%]: expected a non%-empty string", B, {bars = {{nil, a}}})
T.error("podsim.plot_breakdown: title: expected a string", B, {bars = {{"x", a}}, title = 3})
T.error("podsim.plot_breakdown: data: expected a file name ending in %.csv", B, {bars = {{"x", a}}, data = "x.txt"})
T.done("plot_kinds")
