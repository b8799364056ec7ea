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

-- Run gnuplot on embedded template `name` with `vars` into `svg` (checked
-- by the caller), through a temporary name.  The script is built in C
-- (lua/l_plot.c, lua/plot_gp.c): declared variables only, numbers and
-- encoded strings, file variables resolved through the sandbox for `mode`
-- ("read", or "out" for recipes), relative ones from `base`.  Returns
-- svg, or nil, field, reason.
local function render(name, vars, svg, mode, base)
  local tmp = tmp_name(svg)
  local script, field, why = I._gnuplot_script(name, vars, tmp, mode, base)
  if not script then return nil, field, why end
  local ok, gerr = I._gnuplot_run(script)
  if not ok then
    raw_remove(tmp)
    return nil, "gnuplot", gerr
  end
  local rok, rerr = raw_rename(tmp, svg)
  if not rok then
    raw_remove(tmp)
    return nil, "output", rerr
  end
  return svg
end

-- Render the embedded template plots/<name>.gp with gnuplot into the SVG
-- `output` (relative to the output folder; default plots/<name>.svg) and
-- write its recipe.  `vars` are the variables the template declares
-- ("# vars:" line): numbers, strings, and file names (relative ones from
-- the output folder) inside the sandbox.  Yields while gnuplot runs.
-- Returns the SVG path, or nil and a reason when gnuplot is not
-- installed (plots are optional; the recipe is written anyway).
function P.gnuplot(name, vars, output)
  local ctx = "podsim.gnuplot"
  local decls = type(name) == "string" and I._gnuplot_decls(name)
  if not decls then fail(ctx, "name", fmt("no plot template '%s'", tostring(name))) end
  if vars ~= nil and type(vars) ~= "table" then fail(ctx, "vars", "expected a table") end
  vars = vars or {}
  local svg = out_path(output or ("plots/" .. name .. ".svg"))
  if type(svg) ~= "string" or svg:sub(-4) ~= ".svg" then
    fail(ctx, "output", "expected a file name ending in .svg")
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
  local probe, field, why = I._gnuplot_script(name, cvars, svg .. ".tmp", "read", opts.out_dir)
  if not probe then fail(ctx, field == "vars" and "vars" or "vars." .. field, why) end
  local ok, err = raw.mkdirs(dirname(svg))
  if not ok then fail(ctx, "output", err) end
  local text, rerr = I._recipe_format(name, rvars)
  if not text then fail(ctx, "vars", rerr) end
  P.write_text((svg:gsub("%.svg$", "") .. ".plot"), text)
  local out, f2, why2 = render(name, cvars, svg, "read", opts.out_dir)
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
  local out, field, why = render(rec.template, rec.vars, svg, "out", dirname(path))
  if not out then return nil, field == "gnuplot" and why or fmt("%s: %s", field, why) end
  return out
end
I._listdir = raw.listdir
-- plus SVG (when gnuplot is installed).  Returns the list of SVGs.
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

function P.plot(r, dir)
  if type(r) ~= "table" or not r.stats then fail("podsim.plot", nil, "expected the results of study:run()") end
  dir = dir or r.name
  local svgs = {}
  for mi, metric in ipairs(r.metrics) do
    local rows, labels = {}, {}
    -- a declared metric: its label and unit on the axis, values x scale
    local info = r.metric_info and r.metric_info[metric] or {}
    local sc = info.scale or 1
    local mlabel = (info.label or metric) .. (info.unit and " (" .. info.unit .. ")" or "")
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
    end
    local csv = P.write_csv(dir .. "/cdf_" .. metric .. ".csv", {"point", "label", "value", "cdf"}, rows)
    -- the central 98% of every grid point, its p5/p50/p95, the zero line
    local xlo, xhi, marks = math.huge, -math.huge, {}
    for g = 1, #r.grid do
      local st = r.stats[metric][g]
      if st and st.n > 0 then
        if st.p1 * sc < xlo then xlo = st.p1 * sc end
        if st.p99 * sc > xhi then xhi = st.p99 * sc end
        for _, q in ipairs{{"p5", 0.05}, {"p50", 0.5}, {"p95", 0.95}} do
          marks[#marks + 1] = {point = g, value = st[q[1]] * sc, cdf = q[2]}
        end
      end
    end
    if not (xhi > xlo) then -- one value, or nothing: a small window around it
      local c = xlo == math.huge and 0 or xlo
      xlo, xhi = c - math.max(math.abs(c) * 0.01, 1e-9), c + math.max(math.abs(c) * 0.01, 1e-9)
    end
    local pad = (xhi - xlo) * 0.02
    xlo, xhi = xlo - pad, xhi + pad
    local mcsv = P.write_csv(dir .. "/cdfmarks_" .. metric .. ".csv", {"point", "value", "cdf"}, marks)
    local svg = P.gnuplot("cdf", {datafile = csv, markfile = mcsv, xlo = xlo, xhi = xhi,
      zeroline = (xlo < 0 and xhi > 0) and 1 or 0, metric = mlabel, npoints = #r.grid,
      labels = (concat(labels, "\1"):gsub("[%s,]", "_"):gsub("\1", " "))}, dir .. "/plots/cdf_" .. metric .. ".svg")
    svgs[#svgs + 1] = svg
    local sw = r.sensitivity ~= "none" and #r.params > 0 and (r._swings or swings(r))
    r._swings = sw or nil
    if sw then -- the tornado in output units
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
        local slug = {}
        for _, k in ipairs(r.grid_keys) do
          slug[#slug + 1] = (k .. "-" .. label_of(r.grid[g][k])):gsub("[^%w.-]", "_")
        end
        local name = #r.grid > 1 and fmt("swing_%s_%s", metric, concat(slug, "_")) or "swing_" .. metric
        local scsv = P.write_csv(dir .. "/" .. name .. ".csv", {"param", "swing", "at_p5", "at_p95"}, srows)
        if #srows > 0 and s.base then
          svgs[#svgs + 1] = P.gnuplot("swing", {datafile = scsv, metric = mlabel, point = point_label(r, g),
            base = s.base * sc}, dir .. "/plots/" .. name .. ".svg")
        end
      end
    end
    if r.sensitivity ~= "none" and #r.params > 0 then
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
        -- named by the grid point's values (tornado_y_sys-a_tp-8), not its index
        local slug = {}
        for _, k in ipairs(r.grid_keys) do
          slug[#slug + 1] = (k .. "-" .. label_of(r.grid[g][k])):gsub("[^%w.-]", "_")
        end
        local name = #r.grid > 1 and fmt("tornado_%s_%s", metric, concat(slug, "_")) or "tornado_" .. metric
        local tcsv = P.write_csv(dir .. "/" .. name .. ".csv", {"param", "spearman"}, trows)
        svgs[#svgs + 1] = P.gnuplot("tornado", {datafile = tcsv, metric = mlabel,
          point = point_label(r, g)}, dir .. "/plots/" .. name .. ".svg")
      end
    end
  end
  return svgs
end

