-- tools.lua: the embedded programs behind `podsim validate`,
-- `podsim presets`, `podsim plot`, and the dispatcher to the others (one
-- file per concern: tools_eval.lua holds `podsim eval` and `podsim
-- calibrate`, tools_report.lua `podsim report`).  Runs as the host's
-- scenario, in the scenario coroutine, so validation cases may run studies.
-- The host passes podsim's internals (never in a scenario's reach) as the
-- chunk's argument.
local I = ...
local P = podsim
local fmt = string.format
local tool, arg = P.options.tool, P.options.tool_arg

local function embedded_names(prefix)
  local out = {}
  for _, n in ipairs(I._embedded_list()) do
    if n:sub(1, #prefix) == prefix then out[#out + 1] = n end
  end
  table.sort(out)
  return out
end

local function validate()
  local names = embedded_names("validation/")
  local failed, rows, errors, matched = 0, {}, {}, 0
  for _, n in ipairs(names) do
    local stem = n:match("^validation/(.*)%.lua$")
    if not arg or stem:lower():sub(1, #arg) == arg:lower() then
      matched = matched + 1
      local env = setmetatable({}, {__index = _G})
      local before = #I._checks
      local fn, err = I._load(I._embedded(n), "@tests/" .. n, env)
      local ok = fn ~= nil
      if ok then ok, err = pcall(fn) end
      if not ok then
        failed = failed + 1
        errors[#errors + 1] = fmt("%s: %s", stem, tostring(err))
      end
      for i = before + 1, #I._checks do rows[#rows + 1] = I._checks[i] end
    end
  end
  if matched == 0 then
    P.fail(nil, nil, fmt("no validation case file starts with '%s' (cases are named by id, e.g. 'T6' runs t6_*.lua)", arg))
  end
  local header = {"id", "case", "published", "podsim", "unit", "error", "tolerance", "kind", "result"}
  local out, nfit, known = {}, 0, {}
  for _, r in ipairs(rows) do
    if not r.pass then failed = failed + 1 end
    if r.fit then nfit = nfit + 1 end
    if r.known_miss and r.pass then known[#known + 1] = fmt("  %s %s: %s", r.id, r.name, r.known_miss) end
    out[#out + 1] = {r.id, r.name, r.published and fmt("%.4g", r.published) or "-",
      fmt("%.4g", r.value), r.unit, r.err and fmt("%+.1f%%", r.err * 100) or "-",
      P.format_tolerance(r), r.fit and "fit" or "prediction", P.check_result(r)}
  end
  P.print_table(header, out)
  -- NVL72 over 8-GPU nodes at one release: published, podsim, error
  local ratios = {}
  for _, r in ipairs(rows) do
    if r.nvl72_over_hgx then
      ratios[#ratios + 1] = {r.nvl72_over_hgx, r.id, r.name, r.published and fmt("%.3f", r.published) or "-",
        fmt("%.3f", r.value), r.err and fmt("%+.1f%%", r.err * 100) or "-", P.check_result(r)}
    end
  end
  if #ratios > 0 then
    print("\nNVL72 over 8-GPU nodes, per GPU, same release:")
    P.print_table({"model, release", "id", "case", "published", "podsim", "error", "result"}, ratios)
  end
  -- throughput rows (tokens/s/GPU): median |error|; fit share by row and id
  local errs, ids, fit_ids = {}, {}, {}
  for _, r in ipairs(rows) do
    if r.unit == "tok/s/GPU" and r.err then errs[#errs + 1] = math.abs(r.err) end
    ids[r.id] = true
    if r.fit then fit_ids[r.id] = true end
  end
  local nid, nfid = 0, 0
  for id in pairs(ids) do
    nid = nid + 1
    if fit_ids[id] then nfid = nfid + 1 end
  end
  table.sort(errs)
  local med
  if #errs > 0 then
    med = #errs % 2 == 1 and errs[(#errs + 1) // 2] or (errs[#errs // 2] + errs[#errs // 2 + 1]) / 2
  end
  print(fmt("\n%d checks, %d fits, %d predictions; %d passed, %d known misses, %d failed",
    #rows, nfit, #rows - nfit, #rows - (failed - #errors) - #known, #known, failed))
  print(fmt("fit share: %d of %d rows (%.0f%%), %d of %d case ids (%.0f%%)", nfit, #rows,
    #rows > 0 and 100 * nfit / #rows or 0, nfid, nid, nid > 0 and 100 * nfid / nid or 0))
  if med then
    print(fmt("throughput rows (tok/s/GPU): %d, median |error| %.1f%%", #errs, 100 * med))
  end
  if #known > 0 then print("known misses (outside tolerance, reported, not failures):\n" .. table.concat(known, "\n")) end
  for _, e in ipairs(errors) do io.stderr:write(e, "\n") end
  if failed > 0 then P.fail(nil, nil, fmt("validation: %d failed", failed)) end
end

-- Words joined into lines of at most `width` columns, every line after
-- the first indented by `indent` (a word longer than a line stands alone).
local function wrap(words, first, indent, width)
  local lines, line = {}, first
  local fresh = true
  for _, w in ipairs(words) do
    if not fresh and #line + 1 + #w > width then
      lines[#lines + 1] = line
      line, fresh = indent .. w, false
    else
      line = line .. (fresh and "" or " ") .. w
      fresh = false
    end
  end
  lines[#lines + 1] = line
  return table.concat(lines, "\n")
end

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  return keys
end

-- One preset as plain data (specs by name) for JSON.
local function preset_data(spec)
  if type(spec) ~= "table" and type(spec) ~= "userdata" then return spec end
  local out = {}
  if type(spec) == "table" and spec[1] then
    for i, c in ipairs(spec) do out[i] = preset_data(c) end
    return out
  end
  for k, v in pairs(spec) do
    if type(v) == "userdata" then out[k] = v.name or tostring(v)
    elseif type(v) ~= "function" then out[k] = preset_data(v) end
  end
  return out
end

local function presets()
  local kinds = {"gpus", "systems", "models", "failures", "software"}
  if arg and not rawget(P, arg) then
    P.fail(nil, nil, fmt("unknown preset kind '%s' (gpus, systems, models, failures, software)", tostring(arg)))
  end
  if P.options.format == "json" then
    local doc = {}
    for _, kind in ipairs(kinds) do
      local set = rawget(P, kind)
      if set and (not arg or arg == kind) then
        doc[kind] = {}
        for name, spec in pairs(set) do
          local d = preset_data(spec)
          local src = P.sources and P.sources[kind] and P.sources[kind][name]
          if src and src ~= "" and type(d) == "table" and not d[1] then d.source = src end
          if type(d) == "table" and d[1] then d = {causes = d, source = src} end
          doc[kind][name] = d
        end
      end
    end
    print(P.json(doc))
    return
  end
  local width, indent = 99, (" "):rep(19)
  for _, kind in ipairs(kinds) do
    local set = rawget(P, kind)
    if set and (not arg or arg == kind) then
      print(fmt("%s:", kind))
      for _, name in ipairs(sorted_keys(set)) do
        local spec, parts = set[name], {}
        if type(spec) == "table" and spec[1] then
          -- a list of failure causes
          print(fmt("  %s:", name))
          local rows = {}
          for _, c in ipairs(spec) do
            rows[#rows + 1] = {"    " .. tostring(c.cause), c.rate_per_h, tostring(c.unit), tostring(c.blast)}
          end
          P.print_table({"    cause", "rate_per_h", "unit", "blast"}, rows, {number_format = "%.3e"})
          spec = {}
        end
        for _, k in ipairs(sorted_keys(spec)) do
          local v = spec[k]
          if k ~= "name" and type(v) ~= "userdata" then
            parts[#parts + 1] = fmt("%s=%s", k, type(v) == "number" and P.num(v) or tostring(v))
          elseif type(v) == "userdata" then
            parts[#parts + 1] = fmt("%s=%s", k, v.name or tostring(v))
          end
        end
        if #parts > 0 then print(wrap(parts, fmt("  %-16s ", name), indent, width)) end
        local src = P.sources and P.sources[kind] and P.sources[kind][name]
        if src and src ~= "" then
          local words = {}
          for w in src:gmatch("%S+") do words[#words + 1] = w end
          print(wrap(words, indent .. "source: ", indent .. "  ", width))
        end
      end
      print()
    end
  end
end

-- Render every plot recipe (*.plot, written beside each SVG) found in
-- the folder and its subfolders again.  The folder may come from someone
-- else: recipes are parsed as data, symlinks are not followed, and the
-- recipes, their data files and the SVGs stay below the folder.
local function plot()
  local root = P.out_dir()
  local n, failed = 0, 0
  local function walk(dir, depth)
    local entries, err = I._listdir(dir, "out")
    if not entries then
      io.stderr:write(fmt("%s\n", err)); failed = failed + 1
      return
    end
    for _, e in ipairs(entries) do
      local name, kind = e[1], e[2]
      local path = dir .. "/" .. name
      if kind == "file" and name:match("%.plot$") then
        local svg, why = I._render_recipe(path)
        if svg then print(svg); n = n + 1
        else io.stderr:write(fmt("%s: %s\n", path, why)); failed = failed + 1 end
      elseif kind == "dir" and depth < 4 then
        walk(path, depth + 1)
      end
    end
  end
  walk(root, 0)
  if n == 0 and failed == 0 then P.fail(nil, nil, fmt("no plot recipes (*.plot) under '%s'", root)) end
  if failed > 0 then P.fail(nil, nil, fmt("%d plots failed", failed)) end
end

-- Run the embedded tool file `name` (lua/lib/<name>.lua) in this chunk's
-- environment; it gets podsim's internals and returns its entry points.
local function part(name)
  local src = I._embedded(name)
  if not src then P.fail(nil, nil, "embedded " .. name .. " missing") end
  local fn, err = I._load(src, "=[podsim] " .. name .. ".lua", _ENV)
  if not fn then error(err, 0) end
  return fn(I)
end

if tool == "validate" then validate()
elseif tool == "presets" then presets()
elseif tool == "plot" then plot()
elseif tool == "eval" then part("tools_eval").eval()
elseif tool == "calibrate" then part("tools_eval").calibrate()
elseif tool == "report" then part("tools_report").report()
else P.fail(nil, nil, "unknown tool " .. tostring(tool)) end
