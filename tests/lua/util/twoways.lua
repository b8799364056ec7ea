-- twoways.lua: run a study traced (compiled eval) and with trace = false
-- (Lua per sample) and check that every statistic is identical, bit for
-- bit (%a), at every grid point.  Loaded with dofile by the Lua tests.
local W = {}

local function bits(v)
  if type(v) ~= "number" then return tostring(v) end
  if v ~= v then return "nan" end
  return string.format("%a", v)
end

-- Compare two results tables; error naming the first difference.
function W.same(a, b, what)
  for m, per in pairs(a.stats) do
    for g, st in ipairs(per) do
      for k, v in pairs(st) do
        local w = b.stats[m][g][k]
        if bits(v) ~= bits(w) then
          error(string.format("%s: stats.%s[%d].%s differs: traced %s, Lua %s", what, m, g, k,
            bits(v), bits(w)), 2)
        end
      end
    end
  end
  for m, per in pairs(a.sens) do
    for g, ps in ipairs(per) do
      for p, sv in pairs(ps) do
        if bits(sv.spearman) ~= bits(b.sens[m][g][p].spearman) then
          error(string.format("%s: sens.%s[%d].%s differs", what, m, g, p), 2)
        end
      end
    end
  end
end

-- Build `spec` twice, run both, check; returns the traced results.
-- expect: "traced" (default) or "lua" (the trace must fall back).
function W.both(spec, what, expect)
  local a = podsim.study(spec)
  local s2 = {}
  for k, v in pairs(spec) do s2[k] = v end
  s2.trace = false
  local b = podsim.study(s2)
  local ra, rb = a:run(), b:run()
  if ra.evaluator ~= (expect or "traced") then
    error(string.format("%s: evaluator %s (%s), want %s", what, ra.evaluator,
      tostring(ra.trace_stop), expect or "traced"), 2)
  end
  if rb.evaluator ~= "lua" then error(what .. ": trace = false still traced", 2) end
  W.same(ra, rb, what)
  return ra
end

return W
