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

-- `podsim report DIR` (lua/lib/report.lua).
local report = assert(I._load(I._embedded("report"), "=[podsim] report.lua", _ENV))(I)

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
