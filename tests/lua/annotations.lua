-- annotations.lua: the LuaLS annotation file (lua/meta/podsim.lua) covers
-- the running podsim and names nothing that does not exist.
--
-- The file is parsed into classes (fields, functions, methods); the
-- `podsim` table is walked at run time, recursively through tables, specs
-- (userdata with __pairs) and the classes their annotated fields name; the
-- `--- Example: `expr`` of a function is evaluated and its value checked
-- against the function's `---@return` class, so returned objects (train
-- results, studies, study results, ...) are covered too.  Fails on:
--   * a public name (not starting with `_`) at run time with no annotation;
--   * a required annotated field, function or method absent at run time;
--   * a field annotated number/integer/string/boolean holding another type;
--   * an example that raises, or an annotated class of methods that no
--     example or walk reached (its methods would go unchecked).
-- Adding an API function, preset or field needs only its annotation (and,
-- for a function returning a table, an Example line to check its fields).
--
-- Run by ctest with --unsafe; `--set meta=FILE` checks another file
-- (tests/cli/annotations.sh uses it to show that the test fails).
local here = debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or "."
local meta = podsim.args.meta or (here .. "/../../lua/meta/podsim.lua")

local errors = {}
local function err(fmt, ...) errors[#errors + 1] = string.format(fmt, ...) end

-- ---- parse ---------------------------------------------------------------

-- classes[name] = {fields = {name -> {type=, optional=}}, funcs = {name ->
-- {ret=, example=}}, methods = {...}, line = n}
local classes = {}
local function class(name, line)
  local c = classes[name]
  if not c then
    c = {name = name, fields = {}, funcs = {}, methods = {}, line = line}
    classes[name] = c
  end
  return c
end

-- The file is a valid Lua chunk (compiled, never run).
do
  local fh = assert(io.open(meta, "r"))
  local text = fh:read("a")
  fh:close()
  local chunk, perr = load(text, "@" .. meta, "t")
  if not chunk then err("%s does not compile: %s", meta, perr) end
end

local f = assert(io.open(meta, "r"))
local current, locals, doc = nil, {}, {}
local n = 0
for line in f:lines() do
  n = n + 1
  local cls = line:match("^%-%-%-@class%s+([%w_.]+)")
  local field, opt, ftype = line:match("^%-%-%-@field%s+([%a_][%w_]*)(%??)%s+(%S+)")
  local func_owner, sep, func_name = line:match("^function%s+([%w_.]+)([.:])([%a_][%w_]*)%s*%(")
  local local_name = line:match("^local%s+([%a_][%w_]*)%s*=%s*{%s*}")
  if cls then
    current = class(cls, n)
    doc = {}
  elseif field and current then
    if current.fields[field] then err("%s:%d: field %s.%s annotated twice", meta, n, cls or "?", field) end
    current.fields[field] = {type = ftype, optional = opt == "?", line = n}
  elseif line:match("^%-%-%-") then
    doc[#doc + 1] = line
  elseif local_name and current then
    locals[local_name] = current.name
    current, doc = nil, {}
  elseif func_owner then
    local owner = class(locals[func_owner] or func_owner, n)
    local rets, example = {}, nil
    for _, d in ipairs(doc) do
      rets[#rets + 1] = d:match("^%-%-%-@return%s+([%w_.]+)")
      example = example or d:match("^%-%-%- Example: `(.*)`%s*$")
    end
    local list = sep == ":" and owner.methods or owner.funcs
    if list[func_name] then err("%s:%d: %s%s%s annotated twice", meta, n, func_owner, sep, func_name) end
    list[func_name] = {rets = rets, example = example, line = n}
    current, doc = nil, {}
  elseif not line:match("^%s*%-%-") then
    current, doc = nil, {}
  end
end
f:close()
assert(classes.podsim, meta .. ": no ---@class podsim")

-- ---- walk ----------------------------------------------------------------

-- Tables whose keys pairs() cannot list: where to find them at run time.
local dynamic = {
  ["podsim.kernel"] = function() return podsim.kernel end, -- listed by its __pairs
}

local prim = {number = "number", integer = "number", string = "string", boolean = "boolean"}

-- podsim's metatables are protected (__metatable = false); this test runs
-- with --unsafe, where debug.getmetatable still sees them.
local getmt = debug.getmetatable

-- The keys a value lists (string keys only), or nil when it lists none
-- (userdata whose __index is a function: only the reverse check applies).
local function listed_keys(v, cname)
  if dynamic[cname] then
    local t = {}
    for k in pairs(dynamic[cname]()) do t[k] = true end
    return t
  end
  local mt = getmt(v)
  if type(v) ~= "table" and not (type(mt) == "table" and mt.__pairs) then return nil end
  local t = {}
  for k in pairs(v) do
    if type(k) == "string" then t[k] = true end
  end
  return t
end

-- Methods a value lists: its metatable's __index table or `methods` table.
local function listed_methods(v)
  local mt = getmt(v)
  if type(mt) ~= "table" then return nil end
  local m = type(mt.__index) == "table" and mt.__index or (type(mt.methods) == "table" and mt.methods)
  if not m then return nil end
  local t = {}
  for k in pairs(m) do
    if type(k) == "string" then t[k] = true end
  end
  return t
end

local checked = {}
local reached = {}
local check

local function get(v, k)
  local ok, x = pcall(function() return v[k] end)
  if ok then return x end
  return nil
end

check = function(v, cname, path)
  local c = classes[cname]
  if not c or (type(v) ~= "table" and type(v) ~= "userdata") then return end
  if checked[v] then return end
  checked[v] = true
  reached[cname] = true
  -- run time -> annotation
  local keys = listed_keys(v, cname)
  for k in pairs(keys or {}) do
    if k:sub(1, 1) ~= "_" and not c.fields[k] and not c.funcs[k] and not c.methods[k] then
      err("%s.%s exists in podsim (%s) but is not annotated in class %s", path, k,
        type(get(v, k)), cname)
    end
  end
  local methods = listed_methods(v)
  for k in pairs(methods or {}) do
    if k:sub(1, 1) ~= "_" and not c.methods[k] and not c.fields[k] and not c.funcs[k] then
      err("%s:%s is a method at run time but is not annotated in class %s", path, k, cname)
    end
  end
  -- annotation -> run time
  for k, fd in pairs(c.fields) do
    local x = get(v, k)
    if x == nil then
      if not fd.optional then err("%s.%s is annotated (line %d) but absent at run time", path, k, fd.line) end
    else
      local want = prim[fd.type]
      if want and type(x) ~= want then
        err("%s.%s is annotated %s (line %d) but is a %s", path, k, fd.type, fd.line, type(x))
      elseif classes[fd.type] then
        check(x, fd.type, path .. "." .. k)
      end
    end
  end
  for k, fd in pairs(c.funcs) do
    local x = get(v, k)
    if type(x) ~= "function" then
      err("%s.%s is annotated as a function (line %d) but is %s at run time", path, k, fd.line, type(x))
    end
  end
  for k, fd in pairs(c.methods) do
    if type(get(v, k)) ~= "function" then
      err("%s:%s is annotated as a method (line %d) but is absent at run time", path, k, fd.line)
    end
  end
  -- list elements (`---@field [integer] Class`): check the first
  if c.elem and classes[c.elem] and type(v) == "table" and v[1] ~= nil then
    check(v[1], c.elem, path .. "[1]")
  end
end

-- `---@field [integer] T` element classes
do
  local cur
  for line in io.lines(meta) do
    local cls = line:match("^%-%-%-@class%s+([%w_.]+)")
    if cls then cur = classes[cls] end
    local elem = line:match("^%-%-%-@field%s+%[integer%]%s+([%w_.]+)")
    if elem and cur then cur.elem = elem end
    if not line:match("^%-%-%-") then cur = nil end
  end
end

check(podsim, "podsim", "podsim")

-- Examples: evaluate each and check its value against the return class.
local examples = 0
local function run_examples(owner_name, list, sep)
  local names = {}
  for k in pairs(list) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local fd = list[k]
    if fd.example then
      examples = examples + 1
      local chunk, perr = load("return " .. fd.example, "=example", "t")
      if not chunk then
        err("%s:%d: example of %s%s%s does not parse: %s", meta, fd.line, owner_name, sep, k, perr)
      else
        local ok, v = pcall(chunk)
        -- the value is checked against the first annotated return that
        -- is a class (an example returning another value selects it)
        local ret
        for _, r in ipairs(fd.rets) do
          if classes[r] then ret = r; break end
        end
        fd.ret = ret
        if not ok then
          err("%s:%d: example of %s%s%s fails: %s", meta, fd.line, owner_name, sep, k, tostring(v))
        elseif ret then
          if type(v) ~= "table" and type(v) ~= "userdata" then
            err("%s:%d: example of %s%s%s returns a %s, annotated %s", meta, fd.line, owner_name, sep, k,
              type(v), fd.ret)
          else
            check(v, fd.ret, owner_name .. sep .. k .. "(...)")
          end
        end
      end
    end
  end
end
local cnames = {}
for k in pairs(classes) do cnames[#cnames + 1] = k end
table.sort(cnames)
for _, cname in ipairs(cnames) do
  run_examples(cname, classes[cname].funcs, ".")
  run_examples(cname, classes[cname].methods, ":")
end

-- Classes with methods must be reached, or their methods go unchecked.
for _, cname in ipairs(cnames) do
  if next(classes[cname].methods) and not reached[cname] then
    err("class %s (line %d) has methods but no example or walk reaches it: add an Example to a "
      .. "function returning it", cname, classes[cname].line)
  end
end

local nclasses, nreached = #cnames, 0
for _ in pairs(reached) do nreached = nreached + 1 end
if #errors > 0 then
  table.sort(errors)
  error(string.format("%s: %d annotation problem(s):\n  %s", meta, #errors, table.concat(errors, "\n  ")), 0)
end
print(string.format("annotations: %d classes, %d checked at run time, %d examples", nclasses, nreached, examples))
