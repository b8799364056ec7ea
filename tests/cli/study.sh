# CLI end-to-end tests of Monte Carlo studies: byte-identical results for
# 1, 2 and 8 threads, the stopping rule, SIGINT, errors inside eval,
# upvalues that cannot cross threads, output formats, concurrent studies.
source "$(dirname "$0")/lib.bash"
set -e

scenario det.lua <<'LUA'
local nvl, hgx = podsim.systems.gb200_nvl72, podsim.systems.hgx_h100
local scale = {up = 1.0}          -- a plain-data upvalue crosses into workers
local s = podsim.study{
  name = "lua_eval", samples = 30000, seed = 11, keep_samples = true,
  params = {
    up_eff = podsim.dist.uniform{0.70, 0.90},
    out_eff = podsim.dist.triangular{0.80, 0.92, 0.96},
    bytes = podsim.dist.loguniform{1 << 20, 1 << 32},
    kind = podsim.dist.choice{"a", "b"},
  },
  grid = {ranks = {16, 64}},
  eval = function(p)
    local a = podsim.collective(podsim.system{base = nvl, up_eff = p.up_eff * scale.up},
      "all_to_all", {ranks = p.ranks, bytes = p.bytes})
    local b = podsim.collective(podsim.system{base = hgx, out_eff = p.out_eff},
      "all_to_all", {ranks = p.ranks, bytes = p.bytes})
    return {ratio = b.time_s / a.time_s, is_a = p.kind == "a" and 1 or 0}
  end,
}
local k = podsim.study{
  name = "kernel_eval", samples = 50000, seed = 5, sensitivity = "sobol",
  params = {["system.up_eff"] = podsim.dist.uniform{0.7, 0.9},
            bytes = podsim.dist.loguniform{1 << 20, 1 << 30}},
  grid = {ranks = {16, 64}},
  eval = podsim.kernel.collective{system = "gb200_nvl72", op = "all_to_all", ranks = 8, bytes = 1},
}
local r = podsim.all{s:start(), k:start()}
podsim.write(r[1])
podsim.write(r[2])
assert(r[1].complete and r[2].complete)
assert(math.abs(r[1].stats.is_a[1].mean - 0.5) < 0.02, "choice labels reach eval")
LUA
for t in 1 2 8; do
  run "$PODSIM" run "$OUT/det.lua" --threads $t --quiet --out "$OUT/t$t"
  expect_rc 0 "study with $t threads"
done
for f in lua_eval/summary.csv lua_eval/sensitivity.csv lua_eval/hist_ratio.csv lua_eval/samples.csv \
         kernel_eval/summary.csv kernel_eval/sensitivity.csv kernel_eval/hist_time_s.csv; do
  cmp -s "$OUT/t1/$f" "$OUT/t2/$f" && cmp -s "$OUT/t1/$f" "$OUT/t8/$f" && ok || bad "$f differs across thread counts"
done
diff <(grep -v '"wall_s"\|"threads"' "$OUT/t1/lua_eval/meta.json") \
     <(grep -v '"wall_s"\|"threads"' "$OUT/t8/lua_eval/meta.json") >/dev/null && ok || bad "meta.json differs beyond timing"
grep -q '"scenario_sha256": "[0-9a-f]\{64\}"' "$OUT/t1/lua_eval/meta.json" && ok || bad "meta.json has the scenario's sha256"
[ "$(wc -l <"$OUT/t1/lua_eval/samples.csv")" -eq 60001 ] && ok || bad "samples.csv rows"
grep -q 'sobol_first' "$OUT/t1/kernel_eval/sensitivity.csv" && ok || bad "sobol columns"

# the stopping rule stops at the same chunk whatever the thread count
scenario stop.lua <<'LUA'
local s = podsim.study{name = "stop", samples = 10000000, seed = 3, chunk_size = 1000,
  params = {x = podsim.dist.normal{10, 1}},
  target = {metric = "y", rel_ci95 = 0.001},
  eval = function(p) return {y = p.x} end}
local r = s:run()
assert(r.stopped and r.complete, "stopped early")
assert(r.samples_done < 1000000, "stopped well before the budget")
print("n=" .. r.stats.y[1].n)
LUA
run "$PODSIM" run "$OUT/stop.lua" --threads 1 --quiet
expect_rc 0 "stopping rule"; n1=$STDOUT
run "$PODSIM" run "$OUT/stop.lua" --threads 2 --quiet
expect_rc 0 "stopping rule, 2 threads"
[ "$STDOUT" = "$n1" ] && ok || bad "stopping point differs: $n1 vs $STDOUT"

# an error inside eval names the scenario line and the sample's parameters
scenario evalerr.lua <<'LUA'
local s = podsim.study{name = "e", samples = 5000, seed = 1,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p)
    if p.x > 0.5 then error("x too large") end
    return {y = p.x}
  end}
s:run()
LUA
run "$PODSIM" run "$OUT/evalerr.lua" --threads 2
expect_rc 1 "error in eval"
expect_err 'evalerr.lua:4: x too large' "located in the scenario"
expect_err 'x=0\.[5-9]' "names the sample's parameters"

# an upvalue that cannot cross threads is named
scenario upval.lua <<'LUA'
local co = coroutine.create(function() end)
local s = podsim.study{name = "u", samples = 10, params = {x = 1},
  eval = function(p) return {y = p.x, z = co and 1 or 0} end, metrics = {"y", "z"}}
LUA
run "$PODSIM" run "$OUT/upval.lua"
expect_rc 1 "coroutine upvalue"
expect_err "upval.lua:2: podsim.study: eval: a coroutine \(at 'eval > upvalue 'co''\)" "names the upvalue"

# a bad distribution fails when the study is written, not mid-run
printf 'local d = podsim.dist.triangular{1, 5, 3}\n' >"$OUT/baddist.lua"
run "$PODSIM" run "$OUT/baddist.lua"
expect_rc 1 "bad distribution"; expect_err 'baddist.lua:1: podsim.dist.triangular: ' "located"

# formats on stdout
scenario fmt.lua <<'LUA'
podsim.study{name = "f", samples = 2000, params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) return {y = 2 * p.x} end}:run()
LUA
run "$PODSIM" run "$OUT/fmt.lua" --format csv
expect_rc 0 "csv"; expect_out '^study,metric,n,mean,sd' "csv header"; expect_out '^f,y,2000,' "csv row"
run "$PODSIM" run "$OUT/fmt.lua" --format json
expect_rc 0 "json"; expect_out '"complete": true' "json"
run "$PODSIM" run "$OUT/fmt.lua"
expect_rc 0 "table"; expect_out 'study f: 2000 samples' "table title"
run "$PODSIM" run "$OUT/fmt.lua" --samples 300 --format csv
expect_out '^f,y,300,' "--samples overrides"

# SIGINT: partial results written, marked incomplete, exit 130
scenario long.lua <<'LUA'
local s = podsim.study{name = "long", samples = 200000000, seed = 2, chunk_size = 10000,
  params = {x = podsim.dist.uniform{0, 1}},
  eval = function(p) local y = 0 for i = 1, 20 do y = y + math.sin(p.x * i) end return {y = y} end}
local r = s:run()
podsim.write(r)
print("written", r.complete)
LUA
set +e
"$PODSIM" run "$OUT/long.lua" --threads 2 --out "$OUT/long" >"$OUT/stdout" 2>"$OUT/stderr" &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
RC=$?
set -e
expect_rc 130 "SIGINT exits 130"
expect_out 'written.*false' "scenario continued and wrote partial results"
grep -q '"complete": false' "$OUT/long/long/meta.json" && ok || bad "meta.json marked incomplete"
[ "$(wc -l <"$OUT/long/long/summary.csv")" -ge 2 ] && ok || bad "summary.csv written"
find "$OUT/long" -name '*.tmp.*' | grep -q . && bad "temporary files left" || ok

finish
