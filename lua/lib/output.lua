-- output.lua: podsim's output paths, atomic file writers (text, CSV,
-- JSON) and text tables.  Loaded by podsim.lua with its shared internal
-- table S (never in a scenario's reach); adds to the public table S.P and
-- leaves its helpers in S for the other library files.
local S = ...
local P, raw, opts, fail = S.P, S.raw, S.opts, S.fail
local fmt, concat, floor = string.format, table.concat, math.floor
-- The original pcall (the host replaces the global by one that cannot
-- catch budget errors): writers clean up their temporary file, then
-- re-raise.
local pcall = S.pcall
local raw_open, raw_rename, raw_remove = raw.io_open, raw.os_rename, raw.os_remove

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
-- A temporary name beside `path`, unique in this process.
local function tmp_name(path)
  tmp_serial = tmp_serial + 1
  return fmt("%s.tmp.%d.%d", path, raw.getpid(), tmp_serial)
end
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
  local tmp = tmp_name(path)
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


S.out_path, S.dirname, S.tmp_name, S.written = out_path, dirname, tmp_name, written
S.num, S.csv_cell = num, csv_cell
-- JSON text of v; errors name `ctx` (the API call or the document).
function S.json(v, ctx)
  json_ctx = ctx
  return json(v, 0)
end
