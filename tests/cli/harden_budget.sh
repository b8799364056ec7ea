# Budgets while a study runs (DESIGN.md 10): --timeout and --max-memory
# stop the study with a clear message and exit 1, and the results
# completed so far are still written and marked incomplete.  Also: the
# grace period a timed-out scenario gets to write, and podsim's own tables
# captured by eval crossing into worker states.
source "$(dirname "$0")/lib.bash"
set -e

# --- time budget: a long study is cut short; the scenario writes it ---
scenario slow.lua <<'LUA'
local s = podsim.study{name = "slow", samples = 1e8, chunk_size = 2000, seed = 2,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = 0 for i = 1, 200 do a = a + i * p.x end return {y = a} end}
local r = s:run()
podsim.write(r)
print("complete=" .. tostring(r.complete) .. " done=" .. r.samples_done)
LUA
run "$PODSIM" run "$OUT/slow.lua" --threads 2 --quiet --timeout 1 --out "$OUT/t"
expect_rc 1 "timeout during a study exits 1"
expect_err '^podsim: time budget of 1 s exceeded \(--timeout\)' "timeout explained"
expect_out 'complete=false done=[1-9]' "the study returned partial results"
grep -q '"complete": false' "$OUT/t/slow/meta.json" && ok || bad "meta.json marked incomplete (timeout)"
n=$(awk -F, 'NR == 2 {print $3}' "$OUT/t/slow/summary.csv" 2>/dev/null || echo 0)
[ "${n:-0}" -gt 0 ] && ok || bad "summary.csv holds the completed samples (timeout): n=$n"
find "$OUT/t" -name '*.tmp.*' | grep -q . && bad "temporary files left (timeout)" || ok

# --- memory budget in a worker: the study stops, chunks before the
# failing one are kept (the same for 1 and 2 threads) ---
scenario mem.lua <<'LUA'
local s = podsim.study{name = "mem", samples = 200000, chunk_size = 1000, seed = 1,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p)
    if p.x > 0.9999 then -- one sample in ten thousand allocates without end
      local t = {}
      for i = 1, math.huge do t[i] = ("x"):rep(64) .. i end
    end
    return {y = p.x}
  end}
local r = s:run()
podsim.write(r)
print("complete=" .. tostring(r.complete) .. " done=" .. r.samples_done)
LUA
for t in 1 2; do
  run "$PODSIM" run "$OUT/mem.lua" --threads $t --quiet --max-memory 64 --out "$OUT/m$t"
  expect_rc 1 "memory budget in a worker exits 1 ($t threads)"
  expect_err "mem\.lua:10: study 'mem' stopped: memory budget of 64 MB exceeded in a worker's Lua state \(--max-memory\) \((grid 0, )?sample [0-9]+: x=0\.9999" "memory budget explained, sample named ($t threads)"
  expect_out 'complete=false done=9000' "chunks before the failing one kept ($t threads)"
  grep -q '"complete": false' "$OUT/m$t/mem/meta.json" && ok || bad "meta.json marked incomplete (memory, $t threads)"
done
cmp -s "$OUT/m1/mem/summary.csv" "$OUT/m2/mem/summary.csv" && ok || bad "partial results differ across thread counts"
run "$PODSIM" run "$OUT/mem.lua" --threads 8 --quiet --max-memory 64 --out "$OUT/m8"
expect_err "sample 9456: x=0\.99999034" "the first failing sample in chunk order is named, whatever the threads"

# --- memory budget of the main state after a study: exit 1, located ---
scenario mainmem.lua <<'LUA'
local s = podsim.study{name = "ok", samples = 2000, params = {x = podsim.dist.uniform{0, 1}},
  metrics = {"y"}, eval = function(p) return {y = p.x} end}
podsim.write(s:run())
local t = {}
for i = 1, math.huge do t[i] = ("y"):rep(100) .. i end
LUA
run "$PODSIM" run "$OUT/mainmem.lua" --quiet --max-memory 64 --out "$OUT/mm"
expect_rc 1 "main-state memory budget exits 1"
expect_err 'mainmem\.lua:5: memory budget of 64 MB exceeded \(--max-memory\)' "located"
grep -q '"complete": true' "$OUT/mm/ok/meta.json" && ok || bad "the finished study's files stay"

# --- after a timeout the scenario gets a grace period to write, then an
# endless loop is stopped too ---
scenario grace.lua <<'LUA'
local s = podsim.study{name = "g", samples = 1e8, chunk_size = 2000,
  params = {x = podsim.dist.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) local a = 0 for i = 1, 200 do a = a + i * p.x end return {y = a} end}
podsim.write(s:run())
while true do end
LUA
start=$(date +%s)
run timeout 60 "$PODSIM" run "$OUT/grace.lua" --threads 2 --quiet --timeout 1 --out "$OUT/g"
took=$(( $(date +%s) - start ))
expect_rc 1 "a scenario looping after its grace is stopped"
[ "$took" -lt 30 ] && ok || bad "stopped within the grace period (took $took s)"
expect_err 'grace\.lua:5: time budget of 1 s exceeded' "the loop is located"
grep -q '"complete": false' "$OUT/g/g/meta.json" && ok || bad "results written during the grace period"

# --- a generous budget does not stop a busy scenario (the budget counted
# from the machine's boot, not the run's start) ---
scenario busy.lua <<'LUA'
local a = 0
for i = 1, 3e7 do a = a + i end
print(a)
LUA
run "$PODSIM" run "$OUT/busy.lua" --timeout 600 --out "$OUT/b"
expect_rc 0 "30M instructions under --timeout 600"
expect_out '^450000015000000$' "the scenario ran to its end"

# --- podsim's tables captured by eval cross into workers by name ---
scenario presets.lua <<'LUA'
local S, D = podsim.systems, podsim.dist
local s = podsim.study{samples = 500, params = {x = D.uniform{0, 1}}, metrics = {"y"},
  eval = function(p) return {y = S.hgx_h100.up_GBps * p.x + (D.normal and 0 or 1)} end}
local r = s:run()
assert(r.complete and r.stats.y[1].n == 500)
assert(not pcall(function() return podsim.models.no_such_model end))
LUA
run "$PODSIM" run "$OUT/presets.lua" --threads 2 --quiet --out "$OUT/p"
expect_rc 0 "preset tables and podsim.dist as eval upvalues"
finish
