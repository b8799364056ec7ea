-- podsim.lua: podsim's Lua library, embedded in the executable.
--
-- Called once per Lua state by the host with the table of C bindings, the
-- raw (unsandboxed) helpers, the run options and the --set values; adds
-- the Lua half of the API to the same table.  Keeps the raw helpers in
-- upvalues: scenarios never see them.
local P, raw, opts, args = ...

-- podsim's own code runs in a private copy of the globals, taken before
-- any scenario runs: a scenario that replaces `type`, `next` or `pairs`
-- changes its own globals, not these (the libraries themselves are
-- read-only views for scenarios: lua/host_sandbox.c).
local _ENV = (function(G)
  local env = {}
  for k, v in next, G do env[k] = v end
  return env
end)(_G)

-- The internals: the C modules' "_" functions leave the podsim table
-- here; the host keeps this table in its registry (lua/host_open.c) and
-- hands it to the embedded tools only.
local I = {}
for k, v in next, P do
  if type(k) == "string" and k:sub(1, 1) == "_" then I[k] = v end
end
for k in next, I do P[k] = nil end
P.sources = I._sources -- public: the source of every preset

local fmt, concat, floor = string.format, table.concat, math.floor
-- The original pcall (the host replaces the global by one that cannot
-- catch budget errors): writers clean up their temporary file, then
-- re-raise.
local pcall = pcall
local raw_open, raw_rename, raw_remove = raw.io_open, raw.os_rename, raw.os_remove

P.version = "0.1.0"

-- With --format json or csv, stdout carries exactly one document for the
-- whole run (written when the scenario's top level returns); whatever the
-- scenario prints (print, io.write, io.stdout) goes to stderr.
local machine = not opts.tool and (opts.format == "json" or opts.format == "csv")
local real_stdout = io.stdout
if machine then
  local stderr = io.stderr
  _G.print = function(...) -- the scenario's globals, not this library's copy
    local n, t = select("#", ...), {}
    for i = 1, n do t[i] = tostring((select(i, ...))) end
    stderr:write(concat(t, "\t"), "\n")
  end
  print = _G.print -- this library's own prints too (checks, tables)
  io.write = function(...) return stderr:write(...) end
  io.stdout = stderr
end
local doc_studies, doc_seen = {}, {}
local run_studies = {} -- every study waited for, for the run's meta.json

-- Read-only views -----------------------------------------------------------

local function readonly(t, name)
  return setmetatable({}, {
    __index = t,
    __newindex = function(_, k)
      raw.input_error(name, tostring(k), "is read-only")
    end,
    __pairs = function() return next, t, nil end,
    __len = function() return #t end,
    __metatable = false,
  })
end
P.readonly = readonly
P.options = readonly(opts, "podsim.options")
-- podsim.args: the --set values; every key read is recorded (in worker
-- states too) so that a --set key the scenario never reads is an error
-- after its top level ran (raw.after_run below).
local args_read = {} -- keys read in this state, for the message
P.args = setmetatable({}, {
  __index = function(_, k)
    raw.mark_arg(k)
    if type(k) == "string" then args_read[k] = true end
    return args[k]
  end,
  __newindex = function(_, k)
    raw.input_error("podsim.args", tostring(k), "is read-only")
  end,
  __pairs = function()
    for k in pairs(args) do raw.mark_arg(k) end
    return next, args, nil
  end,
  __len = function() return #args end,
  __metatable = false,
})

-- Errors ---------------------------------------------------------------------

-- Raise "file:line: ctx: path: msg" at the scenario line.
function P.fail(ctx, path, msg) raw.input_error(ctx, path, msg) end
local fail = P.fail

-- Scenario arguments --------------------------------------------------------

-- podsim.arg{"name", default = v, choices = {...}, type = "number" |
-- "string" | "boolean", help = "..."}: declare an argument set with
-- `--set name=value` and return its value (the --set value, else the
-- default).  Declarations are listed by `podsim run FILE --help`.
local arg_decls, arg_by_name = {}, {}
local arg_fields = {[1] = true, default = true, choices = true, type = true, help = true}
function P.arg(d)
  local ctx = "podsim.arg"
  if type(d) ~= "table" then fail(ctx, nil, "expected a table {\"name\", default =, choices =, help =}") end
  for k in pairs(d) do
    if not arg_fields[k] then fail(ctx, tostring(k), "unknown field (name, default, choices, type, help)") end
  end
  local name = d[1]
  if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
    fail(ctx, "1", "expected the argument's name (letters, digits, '_')")
  end
  if arg_by_name[name] then fail(ctx, name, "declared twice") end
  local ty = d.type
  if ty == nil and d.default ~= nil then ty = type(d.default) end
  if ty == nil and type(d.choices) == "table" and d.choices[1] ~= nil then ty = type(d.choices[1]) end
  if ty ~= nil and ty ~= "number" and ty ~= "string" and ty ~= "boolean" then
    fail(ctx, "type", "expected \"number\", \"string\" or \"boolean\", got " .. tostring(ty))
  end
  if d.default ~= nil and type(d.default) ~= ty then
    fail(ctx, "default", fmt("expected a %s, got %s", ty, type(d.default)))
  end
  if d.choices ~= nil then
    if type(d.choices) ~= "table" or #d.choices == 0 then fail(ctx, "choices", "expected a non-empty list") end
    for i, c in ipairs(d.choices) do
      if type(c) ~= ty then fail(ctx, fmt("choices[%d]", i), fmt("expected a %s, got %s", ty, type(c))) end
    end
  end
  if d.help ~= nil and type(d.help) ~= "string" then fail(ctx, "help", "expected a string") end
  local decl = {name = name, type = ty, default = d.default, choices = d.choices, help = d.help}
  arg_decls[#arg_decls + 1] = decl
  arg_by_name[name] = decl
  raw.mark_arg(name)
  local v = args[name]
  if v == nil then return d.default end
  local given = fmt("--set %s=%s", name, tostring(v))
  if ty == "string" and type(v) ~= "string" then v = tostring(v) end
  if ty ~= nil and type(v) ~= ty then
    fail(ctx, name, fmt("%s: expected a %s", given, ty))
  end
  if d.choices then
    local ok = false
    for _, c in ipairs(d.choices) do if c == v then ok = true end end
    if not ok then
      local cs = {}
      for i, c in ipairs(d.choices) do cs[i] = tostring(c) end
      fail(ctx, name, fmt("%s: expected one of %s", given, concat(cs, ", ")))
    end
  end
  return v
end

-- The arguments declared so far, as `run FILE --help` prints them.
local function print_arg_help()
  print(fmt("usage: podsim run %s [--set NAME=VALUE ...] [OPTIONS]", tostring(opts.scenario)))
  if #arg_decls == 0 then
    print("\nThe scenario declares no arguments (podsim.arg) before its first study.")
    return
  end
  print("\nscenario arguments (--set NAME=VALUE):")
  local rows = {}
  for _, d in ipairs(arg_decls) do
    local cs
    if d.choices then
      local t = {}
      for i, c in ipairs(d.choices) do t[i] = tostring(c) end
      cs = concat(t, "|")
    end
    rows[#rows + 1] = {"  " .. d.name, d.type or "any",
      d.default == nil and "-" or tostring(d.default), cs or "", d.help or ""}
  end
  P.print_table({"  name", "type", "default", "choices", "help"}, rows)
end


-- Output paths and atomic writers -------------------------------------------

function P.out_dir() return opts.out_dir end

-- A relative name is relative to the run's output folder.
local function out_path(name)
  if name:sub(1, 1) == "/" then return name end
  return opts.out_dir .. "/" .. name
end
P.out_path = out_path

local function dirname(p) return p:match("^(.*)/[^/]*$") or "." end

local tmp_serial = 0
local written = {} -- paths written this run (the run's meta.json defers to one the scenario wrote)
-- Write `path` atomically: a temporary name in the same folder, then
-- rename, so an interrupted run never leaves a half-written file under the
-- final name.  `producer(f)` writes into the open file.
function P.write_atomic(path, producer, ctx)
  ctx = ctx or "podsim.write"
  path = out_path(path)
  if not raw.path_allowed(path, true) then
    fail(ctx, nil, fmt("'%s' is outside the scenario's folder and the output folder", path))
  end
  local ok, err = raw.mkdirs(dirname(path))
  if not ok then fail(ctx, nil, err) end
  tmp_serial = tmp_serial + 1
  local tmp = fmt("%s.tmp.%d.%d", path, raw.getpid(), tmp_serial)
  local f, ferr = raw_open(tmp, "wb")
  if not f then fail(ctx, nil, ferr) end
  -- Every write is checked (a full disk or a file size limit fails one;
  -- the close reports what the last flush could not write).
  local checked = {}
  function checked:write(...)
    local wok, werr = f:write(...)
    if not wok then error({podsim_write_error = werr}, 0) end
    return self
  end
  local pok, perr = pcall(producer, checked)
  local cok, cerr = f:close()
  if not pok or not cok then
    raw_remove(tmp)
    if pok or type(perr) == "table" and perr.podsim_write_error then
      fail(ctx, nil, fmt("cannot write '%s': %s", path, pok and cerr or perr.podsim_write_error))
    end
    error(perr, 0)
  end
  local rok, rerr = raw_rename(tmp, path)
  if not rok then
    raw_remove(tmp)
    fail(ctx, nil, rerr)
  end
  written[path] = true
  return path
end

function P.write_text(path, text)
  if type(text) ~= "string" and type(text) ~= "number" then
    fail("podsim.write_text", "text", "expected a string, got " .. type(text))
  end
  return P.write_atomic(path, function(f) f:write(text) end, "podsim.write_text")
end

-- Numbers in files: integers as integers, the rest with 10 significant
-- digits (enough for every model output; stable across platforms).
local function num(v)
  if math.type(v) == "integer" then return tostring(v) end
  if v ~= v then return "nan" end
  if v == math.huge then return "inf" elseif v == -math.huge then return "-inf" end
  if v == floor(v) and math.abs(v) < 1e15 then return fmt("%d", v) end
  return fmt("%.10g", v)
end
P.num = num

local function csv_cell(v)
  local t = type(v)
  if t == "number" then return num(v) end
  if t == "boolean" then return v and "true" or "false" end
  if v == nil then return "" end
  local s = tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

-- rows: a list of tables keyed by the header's names (or lists in order).
function P.write_csv(path, header, rows)
  if type(header) ~= "table" or #header == 0 then
    fail("podsim.write_csv", "header", "expected a non-empty list of column names")
  end
  if type(rows) ~= "table" then fail("podsim.write_csv", "rows", "expected a list of rows") end
  return P.write_atomic(path, function(f)
    local cells = {}
    for i, h in ipairs(header) do cells[i] = csv_cell(h) end
    f:write(concat(cells, ","), "\n")
    for r, row in ipairs(rows) do
      if type(row) ~= "table" then
        fail("podsim.write_csv", fmt("rows[%d]", r), "expected a table keyed by the header's names, got " .. type(row))
      end
      for i, h in ipairs(header) do
        local v = row[h]
        if v == nil then v = row[i] end
        cells[i] = csv_cell(v)
      end
      f:write(concat(cells, ","), "\n")
    end
  end, "podsim.write_csv")
end

-- JSON (writer only; podsim reads no JSON).  Keys sorted for stable bytes.
-- Errors name the API call (json_ctx) and the path of the bad value.
local json_ctx = "podsim.json"
local function json(v, indent, seen, path)
  local t = type(v)
  if t == "nil" then return "null" end
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    return num(v)
  end
  if t == "string" then
    return '"' .. v:gsub('[%c"\\]', function(c)
      local map = {['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\t'] = '\\t', ['\r'] = '\\r'}
      return map[c] or fmt("\\u%04x", c:byte())
    end) .. '"'
  end
  if t == "function" or t == "thread" then
    fail(json_ctx, path, "a " .. t .. " has no JSON form")
  end
  if t ~= "table" then return json(tostring(v), indent, seen) end
  if indent > 100 then fail(json_ctx, path, "table nested deeper than 100 levels in JSON output") end
  seen = seen or {}
  if seen[v] then fail(json_ctx, path, "cyclic table in JSON output") end
  seen[v] = true
  local pad, pad1 = ("  "):rep(indent), ("  "):rep(indent + 1)
  local out = {}
  local nlist = #v
  if nlist > 0 then
    -- a list with named (or out-of-range) keys has no JSON form
    for k in pairs(v) do
      if math.type(k) ~= "integer" or k < 1 or k > nlist then
        fail(json_ctx, path, fmt("table mixes list items (1..%d) and the key %s: no JSON form",
          nlist, type(k) == "string" and fmt("%q", k) or tostring(k)))
      end
    end
  end
  if nlist > 0 or next(v) == nil then
    for i = 1, #v do
      out[i] = pad1 .. json(v[i], indent + 1, seen, indent < 8 and fmt("%s[%d]", path or "", i) or path)
    end
    seen[v] = nil
    if #out == 0 then return "[]" end
    return "[\n" .. concat(out, ",\n") .. "\n" .. pad .. "]"
  end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  for i, k in ipairs(keys) do
    local val = v[k]
    if val == nil then val = v[tonumber(k)] end
    local kp = indent < 8 and (path and path .. "." .. k or k) or path
    out[i] = pad1 .. json(k) .. ": " .. json(val, indent + 1, seen, kp)
  end
  seen[v] = nil
  return "{\n" .. concat(out, ",\n") .. "\n" .. pad .. "}"
end
function P.json(v)
  json_ctx = "podsim.json"
  return json(v, 0)
end

function P.write_json(path, v)
  return P.write_atomic(path, function(f)
    json_ctx = "podsim.write_json"
    f:write(json(v, 0), "\n")
  end, "podsim.write_json")
end

-- Text tables ----------------------------------------------------------------

-- Print rows (lists of cells, or tables keyed by the header's names as
-- write_csv takes) under a header, columns aligned; numbers right-aligned.
-- A row with `fits = false` (a podsim.train result or a row built from
-- one) is marked "<- does not fit in memory", so its throughput is never
-- shown as if it were real.  opts.out: a function taking a string
-- (default print).
function P.print_table(header, rows, o)
  o = o or {}
  if type(header) ~= "table" or #header == 0 then
    fail("podsim.print_table", "header", "expected a non-empty list of column names")
  end
  if type(rows) ~= "table" then fail("podsim.print_table", "rows", "expected a list of rows") end
  local w, cells = {}, {}
  local function cell(v)
    if type(v) == "number" then
      if math.type(v) == "integer" then return tostring(v), true end
      if v == floor(v) and math.abs(v) < 1e15 and not o.number_format then return fmt("%d", v), true end
      local a = math.abs(v)
      if a ~= 0 and (a >= 1e7 or a < 1e-3) then return fmt("%.3e", v), true end
      return fmt(o.number_format or "%.2f", v), true
    end
    return tostring(v == nil and "" or v), false
  end
  for i, h in ipairs(header) do w[i] = #tostring(h) end
  local marks = {}
  for r, row in ipairs(rows) do
    if type(row) ~= "table" then
      fail("podsim.print_table", fmt("rows[%d]", r), "expected a list or a table keyed by the header's names, got " .. type(row))
    end
    cells[r] = {}
    if row.fits == false then marks[r] = "  <- does not fit in memory" end
    for i = 1, #header do
      local v = row[i]
      if v == nil then v = row[header[i]] end
      local s, isnum = cell(v)
      cells[r][i] = {s, isnum}
      if #s > w[i] then w[i] = #s end
    end
  end
  local out = o.out or print
  local line = {}
  for i, h in ipairs(header) do
    local numeric = cells[1] == nil or cells[1][i][2]
    line[i] = fmt((numeric and "%" or "%-") .. w[i] .. "s", tostring(h))
  end
  out((concat(line, "  "):gsub("%s+$", "")))
  for r, row in ipairs(cells) do
    for i, c in ipairs(row) do
      line[i] = c[2] and fmt("%" .. w[i] .. "s", c[1]) or fmt("%-" .. w[i] .. "s", c[1])
    end
    out((concat(line, "  "):gsub("%s+$", "")) .. (marks[r] or ""))
  end
end

-- Human sizes: 1024 -> "1 KiB".
function P.fmt_bytes(n)
  local units = {"B", "KiB", "MiB", "GiB", "TiB"}
  local i = 1
  while n >= 1024 and i < #units do n = n / 1024; i = i + 1 end
  if n == floor(n) then return fmt("%d %s", n, units[i]) end
  return fmt("%.1f %s", n, units[i])
end

-- Plots ----------------------------------------------------------------------

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
  tmp_serial = tmp_serial + 1
  local tmp = fmt("%s.tmp.%d.%d", svg, raw.getpid(), tmp_serial)
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

-- Studies (the C half is lua/l_study.c) -------------------------------------

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
      sens = r.sens}, 0))
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
-- times `scale` (stored values stay unscaled).
local metric_decls = setmetatable({}, {__mode = "k"})
local study_specs = setmetatable({}, {__mode = "k"}) -- for the swing tornado
local c_study = P.study
local decl_fields = {label = true, unit = true, scale = true}
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
      if not decl_fields[f] then fail("podsim.study", path .. "." .. tostring(f), "unknown field (label, unit, scale)") end
    end
    if d.label ~= nil and type(d.label) ~= "string" then fail("podsim.study", path .. ".label", "expected a string") end
    if d.unit ~= nil and type(d.unit) ~= "string" then fail("podsim.study", path .. ".unit", "expected a string") end
    if d.scale ~= nil and (type(d.scale) ~= "number" or d.scale ~= d.scale or d.scale == 0 or
      d.scale == math.huge or d.scale == -math.huge) then
      fail("podsim.study", path .. ".scale", "expected a finite non-zero number")
    end
    names[#names + 1] = k
    info[k] = {label = d.label, unit = d.unit, scale = d.scale or 1}
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
    print_arg_help()
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

-- podsim.plot(results [, dir]): CDF of every metric (all grid points) and
-- a tornado of Spearman correlations per metric and grid point, as CSV
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

-- Validation checks ------------------------------------------------------------

I._checks = {}

local check_fields = {id = true, name = true, published = true, value = true, unit = true,
  tol_rel = true, tol_abs = true, range = true, fit = true, source = true, note = true,
  known_miss = true, nvl72_over_hgx = true}

-- Record one validation row: podsim's `value` against the `published`
-- figure within tol_rel (fraction), tol_abs (same unit) or range {lo, hi}.
-- `fit` says whether the case was used to fit a parameter.  In `podsim run`
-- a miss is an error; `podsim validate` collects every row.
-- `known_miss = "why"` marks a row the model is known to miss: it is
-- still evaluated against its tolerance and shown as a miss in the table,
-- but does not fail the run; should it ever fall inside the tolerance it
-- fails as an unexpected pass, so that the case is revisited (a strict
-- expected failure, never a silent one).
-- `nvl72_over_hgx = "model, release"` marks a per-GPU throughput ratio of
-- an NVL72 system over an 8-GPU node at one software release: `podsim
-- validate` lists these in a table of their own.
function P.check(c)
  local ctx = "podsim.check"
  if type(c) ~= "table" then fail(ctx, nil, "expected a table") end
  for k in pairs(c) do
    if not check_fields[k] then fail(ctx, tostring(k), "unknown field") end
  end
  if type(c.id) ~= "string" then fail(ctx, "id", "expected a string such as 'C1'") end
  if type(c.name) ~= "string" then fail(ctx, "name", "expected a string") end
  if type(c.value) ~= "number" then fail(ctx, "value", "expected a number, got " .. type(c.value)) end
  if c.value ~= c.value or c.value == math.huge or c.value == -math.huge then
    fail(ctx, "value", "must be a finite number (got " .. num(c.value) .. ")")
  end
  if type(c.fit) ~= "boolean" then
    fail(ctx, "fit", "say whether the case fitted a parameter (true) or is a prediction (false)")
  end
  if c.known_miss ~= nil and (type(c.known_miss) ~= "string" or c.known_miss == "") then
    fail(ctx, "known_miss", "expected a string saying why the model misses this row")
  end
  if c.nvl72_over_hgx ~= nil and (type(c.nvl72_over_hgx) ~= "string" or c.nvl72_over_hgx == "") then
    fail(ctx, "nvl72_over_hgx", "expected a string naming the model and release of the ratio")
  end
  if c.known_miss and c.fit then
    fail(ctx, "known_miss", "a fitted row cannot be a known miss")
  end
  local pass, err
  if c.range then
    local lo, hi = c.range[1], c.range[2]
    if type(lo) ~= "number" or type(hi) ~= "number" or lo > hi then
      fail(ctx, "range", "expected {lo, hi} with lo <= hi")
    end
    pass = c.value >= lo and c.value <= hi
    if c.published then err = (c.value - c.published) / c.published end
  else
    if type(c.published) ~= "number" then fail(ctx, "published", "expected a number") end
    err = c.published ~= 0 and (c.value - c.published) / math.abs(c.published) or nil
    if c.tol_rel then
      pass = err ~= nil and math.abs(err) <= c.tol_rel
    elseif c.tol_abs then
      pass = math.abs(c.value - c.published) <= c.tol_abs
    else
      fail(ctx, "tol_rel", "give tol_rel, tol_abs or range")
    end
  end
  -- `within`: inside the tolerance; `pass`: the row is as expected
  -- (within, or outside for a known miss).
  local within = pass
  if c.known_miss then pass = not within end
  local row = {id = c.id, name = c.name, published = c.published, value = c.value,
    unit = c.unit or "", err = err, tol_rel = c.tol_rel, tol_abs = c.tol_abs,
    range = c.range, fit = c.fit, pass = pass, within = within,
    known_miss = c.known_miss, source = c.source, where = raw.where(),
    nvl72_over_hgx = c.nvl72_over_hgx}
  I._checks[#I._checks + 1] = row
  if not opts.tool then
    if not opts.quiet then print(P.format_check(row)) end
    if not pass then
      fail(ctx, c.id, (within and "unexpected pass of a known miss (update the case): "
        or "outside tolerance: ") .. P.format_check(row))
    end
  end
  return pass, row
end

-- The result column of a validation row.
function P.check_result(row)
  if row.known_miss then return row.within and "UNEXPECTED PASS" or "known miss" end
  return row.pass and "pass" or "FAIL"
end

function P.format_tolerance(row)
  if row.range then return fmt("[%s, %s]", num(row.range[1]), num(row.range[2])) end
  if row.tol_rel then return fmt("+-%g%%", row.tol_rel * 100) end
  if row.tol_abs then return fmt("+-%s %s", num(row.tol_abs), row.unit) end
  return ""
end

function P.format_check(row)
  return fmt("%-4s %-58s published %-10s podsim %-10s err %-8s tol %-10s %-10s %s",
    row.id, row.name:sub(1, 58), row.published and fmt("%.4g", row.published) or "-",
    fmt("%.4g", row.value), row.err and fmt("%+.1f%%", row.err * 100) or "-",
    P.format_tolerance(row), row.fit and "fit" or "prediction", P.check_result(row):upper())
end

-- End of the run ---------------------------------------------------------------

-- <out>/meta.json for every run: what ran, with which arguments, and
-- each study's completeness and dropped-sample counts.
local function write_run_meta()
  if written[out_path("meta.json")] then return end -- the scenario wrote its own
  local studies = {}
  for i, r in ipairs(run_studies) do
    studies[i] = {name = r.name, complete = r.complete, interrupted = r.interrupted,
      samples = r.samples, samples_done = r.samples_done, seed = r.seed, evaluator = r.evaluator,
      metrics = r.metrics, grid_keys = r.grid_keys, nonfinite = r.nonfinite,
      unfit = r._has_fits and r.unfit or nil, unfit_mode = r._has_fits and r.unfit_mode or nil}
  end
  local nfail, checks = 0, {}
  for i, c in ipairs(I._checks) do
    if not c.pass then nfail = nfail + 1 end
    checks[i] = {id = c.id, name = c.name, pass = c.pass, fit = c.fit, err = c.err}
  end
  local declared = {}
  for i, d in ipairs(arg_decls) do
    declared[i] = {name = d.name, type = d.type, default = d.default, choices = d.choices, help = d.help}
  end
  json_ctx = "meta.json"
  P.write_json("meta.json", {podsim_version = P.version, scenario = opts.scenario,
    scenario_sha256 = I._sha256_file and opts.scenario and I._sha256_file(opts.scenario) or nil,
    args = args, declared_args = declared, format = opts.format, threads = opts.threads,
    samples_override = opts.samples, seed_override = opts.seed, studies = studies,
    checks = checks, checks_failed = nfail})
end

-- The run's one document on stdout (--format json|csv).
local function write_document()
  if opts.format == "json" then
    local studies = {}
    for i, d in ipairs(doc_studies) do
      local r = d.r
      studies[i] = {name = r.name, complete = r.complete, samples = r.samples,
        samples_done = r.samples_done, seed = r.seed, metrics = r.metrics, params = r.params,
        grid_keys = r.grid_keys, summary = d.rows, nonfinite = r.nonfinite,
        unfit = r._has_fits and r.unfit or nil}
    end
    local checks = {}
    for i, c in ipairs(I._checks) do
      checks[i] = {id = c.id, name = c.name, published = c.published, value = c.value,
        unit = c.unit, err = c.err, fit = c.fit, pass = c.pass, known_miss = c.known_miss,
        source = c.source}
    end
    json_ctx = "--format json"
    real_stdout:write(json({podsim_version = P.version, scenario = opts.scenario, args = args,
      studies = studies, checks = checks}, 0), "\n")
  else
    -- one CSV: every study's summary rows, grid keys the union of all
    local header, have = {"study", "metric"}, {}
    for _, d in ipairs(doc_studies) do
      for _, k in ipairs(d.r.grid_keys) do
        k = grid_col(k)
        if not have[k] then have[k] = true; header[#header + 1] = k end
      end
    end
    for _, c in ipairs(stat_cols) do header[#header + 1] = c end
    for _, c in ipairs{"exact_quantiles", "nonfinite", "unfit"} do header[#header + 1] = c end
    local cells = {}
    for i, h in ipairs(header) do cells[i] = csv_cell(h) end
    real_stdout:write(concat(cells, ","), "\n")
    for _, d in ipairs(doc_studies) do
      for _, row in ipairs(d.rows) do
        for i, h in ipairs(header) do cells[i] = csv_cell(row[h]) end
        real_stdout:write(concat(cells, ","), "\n")
      end
    end
  end
  real_stdout:flush()
end

-- Called by the host when the scenario's top level returned.
function raw.after_run()
  if opts.help then
    print_arg_help()
    raw.help_done()
  end
  local unread = raw.unread_args()
  if #unread > 0 then
    local read, set = {}, {}
    for _, d in ipairs(arg_decls) do set[d.name] = true end
    for k in pairs(args_read) do set[k] = true end
    for k in pairs(set) do read[#read + 1] = k end
    table.sort(read)
    local flags = {}
    for i, k in ipairs(unread) do flags[i] = "--set " .. k end
    error(fmt("%s: %s: the scenario never read %s (it %s); check the spelling",
      tostring(opts.scenario), concat(flags, ", "),
      #unread == 1 and "podsim.args." .. unread[1] or "these podsim.args keys",
      #read > 0 and "read: " .. concat(read, ", ") or "reads no podsim.args key"), 0)
  end
  write_run_meta()
  if machine then write_document() end
end

-- For the embedded tools (validate, presets, plot) only.
I._embedded, I._embedded_list, I._load = raw.embedded, raw.embedded_list, raw.load

return I
