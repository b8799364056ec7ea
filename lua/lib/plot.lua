-- plot.lua: podsim's plots: gnuplot templates rendered through the
-- sandboxed script builder (lua/l_plot.c, lua/plot_gp.c), their recipes,
-- and podsim.plot's figures of a study.  Loaded by podsim.lua with its
-- shared internal table S (never in a scenario's reach).
local S = ...
local P, I, raw, opts, fail = S.P, S.I, S.raw, S.opts, S.fail
local fmt, concat = string.format, table.concat
local out_path, dirname, tmp_name = S.out_path, S.dirname, S.tmp_name
local label_of, point_label, c_start, c_wait = S.label_of, S.point_label, S.c_start, S.c_wait
local raw_rename, raw_remove = raw.os_rename, raw.os_remove

-- A plot recipe (<name>.plot beside <name>.svg) records the template and
-- its variables, data files relative to the recipe's folder, so `podsim
-- plot DIR` can render the SVGs again.  Recipes are data in a fixed
-- format (lua/plot_gp.h), parsed in C, never run as Lua.
local function relative_to(path, dir)
  if path:sub(1, #dir + 1) == dir .. "/" then return path:sub(#dir + 2) end
  local parent = dirname(dir)
  if path:sub(1, #parent + 1) == parent .. "/" then return "../" .. path:sub(#parent + 2) end
  return path
end

-- Template `name` with `vars` into `svg` (checked by the caller) as a
-- render job: its script writes a temporary name.  The script is built in
-- C (lua/l_plot.c, lua/plot_gp.c): declared variables only, numbers and
-- encoded strings, file variables resolved through the sandbox for `mode`
-- ("read", or "out" for recipes), relative ones from `base`.  Returns the
-- job, or nil, field, reason.
local function render_job(name, vars, svg, mode, base, udir)
  local tmp = tmp_name(svg)
  local script, user, why = I._gnuplot_script(name, vars, tmp, mode, base, udir)
  if not script then return nil, user, why end
  return {svg = svg, tmp = tmp, script = script, user = user, mode = mode}
end

-- gnuplot's outcome (ok, or nil and its message) for a job: the SVG moved
-- to its name, or the temporary one removed.  Returns svg, or nil, field,
-- reason.
local function render_finish(job, ok, gerr)
  if not ok then
    raw_remove(job.tmp)
    return nil, "gnuplot", gerr
  end
  local rok, rerr = raw_rename(job.tmp, job.svg)
  if not rok then
    raw_remove(job.tmp)
    return nil, "output", rerr
  end
  return job.svg
end

-- Run gnuplot on one job now.  A user template (`udir`/<name>.gp) runs
-- gnuplot under Landlock (lua/plot_jail.h).  Returns svg, or nil, field,
-- reason.
local function render(name, vars, svg, mode, base, udir)
  local job, field, why = render_job(name, vars, svg, mode, base, udir)
  if not job then return nil, field, why end
  local ok, gerr
  if job.user then
    ok, gerr = I._gnuplot_run_jailed(job.script, mode)
  else
    ok, gerr = I._gnuplot_run(job.script)
  end
  return render_finish(job, ok, gerr)
end

-- While podsim.plot runs: the render jobs of embedded templates it
-- gathers, all rendered by one _gnuplot_run at its end (one gnuplot
-- process instead of one per plot); nil otherwise.
local batch

-- The folder of user templates: the scenario's own folder.
local function user_dir()
  if type(opts.scenario) ~= "string" then return nil end
  return dirname(opts.scenario)
end

-- Render template `name` with gnuplot into the SVG `output` (relative to
-- the output folder; default plots/<name>.svg) and write its recipe.  The
-- template is the scenario's own <name>.gp beside it when there is one
-- (copied beside the recipe, so `podsim plot DIR` finds it), else the
-- embedded plots/<name>.gp.  `vars` are the variables the template
-- declares ("# vars:" line): numbers, strings, and file names (relative
-- ones from the output folder) inside the sandbox.  Yields while gnuplot
-- runs.  Returns the SVG path, or nil and a reason when gnuplot is not
-- installed (plots are optional; the recipe is written anyway).  Inside
-- podsim.plot, an embedded template's render joins podsim.plot's batch
-- instead: the job stands for the SVG until podsim.plot's end.
function P.gnuplot(name, vars, output)
  local ctx = "podsim.gnuplot"
  if type(name) ~= "string" then fail(ctx, "name", "expected a template name, got " .. type(name)) end
  local udir = user_dir()
  local decls, utext = I._gnuplot_decls(name, udir, "read")
  if not decls then fail(ctx, "name", utext) end
  if vars ~= nil and type(vars) ~= "table" then fail(ctx, "vars", "expected a table") end
  vars = vars or {}
  -- output: nil (plots/<name>.svg) or a file name ending in .svg, relative
  -- to the output folder or absolute, below the output folder
  if output ~= nil and type(output) ~= "string" then
    fail(ctx, "output", "expected a file name ending in .svg (relative to the output folder), got " .. type(output))
  end
  local svg = out_path(output or ("plots/" .. name .. ".svg"))
  if svg:sub(-4) ~= ".svg" or svg:match("[^/]*$") == ".svg" then
    fail(ctx, "output", fmt("expected a file name ending in .svg, got '%s'", output))
  end
  if not raw.path_allowed(svg, "write") then
    fail(ctx, "output", fmt("'%s' is outside the output folder", svg))
  end
  local cvars, rvars = {}, {}
  for k, v in next, vars do
    if type(k) ~= "string" or not decls[k] then
      local names = {}
      for d in next, decls do names[#names + 1] = d end
      table.sort(names)
      fail(ctx, "vars." .. tostring(k), fmt("template '%s' has no such variable (%s)", name,
        concat(names, ", ")))
    end
    if decls[k] == "file" and type(v) == "string" then
      v = out_path(v)
      rvars[k] = relative_to(v, dirname(svg))
    else
      rvars[k] = v
    end
    cvars[k] = v
  end
  -- check everything (paths too) before writing anything
  local probe, field, why = I._gnuplot_script(name, cvars, svg .. ".tmp", "read", opts.out_dir, udir)
  if not probe then fail(ctx, field == "vars" and "vars" or "vars." .. field, why) end
  local ok, err = raw.mkdirs(dirname(svg))
  if not ok then fail(ctx, "output", err) end
  local text, rerr = I._recipe_format(name, rvars)
  if not text then fail(ctx, "vars", rerr) end
  P.write_text((svg:gsub("%.svg$", "") .. ".plot"), text)
  -- a user template travels with its recipe
  if utext then P.write_text(dirname(svg) .. "/" .. name .. ".gp", utext) end
  if batch and not utext then -- podsim.plot renders it with the others
    local job, f1, why1 = render_job(name, cvars, svg, "read", opts.out_dir, udir)
    if not job then fail(ctx, f1, why1) end
    batch[#batch + 1] = job
    return job
  end
  local out, f2, why2 = render(name, cvars, svg, "read", opts.out_dir, udir)
  if out then return out end
  if f2 == "gnuplot" then return nil, why2 end
  fail(ctx, f2, why2)
end

-- For `podsim plot DIR`: render one recipe file again.  The recipe, its
-- data files and its SVG must all be below DIR (the run's output folder).
function I._render_recipe(path)
  local text, err = raw.read_file(path, "out", 65536)
  if not text then return nil, err end
  local rec, perr = I._recipe_parse(text)
  if not rec then return nil, perr end
  local svg = path:gsub("%.plot$", ".svg")
  if not raw.path_allowed(svg, "write") then return nil, fmt("'%s' is outside the folder", svg) end
  -- a user template: the copy beside the recipe
  local out, field, why = render(rec.template, rec.vars, svg, "out", dirname(path), dirname(path))
  if not out then return nil, field == "gnuplot" and why or fmt("%s: %s", field, why) end
  return out
end
I._listdir = raw.listdir
-- The swing of every metric when each numeric parameter moves from its p5
-- to its p95 with the others at their medians (one-at-a-time, in output
-- units), per grid point: sw[metric][g] = {base =, [param] = {lo, hi}}.
-- nil when the study cannot be re-evaluated that way (a choice parameter,
-- no parameters, a finished spec no longer at hand).
local function swings(r)
  local spec = r._spec
  if not spec or type(spec.params) ~= "table" or #r.params == 0 then return nil end
  local med, q = {}, {}
  for _, p in ipairs(r.params) do
    local d = spec.params[p]
    if type(d) == "number" then med[p], q[p] = d, nil
    elseif type(d) == "userdata" and d.kind ~= "choice" and d.quantile then
      med[p], q[p] = d:quantile(0.5), {d:quantile(0.05), d:quantile(0.95)}
    else return nil end
  end
  local function at(over)
    local ps = {}
    for _, p in ipairs(r.params) do ps[p] = med[p] end
    for k, v in pairs(over) do ps[k] = v end
    -- exact: --samples/--seed do not turn these one-point evaluations
    -- into full studies
    local s = I._study_exact{name = r.name .. "_swing", samples = 1, params = ps, grid = spec.grid,
      eval = spec.eval, metrics = r.metrics, sensitivity = "none"}
    c_start(s)
    return c_wait(s)
  end
  local base = at({})
  local sw = {}
  for _, m in ipairs(r.metrics) do
    sw[m] = {}
    for g = 1, #r.grid do sw[m][g] = {base = base.stats[m][g] and base.stats[m][g].mean} end
  end
  for _, p in ipairs(r.params) do
    if q[p] then
      local lo, hi = at({[p] = q[p][1]}), at({[p] = q[p][2]})
      for _, m in ipairs(r.metrics) do
        for g = 1, #r.grid do
          local a, b = lo.stats[m][g], hi.stats[m][g]
          if a and b and a.n > 0 and b.n > 0 then sw[m][g][p] = {a.mean, b.mean} end
        end
      end
    end
  end
  return sw
end


-- The grid point's file-name part: "sys-a_tp-8" (its values, not its index).
local function point_slug(r, g)
  local slug = {}
  for _, k in ipairs(r.grid_keys) do
    slug[#slug + 1] = (k .. "-" .. label_of(r.grid[g][k])):gsub("[^%w.-]", "_")
  end
  return concat(slug, "_")
end
local function point_name(r, kind, metric, g)
  return #r.grid > 1 and fmt("%s_%s_%s", kind, metric, point_slug(r, g)) or kind .. "_" .. metric
end

-- The range shown for a metric: the central 98% of every grid point (p1 to
-- p99, scaled), padded by 2%; whether it crosses zero.
local function central_range(r, metric, sc)
  local xlo, xhi = math.huge, -math.huge
  for g = 1, #r.grid do
    local st = r.stats[metric][g]
    if st and st.n > 0 then
      local a, b = st.p1 * sc, st.p99 * sc -- a negative scale turns them around
      xlo, xhi = math.min(xlo, a, b), math.max(xhi, a, b)
    end
  end
  if not (xhi > xlo) then -- one value, or nothing: a small window around it
    local c = xlo == math.huge and 0 or xlo
    xlo, xhi = c - math.max(math.abs(c) * 0.01, 1e-9), c + math.max(math.abs(c) * 0.01, 1e-9)
  end
  local pad = (xhi - xlo) * 0.02
  xlo, xhi = xlo - pad, xhi + pad
  return xlo, xhi, (xlo < 0 and xhi > 0) and 1 or 0
end

-- Share of a histogram's samples above t (linear inside the bin holding
-- t; under/overflow counted at the first/last edge).  nil when empty.
local function share_above(h, t)
  local total, above = h.under + h.over, 0
  if h.edges[1] > t then above = above + h.under end
  if h.edges[#h.edges] > t then above = above + h.over end
  for i, c in ipairs(h.counts) do
    total = total + c
    local lo, hi = h.edges[i], h.edges[i + 1]
    if lo >= t then above = above + c
    elseif hi > t then above = above + c * (hi - t) / (hi - lo) end
  end
  if total == 0 then return nil end
  return above / total
end

-- The CDF of one metric: every grid point's line with its p5/p50/p95.
local function plot_cdf(r, dir, mi, metric, info)
  local sc, rows, labels, marks = info.scale, {}, {}, {}
  for g = 1, #r.grid do
    labels[g] = point_label(r, g)
    local h = I._results_hist(r._study, mi, g)
    if h then
      local total = h.under
      for _, c in ipairs(h.counts) do total = total + c end
      total = total + h.over
      local cum = h.under
      rows[#rows + 1] = {point = g, label = labels[g], value = h.edges[1] * sc, cdf = cum / total}
      for i, c in ipairs(h.counts) do
        cum = cum + c
        rows[#rows + 1] = {point = g, label = labels[g], value = h.edges[i + 1] * sc, cdf = cum / total}
      end
    end
    local st = r.stats[metric][g]
    if st and st.n > 0 then
      for _, q in ipairs{{"p5", 0.05}, {"p50", 0.5}, {"p95", 0.95}} do
        marks[#marks + 1] = {point = g, value = st[q[1]] * sc, cdf = q[2]}
      end
    end
  end
  local csv = P.write_csv(dir .. "/cdf_" .. metric .. ".csv", {"point", "label", "value", "cdf"}, rows)
  local xlo, xhi, zero = central_range(r, metric, sc)
  local mcsv = P.write_csv(dir .. "/cdfmarks_" .. metric .. ".csv", {"point", "value", "cdf"}, marks)
  return P.gnuplot("cdf", {datafile = csv, markfile = mcsv, xlo = xlo, xhi = xhi,
    zeroline = zero, metric = info.axis, npoints = #r.grid,
    labels = (concat(labels, "\1"):gsub("[%s,]", "_"):gsub("\1", " "))}, dir .. "/plots/cdf_" .. metric .. ".svg")
end

-- The histogram of one metric: a density outline per grid point.
local function plot_hist(r, dir, mi, metric, info)
  local sc, rows, labels = info.scale, {}, {}
  for g = 1, #r.grid do
    labels[g] = point_label(r, g)
    local h = I._results_hist(r._study, mi, g)
    if h then
      local total = h.under + h.over
      for _, c in ipairs(h.counts) do total = total + c end
      for i, c in ipairs(h.counts) do
        local lo, hi = h.edges[i] * sc, h.edges[i + 1] * sc
        if lo > hi then lo, hi = hi, lo end
        local w = hi - lo
        if w > 0 and total > 0 then
          rows[#rows + 1] = {point = g, label = labels[g], lo = lo, hi = hi, mid = (lo + hi) / 2,
            width = w, density = c / (total * w)}
        end
      end
    end
  end
  local csv = P.write_csv(dir .. "/histplot_" .. metric .. ".csv",
    {"point", "label", "lo", "hi", "mid", "width", "density"}, rows)
  if #rows == 0 then return nil end
  local xlo, xhi, zero = central_range(r, metric, sc)
  return P.gnuplot("hist", {datafile = csv, xlo = xlo, xhi = xhi, zeroline = zero,
    metric = info.axis, npoints = #r.grid,
    labels = (concat(labels, "\1"):gsub("[%s,]", "_"):gsub("\1", " "))}, dir .. "/plots/hist_" .. metric .. ".svg")
end

-- The swing tornado (output units) of one metric at every grid point.
local function plot_swings(r, dir, metric, info, sw, svgs)
  local sc = info.scale
  for g = 1, #r.grid do
    local srows, s = {}, sw[metric][g]
    for _, p in ipairs(r.params) do
      if s[p] then
        srows[#srows + 1] = {param = p, swing = math.abs(s[p][2] - s[p][1]) * sc,
          at_p5 = s[p][1] * sc, at_p95 = s[p][2] * sc}
      end
    end
    table.sort(srows, function(a, b)
      if a.swing ~= b.swing then return a.swing < b.swing end
      return a.param > b.param
    end)
    local name = point_name(r, "swing", metric, g)
    local scsv = P.write_csv(dir .. "/" .. name .. ".csv", {"param", "swing", "at_p5", "at_p95"}, srows)
    if #srows > 0 and s.base then
      svgs[#svgs + 1] = P.gnuplot("swing", {datafile = scsv, metric = info.axis, point = point_label(r, g),
        base = s.base * sc}, dir .. "/plots/" .. name .. ".svg")
    end
  end
end

-- The Spearman tornado of one metric at every grid point.
local function plot_spearman(r, dir, metric, info, svgs)
  for g = 1, #r.grid do
    local trows = {}
    for _, p in ipairs(r.params) do
      local sv = r.sens[metric][g][p]
      if sv and sv.spearman == sv.spearman then
        trows[#trows + 1] = {param = p, spearman = sv.spearman}
      end
    end
    table.sort(trows, function(a, b)
      if math.abs(a.spearman) ~= math.abs(b.spearman) then return math.abs(a.spearman) < math.abs(b.spearman) end
      return a.param < b.param
    end)
    local name = point_name(r, "tornado", metric, g)
    local tcsv = P.write_csv(dir .. "/" .. name .. ".csv", {"param", "spearman"}, trows)
    svgs[#svgs + 1] = P.gnuplot("tornado", {datafile = tcsv, metric = info.axis,
      point = point_label(r, g)}, dir .. "/plots/" .. name .. ".svg")
  end
end

-- The Sobol tornado (first-order and total indices) of one metric at every
-- grid point, when the study asked for sensitivity = "sobol".
local function plot_sobol(r, dir, metric, info, svgs)
  for g = 1, #r.grid do
    local rows = {}
    for _, p in ipairs(r.params) do
      local sv = r.sens[metric][g][p]
      if sv and sv.sobol_first == sv.sobol_first and sv.sobol_total == sv.sobol_total then
        rows[#rows + 1] = {param = p, first = sv.sobol_first, total = sv.sobol_total}
      end
    end
    table.sort(rows, function(a, b)
      if a.first ~= b.first then return a.first < b.first end
      return a.param > b.param
    end)
    local name = point_name(r, "sobol", metric, g)
    local csv = P.write_csv(dir .. "/" .. name .. ".csv", {"param", "first", "total"}, rows)
    if #rows > 0 then
      svgs[#svgs + 1] = P.gnuplot("sobol", {datafile = csv, metric = info.axis,
        point = point_label(r, g)}, dir .. "/plots/" .. name .. ".svg")
    end
  end
end

local plot_heatmap -- podsim.plot_heatmap, below

-- The win-probability map of one metric declared with wins_above or
-- wins_below (its target) over a two-key grid: rows the first key's
-- values, columns the second's.
local function plot_win_map(r, dir, mi, metric, info)
  local t, cells = info.target, {}
  for g = 1, #r.grid do
    local h = I._results_hist(r._study, mi, g)
    local p = h and share_above(h, t)
    if p and info.better == "lower" then p = 1 - p end
    cells[#cells + 1] = {row = label_of(r.grid[g][r.grid_keys[1]]),
      col = label_of(r.grid[g][r.grid_keys[2]]), value = p}
  end
  local what = fmt("P(%s %s %s%s)", info.label or metric, info.better == "lower" and "<" or ">",
    S.num(t * info.scale), info.unit and " " .. info.unit or "")
  return plot_heatmap({cells = cells, title = what .. " per grid point", yname = r.grid_keys[1],
    xname = r.grid_keys[2], cbname = "probability",
    output = dir .. "/plots/heatmap_" .. metric .. ".svg", data = dir .. "/heatmap_" .. metric .. ".csv"},
    "podsim.plot")
end

-- podsim.plot(results [, dir]): per metric, the CDF of every grid point
-- and its histogram; with sensitivity, per metric and grid point the
-- Spearman tornado, the swing tornado in output units and (sensitivity =
-- "sobol") the Sobol indices; over a two-key grid, the map of the
-- probability that a metric declared with `wins_above` or `wins_below`
-- wins.  CSV plus
-- SVG (when gnuplot is installed).  Returns the list of SVGs.
function P.plot(r, dir)
  if type(r) ~= "table" or not r.stats then fail("podsim.plot", nil, "expected the results of study:run()") end
  dir = dir or r.name
  local svgs, jobs = {}, {}
  -- podsim.gnuplot gathers its renders into jobs until this call returns
  -- or an error leaves it
  batch = jobs
  local _ <close> = setmetatable({}, {__close = function() batch = nil end})
  for mi, metric in ipairs(r.metrics) do
    -- a declared metric: its label and unit on the axis, values x scale
    local d = r.metric_info and r.metric_info[metric] or {}
    local info = {label = d.label, unit = d.unit, scale = d.scale or 1,
      target = d.wins_above or d.wins_below, better = d.wins_below ~= nil and "lower" or "higher",
      axis = (d.label or metric) .. (d.unit and " (" .. d.unit .. ")" or "")}
    svgs[#svgs + 1] = plot_cdf(r, dir, mi, metric, info)
    svgs[#svgs + 1] = plot_hist(r, dir, mi, metric, info)
    if r.sensitivity ~= "none" and #r.params > 0 then
      local sw = r._swings or swings(r)
      r._swings = sw or nil
      if sw then plot_swings(r, dir, metric, info, sw, svgs) end
      plot_spearman(r, dir, metric, info, svgs)
      if r.sensitivity == "sobol" then plot_sobol(r, dir, metric, info, svgs) end
    end
    if info.target ~= nil and #r.grid_keys == 2 then
      svgs[#svgs + 1] = plot_win_map(r, dir, mi, metric, info)
    end
  end
  batch = nil
  if #jobs > 0 then
    local scripts = {}
    for i, job in ipairs(jobs) do scripts[i] = job.script end
    local res, qerr = I._gnuplot_run(scripts) -- nil, reason: not queued
    for i, job in ipairs(jobs) do
      local ok = res ~= nil and res[i] == true
      job.out, job.field, job.why = render_finish(job, ok, not ok and (res and res[i] or qerr) or nil)
    end
  end
  -- each job's SVG in its place; a plot gnuplot could not render is left
  -- out (as podsim.gnuplot's nil, reason), any other failure is an error
  local out = {}
  for _, v in ipairs(svgs) do
    if type(v) ~= "table" then out[#out + 1] = v
    elseif v.out then out[#out + 1] = v.out
    elseif v.field ~= "gnuplot" then fail("podsim.gnuplot", v.field, v.why) end
  end
  return out
end

-- Other figures ---------------------------------------------------------------

local function cell_label(v, ctx, path)
  if type(v) == "number" then return S.num(v) end
  if type(v) == "string" and v ~= "" then return v end
  fail(ctx, path, "expected a non-empty string or a number, got " .. type(v))
end

-- The CSV beside an SVG (or `data`) and the SVG: validated output names.
local function figure_paths(d, ctx, default)
  local svg = d.output == nil and default or d.output
  if type(svg) ~= "string" or svg:sub(-4) ~= ".svg" or #svg < 5 then
    fail(ctx, "output", "expected a file name ending in .svg, got " ..
      (type(svg) == "string" and fmt("'%s'", svg) or type(svg)))
  end
  local csv = d.data == nil and svg:sub(1, -5) .. ".csv" or d.data
  if type(csv) ~= "string" or csv:sub(-4) ~= ".csv" then
    fail(ctx, "data", "expected a file name ending in .csv")
  end
  return svg, csv
end

local heatmap_fields = {cells = true, title = true, xname = true, yname = true, cbname = true,
  output = true, data = true}

-- podsim.plot_heatmap{cells = {{row =, col =, value =}, ...}, title =,
-- xname =, yname =, cbname =, output = "plots/heatmap.svg", data =}: a
-- map of values in [0, 1] (probabilities: which system wins where) over
-- two keys, rows and columns in their order of first appearance, a cell
-- without a value (nil) shown as n/a.  Writes the CSV (`data`, default
-- the SVG's name with .csv) and the SVG.  Returns the SVG path, or nil and
-- a reason without gnuplot.
function plot_heatmap(d, ctx)
  if type(d) ~= "table" then fail(ctx, nil, "expected a table {cells =, title =, ...}") end
  for k in pairs(d) do
    if not heatmap_fields[k] then
      fail(ctx, tostring(k), "unknown field (cells, title, xname, yname, cbname, output, data)")
    end
  end
  if type(d.cells) ~= "table" or #d.cells == 0 then fail(ctx, "cells", "expected a non-empty list of {row =, col =, value =}") end
  for _, k in ipairs{"title", "xname", "yname", "cbname"} do
    if d[k] ~= nil and type(d[k]) ~= "string" then fail(ctx, k, "expected a string, got " .. type(d[k])) end
  end
  local svg, csv = figure_paths(d, ctx, "plots/heatmap.svg")
  local rows, cols, ri, ci, seen, out = {}, {}, {}, {}, {}, {}
  for i, c in ipairs(d.cells) do
    local path = fmt("cells[%d]", i)
    if type(c) ~= "table" then fail(ctx, path, "expected {row =, col =, value =}, got " .. type(c)) end
    local rl, cl = cell_label(c.row, ctx, path .. ".row"), cell_label(c.col, ctx, path .. ".col")
    local v = c.value
    if v ~= nil and (type(v) ~= "number" or not (v >= 0 and v <= 1)) then
      fail(ctx, path .. ".value", "expected a number in [0, 1] or nil, got " .. tostring(v))
    end
    if not ri[rl] then rows[#rows + 1] = rl; ri[rl] = #rows - 1 end
    if not ci[cl] then cols[#cols + 1] = cl; ci[cl] = #cols - 1 end
    local key = rl .. "\0" .. cl
    if seen[key] then fail(ctx, path, fmt("the cell (%s, %s) is given twice", rl, cl)) end
    seen[key] = v == nil and -1 or v
  end
  for r = 1, #rows do
    for c = 1, #cols do
      out[#out + 1] = {row = r - 1, col = c - 1, rowlabel = rows[r], collabel = cols[c],
        value = seen[rows[r] .. "\0" .. cols[c]] or -1}
    end
  end
  local data = P.write_csv(csv, {"row", "col", "rowlabel", "collabel", "value"}, out)
  return P.gnuplot("heatmap", {datafile = data, title = d.title or "", nrows = #rows,
    ncols = #cols, xname = d.xname, yname = d.yname, cbname = d.cbname}, svg)
end

function P.plot_heatmap(d) return plot_heatmap(d, "podsim.plot_heatmap") end

local breakdown_parts = {"compute", "tp", "cp", "ep", "pp", "dp", "bubble", "optimizer", "host",
  "straggler"}
local breakdown_fields = {bars = true, title = true, output = true, data = true}

-- podsim.plot_breakdown{bars = {{label, train_result}, ...}, title =,
-- output = "plots/breakdown.svg", data =}: stacked bars of the step time
-- of podsim.train results (their `breakdown`: compute, exposed TP, CP,
-- EP, PP and DP communication, bubble, optimizer, host, straggler), one
-- bar per result.  Writes the CSV (seconds) and the SVG; a result that
-- does not fit in memory is labelled so.  Returns the SVG path, or nil and
-- a reason without gnuplot.
function P.plot_breakdown(d)
  local ctx = "podsim.plot_breakdown"
  if type(d) ~= "table" then fail(ctx, nil, "expected a table {bars = {{label, result}, ...}, title =}") end
  for k in pairs(d) do
    if not breakdown_fields[k] then fail(ctx, tostring(k), "unknown field (bars, title, output, data)") end
  end
  if type(d.bars) ~= "table" or #d.bars == 0 then
    fail(ctx, "bars", "expected a non-empty list of {label, podsim.train result}")
  end
  if d.title ~= nil and type(d.title) ~= "string" then fail(ctx, "title", "expected a string, got " .. type(d.title)) end
  local svg, csv = figure_paths(d, ctx, "plots/breakdown.svg")
  local header, rows = {"label", "step_s"}, {}
  for _, k in ipairs(breakdown_parts) do header[#header + 1] = k end
  for i, b in ipairs(d.bars) do
    local path = fmt("bars[%d]", i)
    if type(b) ~= "table" then fail(ctx, path, "expected {label, podsim.train result}, got " .. type(b)) end
    local label = cell_label(b[1], ctx, path .. "[1]")
    local t = b[2]
    local bd = type(t) == "table" and t.breakdown
    if type(bd) ~= "table" or type(t.step_s) ~= "number" then
      fail(ctx, path .. "[2]", "expected a podsim.train result (with step_s and breakdown)")
    end
    local row = {label = t.fits == false and label .. " (does not fit)" or label, step_s = t.step_s}
    for _, k in ipairs(breakdown_parts) do
      local v = bd[k]
      if type(v) ~= "number" or v ~= v or v < 0 or v == math.huge then
        fail(ctx, path .. "[2].breakdown." .. k, "expected a finite number >= 0, got " .. tostring(v))
      end
      row[k] = v
    end
    rows[#rows + 1] = row
  end
  local data = P.write_csv(csv, header, rows)
  return P.gnuplot("breakdown", {datafile = data, plot_title = d.title or "Step time breakdown",
    nbars = #rows}, svg)
end
