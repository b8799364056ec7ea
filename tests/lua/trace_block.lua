-- Lua API tests of the block evaluation of traced studies (core/graph_block.c):
-- plain studies evaluate their graph 64 samples at a time.  Traced and
-- per-sample Lua (trace = false) must agree bit for bit on statistics,
-- non-finite and unfit counts, for chunks that are not a multiple of the
-- block, with a choice of labels switching graphs within a block, and for
-- any thread count; a sample that fails in the middle of a block must fail
-- the study with the very message Lua gives (the same sample, parameters,
-- field and line), whichever node fails.
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/")
local T = dofile(here .. "/util/expect.lua")
local W = dofile(here .. "/util/twoways.lua")
local D = podsim.dist

local params = {
  e = D.uniform{0.3, 0.95},
  b = D.loguniform{1 << 16, 1 << 30},
  x = D.uniform{-1, 1},
  route = D.choice{"static_ecmp", "adaptive"},
}
local function eval(p)
  local s = podsim.system{base = "hgx_h100", out_eff = p.e, routing = p.route}
  local a = podsim.collective(s, "all_to_all", {ranks = 64, bytes = p.b})
  return {
    us = a.time_s * 1e6,
    -- NaN for e < 0.6: counted, not recorded
    nan = math.sqrt(p.e - 0.6) + a.time_s,
    -- 0 or 1: a `fits` metric, unfit samples counted
    fits = math.floor(p.x + 1),
  }
end

-- chunks of 100 (blocks of 64 and 36), a label choice, NaN and unfit
for _, mode in ipairs{"keep", "exclude"} do
  local r = W.both({name = "blk_" .. mode, samples = 1000, chunk_size = 100, seed = 5,
    params = params, unfit = mode, eval = eval, keep_samples = true}, "block " .. mode)
  T.truthy(r.nonfinite.nan > 300 and r.nonfinite.nan < 700, "NaN samples counted: " ..
    r.nonfinite.nan)
  T.truthy(r.unfit[1] > 0, mode .. ": unfit samples counted")
end

-- the same results for 1 and 2 threads, and with chunks of 7
local function run(threads, cs)
  return podsim.study{name = "blk_t", samples = 3000, seed = 8, threads = threads,
    chunk_size = cs, params = params, eval = eval}:run()
end
local r1, r2 = run(1, 64), run(2, 64)
T.eq(r1.evaluator, "traced", "threads: traced")
W.same(r1, r2, "1 and 2 threads")
W.same(run(1, 7), run(2, 7), "chunks of 7, 1 and 2 threads")

-- without a label choice every row of a block takes its grid point's one
-- graph (no lookup per row): the same as Lua at each grid point, over
-- chunks of 100 (blocks of 64 and 36) and of 5 (blocks with fewer lanes
-- than 64), for 1 and 2 threads
local plain = {e = params.e, b = params.b, x = params.x}
local function eval_plain(p)
  local s = podsim.system{base = "hgx_h100", out_eff = p.e}
  local a = podsim.collective(s, "all_to_all", {ranks = p.n, bytes = p.b})
  return {us = a.time_s * 1e6, nan = math.sqrt(p.e - 0.6) + a.time_s,
    fits = math.floor(p.x + 1)}
end
for _, cs in ipairs{100, 5} do
  for _, threads in ipairs{1, 2} do
    local r = W.both({name = "blk_plain", samples = 500, chunk_size = cs, seed = 6,
      threads = threads, grid = {n = {16, 64}}, params = plain, eval = eval_plain},
      "no labels, chunks of " .. cs .. ", " .. threads .. " thread(s)")
    T.eq(#r.grid, 2, "no labels: two grid points")
  end
end

-- Sobol plans keep the per-sample graph: still identical to Lua, first and
-- total indices included
do
  local sp = {e = D.uniform{0.3, 0.95}, b = D.loguniform{1 << 16, 1 << 30}}
  local spec = {name = "blk_sobol", samples = 300, seed = 4, params = sp, sensitivity = "sobol",
    eval = function(p)
      local a = podsim.collective(podsim.system{base = "hgx_h100", out_eff = p.e}, "all_to_all",
        {ranks = 64, bytes = p.b})
      return {us = a.time_s * 1e6}
    end}
  local a = W.both(spec, "sobol")
  local s2 = {}
  for k, v in pairs(spec) do s2[k] = v end
  s2.trace = false
  local b = podsim.study(s2):run()
  for _, n in ipairs{"e", "b"} do
    local x, y = a.sens.us[1][n], b.sens.us[1][n]
    T.eq(string.format("%a %a", x.sobol_first, x.sobol_total),
      string.format("%a %a", y.sobol_first, y.sobol_total), "sobol indices of " .. n)
  end
end

-- A failing sample mid-block: the same message traced and in Lua.
local function same_failure(what, fail_eval, extra)
  local spec = {name = "blk_fail", samples = 2000, seed = 3, chunk_size = 500, params = params,
    metrics = {"v"}, eval = fail_eval}
  for k, v in pairs(extra or {}) do spec[k] = v end
  local ok1, e1 = pcall(function() return podsim.study(spec):run() end)
  local s2 = {}
  for k, v in pairs(spec) do s2[k] = v end
  s2.trace = false
  local ok2, e2 = pcall(function() return podsim.study(s2):run() end)
  T.truthy(not ok1 and not ok2, what .. ": fails both ways")
  -- (but for the line of the run call in this file)
  local function msg(x) return (tostring(x):gsub("^.-(study ')", "%1")) end
  T.eq(msg(e1), msg(e2), what .. ": the same error")
  T.truthy(tostring(e1):find("sample %d+"), what .. ": names the sample: " .. tostring(e1))
  return e1
end

-- a patch out of range on some samples (up_eff > 1 when e > 0.9)
same_failure("patch range", function(p)
  return {v = podsim.system{base = "gb200_nvl72", up_eff = p.e + 0.1}.up_eff}
end)
-- an integer // by zero after a kernel call
local line = debug.getinfo(1, "l").currentline
local e = same_failure("integer division by zero", function(p)
  local a = podsim.collective(podsim.systems.hgx_h100, "all_reduce", {ranks = 8, bytes = p.b})
  return {v = a.time_s + 8 // (math.floor(p.x * 3) + 3)}
end)
T.truthy(tostring(e):find("trace_block%.lua:" .. (line + 3) .. ": attempt to divide by zero"),
  "located: " .. tostring(e))
-- a kernel's own check failing on some samples (ranks_per_domain in
-- [1, 8] not dividing 16 ranks), after a bytes patch
local ek = same_failure("kernel check", function(p)
  local a = podsim.collective(podsim.systems.hgx_h100, "all_reduce",
    {ranks = 16, ranks_per_domain = math.floor(p.x * 4) + 5, bytes = p.b})
  return {v = a.time_s}
end)
T.truthy(tostring(ek):find("does not divide 16 ranks"), "the kernel's message: " .. tostring(ek))
-- a bytes patch out of range (negative) on some samples
same_failure("bytes patch", function(p)
  local a = podsim.collective(podsim.systems.hgx_h100, "all_reduce",
    {ranks = 8, bytes = p.b * (p.x + 0.9)})
  return {v = a.time_s}
end)
-- the same without a label choice (each grid point's one graph), at the
-- second grid point
same_failure("no labels", function(p)
  return {v = podsim.system{base = "gb200_nvl72", up_eff = p.e + p.n}.up_eff}
end, {params = plain, grid = {n = {0, 0.1}}})
-- failing in only one graph of a label choice (adaptive routing)
same_failure("one label's graph", function(p)
  local s = podsim.system{base = "hgx_h100", routing = p.route}
  local a = podsim.collective(s, "all_to_all", {ranks = 16, bytes = 1e6})
  local d = s.routing == "adaptive" and math.floor(p.x * 2) or 1
  return {v = a.time_s + math.floor(p.e * 10) // d}
end)
-- nonfinite = "error": the first NaN metric fails as in Lua
same_failure("nonfinite error", function(p) return {v = math.sqrt(p.x)} end,
  {nonfinite = "error"})
-- unfit = "error": the first unfit sample fails as in Lua
same_failure("unfit error", function(p) return {v = p.e, fits = math.floor(p.x + 1)} end,
  {unfit = "error", metrics = {"v", "fits"}})

T.done("trace_block")
