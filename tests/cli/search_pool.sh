# podsim.search on the pool (lua/l_search_pool.c): from the scenario's main
# flow with --threads > 1 the layout search runs in parts while the
# scenario waits; the result is the same as in place (--threads 1, inside
# a coroutine, inside a study's evaluator), errors are the same, and
# SIGINT during a pooled search stops the run as it stops running Lua.
source "$(dirname "$0")/lib.bash"
set -e

scenario search.lua <<'LUA'
local function show(tag, r)
  print(string.format("%s n=%d candidates=%d checked=%d fitting=%d evaluated=%d",
    tag, #r, r.candidates, r.checked, r.fitting, r.evaluated))
  for i, it in ipairs(r) do
    print(string.format("%s %d tp%d pp%d vp%d dp%d ep%d etp%d cp%d mb%d z%d %s %.17g %.17g",
      tag, i, it.tp, it.pp, it.vp, it.dp, it.ep, it.etp, it.cp, it.microbatch,
      it.zero, tostring(it.recompute), it.tokens_per_s_per_gpu, it.memory_gb))
  end
end
local base = {system = "gb200_nvl72", model = "llama4_maverick", gpus = 256,
  seq = 8192, global_batch = 1024, dtype = "fp8", top = 12}
show("main", podsim.search(base))
-- inside pcall (still the main flow: pooled) and with an error
local ok, r = pcall(podsim.search, base)
show("pcall", r)
local bad = {}
for k, v in pairs(base) do bad[k] = v end
bad.max_pp = 0
print("error", pcall(podsim.search, bad))
-- a nested coroutine cannot wait: in place
local co = coroutine.wrap(function() return podsim.search(base) end)
show("coroutine", co())
-- nothing fits: the why and the warning
local none = podsim.search{system = "hgx_h100", model = "llama3_405b", gpus = 8,
  seq = 8192, global_batch = 8}
print("none", #none, none.why)
LUA
for t in 1 3; do
  run "$PODSIM" run "$OUT/search.lua" --threads $t --quiet --out "$OUT/o$t"
  expect_rc 0 "search at --threads $t"
  cp "$OUT/stdout" "$OUT/search.$t"
  cp "$OUT/stderr" "$OUT/search_err.$t"
done
cmp -s "$OUT/search.1" "$OUT/search.3" && ok || bad "--threads 1 and 3 print the same searches"
cmp -s "$OUT/search_err.1" "$OUT/search_err.3" && ok || bad "--threads 1 and 3 warn alike"
grep -q '^main n=12 candidates=[1-9]' "$OUT/search.3" && ok || bad "the pooled search found 12 layouts"
diff <(grep '^main [0-9]' "$OUT/search.3" | cut -d' ' -f2-) \
     <(grep '^coroutine [0-9]' "$OUT/search.3" | cut -d' ' -f2-) >/dev/null && ok || bad "pooled and in place agree"
grep -q '^error	false	.*max_pp' "$OUT/search.3" && ok || bad "a bad option fails the pooled search, located"
grep -q 'warning: podsim.search: no layout' "$OUT/search_err.3" && ok || bad "an empty search warns"

# --- SIGINT while the scenario waits for a pooled search ---
scenario long.lua <<'LUA'
for i = 1, 1000 do
  podsim.search{system = "hgx_h100", model = "deepseek_v3", gpus = 16384, seq = 4096,
    global_batch = 15360, dtype = "fp8", top = 1}
  print("search " .. i)
end
LUA
set +e
"$PODSIM" run "$OUT/long.lua" --threads 2 --out "$OUT/l" >"$OUT/stdout" 2>"$OUT/stderr" &
pid=$!
sleep 1.5
start=$(date +%s)
kill -INT "$pid"
wait "$pid"
RC=$?
took=$(( $(date +%s) - start ))
set -e
expect_rc 130 "SIGINT during a pooled search exits 130"
expect_err 'interrupted' "the scenario stopped as interrupted"
[ "$took" -lt 5 ] && ok || bad "stopped at once, not after the search (took $took s)"
grep -q 'search 1000' "$OUT/stdout" && bad "the loop did not go on" || ok
finish
