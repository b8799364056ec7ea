-- check_api.lua: podsim.check rows: pass, known miss (reported, not a
-- failure, and failing when it unexpectedly passes), the row fields and
-- the printed result column.
local ok, row = podsim.check{id = "A1", name = "inside", published = 100, value = 104,
  unit = "x", tol_rel = 0.05, fit = false}
assert(ok and row.pass and row.within and not row.known_miss)
assert(math.abs(row.err - 0.04) < 1e-12)
assert(podsim.check_result(row) == "pass")
assert(podsim.format_check(row):find("PASS$"))

-- A known miss: outside the tolerance, reported, the run goes on.
ok, row = podsim.check{id = "A2", name = "known low", published = 0.985, value = 0.995,
  unit = "ratio", range = {0.9775, 0.9925}, fit = false, known_miss = "a term is missing"}
assert(ok and row.pass and not row.within)
assert(row.known_miss == "a term is missing")
assert(podsim.check_result(row) == "known miss")
assert(podsim.format_check(row):find("KNOWN MISS$"))

-- The same row inside its range is an unexpected pass: an error.
local ok2, err = pcall(podsim.check, {id = "A3", name = "now inside", published = 0.985,
  value = 0.985, range = {0.9775, 0.9925}, fit = false, known_miss = "was low"})
assert(not ok2 and tostring(err):find("A3: unexpected pass of a known miss"), tostring(err))

-- tol_abs and a miss without known_miss.
ok2, err = pcall(podsim.check, {id = "A4", name = "abs", published = 10, value = 12,
  tol_abs = 1, fit = false})
assert(not ok2 and tostring(err):find("A4: outside tolerance"), tostring(err))
print("check_api: ok")
