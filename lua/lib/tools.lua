-- tools.lua: the embedded programs behind `podsim validate`,
-- `podsim presets` and `podsim plot`.  Runs as the host's scenario, in the
-- scenario coroutine, so validation cases may run studies.
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

-- `podsim eval collective|train --key value ...`: one-line queries.

-- "4096", "64KiB", "1GiB", "1G" (1024-based as in nccl-tests), "1GB"
-- (1000-based), "1e9" -> bytes.
local size_units = {[""] = 1, B = 1, K = 1024, KiB = 1024, M = 1024 ^ 2, MiB = 1024 ^ 2,
  G = 1024 ^ 3, GiB = 1024 ^ 3, T = 1024 ^ 4, TiB = 1024 ^ 4, KB = 1e3, MB = 1e6, GB = 1e9, TB = 1e12}
local function parse_size(s, opt)
  local num, unit = tostring(s):match("^%s*([%d.eE+]+)%s*(%a*)%s*$")
  local v, mul = tonumber(num), size_units[unit or ""]
  if not v or not mul or not (v > 0) then
    P.fail(nil, nil, fmt("--%s: '%s' is not a size (4096, 64KiB, 1GiB, 1G, 1GB)", opt, tostring(s)))
  end
  return math.floor(v * mul + 0.5)
end

local function list_of(v, opt, parse)
  local out = {}
  for part in tostring(v):gmatch("[^,]+") do out[#out + 1] = parse(part, opt) end
  if #out == 0 then P.fail(nil, nil, fmt("--%s needs a value", opt)) end
  return out
end

local function parse_int(s, opt)
  local v = math.tointeger(tonumber(s))
  if not v or v < 1 then P.fail(nil, nil, fmt("--%s: '%s' is not a positive integer", opt, tostring(s))) end
  return v
end

local function check_opts(a, allowed, what)
  local names = {}
  for k in pairs(allowed) do names[#names + 1] = "--" .. k:gsub("_", "-") end
  table.sort(names)
  for k in pairs(a) do
    if not allowed[k] then
      P.fail(nil, nil, fmt("podsim eval %s: unknown option --%s (options: %s)", what,
        (k:gsub("_", "-")), table.concat(names, ", ")))
    end
  end
end

-- Rows (tables keyed by header names) in the tool's --format.
local function emit(header, rows)
  local f = P.options.format
  if f == "json" then
    print(P.json(rows))
  elseif f == "csv" then
    local function cell(v)
      if type(v) == "number" then return P.num(v) end
      local s = tostring(v == nil and "" or v)
      if s:find('[,"\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
      return s
    end
    local line = {}
    for i, h in ipairs(header) do line[i] = cell(h) end
    print(table.concat(line, ","))
    for _, r in ipairs(rows) do
      for i, h in ipairs(header) do line[i] = cell(r[h]) end
      print(table.concat(line, ","))
    end
  else
    P.print_table(header, rows, {number_format = "%.4g"})
  end
end

local layout_keys = {tp = true, pp = true, vp = true, dp = true, ep = true, etp = true, cp = true,
  microbatch = true, zero = true, recompute = true, uneven = true}

local function eval_tool()
  local a = {}
  for k, v in pairs(P.args) do a[k] = v end
  if arg == "collective" then
    check_opts(a, {system = true, op = true, ranks = true, bytes = true, algo = true,
      ranks_per_domain = true}, "collective")
    for _, k in ipairs{"system", "op", "ranks", "bytes"} do
      if a[k] == nil then P.fail(nil, nil, fmt("podsim eval collective: --%s is required", k)) end
    end
    local rows = {}
    for _, ranks in ipairs(list_of(a.ranks, "ranks", parse_int)) do
      for _, bytes in ipairs(list_of(a.bytes, "bytes", parse_size)) do
        local r = P.collective(tostring(a.system), tostring(a.op), {ranks = ranks, bytes = bytes,
          algo = a.algo, ranks_per_domain = a.ranks_per_domain and parse_int(a.ranks_per_domain, "ranks-per-domain")})
        rows[#rows + 1] = {system = tostring(a.system), op = tostring(a.op), ranks = ranks,
          bytes = bytes, size = P.fmt_bytes(bytes), algo = r.algo, time_us = r.time_s * 1e6,
          algbw_GBps = r.algbw_GBps, busbw_GBps = r.busbw_GBps}
      end
    end
    emit({"system", "op", "ranks", "bytes", "size", "algo", "time_us", "algbw_GBps", "busbw_GBps"}, rows)
    return
  end
  -- train: every other option goes to podsim.train / podsim.search, which
  -- check the names; layout options form `parallel` (or `fix` in a search)
  local search = a.search == true
  a.search = nil
  local layout, cfg = {}, {}
  for k, v in pairs(a) do
    if layout_keys[k] then layout[k] = v else cfg[k] = v end
  end
  if search then
    if next(layout) then cfg.fix = layout end
    local res = P.search(cfg)
    local rows = {}
    for i, it in ipairs(res) do
      local row = {rank = i}
      for k, v in pairs(it) do if k ~= "parallel" then row[k] = v end end
      rows[i] = row
    end
    if #rows == 0 then
      io.stderr:write(fmt("podsim eval train --search: no layout: %s\n", tostring(res.why)))
    end
    emit({"rank", "tp", "pp", "vp", "dp", "ep", "etp", "cp", "microbatch", "zero", "recompute",
      "tokens_per_s_per_gpu", "step_s", "mfu", "memory_gb"}, rows)
    if #rows == 0 then P.fail(nil, nil, "no layout found") end
    return
  end
  if next(layout) then cfg.parallel = layout end
  local r = P.train(cfg)
  local row = {step_s = r.step_s, tokens_per_s = r.tokens_per_s,
    tokens_per_s_per_gpu = r.tokens_per_s_per_gpu, tflops_per_gpu = r.tflops_per_gpu, mfu = r.mfu,
    memory_gb = r.memory_gb, fits = r.fits}
  local header = {"step_s", "tokens_per_s", "tokens_per_s_per_gpu", "tflops_per_gpu", "mfu",
    "memory_gb", "fits"}
  for _, k in ipairs{"compute", "tp", "cp", "ep", "pp", "dp", "bubble", "optimizer", "straggler"} do
    row[k .. "_s"] = r.breakdown[k]
    header[#header + 1] = k .. "_s"
  end
  emit(header, {row})
end

-- `podsim calibrate FILE... --system S`: fit collective parameters to
-- nccl-tests output.

local coll_ops = {"all_reduce", "all_gather", "reduce_scatter", "alltoall", "all_to_all",
  "broadcast", "sendrecv"}
local op_alias = {alltoall = "all_to_all", sendrecv = "send_recv"}

-- Rows of one file: an nccl-tests log (the `*_perf` table: size, count,
-- type, redop, [root,] time, algbw, busbw, #wrong, time, ...; out-of-place
-- time; ranks from the "# Rank" lines, nodes from their host names), or a
-- CSV `op,ranks,nodes,bytes,busbw_GBps[,algo]` (time from busbw and the
-- op's factor; algo: what NCCL_ALGO forced; `domains` may name the third
-- column: NVLink domains, for multi-node NVLink racks whose hosts share
-- one domain; either way ranks / column 3 ranks per domain).  '#' lines
-- are comments.
local function read_nccl(path)
  local f, err = io.open(path, "r")
  if not f then P.fail(nil, nil, fmt("calibrate: %s", tostring(err))) end
  local text = f:read("a")
  f:close()
  local rows, op, ranks, hosts, nhosts = {}, nil, 0, {}, 0
  local base = path:match("[^/]*$")
  for _, o in ipairs(coll_ops) do
    if base:find(o, 1, true) then op = op_alias[o] or o end
  end
  local csv_header
  local ln = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    ln = ln + 1
    local started = line:match("Collective test starting:%s*([%w_]+)_perf")
    if started then op = op_alias[started] or started end
    local host = line:match("^#%s+Rank%s+%d+.-%son%s+(%S+)%s+device")
    if host then
      ranks = ranks + 1
      if not hosts[host] then hosts[host] = true; nhosts = nhosts + 1 end
    end
    if line:match("^op,ranks,nodes,bytes,busbw_GBps") or line:match("^op,ranks,domains,bytes,busbw_GBps") then
      csv_header = true
    elseif csv_header and line:match("^[%w_]+,") then
      local o, r, n, b, bw, al = line:match("^([%w_]+),(%d+),(%d+),([%d.e+]+),([%d.e+]+),?([%w_]*)%s*$")
      if not o then P.fail(nil, nil, fmt("%s:%d: expected op,ranks,nodes,bytes,busbw_GBps[,algo]", path, ln)) end
      r, n, b, bw = tonumber(r), tonumber(n), tonumber(b), tonumber(bw)
      local factor = I._busbw_factor(op_alias[o] or o, r)
      if bw > 0 then
        rows[#rows + 1] = {file = base, line = ln, op = op_alias[o] or o, ranks = r, nodes = n,
          ranks_per_domain = r // n, bytes = b, time_s = b * factor / (bw * 1e9), busbw_GBps = bw,
          algo = al ~= "" and al or nil}
      end
    elseif not line:match("^%s*#") then
      local t = {}
      for w in line:gmatch("%S+") do t[#t + 1] = w end
      if #t >= 12 and math.tointeger(tonumber(t[1])) and math.tointeger(tonumber(t[2])) then
        local ti = #t >= 13 and 6 or 5 -- with or without the root column
        local bytes, us, bw = tonumber(t[1]), tonumber(t[ti]), tonumber(t[ti + 2])
        if bytes and bytes > 0 and us and us > 0 then
          rows[#rows + 1] = {file = base, line = ln, bytes = bytes, time_s = us * 1e-6, busbw_GBps = bw}
        end
      end
    end
  end
  for _, r in ipairs(rows) do
    if not r.op then
      if not op then
        P.fail(nil, nil, fmt("%s: which collective? (no 'Collective test starting' line and no op in the file name)", path))
      end
      if ranks == 0 then P.fail(nil, nil, fmt("%s: no '# Rank' lines: the rank count is unknown", path)) end
      r.op, r.ranks, r.nodes = op, ranks, nhosts
      r.ranks_per_domain = ranks // math.max(nhosts, 1)
    end
  end
  if #rows == 0 then P.fail(nil, nil, fmt("%s: no nccl-tests rows found", path)) end
  return rows
end

-- The rows of the files in `list` (newline- or comma-separated) of at
-- least min_bytes and, when keep_ranks is given, of those rank counts.
local function calib_rows(list, sep, min_bytes, keep_ranks)
  local rows, files = {}, {}
  for path in tostring(list):gmatch("[^" .. sep .. "]+") do
    files[#files + 1] = path
    for _, r in ipairs(read_nccl(path)) do
      if r.bytes >= min_bytes and (not keep_ranks or keep_ranks[r.ranks]) then rows[#rows + 1] = r end
    end
  end
  return rows, files
end

-- --ranks 8,64: a set of rank counts, or nil.
local function calib_ranks(spec)
  if not spec then return nil end
  local keep = {}
  for w in tostring(spec):gmatch("[^,]+") do
    local n = math.tointeger(tonumber(w))
    if not n or n < 1 then
      P.fail(nil, nil, fmt("calibrate: --ranks: '%s' is not a rank count (give e.g. 8,64)", w))
    end
    keep[n] = true
  end
  return keep
end

-- The parameters the rows can tell apart (without --fit).
local function calib_default_params(rows, base)
  local params, inside, across, reduce = {}, false, false, false
  for _, r in ipairs(rows) do
    if r.nodes > 1 and r.ranks > base.domain_gpus then across = true else inside = true end
    if r.op == "all_reduce" then reduce = true end
  end
  if inside then
    for _, k in ipairs{"up_eff", "up_latency_us", "up_fill_KiB"} do params[#params + 1] = k end
    if reduce and base.nvls then
      params[#params + 1] = "nvls_eff"
      params[#params + 1] = "nvls_latency_us"
    end
  end
  if across then
    for _, k in ipairs{"out_eff", "out_latency_us", "out_half_MB"} do params[#params + 1] = k end
  end
  return params
end

-- Print rows against the model's times t[i]; returns the rms of the log
-- ratio and the largest relative error.
local function calib_print(rows, t)
  local out, maxe, ss = {}, 0, 0
  for i, r in ipairs(rows) do
    local factor = I._busbw_factor(r.op, r.ranks)
    maxe = math.max(maxe, math.abs(r.time_s / t[i] - 1))
    ss = ss + math.log(t[i] / r.time_s) ^ 2
    out[i] = {file = r.file, op = r.op, ranks = r.ranks, nodes = r.nodes, size = P.fmt_bytes(r.bytes),
      measured_GBps = r.bytes * factor / r.time_s / 1e9, podsim_GBps = r.bytes * factor / t[i] / 1e9,
      error = fmt("%+.1f%%", (r.time_s / t[i] - 1) * 100)}
  end
  P.print_table({"file", "op", "ranks", "nodes", "size", "measured_GBps", "podsim_GBps", "error"}, out,
    {number_format = "%.2f"})
  return math.sqrt(ss / #rows), maxe
end

-- --check FILE,...: the calibrated system's error on rows it was not fitted on.
local function calib_check(list, min_bytes, sys)
  local rows = calib_rows(list, ",", min_bytes, nil)
  local t = {}
  for i, r in ipairs(rows) do
    t[i] = P.collective(sys, r.op, {ranks = r.ranks, ranks_per_domain = r.ranks_per_domain,
      bytes = r.bytes, algo = r.algo}).time_s
  end
  print("\nprediction (rows not fitted):")
  local rms, maxe = calib_print(rows, t)
  print(fmt("\n%d rows predicted: rms error %.1f%%, max %.1f%% (busbw)", #rows, rms * 100, maxe * 100))
end

local function calibrate()
  local a = P.args
  if not a.system then P.fail(nil, nil, "calibrate: --system (the preset or spec to start from) is required") end
  local base = P.system{base = tostring(a.system)}
  local min_bytes = a.min_bytes and parse_size(a.min_bytes, "min-bytes") or 1024
  local rows, files = calib_rows(a.files, "\n", min_bytes, calib_ranks(a.ranks))
  if #rows == 0 then P.fail(nil, nil, "calibrate: no rows left after --min-bytes/--ranks") end
  local params = {}
  if a.fit then
    for name in tostring(a.fit):gmatch("[^,%s]+") do params[#params + 1] = name end
  else
    params = calib_default_params(rows, base)
  end
  local fit = I._calibrate(base, rows, params)
  local _, maxe = calib_print(rows, fit.pred_s)
  print(fmt("\n%d rows, %d parameters, %d iterations%s: rms error %.1f%%, max %.1f%% (busbw)",
    #rows, #params, fit.iterations, fit.converged and "" or " (iteration cap)",
    fit.rms_rel * 100, maxe * 100))
  local prow = {}
  for i, k in ipairs(params) do prow[i] = {k, base[k], fit.system[k]} end
  P.print_table({"parameter", "preset", "fitted"}, prow, {number_format = "%.4g"})
  if a.check then calib_check(a.check, min_bytes, fit.system) end
  local name = a.name and tostring(a.name) or (base.name .. "_calibrated")
  local lines = {
    fmt("-- %s: %s calibrated by `podsim calibrate` (podsim %s)", name, base.name, P.version),
    "-- from nccl-tests output: " .. table.concat(files, ", "),
    fmt("-- fit: %d rows of at least %s%s, rms error %.1f%%, max %.1f%% of busbw;", #rows,
      P.fmt_bytes(min_bytes), a.ranks and (" on " .. tostring(a.ranks) .. " ranks") or "",
      fit.rms_rel * 100, maxe * 100),
    "-- the other fields are the preset's.  Load it in a scenario with",
    fmt("--   local sys = load(io.open(\"%s.lua\"):read(\"a\"), \"=%s.lua\")()", name, name),
    fmt("return podsim.system{base = %q, name = %q,", base.name, name)}
  for _, k in ipairs(params) do lines[#lines + 1] = fmt("  %s = %s,", k, P.num(fit.system[k])) end
  lines[#lines + 1] = "}"
  local target = a.out and tostring(a.out) or (name .. ".lua")
  local written = P.write_text(target, table.concat(lines, "\n") .. "\n")
  print("wrote " .. written)
end

-- `podsim report DIR`: one self-contained HTML page (report.html) and the
-- same as Markdown (report.md) for a run's folder: the run's meta, the
-- warnings (dropped and non-fitting samples, incomplete studies), every
-- study's summary table and assumptions (its distributions), every SVG
-- inline (as data: URIs), and the validation status of the models.

-- A small JSON reader for podsim's own meta.json files.
local function json_decode(s)
  local i = 1
  local function ws() i = s:find("[^ \t\r\n]", i) or #s + 1 end
  local val
  local function str()
    local out, j = {}, i + 1
    while true do
      local c = s:sub(j, j)
      if c == "" then error("unterminated string") end
      if c == '"' then i = j + 1; return table.concat(out) end
      if c == "\\" then
        local e = s:sub(j + 1, j + 1)
        local map = {n = "\n", t = "\t", r = "\r", b = "\b", f = "\f"}
        if e == "u" then
          local cp = tonumber(s:sub(j + 2, j + 5), 16)
          out[#out + 1] = utf8.char(cp)
          j = j + 6
        else
          out[#out + 1] = map[e] or e
          j = j + 2
        end
      else
        out[#out + 1] = c
        j = j + 1
      end
    end
  end
  function val()
    ws()
    local c = s:sub(i, i)
    if c == "{" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "}" then i = i + 1; return t end
      while true do
        ws()
        local k = str()
        ws(); i = i + 1 -- ':'
        t[k] = val()
        ws()
        local d = s:sub(i, i); i = i + 1
        if d == "}" then return t end
      end
    elseif c == "[" then
      local t = {}
      i = i + 1; ws()
      if s:sub(i, i) == "]" then i = i + 1; return t end
      while true do
        t[#t + 1] = val()
        ws()
        local d = s:sub(i, i); i = i + 1
        if d == "]" then return t end
      end
    elseif c == '"' then return str()
    elseif s:sub(i, i + 3) == "true" then i = i + 4; return true
    elseif s:sub(i, i + 4) == "false" then i = i + 5; return false
    elseif s:sub(i, i + 3) == "null" then i = i + 4; return nil
    else
      local num = s:match("^-?[%d.eE+-]+", i)
      if not num then error("bad JSON at byte " .. i) end
      i = i + #num
      return tonumber(num)
    end
  end
  return val()
end

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local t = f:read("a")
  f:close()
  return t
end

local function read_json(path)
  local t = read_file(path)
  if not t then return nil end
  local ok, v = pcall(json_decode, t)
  if not ok then return nil end
  return v
end

local function read_csv(path)
  local t = read_file(path)
  if not t then return nil end
  local rows = {}
  for line in t:gmatch("[^\n]+") do
    local cells, pos = {}, 1
    while pos <= #line + 1 do
      if line:sub(pos, pos) == '"' then
        local q, j = {}, pos + 1
        while j <= #line do
          local c = line:sub(j, j)
          if c == '"' and line:sub(j + 1, j + 1) == '"' then q[#q + 1] = '"'; j = j + 2
          elseif c == '"' then j = j + 1; break
          else q[#q + 1] = c; j = j + 1 end
        end
        cells[#cells + 1] = table.concat(q)
        pos = j + 1
      else
        local e = line:find(",", pos, true) or #line + 1
        cells[#cells + 1] = line:sub(pos, e - 1)
        pos = e + 1
      end
    end
    rows[#rows + 1] = cells
  end
  return rows
end

local b64chars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
local function base64(s)
  local out = {}
  for i = 1, #s, 3 do
    local a, b, c = s:byte(i, i + 2)
    local n = a * 65536 + (b or 0) * 256 + (c or 0)
    local q = {}
    for k = 3, 0, -1 do
      local v = (n >> (6 * k)) & 63
      q[#q + 1] = b64chars:sub(v + 1, v + 1)
    end
    if not b then q[3], q[4] = "=", "=" elseif not c then q[4] = "=" end
    out[#out + 1] = table.concat(q)
  end
  return table.concat(out)
end

local function esc(s)
  return (tostring(s):gsub("[&<>\"]", {["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;"}))
end
local function md_esc(s) return (tostring(s):gsub("|", "\\|")) end

-- the summary columns a reader wants, in this order
local report_cols = {"metric", "n", "mean", "p5", "p50", "p95", "ci95_lo", "ci95_hi", "nonfinite", "unfit"}

local scaled_cols = {mean = true, p5 = true, p50 = true, p95 = true, ci95_lo = true, ci95_hi = true}

local function fmt_cell(v)
  local x = tonumber(v)
  if x and not tostring(v):match("^%d+$") then return fmt("%.4g", x) end
  return tostring(v)
end

local function report()
  local root = P.out_dir()
  local html, md, warnings = {}, {}, {}
  local run = {}
  for _, e in ipairs(I._listdir(root, "out") or {}) do
    if e[1] == "meta.json" and e[2] == "file" then run = read_json(root .. "/meta.json") or {} end
  end
  local studies = {}
  for _, e in ipairs(I._listdir(root, "out") or {}) do
    local name, meta, summary = e[1], nil, nil
    local d = root .. "/" .. name
    if e[2] == "dir" then
      local has = {}
      for _, f in ipairs(I._listdir(d, "out") or {}) do has[f[1]] = f[2] == "file" end
      if has["meta.json"] and has["summary.csv"] then
        meta, summary = read_json(d .. "/meta.json"), read_csv(d .. "/summary.csv")
      end
    end
    if meta and summary then studies[#studies + 1] = {name = name, dir = d, meta = meta, summary = summary} end
  end
  if #studies == 0 and not next(run) then
    P.fail(nil, nil, fmt("no podsim results (meta.json, <study>/summary.csv) under '%s'", root))
  end
  local title = "podsim report: " .. tostring(run.scenario or root:match("[^/]+$"))
  html[#html + 1] = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
  html[#html + 1] = "<title>" .. esc(title) .. "</title>"
  html[#html + 1] = [[<style>body{font-family:sans-serif;margin:2em;max-width:1100px;color:#222}
table{border-collapse:collapse;margin:0.5em 0 1.5em}td,th{border:1px solid #bbb;padding:3px 8px;text-align:right}
th{background:#eef}td.l,th.l{text-align:left}.warn{background:#fff4d6;border-left:4px solid #e0a000;padding:4px 8px;margin:4px 0}
img{max-width:100%;border:1px solid #ddd;margin:6px 0}pre{background:#f6f6f6;padding:8px;overflow-x:auto}</style></head><body>]]
  html[#html + 1] = "<h1>" .. esc(title) .. "</h1>"
  md[#md + 1] = "# " .. title .. "\n"
  -- the run
  local runrows = {{"podsim", run.podsim_version}, {"scenario", run.scenario}, {"sha256", run.scenario_sha256},
    {"threads", run.threads}, {"format", run.format}}
  html[#html + 1] = "<h2>Run</h2><table>"
  md[#md + 1] = "## Run\n\n| field | value |\n| --- | --- |"
  for _, kv in ipairs(runrows) do
    if kv[2] ~= nil then
      html[#html + 1] = fmt("<tr><th class=\"l\">%s</th><td class=\"l\">%s</td></tr>", esc(kv[1]), esc(kv[2]))
      md[#md + 1] = fmt("| %s | %s |", kv[1], md_esc(kv[2]))
    end
  end
  local args = {}
  for k, v in pairs(run.args or {}) do args[#args + 1] = k .. "=" .. tostring(v) end
  table.sort(args)
  if #args > 0 then
    html[#html + 1] = fmt("<tr><th class=\"l\">--set</th><td class=\"l\">%s</td></tr>", esc(table.concat(args, " ")))
    md[#md + 1] = fmt("| --set | %s |", md_esc(table.concat(args, " ")))
  end
  html[#html + 1] = "</table>"
  md[#md + 1] = ""
  -- warnings
  for _, st in ipairs(studies) do
    local m = st.meta
    if m.complete == false then warnings[#warnings + 1] = fmt("study %s is incomplete (%s of %s samples)", st.name, tostring(m.samples_done), tostring(m.samples)) end
    for metric, n in pairs(m.nonfinite or {}) do
      if n > 0 then warnings[#warnings + 1] = fmt("study %s: %d samples with a NaN or infinite %s were left out", st.name, n, metric) end
    end
    for g, n in ipairs(m.unfit or {}) do
      if n > 0 then warnings[#warnings + 1] = fmt("study %s, grid point %d: %d samples do not fit in memory (%s)", st.name, g, n, tostring(m.unfit_mode)) end
    end
  end
  if (run.checks_failed or 0) > 0 then warnings[#warnings + 1] = fmt("%d validation checks of the run failed", run.checks_failed) end
  table.sort(warnings)
  html[#html + 1] = "<h2>Warnings</h2>"
  md[#md + 1] = "## Warnings\n"
  if #warnings == 0 then
    html[#html + 1] = "<p>None.</p>"; md[#md + 1] = "None.\n"
  end
  for _, w in ipairs(warnings) do
    html[#html + 1] = "<div class=\"warn\">" .. esc(w) .. "</div>"
    md[#md + 1] = "- " .. w
  end
  md[#md + 1] = ""
  -- studies
  local nimg = 0
  for _, st in ipairs(studies) do
    html[#html + 1] = "<h2>Study " .. esc(st.name) .. "</h2>"
    md[#md + 1] = "## Study " .. st.name .. "\n"
    local m = st.meta
    html[#html + 1] = fmt("<p>%s samples per grid point (%s done), seed %s, evaluator %s, sensitivity %s%s.</p>",
      esc(m.samples), esc(m.samples_done), esc(m.seed), esc(m.evaluator), esc(m.sensitivity),
      m.complete == false and ", <b>incomplete</b>" or "")
    md[#md + 1] = fmt("%s samples per grid point (%s done), seed %s, evaluator %s.\n", tostring(m.samples),
      tostring(m.samples_done), tostring(m.seed), tostring(m.evaluator))
    -- summary table: grid keys, then the chosen statistics
    local hdr = st.summary[1]
    local idx = {}
    for i, h in ipairs(hdr) do idx[h] = i end
    local cols = {}
    for _, k in ipairs(m.grid_keys or {}) do
      local c = idx[k] and k or (idx["grid." .. k] and "grid." .. k)
      if c then cols[#cols + 1] = c end
    end
    local ngrid = #cols
    for _, c in ipairs(report_cols) do if idx[c] then cols[#cols + 1] = c end end
    html[#html + 1] = "<table><tr>"
    for i, c in ipairs(cols) do html[#html + 1] = fmt("<th%s>%s</th>", i <= ngrid + 1 and " class=\"l\"" or "", esc(c)) end
    html[#html + 1] = "</tr>"
    local mdh = {}
    for i, c in ipairs(cols) do mdh[i] = md_esc(c) end
    md[#md + 1] = "| " .. table.concat(mdh, " | ") .. " |"
    md[#md + 1] = "|" .. (" --- |"):rep(#cols)
    for r = 2, #st.summary do
      local row = st.summary[r]
      html[#html + 1] = "<tr>"
      local mdr = {}
      local info = (m.metric_info or {})[row[idx.metric]] or {}
      for i, c in ipairs(cols) do
        local raw_v = row[idx[c]] or ""
        if scaled_cols[c] and tonumber(raw_v) and info.scale then raw_v = tonumber(raw_v) * info.scale end
        if c == "metric" and (info.label or info.unit) then
          raw_v = (info.label or raw_v) .. (info.unit and " (" .. info.unit .. ")" or "")
        end
        local v = fmt_cell(raw_v)
        html[#html + 1] = fmt("<td%s>%s</td>", i <= ngrid + 1 and " class=\"l\"" or "", esc(v))
        mdr[i] = md_esc(v)
      end
      html[#html + 1] = "</tr>"
      md[#md + 1] = "| " .. table.concat(mdr, " | ") .. " |"
    end
    html[#html + 1] = "</table>"
    md[#md + 1] = ""
    -- assumptions: every parameter's distribution
    local pnames = {}
    for k in pairs(m.params or {}) do pnames[#pnames + 1] = k end
    table.sort(pnames)
    if #pnames > 0 then
      html[#html + 1] = "<h3>Assumptions (sampled parameters)</h3><table><tr><th class=\"l\">parameter</th><th class=\"l\">distribution</th></tr>"
      md[#md + 1] = "### Assumptions (sampled parameters)\n\n| parameter | distribution |\n| --- | --- |"
      for _, p in ipairs(pnames) do
        local d, parts = m.params[p], {}
        local keys = {}
        for k in pairs(d) do if k ~= "kind" then keys[#keys + 1] = k end end
        table.sort(keys)
        for _, k in ipairs(keys) do
          local v = d[k]
          if type(v) == "table" then
            local t = {}
            for i, x in ipairs(v) do t[i] = tostring(x) end
            v = "{" .. table.concat(t, ", ") .. "}"
          end
          parts[#parts + 1] = k .. "=" .. (type(v) == "number" and fmt("%.4g", v) or tostring(v))
        end
        local desc = tostring(d.kind) .. (#parts > 0 and "{" .. table.concat(parts, ", ") .. "}" or "")
        html[#html + 1] = fmt("<tr><td class=\"l\">%s</td><td class=\"l\">%s</td></tr>", esc(p), esc(desc))
        md[#md + 1] = fmt("| %s | %s |", md_esc(p), md_esc(desc))
      end
      html[#html + 1] = "</table>"
      md[#md + 1] = ""
    end
    -- plots
    local svgs = {}
    for _, e in ipairs(I._listdir(st.dir .. "/plots", "out") or {}) do
      if e[2] == "file" and e[1]:match("%.svg$") then svgs[#svgs + 1] = e[1] end
    end
    if #svgs > 0 then
      html[#html + 1] = "<h3>Plots</h3>"
      md[#md + 1] = "### Plots\n"
    end
    for _, f in ipairs(svgs) do
      local data = read_file(st.dir .. "/plots/" .. f)
      if data then
        nimg = nimg + 1
        html[#html + 1] = fmt("<figure><img alt=\"%s\" src=\"data:image/svg+xml;base64,%s\"><figcaption>%s</figcaption></figure>",
          esc(f), base64(data), esc(f))
        md[#md + 1] = fmt("![%s](%s/plots/%s)\n", f, st.name, f)
      end
    end
  end
  -- validation status of the models
  local checks = run.checks or {}
  html[#html + 1] = "<h2>Validation</h2>"
  md[#md + 1] = "## Validation\n"
  if #checks > 0 then
    html[#html + 1] = "<table><tr><th class=\"l\">id</th><th class=\"l\">case</th><th>error</th><th class=\"l\">kind</th><th class=\"l\">result</th></tr>"
    md[#md + 1] = "| id | case | error | kind | result |\n| --- | --- | --- | --- | --- |"
    for _, c in ipairs(checks) do
      local e = c.err and fmt("%+.1f%%", c.err * 100) or "-"
      local kind, res = c.fit and "fit" or "prediction", c.pass and "pass" or "FAIL"
      html[#html + 1] = fmt("<tr><td class=\"l\">%s</td><td class=\"l\">%s</td><td>%s</td><td class=\"l\">%s</td><td class=\"l\">%s</td></tr>",
        esc(c.id), esc(c.name), esc(e), kind, res)
      md[#md + 1] = fmt("| %s | %s | %s | %s | %s |", md_esc(c.id), md_esc(c.name), e, kind, res)
    end
    html[#html + 1] = "</table>"
  end
  local vnote = "The models' validation against published figures: `podsim validate` (every case with its source, error and whether it was a fit; docs/validation.md)."
  html[#html + 1] = "<p>" .. esc(vnote) .. "</p>"
  md[#md + 1] = vnote .. "\n"
  html[#html + 1] = fmt("<script>window.addEventListener('load',function(){var im=document.images,ok=0;for(var i=0;i<im.length;i++){if(im[i].complete&&im[i].naturalWidth>0)ok++}document.body.setAttribute('data-images',ok+'/'+im.length)});</script>")
  html[#html + 1] = "</body></html>"
  local h = P.write_text("report.html", table.concat(html, "\n") .. "\n")
  local m = P.write_text("report.md", table.concat(md, "\n") .. "\n")
  print(h)
  print(m)
  print(fmt("%d studies, %d plots, %d warnings", #studies, nimg, #warnings))
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

if tool == "validate" then validate()
elseif tool == "presets" then presets()
elseif tool == "plot" then plot()
elseif tool == "eval" then eval_tool()
elseif tool == "calibrate" then calibrate()
elseif tool == "report" then report()
else P.fail(nil, nil, "unknown tool " .. tostring(tool)) end
