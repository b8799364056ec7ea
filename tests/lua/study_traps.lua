-- Lua API tests: the traps of issue 13 that used to give a wrong table with
-- exit 0: NaN metrics, non-fitting layouts, grid/parameter name clashes.
local T = dofile(debug.getinfo(1, "S").source:sub(2):match("^(.*)/") .. "/util/expect.lua")
local U = podsim.dist.uniform

-- A NaN or infinite metric in some samples no longer aborts the study: the
-- samples are left out of every statistic and counted per metric.
local r = podsim.study{name = "nan_count", samples = 1000, chunk_size = 100, seed = 3,
  params = {x = U{lo = 0, hi = 1}}, keep_samples = true,
  eval = function(p)
    return {y = p.x < 0.25 and 0 / 0 or p.x, z = p.x > 0.9 and math.huge or 1}
  end}:run()
local bad = 0
do -- count what the evaluator made non-finite from the kept samples' draws
  local nb = r.nonfinite.y + r.nonfinite.z
  T.truthy(r.nonfinite.y > 150 and r.nonfinite.y < 350, "about a quarter NaN: " .. r.nonfinite.y)
  T.truthy(r.nonfinite.z > 50 and r.nonfinite.z < 150, "about a tenth inf: " .. r.nonfinite.z)
  bad = nb
end
T.eq(r.stats.y[1].n, 1000 - bad, "dropped samples leave every metric")
T.eq(r.stats.z[1].n, 1000 - bad, "the same samples for each metric")
T.truthy(r.stats.y[1].min >= 0.25 and r.stats.y[1].max <= 0.9, "no NaN/inf sample in the statistics")
T.eq(r.stats.y[1].nonfinite, r.nonfinite.y, "per-metric count in the stats")
T.truthy(r.stats.y[1].p50 == r.stats.y[1].p50, "median is a number")
-- the stored rows are compacted across chunks: samples.csv has no gap
local dir = podsim.write(r)
local rows = -1
for _ in io.lines(dir .. "/samples.csv") do rows = rows + 1 end
T.eq(rows, 1000 - bad, "samples.csv rows")
local meta = io.open(dir .. "/meta.json"):read("a")
T.truthy(meta:find('"nonfinite": {'), "meta.json counts non-finite samples")
-- ... and it fails the run only when the study asks
T.error("y: metric is not finite %(%-?nan; the study's nonfinite = \"error\"%) %(grid point g=2, sample",
  function()
    podsim.study{name = "nan_err", samples = 200, nonfinite = "error", grid = {g = {1, 2}},
      params = {x = U{lo = 0, hi = 1}},
      eval = function(p) return {y = p.g == 2 and 0 / 0 or p.x} end}:run()
  end)
T.error("podsim.study: nonfinite: ", podsim.study, {samples = 10, nonfinite = "drop",
  eval = function() return 1 end})

-- Sobol rows with a non-finite evaluation are left out whole.
local rs = podsim.study{name = "nan_sobol", samples = 512, sensitivity = "sobol",
  params = {a = U{lo = 0, hi = 1}, b = U{lo = 0, hi = 1}},
  eval = function(p) return {y = (p.a > 0.95) and 0 / 0 or p.a + 2 * p.b} end}:run()
T.truthy(rs.nonfinite.y > 0, "Sobol counts")
T.truthy(rs.sens.y[1].b.sobol_total > rs.sens.y[1].a.sobol_total, "Sobol indices still ordered")

-- Layouts that do not fit: counted per grid point; kept, excluded or an error.
local base = podsim.train{system = "hgx_h100", model = "llama3_70b", gpus = 64, seq = 8192,
  global_batch = 128, parallel = {tp = 4, pp = 4, vp = 5, cp = 2}}
T.truthy(base.fits, "the base layout fits")
local function hbm_study(unfit)
  return podsim.study{name = "unfit_" .. tostring(unfit), samples = 200, seed = 5, unfit = unfit,
    params = {["system.gpu.hbm_gb"] = U{lo = 20, hi = 100}},
    eval = podsim.kernel.train{base = base.config}}
end
local keep = hbm_study(nil):run()
local excl = hbm_study("exclude"):run()
T.truthy(keep.unfit[1] > 0 and keep.unfit[1] < 200, "some samples do not fit: " .. keep.unfit[1])
T.eq(excl.unfit[1], keep.unfit[1], "same draws, same count")
T.eq(keep.unfit_mode, "keep", "default keeps (with a warning)")
T.eq(keep.stats.step_s[1].n, 200, "kept")
T.eq(excl.stats.step_s[1].n, 200 - excl.unfit[1], "excluded")
T.eq(excl.stats.fits[1].min, 1, "only fitting samples remain")
T.error("fits: the layout does not fit in memory", function() hbm_study("error"):run() end)
T.error("podsim.study: unfit: ", podsim.study, {samples = 10, unfit = "drop",
  eval = function() return 1 end})
-- a Lua evaluator reports fits as a boolean
local lr = podsim.study{name = "unfit_lua", samples = 100, unfit = "exclude",
  params = {x = U{lo = 0, hi = 1}},
  eval = function(p) return {y = p.x, fits = p.x < 0.5} end}:run()
T.truthy(lr.stats.y[1].max < 0.5 and lr.unfit[1] > 0, "boolean fits excludes")

-- A grid key with the name of a sampled parameter is an error.
T.error("podsim.study: grid.x: is also a sampled parameter", podsim.study,
  {samples = 10, params = {x = U{lo = 0, hi = 1}}, grid = {x = {1, 2}},
    eval = function(p) return p.x end})

-- Errors in eval name the grid point by its values.
T.error("boom %(grid point model=b tp=8, sample 0:", function()
  podsim.study{name = "gp_err", samples = 10, grid = {model = {"a", "b"}, tp = {8}},
    eval = function(p) if p.model == "b" then error("boom", 0) end return 1 end}:run()
end)
T.done("study_traps")
