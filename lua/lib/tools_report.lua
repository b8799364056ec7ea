-- tools_report.lua: `podsim report DIR`, loaded by tools.lua with
-- podsim's internals as the chunk's argument.
local I = ...
local P = podsim
local fmt = string.format

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

return {report = report}
