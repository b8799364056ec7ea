-- study.lua: the Lua half of studies (the C half is lua/l_study*.c):
-- kernels, results methods, summaries, metric declarations, waiting, and
-- podsim.write.  Loaded by podsim.lua with its shared internal table S
-- (never in a scenario's reach); leaves its helpers in S for plot.lua.
local S = ...
local P, I, raw, opts, args, fail = S.P, S.I, S.raw, S.opts, S.args, S.fail
local fmt, concat = string.format, table.concat
local num, csv_cell, out_path, dirname = S.num, S.csv_cell, S.out_path, S.dirname
local function json(v) return S.json(v, "podsim.json") end
local machine, doc_studies, doc_seen, run_studies = S.machine, S.doc_studies, S.doc_seen,
  S.run_studies

-- podsim.kernel.<name>{base fields}: a built-in evaluator for a study.
local kernel_mt = {__podsim_kernel = true, __metatable = false}
P.kernel = setmetatable({}, {
  __index = function(_, name)
    if not (I._kernels or {})[name] then
      local names = {}
      for k in pairs(I._kernels or {}) do names[#names + 1] = k end
      table.sort(names)
      fail("podsim.kernel", tostring(name), "unknown kernel (kernels: " .. concat(names, ", ") .. ")")
    end
    return function(base)
      if type(base) ~= "table" then
        fail("podsim.kernel." .. name, nil, "expected a table of the kernel's config fields")
      end
      return setmetatable({name = name, base = base}, kernel_mt)
    end
  end,
  __newindex = function() fail("podsim.kernel", nil, "is read-only") end,
  -- pairs(podsim.kernel) lists the registered kernels (name -> constructor)
  __pairs = function(t)
    local names = {}
    for k in pairs(I._kernels or {}) do names[#names + 1] = k end
    table.sort(names)
    local i = 0
    return function()
      i = i + 1
      if names[i] then return names[i], t[names[i]] end
    end, t, nil
  end,
  __metatable = false,
})

-- A grid point's value as text (numbers as in files, specs by name).
local function label_of(v)
  if type(v) == "number" then return num(v) end
  if type(v) == "userdata" then return v.name or tostring(v) end
  if type(v) == "table" then return v.label or v.name or tostring(v) end
  return tostring(v)
end

local function point_label(r, g)
  local parts = {}
  for _, k in ipairs(r.grid_keys) do parts[#parts + 1] = k .. "=" .. label_of(r.grid[g][k]) end
  return concat(parts, " ")
end

local results_methods = {}
local results_mt = {__index = results_methods, __metatable = false}

-- r:point(i | {key = value, ...}) -> grid index
function results_methods.point(r, sel)
  if type(sel) == "number" then return sel end
  if sel == nil then return 1 end
  for g, pt in ipairs(r.grid) do
    local ok = true
    for k, v in pairs(sel) do
      if pt[k] ~= v and label_of(pt[k]) ~= label_of(v) then ok = false; break end
    end
    if ok then return g end
  end
  fail("results:point", nil, "no grid point matches")
end

-- r:summary(metric, point) -> the statistics table of one metric
function results_methods.summary(r, metric, sel)
  local m = r.stats[metric]
  if not m then fail("results:summary", "metric", fmt("no metric '%s'", tostring(metric))) end
  return m[r:point(sel)]
end

-- r:label(g) -> "ranks=64 system=hgx_h100"
function results_methods.label(r, g) return point_label(r, g) end

local stat_cols = {"n", "mean", "sd", "se", "ci95_lo", "ci95_hi", "p1", "p5", "p25", "p50",
  "p75", "p95", "p99", "min", "max"}

-- The summary column of grid key k: k, or "grid.k" where k is also the
-- name of a statistics column (a grid key "n" would otherwise be
-- overwritten by the sample count).
local reserved_cols = {study = true, metric = true, exact_quantiles = true, nonfinite = true,
  unfit = true}
for _, c in ipairs(stat_cols) do reserved_cols[c] = true end
local function grid_col(k) return reserved_cols[k] and "grid." .. k or k end

local function summary_rows(r)
  local header = {"study", "metric"}
  for _, k in ipairs(r.grid_keys) do header[#header + 1] = grid_col(k) end
  for _, c in ipairs(stat_cols) do header[#header + 1] = c end
  header[#header + 1] = "exact_quantiles"
  header[#header + 1] = "nonfinite"
  header[#header + 1] = "unfit"
  local rows = {}
  for _, metric in ipairs(r.metrics) do
    for g = 1, #r.grid do
      local st = r.stats[metric][g]
      if st then
        local row = {study = r.name, metric = metric, exact_quantiles = st.exact,
          nonfinite = st.nonfinite, unfit = st.unfit}
        for _, k in ipairs(r.grid_keys) do row[grid_col(k)] = label_of(r.grid[g][k]) end
        for _, c in ipairs(stat_cols) do row[c] = st[c] end
        rows[#rows + 1] = row
      end
    end
  end
  return header, rows
end

-- Print a study's summary on stdout in the run's --format.
function P.print_summary(r)
  local format = opts.format or "table"
  local header, rows = summary_rows(r)
  if machine then -- part of the run's one document (raw.after_run)
    if not doc_seen[r] then
      doc_seen[r] = true
      doc_studies[#doc_studies + 1] = {r = r, header = header, rows = rows}
    end
    return
  end
  if format == "json" then -- inside a tool
    print(json({name = r.name, complete = r.complete, stats = r.stats, grid = r.grid,
      sens = r.sens}))
    return
  end
  if format == "csv" then
    local cells = {}
    for i, h in ipairs(header) do cells[i] = csv_cell(h) end
    print(concat(cells, ","))
    for _, row in ipairs(rows) do
      for i, h in ipairs(header) do cells[i] = csv_cell(row[h]) end
      print(concat(cells, ","))
    end
    return
  end
  local out = {}
  local any_nf, any_unfit = false, false
  for _, row in ipairs(rows) do
    if (row.nonfinite or 0) > 0 then any_nf = true end
    if r._has_fits and (row.unfit or 0) > 0 then any_unfit = true end
  end
  for _, row in ipairs(rows) do
    local lbl = {}
    for _, k in ipairs(r.grid_keys) do lbl[#lbl + 1] = k .. "=" .. tostring(row[grid_col(k)]) end
    -- a declared metric shows its label and unit, its values scaled
    local mi = r.metric_info and r.metric_info[row.metric]
    local sc = mi and mi.scale or 1
    local name = mi and mi.label and (mi.label .. (mi.unit and " (" .. mi.unit .. ")" or "")) or
      (mi and mi.unit and row.metric .. " (" .. mi.unit .. ")") or row.metric
    local line = {name, concat(lbl, " "), math.tointeger(row.n) or row.n, row.mean * sc, row.p5 * sc,
      row.p50 * sc, row.p95 * sc, (row.ci95_hi - row.mean) * sc}
    if any_nf then line[#line + 1] = math.tointeger(row.nonfinite) or row.nonfinite end
    if any_unfit then
      line[#line + 1] = fmt("%d %s", row.unfit, r.unfit_mode == "exclude" and "excluded" or "KEPT")
    end
    out[#out + 1] = line
  end
  local head = {"metric", "grid point", "n", "mean", "p5", "p50", "p95", "ci95 +-"}
  if any_nf then head[#head + 1] = "nonfinite" end
  if any_unfit then head[#head + 1] = "unfit" end
  print(fmt("study %s: %d samples per grid point%s", r.name, r.samples,
    r.complete and "" or " (INCOMPLETE: interrupted)"))
  P.print_table(head, out, {number_format = "%.4g"})
end

-- Warnings on stderr for what the summary would otherwise hide: samples
-- dropped for a NaN or infinite metric, layouts that do not fit.
local function warn_counts(r)
  local where = raw.where()
  for _, metric in ipairs(r.metrics) do
    local n = r.nonfinite and r.nonfinite[metric] or 0
    if n > 0 then
      io.stderr:write(fmt("%s warning: study '%s': %d samples with a NaN or infinite '%s' were left out of every statistic (say nonfinite = \"error\" to fail instead)\n",
        where, r.name, n, metric))
    end
  end
  if r._has_fits then
    for g = 1, #r.grid do
      local n = r.unfit[g] or 0
      if n > 0 and (r.unfit_mode ~= "exclude" or not r._unfit_given) then
        local lbl = point_label(r, g)
        io.stderr:write(fmt("%s warning: study '%s': %d of %d samples%s do not fit in memory (fits = 0) and are %s (unfit = \"%s\"%s)\n",
          where, r.name, n, r.samples, lbl ~= "" and " at " .. lbl or "",
          r.unfit_mode == "exclude" and "left out" or "kept in the statistics", r.unfit_mode,
          r._unfit_given and "" or "; say unfit = \"exclude\" or \"error\""))
      end
    end
  end
end

-- Metric declarations: metrics = {name = {label =, unit =, scale =}, ...}
-- (or a list of names).  The C study takes the sorted names; the
-- declarations ride with the study into its results (r.metric_info),
-- which tables, plots and reports use: the label, the unit, the values
-- times `scale` (stored values stay unscaled).  `wins_above = x` or
-- `wins_below = x` (in the stored unit) says when the metric "wins":
-- podsim.plot maps the probability of that over a two-key grid.
local metric_decls = setmetatable({}, {__mode = "k"})
local study_specs = setmetatable({}, {__mode = "k"}) -- for the swing tornado
local c_study = P.study
local decl_fields = {label = true, unit = true, scale = true, wins_above = true, wins_below = true}
local declared_study
function P.study(spec)
  local s = declared_study(spec)
  if type(spec) == "table" then
    study_specs[s] = {params = spec.params, grid = spec.grid, eval = spec.eval}
  end
  return s
end
function declared_study(spec)
  local m = type(spec) == "table" and spec.metrics
  if type(m) ~= "table" or m[1] ~= nil or next(m) == nil then return c_study(spec) end
  local names, info = {}, {}
  for k, d in pairs(m) do
    local path = "metrics." .. tostring(k)
    if type(k) ~= "string" then fail("podsim.study", "metrics", "expected a list of names or {name = {label =, unit =, scale =}}") end
    if d == true then d = {} end
    if type(d) ~= "table" then fail("podsim.study", path, "expected {label =, unit =, scale =} or true") end
    for f in pairs(d) do
      if not decl_fields[f] then fail("podsim.study", path .. "." .. tostring(f), "unknown field (label, unit, scale, wins_above, wins_below)") end
    end
    if d.label ~= nil and type(d.label) ~= "string" then fail("podsim.study", path .. ".label", "expected a string") end
    if d.unit ~= nil and type(d.unit) ~= "string" then fail("podsim.study", path .. ".unit", "expected a string") end
    if d.scale ~= nil and (type(d.scale) ~= "number" or d.scale ~= d.scale or d.scale == 0 or
      d.scale == math.huge or d.scale == -math.huge) then
      fail("podsim.study", path .. ".scale", "expected a finite non-zero number")
    end
    for _, f in ipairs{"wins_above", "wins_below"} do
      local v = d[f]
      if v ~= nil and (type(v) ~= "number" or v ~= v or v == math.huge or v == -math.huge) then
        fail("podsim.study", path .. "." .. f, "expected a finite number (in the metric's stored unit), got " .. tostring(v))
      end
    end
    if d.wins_above ~= nil and d.wins_below ~= nil then
      fail("podsim.study", path .. ".wins_below", "give wins_above or wins_below, not both")
    end
    names[#names + 1] = k
    info[k] = {label = d.label, unit = d.unit, scale = d.scale or 1, wins_above = d.wins_above,
      wins_below = d.wins_below}
  end
  table.sort(names)
  local copy = {}
  for k, v in pairs(spec) do copy[k] = v end
  copy.metrics = names
  local s = c_study(copy)
  metric_decls[s] = info
  return s
end

local methods = I._study_methods
local c_wait = methods.wait
function methods.wait(s)
  local r = c_wait(s)
  setmetatable(r, results_mt)
  r.metric_info = metric_decls[s] or {}
  r._spec = study_specs[s]
  if not opts.tool then
    warn_counts(r)
    run_studies[#run_studies + 1] = r
  end
  if (machine or not opts.quiet) and not opts.tool then P.print_summary(r) end
  return r
end
local c_start = methods.start
function methods.start(s)
  if opts.help then -- `run FILE --help`: the arguments, then stop
    S.print_arg_help()
    raw.help_done()
  end
  return c_start(s)
end
function methods.run(s)
  methods.start(s)
  return methods.wait(s)
end

-- podsim.all{s1:start(), s2:start()} -> {r1, r2}: wait for several studies.
function P.all(list)
  if type(list) ~= "table" then fail("podsim.all", nil, "expected a list of started studies") end
  local out = {}
  for i, s in ipairs(list) do out[i] = s:wait() end
  return out
end

local function sha256_of(path)
  if not I._sha256_file or not path then return nil end
  return I._sha256_file(path)
end

-- podsim.write(results [, dir]): summary.csv, sensitivity.csv,
-- hist_<metric>.csv, samples.csv (when kept), meta.json, under
-- <out>/<study name>/ unless dir says otherwise.  Returns the folder.
function P.write(r, dir)
  if type(r) ~= "table" or not r.stats then fail("podsim.write", nil, "expected the results of study:run()") end
  dir = dir or r.name
  local function path(name) return dir .. "/" .. name end
  -- meta.json first says the folder is being written, and is replaced
  -- last: a folder never claims "complete" beside another run's files.
  P.write_json(path("meta.json"), {
    podsim_version = P.version, scenario = opts.scenario, study = r.name,
    state = "in progress", complete = false, pid = raw.getpid(),
  })
  local header, rows = summary_rows(r)
  P.write_csv(path("summary.csv"), header, rows)
  if r.sensitivity ~= "none" then
    local sh = {"study", "metric"}
    for _, k in ipairs(r.grid_keys) do sh[#sh + 1] = k end
    for _, c in ipairs{"param", "spearman", "sobol_first", "sobol_total"} do sh[#sh + 1] = c end
    local srows = {}
    for _, metric in ipairs(r.metrics) do
      for g = 1, #r.grid do
        for _, p in ipairs(r.params) do
          local sv = r.sens[metric][g][p]
          if sv then
            local row = {study = r.name, metric = metric, param = p, spearman = sv.spearman,
              sobol_first = sv.sobol_first, sobol_total = sv.sobol_total}
            for _, k in ipairs(r.grid_keys) do row[k] = label_of(r.grid[g][k]) end
            srows[#srows + 1] = row
          end
        end
      end
    end
    P.write_csv(path("sensitivity.csv"), sh, srows)
  end
  for mi, metric in ipairs(r.metrics) do
    local hh = {}
    for _, k in ipairs(r.grid_keys) do hh[#hh + 1] = k end
    for _, c in ipairs{"bin", "lo", "hi", "count"} do hh[#hh + 1] = c end
    local hrows = {}
    for g = 1, #r.grid do
      local h = I._results_hist(r._study, mi, g)
      if h then
        local base = {}
        for _, k in ipairs(r.grid_keys) do base[k] = label_of(r.grid[g][k]) end
        local function add(bin, lo, hi, count)
          local row = {bin = bin, lo = lo, hi = hi, count = count}
          for k, v in pairs(base) do row[k] = v end
          hrows[#hrows + 1] = row
        end
        add("under", nil, h.edges[1], h.under)
        for i, c in ipairs(h.counts) do add(i, h.edges[i], h.edges[i + 1], c) end
        add("over", h.edges[#h.edges], nil, h.over)
      end
    end
    P.write_csv(path("hist_" .. metric .. ".csv"), hh, hrows)
  end
  local samples_rows
  if r._study and r.keep_samples then
    local cols = {}
    for _, k in ipairs(r.grid_keys) do cols[#cols + 1] = k end
    for _, p in ipairs(r.params) do cols[#cols + 1] = p end
    for _, m in ipairs(r.metrics) do cols[#cols + 1] = m end
    local prefixes = {}
    for g = 1, #r.grid do
      local cells = {}
      for _, k in ipairs(r.grid_keys) do cells[#cells + 1] = csv_cell(label_of(r.grid[g][k])) .. "," end
      prefixes[g] = concat(cells)
    end
    local hdr = {}
    for i, c in ipairs(cols) do hdr[i] = csv_cell(c) end
    local full = out_path(path("samples.csv"))
    raw.mkdirs(dirname(full))
    samples_rows = I._write_samples(r._study, full, concat(hdr, ","), prefixes)
  end
  local dists = {}
  for _, p in ipairs(r.params) do dists[p] = r.dists[p] end
  local grid = {}
  for g = 1, #r.grid do
    local pt = {}
    for _, k in ipairs(r.grid_keys) do pt[k] = label_of(r.grid[g][k]) end
    grid[g] = pt
  end
  P.write_json(path("meta.json"), {
    podsim_version = P.version, scenario = opts.scenario, scenario_sha256 = sha256_of(opts.scenario),
    args = args, format = opts.format,
    study = r.name, seed = r.seed, samples = r.samples, samples_done = r.samples_done,
    chunk_size = r.chunk_size, chunks = r.chunks_total, chunks_done = r.chunks_done,
    threads = r.threads, wall_s = r.wall_s, complete = r.complete, stopped = r.stopped,
    state = r.complete and "complete" or "incomplete",
    interrupted = r.interrupted, evaluator = r.evaluator, sensitivity = r.sensitivity,
    quantiles_exact = r.quantiles_exact, spearman_partial = r.spearman_partial,
    samples_rows = samples_rows, params = dists, metrics = r.metrics, grid = grid,
    grid_keys = r.grid_keys, max_samples_mb = opts.max_samples_mb,
    nonfinite = r.nonfinite, unfit = r._has_fits and r.unfit or nil,
    unfit_mode = r._has_fits and r.unfit_mode or nil, metric_info = r.metric_info,
  })
  return out_path(dir)
end


S.label_of, S.point_label, S.grid_col, S.stat_cols = label_of, point_label, grid_col, stat_cols
S.summary_rows = summary_rows
-- the C study's own start and wait (no summary printed), for re-evaluations
S.c_start, S.c_wait = c_start, c_wait
