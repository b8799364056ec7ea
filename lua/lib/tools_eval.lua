-- tools_eval.lua: `podsim eval` (one-line queries of the built-in
-- models) and `podsim calibrate` (a fit of collective parameters to
-- nccl-tests output), loaded by tools.lua with podsim's internals as the
-- chunk's argument.
local I = ...
local P = podsim
local fmt = string.format
local arg = P.options.tool_arg

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
-- op's factor; algo: what NCCL_ALGO forced).  '#' lines are comments.
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
    if line:match("^op,ranks,nodes,bytes,busbw_GBps") then csv_header = true
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

local function calibrate()
  local a = P.args
  if not a.system then P.fail(nil, nil, "calibrate: --system (the preset or spec to start from) is required") end
  local base = P.system{base = tostring(a.system)}
  local min_bytes = a.min_bytes and parse_size(a.min_bytes, "min-bytes") or 1024
  local rows, files = {}, {}
  for path in tostring(a.files):gmatch("[^\n]+") do
    files[#files + 1] = path
    for _, r in ipairs(read_nccl(path)) do
      if r.bytes >= min_bytes then rows[#rows + 1] = r end
    end
  end
  -- the parameters: given, or those the data can tell apart
  local params = {}
  if a.fit then
    for name in tostring(a.fit):gmatch("[^,%s]+") do params[#params + 1] = name end
  else
    local inside, across, reduce = false, false, false
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
  end
  local fit = I._calibrate(base, rows, params)
  local out, maxe = {}, 0
  for i, r in ipairs(rows) do
    local t = fit.pred_s[i]
    local factor = I._busbw_factor(r.op, r.ranks)
    maxe = math.max(maxe, math.abs(r.time_s / t - 1))
    out[i] = {file = r.file, op = r.op, ranks = r.ranks, nodes = r.nodes, size = P.fmt_bytes(r.bytes),
      measured_GBps = r.bytes * factor / r.time_s / 1e9, podsim_GBps = r.bytes * factor / t / 1e9,
      error = fmt("%+.1f%%", (r.time_s / t - 1) * 100)}
  end
  P.print_table({"file", "op", "ranks", "nodes", "size", "measured_GBps", "podsim_GBps", "error"}, out,
    {number_format = "%.2f"})
  print(fmt("\n%d rows, %d parameters, %d iterations%s: rms error %.1f%%, max %.1f%% (busbw)",
    #rows, #params, fit.iterations, fit.converged and "" or " (iteration cap)",
    fit.rms_rel * 100, maxe * 100))
  local prow = {}
  for i, k in ipairs(params) do prow[i] = {k, base[k], fit.system[k]} end
  P.print_table({"parameter", "preset", "fitted"}, prow, {number_format = "%.4g"})
  local name = a.name and tostring(a.name) or (base.name .. "_calibrated")
  local lines = {
    fmt("-- %s: %s calibrated by `podsim calibrate` (podsim %s)", name, base.name, P.version),
    "-- from nccl-tests output: " .. table.concat(files, ", "),
    fmt("-- fit: %d rows of at least %s, rms error %.1f%%, max %.1f%% of busbw;", #rows,
      P.fmt_bytes(min_bytes), fit.rms_rel * 100, maxe * 100),
    "-- the other fields are the preset's.  Load it in a scenario with",
    fmt("--   local sys = load(io.open(\"%s.lua\"):read(\"a\"), \"=%s.lua\")()", name, name),
    fmt("return podsim.system{base = %q, name = %q,", base.name, name)}
  for _, k in ipairs(params) do lines[#lines + 1] = fmt("  %s = %s,", k, P.num(fit.system[k])) end
  lines[#lines + 1] = "}"
  local target = a.out and tostring(a.out) or (name .. ".lua")
  local written = P.write_text(target, table.concat(lines, "\n") .. "\n")
  print("wrote " .. written)
end

return {eval = eval_tool, calibrate = calibrate}
