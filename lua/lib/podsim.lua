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

local fmt, concat = string.format, table.concat

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
-- `run FILE --help` runs the scenario's top level only until its first
-- study starts (its arguments are declared by then), and shows only the
-- arguments: what the scenario prints before that (layout lines, input
-- tables) is dropped; warnings and errors still reach stderr.
local help_print = print
if opts.help and not machine then
  local function mute() end
  _G.print = mute
  print = mute -- this library's prints too (podsim.print_table, summaries)
  io.write = function() return real_stdout end
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
  local print = help_print
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
  P.print_table({"  name", "type", "default", "choices", "help"}, rows, {out = print})
end



-- The rest of the library, in files of one concern each (lua/lib/*.lua,
-- embedded under their stem).  Each runs in this library's globals and
-- receives S, the internal table shared by the library files: never
-- returned, so a scenario reaches none of it.
local S = {P = P, I = I, raw = raw, opts = opts, args = args, fail = fail,
  -- the original pcall (the host replaces the global by one that cannot
  -- catch budget errors), for the writers' clean-up
  pcall = pcall,
  machine = machine, doc_studies = doc_studies, doc_seen = doc_seen,
  run_studies = run_studies, print_arg_help = print_arg_help}
for _, part in ipairs{"output", "study", "plot"} do
  local chunk, err = raw.load(raw.embedded(part) or "", "=[podsim] " .. part .. ".lua", _ENV)
  if not chunk then error(err, 0) end
  chunk(S)
end
local num, csv_cell, out_path, written = S.num, S.csv_cell, S.out_path, S.written
local grid_col, stat_cols = S.grid_col, S.stat_cols
local function json(v, ctx) return S.json(v, ctx) end

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
    real_stdout:write(json({podsim_version = P.version, scenario = opts.scenario, args = args,
      studies = studies, checks = checks}, "--format json"), "\n")
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
