# Format and statistics edge cases (issue: no lost or mixed results): CSV
# quotes a cell holding a carriage return, and a study whose metric sits
# near the double limit reports a finite mean and sd (the moment sums used
# to overflow to inf/nan for finite inputs).
source "$(dirname "$0")/lib.bash"
set -e

scenario cr.lua <<'LUA'
podsim.write_csv("cr.csv", {"a", "b"}, {{a = "one\rtwo", b = 1}})
LUA
run "$PODSIM" run "$OUT/cr.lua" --quiet --out "$OUT/cr"
expect_rc 0 "write_csv with a carriage return"
[ "$(sed -n 2p "$OUT/cr/cr.csv" | od -An -c | tr -s ' ')" = "$(printf '"one\rtwo",1\n' | od -An -c | tr -s ' ')" ] && ok ||
  bad "a cell with \\r is quoted: $(od -c "$OUT/cr/cr.csv" | head -3)"

scenario huge.lua <<'LUA'
local s = podsim.study{name = "huge", samples = 4000, seed = 5,
  params = {x = podsim.dist.uniform{1, 2}}, metrics = {"y"},
  eval = function(p) return {y = p.x * 1e306} end}
local r = s:run()
podsim.write(r)
local st = r.stats.y[1]
print(("mean=%.6e sd=%.6e"):format(st.mean, st.sd))
LUA
run "$PODSIM" run "$OUT/huge.lua" --quiet --out "$OUT/h"
expect_rc 0 "a study of values near the double limit"
# uniform{1, 2} * 1e306: mean 1.5e306, sd 1e306/sqrt(12) = 2.887e305
expect_out '^mean=1\.(49|50)[0-9]*e\+306 sd=2\.(8[5-9]|9[0-2])[0-9]*e\+305$' "mean and sd finite and right"

# --- the budget-guarded pcall and string functions still cross into
# worker states when eval captures them ---
scenario cross.lua <<'LUA'
local pcall, find = pcall, string.find
local s = podsim.study{name = "c", samples = 1000, seed = 1, params = {x = podsim.dist.uniform{0, 1}},
  metrics = {"y"}, eval = function(p)
    local ok, v = pcall(function() return find("abc", "b") end)
    return {y = ok and v or -1}
  end}
print("mean=" .. s:run().stats.y[1].mean)
LUA
run "$PODSIM" run "$OUT/cross.lua" --quiet --threads 2 --out "$OUT/x"
expect_rc 0 "eval capturing pcall and string.find"
expect_out '^mean=2(\.0)?$' "they work in the worker"

# --- the budget-checked pattern functions name bad arguments as before ---
scenario args.lua <<'LUA'
print(select(2, pcall(string.find, "x", {})))
print(select(2, pcall(string.gsub, "x", "x", true)))
print(select(2, pcall(function() return ("x"):match() end)))
LUA
run "$PODSIM" run "$OUT/args.lua" --quiet --out "$OUT/a"
expect_out "^bad argument #2 to 'string\.find' \(string expected, got table\)$" "find's bad argument named"
expect_out "^bad argument #3 to 'string\.gsub' \(string/function/table expected, got boolean\)$" "gsub's"
expect_out "args\.lua:3: bad argument #1 to 'match' \(string expected, got no value\)$" "a method call's"
finish
