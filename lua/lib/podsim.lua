-- podsim.lua: podsim's Lua library, embedded in the executable.
--
-- Called once per Lua state by the host with the table of C bindings, the
-- raw (unsandboxed) helpers, the run options and the --set values; adds
-- the Lua half of the API to the same table.  Keeps the raw helpers in
-- upvalues: scenarios never see them.
local P, raw, opts, args = ...

local fmt, concat, floor = string.format, table.concat, math.floor
local raw_open, raw_rename, raw_remove = raw.io_open, raw.os_rename, raw.os_remove

P.version = "0.1.0"

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
P.args = readonly(args, "podsim.args")

-- Errors ---------------------------------------------------------------------

-- Raise "file:line: ctx: path: msg" at the scenario line.
function P.fail(ctx, path, msg) raw.input_error(ctx, path, msg) end
local fail = P.fail

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
  local pok, perr = pcall(producer, f)
  local cok, cerr = f:close()
  if not pok or not cok then
    raw_remove(tmp)
    error(pok and cerr or perr, 0)
  end
  local rok, rerr = raw_rename(tmp, path)
  if not rok then
    raw_remove(tmp)
    fail(ctx, nil, rerr)
  end
  return path
end

function P.write_text(path, text)
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
  if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
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
    for _, row in ipairs(rows) do
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
local function json(v, indent, seen)
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
  if t ~= "table" then return json(tostring(v), indent, seen) end
  if indent > 100 then error("table nested deeper than 100 levels in JSON output", 0) end
  seen = seen or {}
  if seen[v] then error("cyclic table in JSON output", 0) end
  seen[v] = true
  local pad, pad1 = ("  "):rep(indent), ("  "):rep(indent + 1)
  local out = {}
  if #v > 0 or next(v) == nil then
    for i = 1, #v do out[i] = pad1 .. json(v[i], indent + 1, seen) end
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
    out[i] = pad1 .. json(k) .. ": " .. json(val, indent + 1, seen)
  end
  seen[v] = nil
  return "{\n" .. concat(out, ",\n") .. "\n" .. pad .. "}"
end
function P.json(v) return json(v, 0) end

function P.write_json(path, v)
  return P.write_atomic(path, function(f) f:write(json(v, 0), "\n") end, "podsim.write_json")
end

-- Text tables ----------------------------------------------------------------

-- Print rows (lists of cells) under a header, columns aligned; numbers
-- right-aligned.  opts.out: a function taking a string (default print).
function P.print_table(header, rows, o)
  o = o or {}
  local w, cells = {}, {}
  local function cell(v)
    if type(v) == "number" then
      if math.type(v) == "integer" then return tostring(v), true end
      local a = math.abs(v)
      if a ~= 0 and (a >= 1e7 or a < 1e-3) then return fmt("%.3e", v), true end
      return fmt(o.number_format or "%.2f", v), true
    end
    return tostring(v == nil and "" or v), false
  end
  for i, h in ipairs(header) do w[i] = #h end
  for r, row in ipairs(rows) do
    cells[r] = {}
    for i = 1, #header do
      local s, isnum = cell(row[i])
      cells[r][i] = {s, isnum}
      if #s > w[i] then w[i] = #s end
    end
  end
  local out = o.out or print
  local line = {}
  for i, h in ipairs(header) do line[i] = fmt("%" .. w[i] .. "s", h) end
  out(concat(line, "  "))
  for _, row in ipairs(cells) do
    for i, c in ipairs(row) do
      line[i] = c[2] and fmt("%" .. w[i] .. "s", c[1]) or fmt("%-" .. w[i] .. "s", c[1])
    end
    out(concat(line, "  "))
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

-- Render the embedded template plots/<name>.gp with gnuplot into
-- <out>/plots/<output>.svg.  `vars` become gnuplot variables (strings are
-- quoted); `datafile` is the CSV to plot.  Returns the SVG path, or nil
-- and a reason when gnuplot is not installed (plots are optional).
function P.gnuplot(name, vars, output)
  local tpl = raw.embedded("plots/" .. name .. ".gp")
  if not tpl then fail("podsim.gnuplot", "name", fmt("no plot template '%s'", name)) end
  if not P._gnuplot then return nil, "gnuplot support not built" end
  output = out_path("plots/" .. (output or name) .. ".svg")
  if not raw.path_allowed(output, true) then
    fail("podsim.gnuplot", nil, fmt("'%s' is outside the output folder", output))
  end
  raw.mkdirs(dirname(output))
  tmp_serial = tmp_serial + 1
  local tmp = fmt("%s.tmp.%d.%d", output, raw.getpid(), tmp_serial)
  local pre = {"set terminal svg size 900,560 dynamic enhanced font 'sans,11'",
               fmt("set output %q", tmp), "set datafile separator ','"}
  local keys = {}
  for k in pairs(vars or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local v = vars[k]
    if type(v) == "string" then
      pre[#pre + 1] = fmt("%s = \"%s\"", k, (v:gsub('[\\"]', "\\%0")))
    else
      pre[#pre + 1] = fmt("%s = %s", k, num(v))
    end
  end
  local ok, why = P._gnuplot(concat(pre, "\n") .. "\n" .. tpl .. "\nset output\n")
  if not ok then
    raw_remove(tmp)
    return nil, why
  end
  local rok, rerr = raw_rename(tmp, output)
  if not rok then return nil, rerr end
  return output
end

-- Validation checks ------------------------------------------------------------

P._checks = {}

local check_fields = {id = true, name = true, published = true, value = true, unit = true,
  tol_rel = true, tol_abs = true, range = true, fit = true, source = true, note = true}

-- Record one validation row: podsim's `value` against the `published`
-- figure within tol_rel (fraction), tol_abs (same unit) or range {lo, hi}.
-- `fit` says whether the case was used to fit a parameter.  In `podsim run`
-- a miss is an error; `podsim validate` collects every row.
function P.check(c)
  local ctx = "podsim.check"
  if type(c) ~= "table" then fail(ctx, nil, "expected a table") end
  for k in pairs(c) do
    if not check_fields[k] then fail(ctx, tostring(k), "unknown field") end
  end
  if type(c.id) ~= "string" then fail(ctx, "id", "expected a string such as 'C1'") end
  if type(c.name) ~= "string" then fail(ctx, "name", "expected a string") end
  if type(c.value) ~= "number" or c.value ~= c.value then fail(ctx, "value", "expected a number") end
  if type(c.fit) ~= "boolean" then
    fail(ctx, "fit", "say whether the case fitted a parameter (true) or is a prediction (false)")
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
  local row = {id = c.id, name = c.name, published = c.published, value = c.value,
    unit = c.unit or "", err = err, tol_rel = c.tol_rel, tol_abs = c.tol_abs,
    range = c.range, fit = c.fit, pass = pass, source = c.source,
    where = raw.where()}
  P._checks[#P._checks + 1] = row
  if not opts.tool then
    if not opts.quiet then print(P.format_check(row)) end
    if not pass then fail(ctx, c.id, "outside tolerance: " .. P.format_check(row)) end
  end
  return pass, row
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
    P.format_tolerance(row), row.fit and "fit" or "prediction", row.pass and "PASS" or "FAIL")
end

-- For the embedded tools (validate, presets, plot) only.
if opts.tool then
  P._embedded, P._embedded_list, P._load = raw.embedded, raw.embedded_list, raw.load
end

return P
