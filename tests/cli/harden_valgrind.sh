# valgrind memcheck of a short scenario (the flagship all-to-all scenario,
# one thread): no invalid reads or writes, no uses of uninitialised
# values, no definitely or indirectly lost memory, and every libuv handle
# and Lua state freed at exit.  Skipped (passes with a message) when
# valgrind is not installed.
source "$(dirname "$0")/lib.bash"
set -e
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not installed: skipped (apt-get install valgrind)"
  finish
  exit 0
fi
if ldd "$PODSIM" 2>/dev/null | grep -q 'lib[at]san'; then
  echo "podsim is built with a sanitizer (ASan/TSan cannot run under valgrind): skipped"
  finish
  exit 0
fi
log=$OUT/memcheck.log
run valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
  --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
  --track-origins=yes --log-file="$log" \
  "$PODSIM" run "$SRC/scenarios/alltoall_64gpu.lua" --threads 1 --quiet --out "$OUT/a2a"
expect_rc 0 "memcheck finds nothing (see $log)"
grep -q 'ERROR SUMMARY: 0 errors' "$log" && ok || bad "memcheck errors: $(grep 'ERROR SUMMARY' "$log")"
grep -q 'definitely lost: 0 bytes\|All heap blocks were freed' "$log" && ok || bad "definite leaks: $(grep 'definitely lost' "$log")"
grep -q 'indirectly lost: 0 bytes\|All heap blocks were freed' "$log" && ok || bad "indirect leaks"
# and a small Monte Carlo study with Lua evaluators on two worker threads
scenario mc.lua <<'LUA'
local s = podsim.study{name = "mc", samples = 2000, seed = 3, keep_samples = true,
  params = {x = podsim.dist.uniform{0, 1}, k = podsim.dist.choice{"a", "b"}},
  grid = {n = {8, 64}},
  eval = function(p) return {y = p.x * p.n + (p.k == "a" and 1 or 0)} end}
local r = s:run()
podsim.write(r)
local k = podsim.study{name = "k", samples = 2000, sensitivity = "sobol",
  params = {["system.up_eff"] = podsim.dist.uniform{0.7, 0.9}, bytes = podsim.dist.loguniform{1e3, 1e9}},
  eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 64, bytes = 1}}
podsim.write(k:run())
LUA
run valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
  --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect \
  --log-file="$OUT/memcheck-mc.log" "$PODSIM" run "$OUT/mc.lua" --threads 2 --quiet --out "$OUT/mc"
expect_rc 0 "memcheck of a study on worker threads (see $OUT/memcheck-mc.log)"
grep -q 'ERROR SUMMARY: 0 errors' "$OUT/memcheck-mc.log" && ok || bad "memcheck errors (study): $(grep 'ERROR SUMMARY' "$OUT/memcheck-mc.log")"
finish
